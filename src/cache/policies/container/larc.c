/* SPDX-License-Identifier: GPL-3.0-or-later */
/* larc.c: LARC, Lazy Adaptive Replacement Cache (Huang, Zhang, Li, Zhang,
 * Feng; MSST 2013 and ACM TOS 2016), an admission policy for SSD caches: a
 * container is written into the SSD only on its second miss while its id is
 * remembered, so one-time accesses cost no SSD write.
 *
 * The cache Q is LRU. A ghost LRU list Qr (ids only) holds candidates; its
 * size Cr adapts between 0.1 C and 0.9 C:
 *   hit:   Cr = max(0.1 C, Cr - C / (C - Cr)); move to Q's most recent end.
 *   miss:  Cr = min(0.9 C, Cr + C / Cr);
 *          id in Qr: take it out and admit it (evicting Q's least recent
 *                    when full; the victim is forgotten, not a candidate);
 *          else:     refused; the id becomes Qr's newest, and Qr drops its
 *                    oldest ids beyond Cr.
 * Cr starts at 0.1 C.
 *
 * Choices the papers leave open (docs/CACHE.md):
 *  - Cr is a double and Qr keeps at most max(1, floor(Cr)) ids, so that a
 *    tiny cache (C < 10, where 0.9 C < 1) still admits anything; Qr is trimmed
 *    only when an id is added (lazily: a hit lowers Cr but drops nothing).
 *  - Cr's bounds and start (0.1 C, 0.9 C) are the papers' (constants).
 *
 * Counters: refused_not_candidate (misses refused, their id now in Qr),
 * ghost_hits (misses found in Qr, admitted). Saved state, version 1:
 * capacity u32, Cr (IEEE double bits, u64), Q (length u32, slots u32 least
 * recent first), Qr (length u32, ids u32 oldest first). */
#include "cache/policy/policy.h"
#include "cache/structures/ghost_list.h"
#include "cache/structures/slot_queues.h"

#include <string.h>

#define LARC_CR_MIN_SHARE 0.1
#define LARC_CR_MAX_SHARE 0.9

enum { REFUSED, GHOST_HITS, N_COUNTERS };

typedef struct {
    const CachePolicyEnv *env;
    SlotQueues q;   /* one LRU queue, least recent at the head */
    GhostList qr;
    double c, cr;
} Larc;

static void *larc_create(const CachePolicyEnv *env)
{
    Larc *l = g_new0(Larc, 1);
    l->env = env;
    l->c = env->capacity;
    l->cr = LARC_CR_MIN_SHARE * l->c;
    slot_queues_init(&l->q, env->capacity);
    uint32_t qr_max = (uint32_t)(LARC_CR_MAX_SHARE * l->c);
    ghost_list_init(&l->qr, qr_max ? qr_max : 1);
    return l;
}

static void larc_destroy(void *st)
{
    Larc *l = st;
    slot_queues_free(&l->q);
    ghost_list_free(&l->qr);
    g_free(l);
}

static void larc_hit(void *st, CacheSlot slot)
{
    Larc *l = st;
    double cr = l->cr - l->c / (l->c - l->cr);
    l->cr = cr > LARC_CR_MIN_SHARE * l->c ? cr : LARC_CR_MIN_SHARE * l->c;
    slot_queues_move_to_tail(&l->q, 0, slot);
}

static CacheDecision larc_admit(void *st, ContainerId id, gboolean full, CacheSlot *victim)
{
    Larc *l = st;
    double cr = l->cr + l->c / l->cr;
    l->cr = cr < LARC_CR_MAX_SHARE * l->c ? cr : LARC_CR_MAX_SHARE * l->c;
    if (!ghost_list_remove(&l->qr, id)) {
        uint32_t keep = (uint32_t)l->cr;
        ghost_list_push(&l->qr, id);
        ghost_list_trim(&l->qr, keep ? keep : 1);
        l->env->counters[REFUSED]++;
        return CACHE_REFUSE;
    }
    l->env->counters[GHOST_HITS]++;
    if (!full)
        return CACHE_ADMIT_FREE;
    *victim = l->q.head[0];
    return CACHE_ADMIT_REPLACE;
}

static void larc_inserted(void *st, CacheSlot slot)
{
    slot_queues_append(&((Larc *)st)->q, 0, slot);
}

static void larc_removed(void *st, CacheSlot slot)
{
    slot_queues_unlink(&((Larc *)st)->q, slot);
}

static void larc_save_state(void *st, GByteArray *out)
{
    Larc *l = st;
    guint at = out->len;
    uint64_t bits;
    memcpy(&bits, &l->cr, sizeof bits);
    g_byte_array_set_size(out, at + 12);
    le32_put(out->data + at, l->env->capacity);
    le64_put(out->data + at + 4, bits);
    slot_queues_save(&l->q, 1, out);
    ghost_list_save(&l->qr, 1, out);
}

static gboolean larc_load_state(void *st, const uint8_t *blob, size_t len)
{
    Larc *l = st;
    size_t at = 12;
    if (len < 12 || le32_get(blob) != l->env->capacity)
        return FALSE;
    uint64_t bits = le64_get(blob + 4);
    double cr;
    memcpy(&cr, &bits, sizeof cr);
    if (!(cr >= LARC_CR_MIN_SHARE * l->c && cr <= LARC_CR_MAX_SHARE * l->c) ||
        !slot_queues_load(&l->q, 1, l->env, blob, len, &at) || !ghost_list_load(&l->qr, 1, blob, len, &at) ||
        at != len)
        return FALSE;
    l->cr = cr;
    slot_queues_adopt(&l->q, 0, l->env);
    return TRUE;
}

static size_t larc_memory(const void *st)
{
    const Larc *l = st;
    return sizeof *l + l->env->capacity * SLOT_QUEUES_BYTES_PER_SLOT + GHOST_LIST_BYTES(l->qr.max);
}

static const CachePolicyCounter larc_counters[N_COUNTERS] = {
    [REFUSED] = { "refused_not_candidate", "refused: first miss, id now in Qr", NULL },
    [GHOST_HITS] = { "ghost_hits", "misses found in Qr (admitted)", NULL },
};

const CachePolicyOps cache_policy_larc = {
    .name = "larc",
    .description = "LARC: admit a miss only if its id is in the ghost LRU Qr, whose size adapts",
    .citation = "Huang, Zhang, Li, Zhang, Feng: LARC, MSST 2013 / ACM TOS 2016",
    .offline = FALSE,
    .counters = larc_counters,
    .n_counters = N_COUNTERS,
    .reset_access_on_evict = FALSE,
    .create = larc_create,
    .destroy = larc_destroy,
    .hit = larc_hit,
    .admit = larc_admit,
    .inserted = larc_inserted,
    .removed = larc_removed,
    .state_version = 1,
    .save_state = larc_save_state,
    .load_state = larc_load_state,
    /* the LRU links, and Qr's up to 0.9 C ids */
    .bytes_per_slot = SLOT_QUEUES_BYTES_PER_SLOT + (3 + 4) * sizeof(uint32_t),
    .memory = larc_memory,
};
