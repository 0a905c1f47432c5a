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
#include "cache/policies/container/count_order.h"
#include "cache/policy/policy.h"
#include "util/le.h"

#include <math.h>
#include <stddef.h>

enum { KEY_Z, KEY_MIN_COUNT, KEY_AGE_WINDOW, N_KEYS };
enum { REFUSED_COLD, REFUSED_NOT_SIGNIFICANT, AGINGS, N_COUNTERS };

typedef struct {
    CountOrder order; /* first (count_order's ops): the victim order, (f recorded, insertion number) */
    double z;
    uint32_t min_count;
} Sigpop;
G_STATIC_ASSERT(offsetof(Sigpop, order) == 0);

static void *sigpop_create(const CachePolicyEnv *env)
{
    Sigpop *s = g_new0(Sigpop, 1);
    s->z = env->values[KEY_Z].number;
    s->min_count = (uint32_t)env->values[KEY_MIN_COUNT].number;
    count_order_init(&s->order, env, env->values[KEY_AGE_WINDOW].number);
    return s;
}

static void sigpop_destroy(void *st)
{
    Sigpop *s = st;
    count_order_free(&s->order);
    g_free(s);
}

static void sigpop_counts_aged(void *st)
{
    Sigpop *s = st;
    count_order_aged(&s->order);
    s->order.env->counters[AGINGS]++;
}

static void sigpop_hit(void *st, CacheSlot slot)
{
    count_order_recount(&((Sigpop *)st)->order, slot);
}

/* a - b > z sqrt(a + b); for a <= b never (the right side is >= 0). */
static gboolean significant(double z, uint32_t a, uint32_t b)
{
    return (double)a - (double)b > z * sqrt((double)a + (double)b);
}

static CacheDecision sigpop_admit(void *st, ContainerId id, gboolean full, CacheSlot *victim)
{
    Sigpop *s = st;
    const CachePolicyEnv *env = s->order.env;
    uint32_t a = cache_policy_env_count(env, id);
    if (a < s->min_count) {
        env->counters[REFUSED_COLD]++;
        return CACHE_REFUSE;
    }
    if (!full)
        return CACHE_ADMIT_FREE;
    CacheSlot v = count_order_victim(&s->order);
    if (!significant(s->z, a, s->order.key[v])) {
        env->counters[REFUSED_NOT_SIGNIFICANT]++;
        return CACHE_REFUSE;
    }
    *victim = v;
    return CACHE_ADMIT_REPLACE;
}

/* ---- saved state (layout at the top) ---- */

#define STATE_HEAD 16

static void sigpop_save_state(void *st, GByteArray *out)
{
    const CountOrder *o = &((Sigpop *)st)->order;
    uint32_t cap = o->env->capacity;
    guint at = out->len;
    g_byte_array_set_size(out, at + STATE_HEAD + COUNT_ORDER_RECORD * (guint)cap);
    uint8_t *b = out->data + at;
    le32_put(b, cap);
    le32_put(b + 4, o->env->n_containers);
    le64_put(b + 8, o->clock + 1);
    count_order_save(o, b + STATE_HEAD);
}

/* The blob must describe this cache (capacity and store size) exactly. A
 * restored slot the blob saved as free joins as a fresh insertion, after
 * the others; a saved slot that was not restored is ignored. A recorded f
 * above the container's count (with exact counts: other than it) or an
 * insertion number not below the next one is refused. */
static gboolean sigpop_load_state(void *st, const uint8_t *blob, size_t len)
{
    CountOrder *o = &((Sigpop *)st)->order;
    const CachePolicyEnv *env = o->env;
    if (len != STATE_HEAD + (size_t)COUNT_ORDER_RECORD * env->capacity || le32_get(blob) != env->capacity ||
        le32_get(blob + 4) != env->n_containers)
        return FALSE;
    uint64_t next = le64_get(blob + 8);
    if (next == 0 || next == UINT64_MAX)
        return FALSE;
    return count_order_load(o, blob + STATE_HEAD, next - 1);
}

static size_t sigpop_memory(const void *st)
{
    const Sigpop *s = st;
    return sizeof *s + (size_t)s->order.env->capacity * COUNT_ORDER_BYTES_PER_SLOT;
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
    .inserted = count_order_inserted_op,
    .removed = count_order_removed_op,
    .count_age_window = count_order_age_window_op,
    .counts_aged = sigpop_counts_aged,
    .state_version = 2,
    .save_state = sigpop_save_state,
    .load_state = sigpop_load_state,
    .bytes_per_slot = COUNT_ORDER_BYTES_PER_SLOT,
    .memory = sigpop_memory,
};
