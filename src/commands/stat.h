/* SPDX-License-Identifier: GPL-3.0-or-later */
/* stat.h: `destor stat` (legacy `destor -s`): what the store holds, per job
 * and in total, as text or JSON. Read-only; runs beside a backup. */
#ifndef DESTOR_STAT_H
#define DESTOR_STAT_H

#include "config/config.h"

#include <glib.h>

gboolean stat_run(const Config *cfg, gboolean json, GError **err);

/* `destor list JOB`: one line per entry, "TYPE<TAB>SIZE<TAB>PATH" (TYPE is
 * f, d or l), or NUL-terminated records with `null_terminated`, or one
 * JSON document (kind destor.list) with `json`. */
gboolean list_run(const Config *cfg, uint32_t job_id, gboolean null_terminated, gboolean json, GError **err);

#endif
