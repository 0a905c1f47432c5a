/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sigpop.c: sigpop, "significance-tested popularity admission", a policy of
 * our own, after PLC-Cache's Popularity Filter and In-Out Comparison (Liu,
 * Chai, Qin, Xiao; MSST 2014), TinyLFU's frequency-compared admission aged
 * by halving (Einziger, Friedman & Manes; ACM TOS 2017) and a two-sample
 * test of Poisson counts. It aims at PLC's few SSD writes with the hits of
 * a frequency-ordered cache: a miss replaces the least frequent cached
 * container only when it is more frequent by more than chance explains.
 *
 *   f(x)   the access count of every container of the store (not only
 *          cached ones), the core's (`cache-counters`, access_counts.h): +1
 *          on every access, hit or miss. sigpop asks the core to age them:
 *          when the accesses since the last aging reach W, every f is
 *          halved (rounded down). W = floor(sigpop-age-window x
 *          n_containers), at least 1; sigpop-age-window 0: never.
 *   victim the cached container with the lowest f; among equal f the one
 *          admitted earlier (an insertion number per slot).
 *   miss x a = f(x), this access counted (and an aging it triggered done):
 *          a < sigpop-min-count         -> refused (refused_cold)
 *          a free slot                  -> admitted into it
 *          else b = f(victim):
 *          a - b > z sqrt(a + b)        -> replaces the victim
 *          otherwise                    -> refused (refused_not_significant)
 *          z = sigpop-z. Under equal rates, a - b of two Poisson counts has
 *          mean 0 and variance a + b, so z = 2 asks for two standard
 *          deviations; z = 0 is the plain comparison a > b.
 *
 * Choices (docs/CACHE.md):
 *  - An access is counted, then the aging it may complete is done (the
 *    core calls counts_aged() here, which re-reads the cached containers'
 *    f), then the decision is taken on the halved counts; agings are
 *    counted in `agings`.
 *  - A cached container's place in the victim order is the f recorded at
 *    its last access or aging; b is that recorded f too. With exact counts
 *    it is f itself; with `cache-counters sketch` an estimate that
 *    collisions raised after it was recorded does not move it.
 *  - Memory: 20 bytes a slot (the indexed min-heap over slots, its keys
 *    and insertion numbers); the counts are the core's. An aging costs
 *    O(n_containers + C), once per W accesses.
 *
 * Counters: refused_cold, refused_not_significant, agings. Saved state,
 * version 2 (the counts are saved by the core): capacity u32,
 * n_containers u32, the next insertion number u64, then per slot the
 * recorded f u32 and the insertion number u64 (0 for a free slot; numbers
 * start at 1). */
#include "cache/policy/count_aging.h"
#include "cache/policy/count_state.h"
#include "cache/policy/policy.h"
#include "cache/structures/slot_heap.h"
#include "util/le.h"

#include <math.h>
#include <string.h>

enum { KEY_Z, KEY_MIN_COUNT, KEY_AGE_WINDOW, N_KEYS };
enum { REFUSED_COLD, REFUSED_NOT_SIGNIFICANT, AGINGS, N_COUNTERS };

/* The victim heap's entry: a slot; its keys are in Sigpop's key and seq. */
typedef struct {
    CacheSlot slot;
} HeapEntry;

/* key, insertion number, heap entry and position */
#define SIGPOP_BYTES_PER_SLOT (sizeof(uint32_t) + sizeof(uint64_t) + SLOT_HEAP_BYTES_PER_SLOT(HeapEntry))

/* The victim order, (key, insertion number); ctx is the Sigpop (below). */
static inline gboolean slot_less(const void *ctx, const HeapEntry *x, const HeapEntry *y);

SLOT_HEAP_DEFINE(SigpopHeap, sigpop_heap, HeapEntry, slot_less)

typedef struct {
    const CachePolicyEnv *env;
    double z;
    uint32_t min_count;
    uint64_t window;      /* W accesses; 0: never age */
    uint64_t next_seq;    /* insertion number of the next admission */
    uint32_t *key;        /* per slot: f recorded at the last access or aging */
    uint64_t *seq;        /* per slot: insertion number */
    SigpopHeap heap;      /* the cached slots; the top is the victim */
} Sigpop;

