/* SPDX-License-Identifier: GPL-3.0-or-later */
/* restore.h: `destor restore JOB TARGET`: recreate a job's tree under
 * TARGET byte for byte, with modes and mtimes, never writing outside it. */
#ifndef DESTOR_RESTORE_H
#define DESTOR_RESTORE_H

#include "config/config.h"

#include <glib.h>

/* Every file is checked against its record's digest when the store's digest
 * is checked by default (file_digest_checked_by_default) or with `verify`;
 * a mismatch stops the restore with an INTEGRITY error, the file not put
 * in place. */
gboolean restore_run(const Config *cfg, uint32_t job_id, const char *target, gboolean verify, gboolean json,
                     GError **err);

#endif
