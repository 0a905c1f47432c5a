/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fragmentation.h: a job's chunk fragmentation level as a restore sees it:
 * the containers a restore with an LRU restore cache of N containers reads,
 * per MiB restored, counted from the job's recipes in record order (the
 * order restore reads them) while the job is written. */
#ifndef DESTOR_FRAGMENTATION_H
#define DESTOR_FRAGMENTATION_H

#include "recipe/file_record.h"

#include <glib.h>
#include <stdint.h>

typedef struct FragmentationMeter FragmentationMeter;

FragmentationMeter *fragmentation_meter_new(unsigned cache_containers);
void fragmentation_meter_free(FragmentationMeter *m);
/* Count the container reads one recorded entry's chunks cause. */
void fragmentation_meter_add_file(FragmentationMeter *m, const FileRecord *r);
/* One chunk of `length` bytes read from `container`: TRUE if the container
 * was in the cache (no read). */
gboolean fragmentation_meter_touch(FragmentationMeter *m, ContainerId container, uint32_t length);
/* Is `container` in the cache now (nothing changes)? */
gboolean fragmentation_meter_holds(const FragmentationMeter *m, ContainerId container);
uint64_t fragmentation_meter_reads(const FragmentationMeter *m);
/* Containers read per MiB restored; 0 for a job without bytes. */
double fragmentation_meter_per_mib(const FragmentationMeter *m);

#endif
