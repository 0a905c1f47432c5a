/* SPDX-License-Identifier: GPL-3.0-or-later */
/* segments_file.h: the SiLo design's table saved beside the DB
 * (index/segments): each segment of earlier backups as the containers its
 * chunks were found or stored in, and each segment's features (sampled
 * fingerprints) naming the newest segment that had them. Derived data: a
 * missing, stale or damaged file is started again from the containers,
 * each container a segment of its own (docs/FORMAT.md). */
#ifndef DESTOR_SEGMENTS_FILE_H
#define DESTOR_SEGMENTS_FILE_H

#include "index/fp_table.h"
#include "index/samples_file.h"

/* segments: GPtrArray of GArray (ContainerId), by segment id; features:
 * fingerprint -> segment id (in the location's container field). */
gboolean segments_file_save(const char *path, const SamplesStamp *stamp, const GPtrArray *segments,
                            const FpTable *features, GError **err);
/* As samples_file_load: fills segments and features only from a sound file
 * with exactly this stamp. */
void segments_file_load(const char *path, const SamplesStamp *stamp, GPtrArray *segments, FpTable *features,
                        gboolean *loaded, char **why);

#endif
