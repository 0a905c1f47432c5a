/* SPDX-License-Identifier: GPL-3.0-or-later */
/* verify.h: `destor verify [JOB] [--deep] [--json]`: check, without
 * changing anything, that every job's manifest, records and recipe index are
 * well formed and agree, that every chunk a recipe names is in the container
 * it says, and (--deep) that chunk bytes match their fingerprints and files
 * their digest. Each problem is reported with job, path, container and
 * offset; any problem makes the command fail with an INTEGRITY error. */
#ifndef DESTOR_VERIFY_H
#define DESTOR_VERIFY_H

#include "config/config.h"

#include <glib.h>
#include <stdint.h>

/* job < 0: every committed job (and the reference counts across them). */
gboolean verify_run(const Config *cfg, int64_t job, gboolean deep, gboolean json, GError **err);

#endif
