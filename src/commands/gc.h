/* SPDX-License-Identifier: GPL-3.0-or-later */
/* gc.h: `destor gc`: the command over lifecycle_gc (src/lifecycle/gc.h),
 * under the writer lock, with a progress line on a terminal. */
#ifndef DESTOR_GC_COMMAND_H
#define DESTOR_GC_COMMAND_H

#include "config/config.h"

#include <glib.h>

/* Prints what was read, freed and reclaimed, or with `json` one destor.gc
 * document. */
gboolean gc_run(const Config *cfg, gboolean json, GError **err);

#endif
