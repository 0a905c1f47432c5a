/* SPDX-License-Identifier: GPL-3.0-or-later */
/* policy_list.h: `destor policies [--json]`, every registered policy with
 * its description, citation, online/offline, and its keys with defaults. */
#ifndef DESTOR_CACHE_POLICY_LIST_H
#define DESTOR_CACHE_POLICY_LIST_H

#include <glib.h>
#include <stdio.h>

/* Write the list to fp; FALSE with an IO error when the output fails. */
gboolean cache_policies_print(gboolean json, FILE *fp, GError **err);

#endif