/* ---- the victim heap: slots ordered by (key, insertion number) ---- */

static inline gboolean slot_less(const void *ctx, const HeapEntry *x, const HeapEntry *y)
{
    const uint32_t *key = ((const Sigpop *)ctx)->key;
    const uint64_t *seq = ((const Sigpop *)ctx)->seq;
    return key[x->slot] != key[y->slot] ? key[x->slot] < key[y->slot] : seq[x->slot] < seq[y->slot];
}

/* ---- the policy ---- */

static void *sigpop_create(const CachePolicyEnv *env)
{
    Sigpop *s = g_new0(Sigpop, 1);
    uint32_t cap = env->capacity ? env->capacity : 1;
    s->env = env;
    s->z = env->values[KEY_Z].number;
    s->min_count = (uint32_t)env->values[KEY_MIN_COUNT].number;
    s->window = count_aging_window(env->values[KEY_AGE_WINDOW].number, env->n_containers);
    s->next_seq = 1;
    s->key = g_new0(uint32_t, cap);
    s->seq = g_new0(uint64_t, cap);
    sigpop_heap_init(&s->heap, env->capacity, s);
    return s;
}

static void sigpop_destroy(void *st)
{
    Sigpop *s = st;
    g_free(s->key);
    g_free(s->seq);
    sigpop_heap_free(&s->heap);
    g_free(s);
}

static uint64_t sigpop_count_age_window(void *st)
{
    return ((Sigpop *)st)->window;
}

/* Every f was halved: re-read the cached containers' and restore the heap
 * order, O(C). */
static void sigpop_counts_aged(void *st)
{
    Sigpop *s = st;
    COUNT_AGING_REKEY(s->env, s->key, &s->heap, sigpop_heap);
    s->env->counters[AGINGS]++;
}

static void sigpop_hit(void *st, CacheSlot slot)
{
    Sigpop *s = st;
    s->key[slot] = cache_policy_env_slot_count(s->env, slot); /* f only grows between agings */
    sigpop_heap_sink(&s->heap, slot);
}

/* a - b > z sqrt(a + b); for a <= b never (the right side is >= 0). */
static gboolean significant(double z, uint32_t a, uint32_t b)
{
    return (double)a - (double)b > z * sqrt((double)a + (double)b);
}

static CacheDecision sigpop_admit(void *st, ContainerId id, gboolean full, CacheSlot *victim)
{
    Sigpop *s = st;
    uint32_t a = cache_policy_env_count(s->env, id);
    if (a < s->min_count) {
        s->env->counters[REFUSED_COLD]++;
        return CACHE_REFUSE;
    }
    if (!full)
        return CACHE_ADMIT_FREE;
    CacheSlot v = sigpop_heap_top(&s->heap)->slot;
    if (!significant(s->z, a, s->key[v])) {
        s->env->counters[REFUSED_NOT_SIGNIFICANT]++;
        return CACHE_REFUSE;
    }
    *victim = v;
    return CACHE_ADMIT_REPLACE;
}

static void sigpop_inserted(void *st, CacheSlot slot)
{
    Sigpop *s = st;
    s->key[slot] = cache_policy_env_slot_count(s->env, slot);
    s->seq[slot] = s->next_seq++;
    sigpop_heap_insert(&s->heap, (HeapEntry){ slot });
}

static void sigpop_removed(void *st, CacheSlot slot)
{
    Sigpop *s = st;
    sigpop_heap_remove(&s->heap, slot);
    s->key[slot] = 0;
    s->seq[slot] = 0;
}

/* ---- saved state (layout at the top) ---- */

#define STATE_HEAD 16

static void sigpop_save_state(void *st, GByteArray *out)
{
    Sigpop *s = st;
    uint32_t cap = s->env->capacity;
    guint at = out->len;
    g_byte_array_set_size(out, at + STATE_HEAD + COUNT_STATE_SLOT * (guint)cap);
    uint8_t *b = out->data + at;
    le32_put(b, cap);
    le32_put(b + 4, s->env->n_containers);
    le64_put(b + 8, s->next_seq);
    count_state_save(s->env, s->key, s->seq, b + STATE_HEAD);
}

