/* SPDX-License-Identifier: GPL-3.0-or-later */
/* rewrite_config.h: upstream Destor's rewrite-* keys (rewriting duplicate
 * chunks during backup against fragmentation), their defaults (Destor's)
 * and their parsing, apart from config.c so the rewrite keys stay in one
 * place. What each algorithm does is src/backup/rewrite_policy.h. */
#ifndef DESTOR_REWRITE_CONFIG_H
#define DESTOR_REWRITE_CONFIG_H

#include <glib.h>

typedef enum {
    REWRITE_NO,
    REWRITE_CFL,     /* CFL-based selective deduplication (Nam et al.) */
    REWRITE_CBR,     /* context-based rewriting (Kaczmarczyk et al.) */
    REWRITE_CAPPING, /* capping (Lillibridge et al., FAST'13) */
} RewriteAlgorithm;

#define REWRITE_BUFFER_MAX (1u << 20) /* chunks */

typedef struct {
    RewriteAlgorithm algorithm;
    unsigned buffer_chunks;       /* rewrite-algorithm's optional count: the rewrite buffer (segment) */
    unsigned capping_level;       /* containers a segment may reference */
    double cfl_require;           /* CFL below which CFL rewrites (and the switch turns rewriting on) */
    double cfl_usage_threshold;   /* a container's share of the buffer below which CFL rewrites its chunks */
    gboolean cfl_switch;          /* rewrite only while the job's CFL is below cfl_require */
    double cbr_limit;             /* share of the job's bytes CBR may rewrite */
    double cbr_minimal_utility;   /* rewrite utility from which CBR rewrites */
    gboolean har;                 /* history-aware rewriting */
    double har_utilization_threshold; /* a container used less than this by the last job is sparse */
    double har_rewrite_limit;     /* share of the last job's bytes HAR may plan to rewrite */
    gboolean cache_aware;         /* the cache-aware filter: keep a duplicate whose container the
                                     restore cache would hold at that point anyway */
} RewriteConfig;

void rewrite_config_init(RewriteConfig *rc);
/* Is key one of the keys rewrite_config_set takes? */
gboolean rewrite_config_is_key(const char *key);
/* Apply one key's values; a bad form or value is a DESTOR_ERROR_CONFIG
 * naming key and value. */
gboolean rewrite_config_set(RewriteConfig *rc, const char *key, char **vals, guint nvals, GError **err);
/* Append every key (for "did you mean"). */
void rewrite_config_keys(GPtrArray *out);
/* Does any rewriting happen (an algorithm, or HAR)? */
gboolean rewrite_config_active(const RewriteConfig *rc);
/* The algorithm's short name (no, cfl, cbr, capping). */
const char *rewrite_algorithm_name(RewriteAlgorithm a);

#endif
