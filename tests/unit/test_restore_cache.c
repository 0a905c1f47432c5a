/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_restore_cache.c: the three restore caches (src/read/restore_cache.h)
 * against models written here differently, on random chunk sequences:
 * the exact container-read sequence of lru (a recency list), of opt with
 * a limited window (next uses found by scanning the sequence) and of asm
 * (a window of the area's bytes rolling with the reads, a container read
 * filling its chunks in the window); opt looking
 * at the whole future reads as few containers as an exhaustive search over
 * every eviction choice finds. Then real containers: every kind serves the
 * bytes its recipe names, also when the reader skips chunks, and a chunk
 * the container does not hold is a mismatch for that chunk alone. */
#include "read/id_source.h"
#include "read/restore_cache.h"
#include "storage/container.h"
#include "util/error.h"
#include "unit.h"

#include <string.h>

#define IDS_CSIZE 1000u /* the ids-only runs' container size (asm's area unit) */

/* A random sequence of n chunks over k containers; a chunk is (container,
 * offset), and repeats, as a file's duplicate chunks do. */
static FileRecord *random_file(GRand *rng, guint n, guint k)
{
    FileRecord *r = file_record_new(ENTRY_FILE, "f", 1);
    for (guint i = 0; i < n; i++) {
        ChunkRef c = { .container = (ContainerId)g_rand_int_range(rng, 0, (gint32)k) };
        c.offset = CONTAINER_HEADER_SIZE + 8u * (uint32_t)g_rand_int_range(rng, 0, 3);
        c.length = (uint32_t)g_rand_int_range(rng, 50, 700);
        memset(c.fp.bytes, (int)(c.container * 7 + c.offset), sizeof c.fp.bytes);
        g_array_append_val(r->chunks, c);
    }
    return r;
}

/* The container reads of reading r's chunks in order through `c`. */
static GArray *reads_of(const RestoreCacheConfig *c, const FileRecord *r)
{
    IdSource ids;
    GArray *log = g_array_new(FALSE, FALSE, sizeof(ContainerId));
    id_source_init(&ids, IDS_CSIZE, UINT32_MAX, log);
    ChunkSource *cs = restore_cache_new(c, &ids.source, chunk_stream_file(r), TRUE);
    for (guint i = 0; i < r->chunks->len; i++)
        CU_ASSERT_TRUE(chunk_source_touch(cs, &g_array_index(r->chunks, ChunkRef, i), NULL));
    CU_ASSERT_EQUAL(chunk_source_fetches(cs), log->len);
    chunk_source_free(cs);
    return log;
}

static ContainerId cid(const FileRecord *r, guint i)
{
    return g_array_index(r->chunks, ChunkRef, i).container;
}

/* The model of lru and opt: a recency list (index 0 the most recent); with
 * window > 0 the victim is the container whose next use among the next
 * `window` chunks is farthest, the least recent of those with none. */
static GArray *model_cache(const FileRecord *r, guint capacity, guint window)
{
    GArray *log = g_array_new(FALSE, FALSE, sizeof(ContainerId));
    GArray *cache = g_array_new(FALSE, FALSE, sizeof(ContainerId));
    for (guint t = 0; t < r->chunks->len; t++) {
        ContainerId c = cid(r, t);
        guint at = 0;
        while (at < cache->len && g_array_index(cache, ContainerId, at) != c)
            at++;
        if (at < cache->len) {
            g_array_remove_index(cache, at);
        } else {
            g_array_append_val(log, c);
            if (cache->len == capacity) {
                guint victim = cache->len - 1;
                if (window > 0) {
                    guint far = 0;
                    for (guint j = cache->len; j-- > 0;) {
                        guint next = G_MAXUINT;
                        for (guint p = t + 1; p <= t + window && p < r->chunks->len; p++)
                            if (cid(r, p) == g_array_index(cache, ContainerId, j)) {
                                next = p;
                                break;
                            }
                        if (next > far) {
                            far = next;
                            victim = j;
                        }
                        if (next == G_MAXUINT)
                            break;
                    }
                }
                g_array_remove_index(cache, victim);
            }
        }
        g_array_prepend_val(cache, c);
    }
    g_array_unref(cache);
    return log;
}

/* The model of asm: a window over the sequence, from the chunk read now
 * on, as many chunks as fit in the area's bytes (one at least); a chunk not
 * filled yet reads its container, which fills every chunk of it in the
 * window. */
