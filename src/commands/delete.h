/* SPDX-License-Identifier: GPL-3.0-or-later */
/* delete.h: `destor delete JOB...`: the command over lifecycle_delete
 * (src/lifecycle/job_delete.h), under the writer lock. */
#ifndef DESTOR_DELETE_H
#define DESTOR_DELETE_H

#include "config/config.h"

#include <glib.h>
#include <stdint.h>

/* Prints one line a job, or with `json` one destor.delete document. */
gboolean delete_run(const Config *cfg, const uint32_t *ids, guint n, gboolean json, GError **err);

#endif
