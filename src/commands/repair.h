/* SPDX-License-Identifier: GPL-3.0-or-later */
/* repair.h: `destor repair`: rebuild, under the writer lock, every
 * structure that is derived from others and can be made again exactly:
 * the fingerprint index (from the containers' metadata sections), each
 * job's recipe offset index (from its job_meta_data) and each job's
 * reference counts (from the records of that job and the jobs before it).
 * Containers, job_meta_data, manifests and store.meta are primary data:
 * repair never writes them; when one it needs is damaged it leaves what
 * depends on it as it was and fails with an INTEGRITY error. */
#ifndef DESTOR_REPAIR_H
#define DESTOR_REPAIR_H

#include "config/config.h"

#include <glib.h>

/* Prints what was rebuilt: text, or with `json` one destor.repair document. */
gboolean repair_run(const Config *cfg, gboolean json, GError **err);

#endif