static GArray *model_asm(const FileRecord *r, guint area_containers)
{
    GArray *log = g_array_new(FALSE, FALSE, sizeof(ContainerId));
    uint64_t area = (uint64_t)area_containers * IDS_CSIZE, used = 0;
    gboolean *filled = g_new0(gboolean, r->chunks->len + 1);
    guint end = 0; /* the window is [i, end) */
    for (guint i = 0; i < r->chunks->len; i++) {
        if (i > 0)
            used -= g_array_index(r->chunks, ChunkRef, i - 1).length;
        while (end < r->chunks->len &&
               (end == i || used + g_array_index(r->chunks, ChunkRef, end).length <= area))
            used += g_array_index(r->chunks, ChunkRef, end++).length;
        if (filled[i])
            continue;
        g_array_append_val(log, g_array_index(r->chunks, ChunkRef, i).container);
        for (guint j = i; j < end; j++)
            filled[j] = filled[j] || cid(r, j) == cid(r, i);
    }
    g_free(filled);
    return log;
}

static gboolean same_reads(GArray *a, GArray *b)
{
    gboolean same = a->len == b->len && memcmp(a->data, b->data, a->len * sizeof(ContainerId)) == 0;
    g_array_unref(a);
    g_array_unref(b);
    return same;
}

static void test_sequences_match_models(void)
{
    GRand *rng = g_rand_new_with_seed(26);
    for (int round = 0; round < 300; round++) {
        guint n = (guint)g_rand_int_range(rng, 1, 400), k = (guint)g_rand_int_range(rng, 1, 12);
        guint cap = (guint)g_rand_int_range(rng, 2, 6), window = (guint)g_rand_int_range(rng, 1, 40);
        FileRecord *r = random_file(rng, n, k);
        RestoreCacheConfig lru = { RESTORE_CACHE_LRU, cap, window, TRUE };
        RestoreCacheConfig opt = { RESTORE_CACHE_OPT, cap, window, TRUE };
        RestoreCacheConfig asm_ = { RESTORE_CACHE_ASM, cap, window, TRUE };
        CU_ASSERT_TRUE(same_reads(reads_of(&lru, r), model_cache(r, cap, 0)));
        CU_ASSERT_TRUE(same_reads(reads_of(&opt, r), model_cache(r, cap, window)));
        CU_ASSERT_TRUE(same_reads(reads_of(&asm_, r), model_asm(r, cap - 1)));
        file_record_free(r);
    }
    g_rand_free(rng);
}

/* A container needed on both sides of where fixed area-fulls would cut
 * (chunks Y Y Y X | X Z Z Z, an area of four) is read once: the area rolls
 * with the reads, so X's read fills both of its chunks. Cut into fixed
 * areas, X was read twice (Y X X Z). */
static void test_area_rolls(void)
{
    const ContainerId seq[] = { 7, 7, 7, 3, 3, 9, 9, 9 };
    FileRecord *r = file_record_new(ENTRY_FILE, "f", 1);
    for (guint i = 0; i < G_N_ELEMENTS(seq); i++) {
        ChunkRef c = { .container = seq[i], .offset = CONTAINER_HEADER_SIZE + 8u * i, .length = IDS_CSIZE / 2 };
        memset(c.fp.bytes, (int)i, sizeof c.fp.bytes);
        g_array_append_val(r->chunks, c);
    }
    RestoreCacheConfig asm_ = { RESTORE_CACHE_ASM, 3, 1, TRUE };
    GArray *log = reads_of(&asm_, r);
    const ContainerId want[] = { 7, 3, 9 };
    CU_ASSERT_EQUAL(log->len, G_N_ELEMENTS(want));
    CU_ASSERT_TRUE(log->len == G_N_ELEMENTS(want) && memcmp(log->data, want, sizeof want) == 0);
    g_array_unref(log);
    file_record_free(r);
}

