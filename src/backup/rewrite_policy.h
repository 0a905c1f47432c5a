/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rewrite_policy.h: which duplicate chunks of one segment (the rewrite
 * buffer) a backup writes again, by capping, CFL, CBR and HAR
 * (rewrite_config.h). Pure decisions over the segment's chunks and the
 * job's running totals, with no I/O, so each rule is unit-tested alone;
 * rewrite_stage.c buffers the chunks and carries the decisions out. */
#ifndef DESTOR_REWRITE_POLICY_H
#define DESTOR_REWRITE_POLICY_H

#include "backup/fragmentation.h"
#include "config/rewrite_config.h"
#include "storage/container_source.h"

#include <glib.h>
#include <stdint.h>

#define REWRITE_NOT_STORED UINT32_MAX /* an item with no stored copy to keep or leave */

typedef struct {
    ContainerId container; /* the stored copy's container, or REWRITE_NOT_STORED
                              (a new chunk, or a repeat of an earlier item of the segment) */
    uint32_t length;
    gboolean repeat;       /* placed already (a repeat of an earlier item of the segment, or in the
                              job's own containers): never rewritten, counted in bytes only */
    gboolean rewrite;      /* out: write the chunk again */
} RewriteItem;

typedef struct {
    const RewriteConfig *cfg;
    size_t container_size;
    GHashTable *har_sparse;   /* ContainerId -> 1: the containers HAR rewrites (NULL: none) */
    GHashTable *referenced;   /* old containers the job has kept references to */
    uint64_t bytes;           /* the job's chunk bytes decided so far */
    uint64_t stored_bytes;    /* of them, written (new or rewritten) */
    uint64_t rewritten_bytes; /* of them, rewritten */
    FragmentationMeter *restore_cache; /* rewrite-enable-cache-aware: the restore cache over
                                          the decided stream (NULL: off) */
} RewritePolicy;

/* har_sparse is taken (may be NULL); restore_cache_containers sizes the
 * cache-aware filter's model of the restore cache. */
void rewrite_policy_init(RewritePolicy *p, const RewriteConfig *cfg, size_t container_size, GHashTable *har_sparse,
                         unsigned restore_cache_containers);
void rewrite_policy_clear(RewritePolicy *p);
/* Decide items[0..n) (one segment, in stream order) and add them to the
 * job's totals. Only items with a stored copy are ever rewritten. */
void rewrite_policy_decide(RewritePolicy *p, RewriteItem *items, guint n);
/* The job's chunk fragmentation level so far (Nam et al.): the containers
 * its bytes would fill over the containers it references (old ones kept,
 * and its own new ones), at most 1; 1 for an empty job. */
double rewrite_policy_cfl(const RewritePolicy *p);

#endif
