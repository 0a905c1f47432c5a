/* SPDX-License-Identifier: GPL-3.0-or-later */
/* restore.h: `destor restore JOB TARGET`: recreate a job's tree under
 * TARGET byte for byte, with modes and mtimes, never writing outside it. */
#ifndef DESTOR_RESTORE_H
#define DESTOR_RESTORE_H

#include "config/config.h"

#include <glib.h>

gboolean restore_run(const Config *cfg, uint32_t job_id, const char *target, gboolean json, GError **err);

#endif