/* The fewest reads any eviction choices give: every choice tried. */
static guint fewest(const FileRecord *r, guint t, guint32 held, guint capacity, GHashTable *memo)
{
    if (t == r->chunks->len)
        return 0;
    gpointer key = GSIZE_TO_POINTER(((gsize)t << 16 | held) + 1);
    gpointer known = g_hash_table_lookup(memo, key);
    if (known != NULL)
        return GPOINTER_TO_UINT(known) - 1;
    guint32 c = 1u << cid(r, t);
    guint best;
    if (held & c) {
        best = fewest(r, t + 1, held, capacity, memo);
    } else if ((guint)__builtin_popcount(held) < capacity) {
        best = 1 + fewest(r, t + 1, held | c, capacity, memo);
    } else {
        best = G_MAXUINT;
        for (guint32 x = 1; x <= held; x <<= 1)
            if (held & x)
                best = MIN(best, 1 + fewest(r, t + 1, (held & ~x) | c, capacity, memo));
    }
    g_hash_table_insert(memo, key, GUINT_TO_POINTER(best + 1));
    return best;
}

static void test_opt_is_optimal(void)
{
    GRand *rng = g_rand_new_with_seed(1966);
    for (int round = 0; round < 200; round++) {
        guint n = (guint)g_rand_int_range(rng, 1, 40), k = (guint)g_rand_int_range(rng, 2, 8);
        guint cap = (guint)g_rand_int_range(rng, 1, 4);
        FileRecord *r = random_file(rng, n, k);
        RestoreCacheConfig opt = { RESTORE_CACHE_OPT, cap, n, TRUE };
        GArray *reads = reads_of(&opt, r);
        GHashTable *memo = g_hash_table_new(g_direct_hash, g_direct_equal);
        guint best = fewest(r, 0, 0, cap, memo);
        if (reads->len != best)
            fprintf(stderr, "\nround %d: opt read %u containers, the best is %u\n", round, reads->len, best);
        CU_ASSERT_EQUAL(reads->len, best);
        /* and never more than lru */
        RestoreCacheConfig lru = { RESTORE_CACHE_LRU, cap, n, TRUE };
        GArray *lru_reads = reads_of(&lru, r);
        CU_ASSERT_TRUE(reads->len <= lru_reads->len);
        g_array_unref(lru_reads);
        g_hash_table_destroy(memo);
        g_array_unref(reads);
        file_record_free(r);
    }
    g_rand_free(rng);
}

/* Real containers: NCONT of them, CHUNKS chunks each, chunk j of
 * container c filled with byte c * CHUNKS + j + 1. */
#define CSIZE (64u * 1024)
#define NCONT 5
#define CHUNKS 6
#define CHUNK_LEN 9000

typedef struct {
    ContainerSource source;
    uint8_t *cont[NCONT];
    ChunkRef refs[NCONT][CHUNKS];
    unsigned reads;
} Store5;

static gboolean store5_read(ContainerSource *self, ContainerId id, uint8_t *buf, GError **err)
{
    Store5 *s = (Store5 *)self;
    s->reads++;
    if (id >= NCONT) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_IO, "no container %u", id);
        return FALSE;
    }
    memcpy(buf, s->cont[id], CSIZE);
    return TRUE;
}

static void store5_init(Store5 *s)
{
    memset(s, 0, sizeof *s);
    s->source.read = store5_read;
    s->source.container_size = CSIZE;
    for (ContainerId c = 0; c < NCONT; c++) {
        s->cont[c] = g_malloc0(CSIZE);
        ContainerBuilder b;
        container_builder_init(&b, s->cont[c], CSIZE, c);
        for (int j = 0; j < CHUNKS; j++) {
            uint8_t data[CHUNK_LEN];
            memset(data, (int)(c * CHUNKS + j + 1), sizeof data);
            ChunkRef *r = &s->refs[c][j];
            fingerprint_compute(FP_SHA1, data, sizeof data, &r->fp);
            r->container = c;
            r->length = CHUNK_LEN;
            r->offset = container_builder_add(&b, &r->fp, data, sizeof data);
        }
        container_builder_seal(&b, FP_SHA1);
    }
}

static void store5_clear(Store5 *s)
{
    for (int c = 0; c < NCONT; c++)
        g_free(s->cont[c]);
}

