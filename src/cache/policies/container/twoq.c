/* SPDX-License-Identifier: GPL-3.0-or-later */
/* twoq.c: 2Q, the full version (Johnson & Shasha, VLDB 1994). Every miss
 * is admitted. Three lists:
 *   A1in  FIFO of containers seen once recently (cached), at most Kin;
 *   A1out ghost FIFO of ids evicted from A1in (no data), at most Kout;
 *   Am    LRU of containers that came back while their id was in A1out.
 * hit in Am:   move to Am's most recent end.    hit in A1in: nothing.
 * miss:        found in A1out -> enters Am; else -> enters A1in.
 * full:        |A1in| > Kin -> evict A1in's oldest, its id enters A1out
 *              (A1out drops its oldest beyond Kout);
 *              else -> evict Am's least recent (no ghost for it).
 *
 * Choices the paper leaves open (docs/CACHE.md):
 *  - Kin = floor(2q-kin x C) and Kout = floor(2q-kout x C), by default the
 *    paper's recommended 25% and 50%.
 *  - A ghost hit takes the id out of A1out before the victim is chosen, so
 *    an id is never both cached and in A1out.
 *  - If Am is empty when A1in is within Kin (possible only while Kin >= C),
 *    A1in's oldest is evicted.
 *
 * Counter: ghost_hits (misses found in A1out). Saved state, version 1:
 * capacity u32, A1in and Am (each: length u32, slots u32 oldest first),
 * A1out (length u32, ids u32 oldest first). */
#include "cache/policy/policy.h"
#include "cache/structures/ghost_list.h"
#include "cache/structures/slot_queues.h"

enum { A1IN, AM };
enum { KEY_KIN, KEY_KOUT, N_KEYS };
enum { GHOST_HITS, N_COUNTERS };

typedef struct {
    const CachePolicyEnv *env;
    SlotQueues q;     /* A1in (FIFO) and Am (LRU) */
    GhostList a1out;
    uint32_t kin;
    uint8_t pending;  /* where the container being admitted goes */
} TwoQ;

static void *twoq_create(const CachePolicyEnv *env)
{
    TwoQ *t = g_new0(TwoQ, 1);
    t->env = env;
    slot_queues_init(&t->q, env->capacity);
    t->kin = (uint32_t)(env->values[KEY_KIN].number * env->capacity);
    ghost_list_init(&t->a1out, (uint32_t)(env->values[KEY_KOUT].number * env->capacity));
    t->pending = A1IN;
    return t;
}

static void twoq_destroy(void *st)
{
    TwoQ *t = st;
    slot_queues_free(&t->q);
    ghost_list_free(&t->a1out);
    g_free(t);
}

static void twoq_hit(void *st, CacheSlot slot)
{
    TwoQ *t = st;
    if (t->q.queue[slot] == AM)
        slot_queues_move_to_tail(&t->q, AM, slot);
}

static CacheDecision twoq_admit(void *st, ContainerId id, gboolean full, CacheSlot *victim)
{
    TwoQ *t = st;
    t->pending = ghost_list_remove(&t->a1out, id) ? AM : A1IN;
    if (t->pending == AM)
        t->env->counters[GHOST_HITS]++;
    if (!full)
        return CACHE_ADMIT_FREE;
    if (t->q.len[A1IN] > t->kin || t->q.len[AM] == 0) {
        *victim = t->q.head[A1IN];
        ghost_list_push(&t->a1out, t->env->slot_id[*victim]);
    } else {
        *victim = t->q.head[AM];
    }
    return CACHE_ADMIT_REPLACE;
}

static void twoq_inserted(void *st, CacheSlot slot)
{
    TwoQ *t = st;
    slot_queues_append(&t->q, t->pending, slot);
    t->pending = A1IN;
}

static void twoq_removed(void *st, CacheSlot slot)
{
    slot_queues_unlink(&((TwoQ *)st)->q, slot);
}

static void twoq_save_state(void *st, GByteArray *out)
{
    TwoQ *t = st;
    guint at = out->len;
    g_byte_array_set_size(out, at + 4);
    le32_put(out->data + at, t->env->capacity);
    slot_queues_save(&t->q, 2, out);
    ghost_list_save(&t->a1out, 1, out);
}

static gboolean twoq_load_state(void *st, const uint8_t *blob, size_t len)
{
    TwoQ *t = st;
    size_t at = 4;
    if (len < 4 || le32_get(blob) != t->env->capacity || !slot_queues_load(&t->q, 2, t->env, blob, len, &at) ||
        !ghost_list_load(&t->a1out, 1, blob, len, &at) || at != len)
        return FALSE;
    slot_queues_adopt(&t->q, A1IN, t->env);
    return TRUE;
}

static size_t twoq_memory(const void *st)
{
    const TwoQ *t = st;
    return sizeof *t + t->env->capacity * SLOT_QUEUES_BYTES_PER_SLOT + GHOST_LIST_BYTES(t->a1out.max);
}

static const CachePolicyKey twoq_keys[N_KEYS] = {
    [KEY_KIN] = { "2q-kin", CACHE_KEY_REAL, 0.0, 1.0, NULL, "0.25",
                  "Kin: A1in's share of the cache (rounded down); beyond it A1in gives the victim" },
    [KEY_KOUT] = { "2q-kout", CACHE_KEY_REAL, 0.0, 4.0, NULL, "0.5",
                   "Kout: ids A1out remembers, as a share of the cache (rounded down)" },
};

static const CachePolicyCounter twoq_counters[N_COUNTERS] = {
    [GHOST_HITS] = { "ghost_hits", "misses found in A1out (into Am)", NULL },
};

const CachePolicyOps cache_policy_2q = {
    .name = "2q",
    .description = "2Q: A1in FIFO, A1out ghost ids, Am LRU; a miss found in A1out enters Am",
    .citation = "Johnson & Shasha, 2Q, VLDB 1994",
    .offline = FALSE,
    .keys = twoq_keys,
    .n_keys = N_KEYS,
    .counters = twoq_counters,
    .n_counters = N_COUNTERS,
    .reset_access_on_evict = FALSE,
    .create = twoq_create,
    .destroy = twoq_destroy,
    .hit = twoq_hit,
    .admit = twoq_admit,
    .inserted = twoq_inserted,
    .removed = twoq_removed,
    .state_version = 1,
    .save_state = twoq_save_state,
    .load_state = twoq_load_state,
    .bytes_per_slot = SLOT_QUEUES_BYTES_PER_SLOT + 4 * sizeof(uint32_t),
    .memory = twoq_memory,
};