/* Back to the state of create(), after a blob was refused half-read. */
static void forget_all(Sigpop *s)
{
    uint32_t cap = s->env->capacity ? s->env->capacity : 1;
    memset(s->key, 0, cap * sizeof *s->key);
    memset(s->seq, 0, cap * sizeof *s->seq);
    s->heap.size = 0;
    s->next_seq = 1;
}

/* The blob must describe this cache (capacity and store size) exactly. A
 * restored slot the blob saved as free joins as a fresh insertion, after
 * the others; a saved slot that was not restored is ignored. A recorded f
 * above the container's count (with exact counts: other than it) or an
 * insertion number not below the next one is refused. */
static gboolean sigpop_load_state(void *st, const uint8_t *blob, size_t len)
{
    Sigpop *s = st;
    const CachePolicyEnv *env = s->env;
    if (len != STATE_HEAD + (size_t)COUNT_STATE_SLOT * env->capacity || le32_get(blob) != env->capacity ||
        le32_get(blob + 4) != env->n_containers)
        return FALSE;
    uint64_t next = le64_get(blob + 8);
    if (next == 0 || next == UINT64_MAX)
        return FALSE;
    s->next_seq = next;
    if (!count_state_load(env, blob + STATE_HEAD, next - 1, s->key, s->seq)) {
        forget_all(s);
        return FALSE;
    }
    for (uint32_t slot = 0; slot < env->capacity; slot++)
        if (s->seq[slot] != 0)
            sigpop_heap_append(&s->heap, (HeapEntry){ slot });
    sigpop_heap_rebuild(&s->heap);
    for (uint32_t slot = 0; slot < env->capacity; slot++)
        if (cache_policy_env_occupied(env, slot) && s->seq[slot] == 0)
            sigpop_inserted(s, slot);
    return TRUE;
}

static size_t sigpop_memory(const void *st)
{
    const Sigpop *s = st;
    return sizeof *s + (size_t)s->env->capacity * SIGPOP_BYTES_PER_SLOT;
}

static const CachePolicyKey sigpop_keys[N_KEYS] = {
    [KEY_Z] = { "sigpop-z", CACHE_KEY_REAL, 0, 100, NULL, "2.0",
                "a miss replaces the victim only if a - b > z sqrt(a + b) (a, b: their frequencies); 0: a > b" },
    [KEY_MIN_COUNT] = { "sigpop-min-count", CACHE_KEY_UINT, 0, UINT32_MAX, NULL, "2",
                        "cold filter: a miss is refused while its frequency is below this" },
    [KEY_AGE_WINDOW] = { "sigpop-age-window", CACHE_KEY_REAL, 0, 1000000, NULL, "16",
                         "halve every frequency each this many x n_containers accesses (0: never)" },
};

static const CachePolicyCounter sigpop_counters[N_COUNTERS] = {
    [REFUSED_COLD] = { "refused_cold", "refused: frequency below sigpop-min-count", NULL },
    [REFUSED_NOT_SIGNIFICANT] = { "refused_not_significant", "refused: not significantly above the victim", NULL },
    [AGINGS] = { "agings", "agings (every frequency halved)", NULL },
};

const CachePolicyOps cache_policy_sigpop = {
    .name = "sigpop",
    .description = "significance-tested popularity admission: replace the least frequent container only "
                   "if a miss is more frequent beyond chance",
    .citation = "ours, after Liu et al. (PLC-Cache, MSST 2014) and Einziger et al. (TinyLFU, ACM TOS 2017)",
    .offline = FALSE,
    .keys = sigpop_keys,
    .n_keys = N_KEYS,
    .counters = sigpop_counters,
    .n_counters = N_COUNTERS,
    .reset_access_on_evict = FALSE,
    .create = sigpop_create,
    .destroy = sigpop_destroy,
    .hit = sigpop_hit,
    .admit = sigpop_admit,
    .inserted = sigpop_inserted,
    .removed = sigpop_removed,
    .count_age_window = sigpop_count_age_window,
    .counts_aged = sigpop_counts_aged,
    .state_version = 2,
    .save_state = sigpop_save_state,
    .load_state = sigpop_load_state,
    .bytes_per_slot = SIGPOP_BYTES_PER_SLOT,
    .memory = sigpop_memory,
};