static void test_real_bytes(void)
{
    Store5 s;
    store5_init(&s);
    GRand *rng = g_rand_new_with_seed(13);
    for (int round = 0; round < 60; round++) {
        FileRecord *r = file_record_new(ENTRY_FILE, "f", 1);
        guint n = (guint)g_rand_int_range(rng, 1, 80);
        for (guint i = 0; i < n; i++)
            g_array_append_val(r->chunks, s.refs[g_rand_int_range(rng, 0, NCONT)][g_rand_int_range(rng, 0, CHUNKS)]);
        /* the reader skips some chunks (an entry the target refused) */
        gboolean skips = round % 2 == 1;
        for (RestoreCacheKind kind = RESTORE_CACHE_LRU; kind <= RESTORE_CACHE_ASM; kind++) {
            RestoreCacheConfig c = { kind, (guint)g_rand_int_range(rng, 2, 5), 7, TRUE };
            ChunkSource *cs = restore_cache_new(&c, &s.source, chunk_stream_file(r), FALSE);
            for (guint i = 0; i < n; i++) {
                if (skips && i % 3 == 1)
                    continue;
                const ChunkRef *ref = &g_array_index(r->chunks, ChunkRef, i);
                GError *mismatch = NULL, *err = NULL;
                const uint8_t *p = chunk_source_read(cs, ref, &mismatch, &err);
                CU_ASSERT_PTR_NULL(mismatch);
                CU_ASSERT_PTR_NULL(err);
                CU_ASSERT_PTR_NOT_NULL_FATAL(p);
                /* the chunk's bytes are its own pattern */
                uint8_t expect[CHUNK_LEN];
                guint j = 0;
                while (s.refs[ref->container][j].offset != ref->offset)
                    j++;
                memset(expect, (int)(ref->container * CHUNKS + j + 1), sizeof expect);
                CU_ASSERT_EQUAL(memcmp(p, expect, CHUNK_LEN), 0);
            }
            chunk_source_free(cs);
        }
        file_record_free(r);
    }
    g_rand_free(rng);
    store5_clear(&s);
}

/* A recipe naming a chunk its container does not hold: that chunk is a
 * mismatch, the chunks around it (same container too) are served. */
static void test_mismatch_is_the_chunks_own(void)
{
    Store5 s;
    store5_init(&s);
    for (RestoreCacheKind kind = RESTORE_CACHE_LRU; kind <= RESTORE_CACHE_ASM; kind++) {
        FileRecord *r = file_record_new(ENTRY_FILE, "f", 1);
        ChunkRef bad = s.refs[1][2];
        bad.fp.bytes[0] ^= 1;
        g_array_append_val(r->chunks, s.refs[1][0]);
        g_array_append_val(r->chunks, bad);
        g_array_append_val(r->chunks, s.refs[1][3]);
        ChunkRef outside = s.refs[2][0];
        outside.offset = CSIZE - 10;
        g_array_append_val(r->chunks, outside);
        g_array_append_val(r->chunks, s.refs[2][1]);
        RestoreCacheConfig c = { kind, 3, 100, TRUE };
        ChunkSource *cs = restore_cache_new(&c, &s.source, chunk_stream_file(r), FALSE);
        for (guint i = 0; i < r->chunks->len; i++) {
            GError *mismatch = NULL, *err = NULL;
            const uint8_t *p = chunk_source_read(cs, &g_array_index(r->chunks, ChunkRef, i), &mismatch, &err);
            gboolean damaged = i == 1 || i == 3;
            CU_ASSERT_EQUAL(p == NULL, damaged);
            CU_ASSERT_EQUAL(mismatch != NULL, damaged);
            CU_ASSERT_PTR_NULL(err);
            g_clear_error(&mismatch);
        }
        /* a chunk not in the plan: an error, not bytes */
        if (kind == RESTORE_CACHE_ASM) {
            GError *mismatch = NULL, *err = NULL;
            CU_ASSERT_PTR_NULL(chunk_source_read(cs, &s.refs[4][4], &mismatch, &err));
            CU_ASSERT_PTR_NOT_NULL(err);
            g_clear_error(&err);
        }
        chunk_source_free(cs);
        file_record_free(r);
    }
    store5_clear(&s);
}

static void add_suites(void)
{
    CU_pSuite s = CU_add_suite("restore_cache", NULL, NULL);
    CU_add_test(s, "read sequences match the models", test_sequences_match_models);
    CU_add_test(s, "opt with the whole future is optimal", test_opt_is_optimal);
    CU_add_test(s, "the assembly area rolls with the reads", test_area_rolls);
    CU_add_test(s, "real bytes, reader skipping", test_real_bytes);
    CU_add_test(s, "a mismatch is the chunk's own", test_mismatch_is_the_chunks_own);
}

UNIT_MAIN(add_suites)
