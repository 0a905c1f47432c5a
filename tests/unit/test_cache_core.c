/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_cache_core.c: the cache core in real mode against a ContainerSource
 * built here over a real temporary file of containers (a fixed pattern: the
 * id, pseudo-random bytes, a CRC-32): real and simulation mode give the same
 * counts, bytes are always right, the directory stays within capacity, the
 * cache survives a clean restart, damaged copies and unclean shutdowns are
 * caught, the directory lock refuses a second user. */
#include "cache/container/cache_meta.h"
#include "cache/container/ssd_store.h"
#include "test_cache_util.h"
#include "unit.h"
#include "util/error.h"
#include "util/le.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

/* ---------- a ContainerSource over a file of test containers ---------- */

typedef struct {
    ContainerSource base; /* first */
    char *path;
    int fd;
    uint32_t n;
    unsigned reads;
    ContainerId fail_id; /* reads of this id fail with an IO error */
} TestSource;

/* Container id's bytes; a store put back from a copy and written again
 * holds another generation of them under the same id. */
static void fill_generation(uint8_t *buf, size_t size, ContainerId id, unsigned gen)
{
    le32_put(buf, id);
    uint64_t st = 0x1234 + id + ((uint64_t)gen << 32);
    for (size_t i = 4; i + 4 < size; i += 8) {
        uint64_t r = test_rand(&st);
        for (size_t j = 0; j < 8 && i + j + 4 < size; j++)
            buf[i + j] = (uint8_t)(r >> (8 * j));
    }
    le32_put(buf + size - 4, (uint32_t)crc32(0L, buf, (uInt)(size - 4)));
}

static void fill_pattern(uint8_t *buf, size_t size, ContainerId id)
{
    fill_generation(buf, size, id, 0);
}

static gboolean source_read(ContainerSource *self, ContainerId id, uint8_t *buf, GError **err)
{
    TestSource *s = (TestSource *)self;
    size_t size = self->container_size;
    if (id >= s->n) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_USAGE, "container %u past the end", id);
        return FALSE;
    }
    if (id == s->fail_id) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_IO, "container %u: injected failure", id);
        return FALSE;
    }
    if (pread(s->fd, buf, size, (off_t)id * (off_t)size) != (ssize_t)size) {
        destor_set_errno(err, errno, "read %s", s->path);
        return FALSE;
    }
    if (le32_get(buf) != id || le32_get(buf + size - 4) != (uint32_t)crc32(0L, buf, (uInt)(size - 4))) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_INTEGRITY, "container %u damaged", id);
        return FALSE;
    }
    s->reads++;
    return TRUE;
}

static gboolean source_stamp(ContainerSource *self, ContainerId id, uint32_t *stamp, GError **err)
{
    TestSource *s = (TestSource *)self;
    uint8_t head[CONTAINER_STAMP_BYTES];
    if (id >= s->n) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_USAGE, "container %u past the end", id);
        return FALSE;
    }
    if (pread(s->fd, head, sizeof head, (off_t)id * (off_t)self->container_size) != (ssize_t)sizeof head) {
        destor_set_errno(err, errno, "read %s", s->path);
        return FALSE;
    }
    *stamp = container_stamp(head, sizeof head);
    return TRUE;
}

/* Give container id generation gen's bytes in the source. */
static void source_rewrite(TestSource *s, ContainerId id, unsigned gen)
{
    size_t size = s->base.container_size;
    uint8_t *buf = g_malloc(size);
    fill_generation(buf, size, id, gen);
    CU_ASSERT_FATAL(pwrite(s->fd, buf, size, (off_t)id * (off_t)size) == (ssize_t)size);
    g_free(buf);
}

static TestSource *source_new(const char *dir, uint32_t n, size_t size)
{
    TestSource *s = g_new0(TestSource, 1);
    s->base.read = source_read;
    s->base.stamp = source_stamp;
    s->base.container_size = size;
    s->path = g_build_filename(dir, "containers.pool", NULL);
    s->n = n;
    s->fail_id = UINT32_MAX;
    s->fd = open(s->path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    CU_ASSERT_FATAL(s->fd >= 0);
    uint8_t *buf = g_malloc(size);
    for (uint32_t i = 0; i < n; i++) {
        fill_pattern(buf, size, i);
        CU_ASSERT_FATAL(pwrite(s->fd, buf, size, (off_t)i * (off_t)size) == (ssize_t)size);
    }
    g_free(buf);
    return s;
}

static void source_free(TestSource *s)
{
    close(s->fd);
    g_free(s->path);
    g_free(s);
}

/* ---------- helpers ---------- */

typedef struct {
    char *root;     /* temp dir */
    char *cachedir; /* root/ssd */
    TestSource *src;
} Fixture;

static void fixture_init(Fixture *f, uint32_t n, size_t size, const char *base)
{
    char *tmpl = g_build_filename(base ? base : g_get_tmp_dir(), "cache-core-XXXXXX", NULL);
    f->root = g_mkdtemp(tmpl);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f->root);
    f->cachedir = g_build_filename(f->root, "ssd", NULL);
    f->src = source_new(f->root, n, size);
}

static void rm_rf(const char *path)
{
    GDir *d = g_dir_open(path, 0, NULL);
    if (d) {
        const char *name;
        while ((name = g_dir_read_name(d)) != NULL) {
            char *p = g_build_filename(path, name, NULL);
            rm_rf(p);
            g_free(p);
        }
        g_dir_close(d);
    }
    g_remove(path);
}

static void fixture_free(Fixture *f)
{
    source_free(f->src);
    rm_rf(f->root);
    g_free(f->root);
    g_free(f->cachedir);
}

static CacheCoreOptions real_options(Fixture *f, const CachePolicyOps *ops, const PlcTestParams *p,
                                     uint32_t capacity)
{
    CacheCoreOptions o = test_options(ops, p, capacity, f->src->n, NULL);
    o.container_size = f->src->base.container_size;
    o.mode = CACHE_MODE_REAL;
    o.directory = f->cachedir;
    o.backing = &f->src->base;
    return o;
}

static CacheCore *real_open(Fixture *f, const CachePolicyOps *ops, uint32_t capacity)
{
    CacheCoreOptions o = real_options(f, ops, NULL, capacity);
    GError *err = NULL;
    CacheCore *c = cache_core_open(&o, &err);
    if (err)
        fprintf(stderr, "\nopen: %s\n", err->message);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    return c;
}

/* Access id through the cache (or, with reread, read it again as a read
 * path does when a recipe's check failed) and check the bytes are
 * generation gen's. */
static gboolean read_is(CacheCore *c, ContainerId id, unsigned gen, gboolean reread)
{
    size_t size = cache_core_source(c)->container_size;
    uint8_t *got = g_malloc(size), *want = g_malloc(size);
    GError *err = NULL;
    gboolean ok = reread ? container_source_reread(cache_core_source(c), id, got, &err)
                         : cache_access(c, id, got, &err);
    if (!ok)
        fprintf(stderr, "\naccess %u: %s\n", id, err ? err->message : "no reread");
    g_clear_error(&err);
    fill_generation(want, size, id, gen);
    ok = ok && memcmp(got, want, size) == 0;
    g_free(got);
    g_free(want);
    return ok;
}

static gboolean read_ok(CacheCore *c, ContainerId id)
{
    return read_is(c, id, 0, FALSE);
}

static uint64_t dir_bytes(const char *dir, const char *name)
{
    char *p = g_build_filename(dir, name, NULL);
    struct stat st;
    uint64_t n = stat(p, &st) == 0 ? (uint64_t)st.st_size : 0;
    g_free(p);
    return n;
}

/* Offset of byte `off` of the container in `slot` of a slot file. */
static off_t container_byte(uint32_t slot, off_t off)
{
    return (off_t)slot * (SSD_SLOT_HEADER_SIZE + TEST_CONTAINER_SIZE) + SSD_SLOT_HEADER_SIZE + off;
}

static void corrupt_byte(const char *dir, off_t off)
{
    char *p = g_build_filename(dir, SSD_STORE_SLOT_FILE, NULL);
    int fd = open(p, O_RDWR);
    CU_ASSERT_FATAL(fd >= 0);
    uint8_t b = 0;
    CU_ASSERT(pread(fd, &b, 1, off) == 1);
    b ^= 0x5a;
    CU_ASSERT(pwrite(fd, &b, 1, off) == 1);
    close(fd);
    g_free(p);
}

static void expect_same_counts(CacheCore *ca, CacheCore *cb)
{
    const CacheCounters *a = cache_core_counters(ca), *b = cache_core_counters(cb);
    CacheReport ra, rb;
    cache_core_report(ca, &ra);
    cache_core_report(cb, &rb);
    CU_ASSERT_EQUAL(ra.policy_counters.n, rb.policy_counters.n);
    for (size_t i = 0; i < ra.policy_counters.n; i++)
        CU_ASSERT_EQUAL(ra.policy_counters.values[i], rb.policy_counters.values[i]);
    CU_ASSERT_EQUAL(a->accesses, b->accesses);
    CU_ASSERT_EQUAL(a->hits, b->hits);
    CU_ASSERT_EQUAL(a->misses, b->misses);
    CU_ASSERT_EQUAL(a->admissions, b->admissions);
    CU_ASSERT_EQUAL(a->evictions, b->evictions);
    CU_ASSERT_EQUAL(a->refused, b->refused);
    CU_ASSERT_EQUAL(a->ssd_bytes_written, b->ssd_bytes_written);
    CU_ASSERT_EQUAL(a->ssd_bytes_read, b->ssd_bytes_read);
    CU_ASSERT_EQUAL(a->store_bytes_read, b->store_bytes_read);
    CU_ASSERT_DOUBLE_EQUAL(a->model_access_s, b->model_access_s, 1e-9);
}

/* ---------- tests ---------- */

#define N 96
#define TRACE 4000

static void test_real_equals_simulation(void)
{
    for (size_t pi = 0; pi < cache_policy_count(); pi++) {
        const CachePolicyOps *ops = cache_policy_at(pi);
        if (ops->offline)
            continue; /* no real mode */
        Fixture f;
        fixture_init(&f, N, TEST_CONTAINER_SIZE, NULL);
        PlcTestParams p = test_default_params();
        p.plc_filter_threshold = 2;
        uint32_t cap = 12;
        CacheCoreOptions ro = real_options(&f, ops, &p, cap);
        CacheCore *real = cache_core_open(&ro, NULL);
        CacheCore *sim = test_sim_open(ops, &p, cap, N, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(real);
        uint32_t *trace = test_trace(40 + pi, N, TRACE);
        unsigned wrong = 0, too_big = 0;
        for (size_t i = 0; i < TRACE; i++) {
            if (!read_ok(real, trace[i]))
                wrong++;
            CU_ASSERT_TRUE(cache_access(sim, trace[i], NULL, NULL));
            if (dir_bytes(f.cachedir, SSD_STORE_SLOT_FILE) > (uint64_t)cap * (SSD_SLOT_HEADER_SIZE + TEST_CONTAINER_SIZE))
                too_big++;
        }
        CU_ASSERT_EQUAL(wrong, 0);
        CU_ASSERT_EQUAL(too_big, 0);
        const CacheCounters *kr = cache_core_counters(real);
        expect_same_counts(real, sim);
        CU_ASSERT(kr->hits > 0);
        CU_ASSERT(kr->evictions > 0);
        CU_ASSERT_EQUAL(f.src->reads, kr->misses); /* every miss, and only misses, read the store */
        CU_ASSERT_EQUAL(kr->ssd_corrupt_dropped + kr->ssd_read_errors + kr->ssd_write_errors, 0);
        CU_ASSERT_EQUAL(cache_core_mode(real), CACHE_MODE_REAL);
        CU_ASSERT_EQUAL(cache_core_mode(sim), CACHE_MODE_SIMULATE);
        CU_ASSERT_TRUE(cache_core_close(real, NULL));
        cache_core_close(sim, NULL);
        g_free(trace);
        fixture_free(&f);
    }
}

/* Every admission rule (with a write budget where it spends one) makes the
 * same decisions in real mode as in simulation, in front of tinylfu (a
 * policy with an admission of its own) and of lru. */
static void test_real_equals_simulation_admission(void)
{
    const char *policies[] = { "lru", "tinylfu" };
    for (size_t ai = 0; ai < admission_count(); ai++) {
        for (size_t pi = 0; pi < G_N_ELEMENTS(policies); pi++) {
            const AdmissionOps *rule = admission_at(ai);
            Fixture f;
            fixture_init(&f, N, TEST_CONTAINER_SIZE, NULL);
            /* each options' settings last until the next are made: open
             * one cache before making the other's */
            CacheCoreOptions ro = real_options(&f, test_policy(policies[pi]), NULL, 12);
            ro.admission = rule;
            ro.write_budget = rule->spends_budget ? 0.3 * TEST_CONTAINER_SIZE : 0;
            CacheCore *real = cache_core_open(&ro, NULL);
            CacheCoreOptions so = test_options(test_policy(policies[pi]), NULL, 12, N, NULL);
            so.admission = rule;
            so.write_budget = ro.write_budget;
            CacheCore *sim = cache_core_open(&so, NULL);
            CU_ASSERT_PTR_NOT_NULL_FATAL(real);
            CU_ASSERT_PTR_NOT_NULL_FATAL(sim);
            uint32_t *trace = test_trace(7 + ai, N, TRACE);
            for (size_t i = 0; i < TRACE; i++) {
                cache_core_request_begin(real, 0);
                CU_ASSERT_TRUE(read_ok(real, trace[i]));
                cache_core_request_end(real);
                cache_core_request_begin(sim, 0);
                CU_ASSERT_TRUE(cache_access(sim, trace[i], NULL, NULL));
                cache_core_request_end(sim);
            }
            expect_same_counts(real, sim);
            CU_ASSERT_EQUAL(cache_core_counters(real)->refused_admission, cache_core_counters(sim)->refused_admission);
            if (pi == 0) /* lru admits every miss it is given: each rule but all refuses some */
                CU_ASSERT_EQUAL(cache_core_counters(real)->refused_admission > 0, strcmp(rule->name, "all") != 0);
            /* the rule's memory is reported and counted in the total (it was left out) */
            CacheReport rr, sr;
            cache_core_report(real, &rr);
            cache_core_report(sim, &sr);
            CU_ASSERT_EQUAL(rr.admission_memory_bytes, sr.admission_memory_bytes);
            CU_ASSERT_EQUAL(rr.admission_memory_bytes > 0, rule->memory != NULL);
            CU_ASSERT(rr.memory_bytes >= rr.policy_memory_bytes + rr.admission_memory_bytes);
            CU_ASSERT_TRUE(cache_core_close(real, NULL));
            cache_core_close(sim, NULL);
            g_free(trace);
            fixture_free(&f);
        }
    }
}

/* The accesses in the request starting at trace[i] (0: an empty request,
 * and trace[i] is skipped). */
static size_t request_length(size_t i)
{
    return MIN((i * 7) % 5, TRACE - i);
}

/* cache_core_request_ids() = request_begin, cache_access() per id,
 * request_end: the same counters, per-request model times and requests,
 * for every policy, on requests of 0 to 4 accesses. */
static void test_request_ids_equals_accesses(void)
{
    for (size_t pi = 0; pi < cache_policy_count(); pi++) {
        const CachePolicyOps *ops = cache_policy_at(pi);
        PlcTestParams p = test_default_params();
        p.plc_filter_threshold = 2;
        CacheCore *one = test_sim_open(ops, &p, 12, N, NULL);
        CacheCore *batch = test_sim_open(ops, &p, 12, N, NULL);
        uint32_t *trace = test_trace(70 + pi, N, TRACE);
        if (ops->offline) { /* the ids the requests below access, in order */
            GArray *seq = g_array_new(FALSE, FALSE, sizeof(uint32_t));
            for (size_t i = 0, n; i < TRACE; i += MAX(n, 1)) {
                n = request_length(i);
                g_array_append_vals(seq, trace + i, (guint)n);
            }
            CU_ASSERT_TRUE(cache_core_prepare(one, (uint32_t *)(void *)seq->data, seq->len, NULL));
            CU_ASSERT_TRUE(cache_core_prepare(batch, (uint32_t *)(void *)seq->data, seq->len, NULL));
            g_array_free(seq, TRUE);
        }
        unsigned model_diff = 0;
        for (size_t i = 0, n; i < TRACE; i += n) {
            n = request_length(i);
            cache_core_request_begin(one, 0);
            for (size_t k = 0; k < n; k++)
                CU_ASSERT_TRUE(cache_access(one, trace[i + k], NULL, NULL));
            double m1 = cache_core_request_end(one), m2 = -1, wall = -1;
            CU_ASSERT_TRUE(cache_core_request_ids(batch, trace + i, (uint32_t)n, 0, &m2, &wall, NULL));
            CU_ASSERT(wall >= 0);
            if (fabs(m1 - m2) > 1e-12)
                model_diff++;
            if (n == 0)
                n = 1; /* an empty request, then move on */
        }
        CU_ASSERT_EQUAL(model_diff, 0);
        const CacheCounters *a = cache_core_counters(one), *b = cache_core_counters(batch);
        expect_same_counts(one, batch);
        CU_ASSERT_EQUAL(a->requests, b->requests);
        CU_ASSERT(a->hits > 0);
        CU_ASSERT(a->evictions > 0 || (ops->offline && a->refused > 0)); /* offline-static never evicts */
        GError *err = NULL; /* an id past the store stops the request with the access's error */
        ContainerId bad[] = { 1, N, 2 };
        double m, w;
        CU_ASSERT_FALSE(cache_core_request_ids(batch, bad, 3, 0, &m, &w, &err));
        CU_ASSERT_TRUE(g_error_matches(err, DESTOR_ERROR, DESTOR_ERROR_USAGE));
        g_clear_error(&err);
        CU_ASSERT_EQUAL(cache_core_counters(batch)->accesses, a->accesses + 1);
        cache_core_close(one, NULL);
        cache_core_close(batch, NULL);
        g_free(trace);
    }
}

static void test_null_buffer_and_source(void)
{
    Fixture f;
    fixture_init(&f, 8, TEST_CONTAINER_SIZE, NULL);
    CacheCore *c = real_open(&f, test_policy("lru"), 4);
    ContainerSource *src = cache_core_source(c);
    CU_ASSERT_PTR_EQUAL((void *)src, (void *)c);
    CU_ASSERT_EQUAL(src->container_size, TEST_CONTAINER_SIZE);
    CU_ASSERT_TRUE(cache_access(c, 3, NULL, NULL)); /* counts, bytes via the cache's buffer */
    uint8_t *buf = g_malloc(TEST_CONTAINER_SIZE), *want = g_malloc(TEST_CONTAINER_SIZE);
    fill_pattern(want, TEST_CONTAINER_SIZE, 3);
    CU_ASSERT_TRUE(container_source_read(src, 3, buf, NULL));
    CU_ASSERT_EQUAL(memcmp(buf, want, TEST_CONTAINER_SIZE), 0);
    CU_ASSERT_EQUAL(cache_core_counters(c)->hits, 1);
    g_free(buf);
    g_free(want);
    cache_core_close(c, NULL);
    fixture_free(&f);
}

static void test_errors_count_nothing(void)
{
    Fixture f;
    fixture_init(&f, 8, TEST_CONTAINER_SIZE, NULL);
    f.src->fail_id = 5;
    CacheCore *c = real_open(&f, test_policy("lru"), 4);
    GError *err = NULL;
    CU_ASSERT_FALSE(cache_access(c, 8, NULL, &err));
    CU_ASSERT_TRUE(g_error_matches(err, DESTOR_ERROR, DESTOR_ERROR_USAGE));
    g_clear_error(&err);
    CU_ASSERT_FALSE(cache_access(c, 5, NULL, &err));
    CU_ASSERT_TRUE(g_error_matches(err, DESTOR_ERROR, DESTOR_ERROR_IO));
    g_clear_error(&err);
    const CacheCounters *k = cache_core_counters(c);
    CU_ASSERT_EQUAL(k->accesses, 0);
    CU_ASSERT_EQUAL(cache_core_access_count(c, 5), 0);
    cache_core_close(c, NULL);

    CacheCore *sim = test_sim_open(test_policy("lru"), NULL, 4, 8, NULL);
    uint8_t buf[16];
    CU_ASSERT_FALSE(cache_access(sim, 1, buf, &err));
    CU_ASSERT_TRUE(g_error_matches(err, DESTOR_ERROR, DESTOR_ERROR_USAGE));
    g_clear_error(&err);
    cache_core_close(sim, NULL);
    fixture_free(&f);
}

/* ---------- properties of every registered policy ---------- */

/* Every event of a run: kind, container, slot. */
static void record_event(const CacheEvent *ev, void *user)
{
    GArray *log = user;
    uint64_t e = (uint64_t)ev->kind << 56 | (uint64_t)ev->slot << 24 | ev->id;
    g_array_append_val(log, e);
}

static void test_registry_declarations(void)
{
    CU_ASSERT(cache_policy_count() >= 5);
    for (size_t i = 0; i < cache_policy_count(); i++) {
        const CachePolicyOps *ops = cache_policy_at(i);
        const CachePolicyOps *found = NULL;
        CU_ASSERT_TRUE(cache_policy_lookup(ops->name, &found));
        CU_ASSERT_PTR_EQUAL(found, ops);
        CU_ASSERT(strlen(ops->name) > 0 && strlen(ops->name) <= CACHE_META_POLICY_LEN);
        CU_ASSERT(ops->description != NULL && *ops->description && !strchr(ops->description, '\n'));
        CU_ASSERT(ops->citation != NULL && *ops->citation);
        CU_ASSERT(ops->create && ops->destroy && ops->hit && ops->admit && ops->inserted && ops->removed);
        CU_ASSERT(!ops->offline || ops->prepare != NULL);
        CU_ASSERT((ops->save_state == NULL) == (ops->load_state == NULL));
        CU_ASSERT(ops->n_counters <= CACHE_REPORT_MAX_POLICY_COUNTERS);
        for (size_t k = 0; k < ops->n_keys; k++) {
            const CachePolicyKey *key = &ops->keys[k];
            CachePolicyValue v;
            CU_ASSERT(g_str_has_prefix(key->name, ops->name) && key->name[strlen(ops->name)] == '-');
            CU_ASSERT_TRUE(cache_policy_key_parse(key, key->default_value, &v, NULL));
            CU_ASSERT(key->doc != NULL && *key->doc);
            const CachePolicyOps *owner = NULL;
            CU_ASSERT_PTR_EQUAL(cache_policy_find_key(key->name, &owner), key); /* no two policies share it */
            CU_ASSERT_PTR_EQUAL(owner, ops);
            CU_ASSERT_TRUE(cache_config_is_key(key->name));
        }
        for (size_t k = 0; k < ops->n_counters; k++)
            for (size_t j = 0; j < k; j++)
                CU_ASSERT(strcmp(ops->counters[k].name, ops->counters[j].name) != 0);
    }
}

static const uint32_t registry_capacities[] = { 1, 2, 7, 40 };

static const AccessCountsMode registry_counts[] = { ACCESS_COUNTS_EXACT, ACCESS_COUNTS_COMPACT, ACCESS_COUNTS_SKETCH };

/* Never above capacity; hits + misses = accesses; SSD bytes = admissions x
 * container size; admissions - evictions = cached; refusals = misses not
 * admitted. Simulation mode, every policy, several capacities, every
 * cache-counters. */
static void test_registry_properties(void)
{
    for (size_t i = 0; i < cache_policy_count() * G_N_ELEMENTS(registry_counts); i++) {
        const CachePolicyOps *ops = cache_policy_at(i % cache_policy_count());
        for (size_t ci = 0; ci < G_N_ELEMENTS(registry_capacities); ci++) {
            uint32_t cap = registry_capacities[ci];
            uint32_t *trace = test_trace(900 + ci, 200, 6000);
            CacheCoreOptions o = test_options(ops, NULL, cap, 200, NULL);
            o.counters = registry_counts[i / cache_policy_count()];
            CacheCore *c = cache_core_open(&o, NULL);
            CU_ASSERT_PTR_NOT_NULL_FATAL(c);
            if (ops->offline)
                CU_ASSERT_TRUE(cache_core_prepare(c, trace, 6000, NULL));
            unsigned over = 0;
            for (size_t k = 0; k < 6000; k++) {
                CU_ASSERT_TRUE(cache_access(c, trace[k], NULL, NULL));
                if (cache_core_cached(c) > cap)
                    over++;
            }
            const CacheCounters *k = cache_core_counters(c);
            CU_ASSERT_EQUAL(over, 0);
            CU_ASSERT_EQUAL(k->accesses, 6000);
            CU_ASSERT_EQUAL(k->hits + k->misses, k->accesses);
            CU_ASSERT_EQUAL(k->ssd_bytes_written, k->admissions * TEST_CONTAINER_SIZE);
            CU_ASSERT_EQUAL(k->admissions - k->evictions, cache_core_cached(c));
            CU_ASSERT_EQUAL(k->misses, k->admissions + k->refused);
            CacheReport r;
            cache_core_report(c, &r);
            CU_ASSERT(r.policy_memory_bytes > 0);
            cache_core_close(c, NULL);
            g_free(trace);
        }
    }
}

/* A replay split in two halves around a clean restart makes the same
 * decisions (every hit, refusal, eviction and admission, with its slot) and
 * the same counts as one run: the policy's saved state and the access
 * counts (every cache-counters) are complete. Two lengths: lfu's keys
 * with sketch counts went wrong after a restart at 1000 requests and not at
 * 3000 (the counts as last touched were not saved); valgrind runs the
 * shorter one. */
static void split_restart(size_t len)
{
    enum { CAP = 9 };
    for (size_t i = 0; i < cache_policy_count() * G_N_ELEMENTS(registry_counts); i++) {
        const CachePolicyOps *ops = cache_policy_at(i % cache_policy_count());
        AccessCountsMode counts = registry_counts[i / cache_policy_count()];
        if (ops->offline)
            continue; /* no real mode, so no restart */
        Fixture f;
        fixture_init(&f, 64, TEST_CONTAINER_SIZE, NULL);
        PlcTestParams p = test_default_params();
        p.plc_filter_threshold = 2;
        uint32_t *trace = test_trace(77 + i, 64, len);
        char *other = g_build_filename(f.root, "whole", NULL);
        GArray *whole = g_array_new(FALSE, FALSE, sizeof(uint64_t));
        GArray *split = g_array_new(FALSE, FALSE, sizeof(uint64_t));

        CacheCoreOptions o = real_options(&f, ops, &p, CAP);
        o.directory = other;
        o.counters = counts;
        CacheCore *one = cache_core_open(&o, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(one);
        cache_core_set_observer(one, record_event, whole);
        for (size_t k = 0; k < len; k++)
            CU_ASSERT_TRUE(cache_access(one, trace[k], NULL, NULL));
        CacheReport r1;
        cache_core_report(one, &r1);

        CacheCounters sum = { 0 };
        uint64_t policy_sum[CACHE_REPORT_MAX_POLICY_COUNTERS] = { 0 };
        for (int half = 0; half < 2; half++) {
            o = real_options(&f, ops, &p, CAP);
            o.counters = counts;
            CacheCore *c = cache_core_open(&o, NULL);
            CU_ASSERT_PTR_NOT_NULL_FATAL(c);
            cache_core_set_observer(c, record_event, split);
            for (size_t k = half * len / 2; k < (half + 1) * len / 2; k++)
                CU_ASSERT_TRUE(cache_access(c, trace[k], NULL, NULL));
            CacheReport r;
            cache_core_report(c, &r);
            sum.hits += r.c.hits;
            sum.misses += r.c.misses;
            sum.admissions += r.c.admissions;
            sum.evictions += r.c.evictions;
            sum.refused += r.c.refused;
            for (size_t k = 0; k < r.policy_counters.n; k++)
                policy_sum[k] += r.policy_counters.values[k];
            CU_ASSERT_TRUE(cache_core_close(c, NULL));
        }
        CU_ASSERT_EQUAL(sum.hits, r1.c.hits);
        CU_ASSERT_EQUAL(sum.misses, r1.c.misses);
        CU_ASSERT_EQUAL(sum.admissions, r1.c.admissions);
        CU_ASSERT_EQUAL(sum.evictions, r1.c.evictions);
        CU_ASSERT_EQUAL(sum.refused, r1.c.refused);
        for (size_t k = 0; k < r1.policy_counters.n; k++)
            CU_ASSERT_EQUAL(policy_sum[k], r1.policy_counters.values[k]);
        CU_ASSERT_EQUAL_FATAL(split->len, whole->len);
        size_t first_diff = whole->len;
        for (size_t k = 0; k < whole->len && first_diff == whole->len; k++)
            if (g_array_index(whole, uint64_t, k) != g_array_index(split, uint64_t, k))
                first_diff = k;
        if (first_diff != whole->len)
            fprintf(stderr, "\n%s, %s counts: event %zu differs after a restart\n", ops->name,
                    access_counts_mode_name(counts), first_diff);
        CU_ASSERT_EQUAL(first_diff, whole->len);
        CU_ASSERT(r1.c.hits > 0 && r1.c.evictions > 0);

        CU_ASSERT_TRUE(cache_core_close(one, NULL));
        rm_rf(other);
        g_free(other);
        g_array_free(whole, TRUE);
        g_array_free(split, TRUE);
        g_free(trace);
        fixture_free(&f);
    }
}

static void test_registry_split_restart(void)
{
    split_restart(1000);
    if (unit_thin() == 1)
        split_restart(3000);
}

/* A test-only offline policy (FIFO that must see the sequence first): the
 * core hands the sequence over, refuses accesses before it and refuses the
 * policy in real mode. */
typedef struct {
    const CachePolicyEnv *env;
    size_t seen;
    uint32_t next_victim;
} OfflineProbe;

static void *probe_create(const CachePolicyEnv *env)
{
    OfflineProbe *p = g_new0(OfflineProbe, 1);
    p->env = env;
    return p;
}
static void probe_destroy(void *st) { g_free(st); }
static void probe_hit(void *st, CacheSlot slot) { (void)st; (void)slot; }
static CacheDecision probe_admit(void *st, ContainerId id, gboolean full, CacheSlot *victim)
{
    OfflineProbe *p = st;
    (void)id;
    if (!full)
        return CACHE_ADMIT_FREE;
    *victim = p->next_victim;
    p->next_victim = (p->next_victim + 1) % p->env->capacity;
    return CACHE_ADMIT_REPLACE;
}
static void probe_slot(void *st, CacheSlot slot) { (void)st; (void)slot; }
static gboolean probe_prepare(void *st, const ContainerId *seq, size_t n, GError **err)
{
    (void)seq;
    (void)err;
    ((OfflineProbe *)st)->seen = n;
    return TRUE;
}

static const CachePolicyOps offline_probe = {
    .name = "offline-probe", .description = "test", .citation = "test", .offline = TRUE,
    .create = probe_create, .destroy = probe_destroy, .hit = probe_hit, .admit = probe_admit,
    .inserted = probe_slot, .removed = probe_slot, .prepare = probe_prepare, .bytes_per_slot = 0,
};

static void test_offline_policy(void)
{
    const uint32_t seq[] = { 1, 2, 1, 3, 4 };
    CacheCore *c = test_sim_open(&offline_probe, NULL, 2, 10, NULL);
    GError *err = NULL;
    CU_ASSERT_FALSE(cache_access(c, 1, NULL, &err)); /* no sequence yet */
    CU_ASSERT_TRUE(g_error_matches(err, DESTOR_ERROR, DESTOR_ERROR_USAGE));
    g_clear_error(&err);
    CU_ASSERT_EQUAL(cache_core_counters(c)->accesses, 0);
    const uint32_t bad[] = { 1, 10 };
    CU_ASSERT_FALSE(cache_core_prepare(c, bad, 2, &err)); /* an id past the store */
    g_clear_error(&err);
    CU_ASSERT_TRUE(cache_core_prepare(c, seq, 5, NULL));
    test_run(c, seq, 5);
    CU_ASSERT_EQUAL(cache_core_counters(c)->hits, 1);
    CU_ASSERT_FALSE(cache_core_prepare(c, seq, 5, &err)); /* too late */
    g_clear_error(&err);
    cache_core_close(c, NULL);

    Fixture f;
    fixture_init(&f, 10, TEST_CONTAINER_SIZE, NULL);
    CacheCoreOptions o = real_options(&f, &offline_probe, NULL, 2);
    CU_ASSERT_PTR_NULL(cache_core_open(&o, &err));
    CU_ASSERT_TRUE(g_error_matches(err, DESTOR_ERROR, DESTOR_ERROR_USAGE));
    CU_ASSERT_PTR_NOT_NULL(err && strstr(err->message, "offline"));
    g_clear_error(&err);
    fixture_free(&f);
}

/* A test-only policy whose load_state takes part of its blob, then finds it
 * unusable (as TinyLFU's does when a smaller tinylfu-sample-factor makes
 * the saved sketch too full). It remembers every slot it holds; a slot
 * inserted while already held would sit in its queues twice. */
typedef struct {
    const CachePolicyEnv *env;
    gboolean *held;
    unsigned double_inserts;
    uint32_t next_victim;
} HalfLoader;

static unsigned half_loader_double_inserts;

static void *half_create(const CachePolicyEnv *env)
{
    HalfLoader *h = g_new0(HalfLoader, 1);
    h->env = env;
    h->held = g_new0(gboolean, env->capacity);
    return h;
}
static void half_destroy(void *st)
{
    HalfLoader *h = st;
    half_loader_double_inserts += h->double_inserts;
    g_free(h->held);
    g_free(h);
}
static void half_hit(void *st, CacheSlot slot) { (void)st; (void)slot; }
static CacheDecision half_admit(void *st, ContainerId id, gboolean full, CacheSlot *victim)
{
    HalfLoader *h = st;
    (void)id;
    if (!full)
        return CACHE_ADMIT_FREE;
    *victim = h->next_victim;
    h->next_victim = (h->next_victim + 1) % h->env->capacity;
    return CACHE_ADMIT_REPLACE;
}
static void half_inserted(void *st, CacheSlot slot)
{
    HalfLoader *h = st;
    if (h->held[slot])
        h->double_inserts++;
    h->held[slot] = TRUE;
}
static void half_removed(void *st, CacheSlot slot) { ((HalfLoader *)st)->held[slot] = FALSE; }
static void half_save_state(void *st, GByteArray *out)
{
    HalfLoader *h = st;
    for (CacheSlot s = 0; s < h->env->capacity; s++)
        if (h->held[s])
            g_byte_array_append(out, (const uint8_t *)&s, sizeof s);
}
static gboolean half_load_state(void *st, const uint8_t *blob, size_t len)
{
    HalfLoader *h = st;
    for (size_t at = 0; at + sizeof(CacheSlot) <= len; at += sizeof(CacheSlot)) {
        CacheSlot s;
        memcpy(&s, blob + at, sizeof s);
        if (s < h->env->capacity)
            h->held[s] = TRUE;
    }
    return FALSE; /* ...and then finds the rest unusable */
}

static const CachePolicyOps half_loader = {
    .name = "half-loader", .description = "test", .citation = "test",
    .create = half_create, .destroy = half_destroy, .hit = half_hit, .admit = half_admit,
    .inserted = half_inserted, .removed = half_removed, .state_version = 1,
    .save_state = half_save_state, .load_state = half_load_state, .bytes_per_slot = sizeof(gboolean),
};

/* Regression: a load_state that fails after loading part of the blob left
 * that part in the policy, and the core then inserted every restored slot
 * again. The core now starts the policy afresh before rebuilding it. */
static void test_failed_load_state_starts_afresh(void)
{
    Fixture f;
    fixture_init(&f, 16, TEST_CONTAINER_SIZE, NULL);
    CacheCore *c = real_open(&f, &half_loader, 3);
    for (ContainerId id = 1; id <= 5; id++)
        CU_ASSERT_TRUE(read_ok(c, id));
    CU_ASSERT_TRUE(cache_core_close(c, NULL));
    half_loader_double_inserts = 0;
    c = real_open(&f, &half_loader, 3);
    CU_ASSERT_EQUAL(cache_core_cached(c), 3);
    for (ContainerId id = 6; id <= 9; id++)
        CU_ASSERT_TRUE(read_ok(c, id));
    CU_ASSERT_TRUE(cache_core_close(c, NULL));
    CU_ASSERT_EQUAL(half_loader_double_inserts, 0);
    fixture_free(&f);
}

/* Reopen with cache-counters `mode`: the cached set is still `cached`
 * containers; the 16 containers' counts into counts[]. */
static void reopen_with_counters(CacheCoreOptions *o, AccessCountsMode mode, uint32_t cached, uint32_t *counts)
{
    o->counters = mode;
    CacheCore *c = cache_core_open(o, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_EQUAL(cache_core_cached(c), cached);
    for (ContainerId id = 0; id < 16; id++)
        counts[id] = cache_core_access_count(c, id);
    CU_ASSERT_TRUE(cache_core_close(c, NULL));
}

/* Reopening with other cache-counters carries the counts over: exact
 * counts into compact ones unchanged (below 65535), into a sketch never
 * less; the sketch back into exact counts gives each container its
 * estimate; the cached set survives each. */
static void test_restart_changes_counters(void)
{
    Fixture f;
    fixture_init(&f, 16, TEST_CONTAINER_SIZE, NULL);
    CacheCoreOptions o = real_options(&f, test_policy("plc"), NULL, 3);
    CacheCore *c = cache_core_open(&o, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    uint32_t *trace = test_trace(5, 16, 400);
    for (size_t i = 0; i < 400; i++)
        CU_ASSERT_TRUE(read_ok(c, trace[i]));
    uint32_t exact[16], compact[16], sketch[16], back[16];
    for (ContainerId id = 0; id < 16; id++)
        exact[id] = cache_core_access_count(c, id);
    uint32_t cached = cache_core_cached(c);
    CU_ASSERT(cached > 0);
    CU_ASSERT_TRUE(cache_core_close(c, NULL));

    reopen_with_counters(&o, ACCESS_COUNTS_COMPACT, cached, compact);
    reopen_with_counters(&o, ACCESS_COUNTS_SKETCH, cached, sketch);
    reopen_with_counters(&o, ACCESS_COUNTS_EXACT, cached, back);
    for (ContainerId id = 0; id < 16; id++) {
        CU_ASSERT_EQUAL(compact[id], exact[id]);
        CU_ASSERT(sketch[id] >= exact[id]);
        CU_ASSERT_EQUAL(back[id], sketch[id]);
    }
    g_free(trace);
    fixture_free(&f);
}

static void test_restart_keeps_entries(void)
{
    Fixture f;
    fixture_init(&f, 16, TEST_CONTAINER_SIZE, NULL);
    CacheCore *c = real_open(&f, test_policy("lru"), 3);
    const uint32_t first[] = { 1, 2, 3, 1 }; /* LRU order now 2, 3, 1 */
    for (size_t i = 0; i < 4; i++)
        CU_ASSERT_TRUE(read_ok(c, first[i]));
    CU_ASSERT_TRUE(cache_core_close(c, NULL));
    unsigned reads = f.src->reads;

    c = real_open(&f, test_policy("lru"), 3);
    CU_ASSERT_EQUAL(cache_core_cached(c), 3);
    CU_ASSERT_EQUAL(cache_core_access_count(c, 1), 2); /* counters survive too */
    TestLog log;
    test_log_init(&log);
    cache_core_set_observer(c, test_log_observer, &log);
    CU_ASSERT_TRUE(read_ok(c, 4)); /* evicts the least recent before the restart: 2 */
    CU_ASSERT_EQUAL_FATAL(log.evicted->len, 1);
    CU_ASSERT_EQUAL(TEST_LOG_AT(log.evicted, 0), 2);
    CU_ASSERT_TRUE(read_ok(c, 3));
    CU_ASSERT_TRUE(read_ok(c, 1));
    CU_ASSERT_EQUAL(cache_core_counters(c)->hits, 2);
    CU_ASSERT_EQUAL(f.src->reads, reads + 1);
    test_log_free(&log);
    CU_ASSERT_TRUE(cache_core_close(c, NULL));

    /* another policy takes over the entries (not the order) */
    c = real_open(&f, test_policy("plc"), 3);
    CU_ASSERT_EQUAL(cache_core_cached(c), 3);
    CU_ASSERT_TRUE(read_ok(c, 4));
    CU_ASSERT_EQUAL(cache_core_counters(c)->hits, 1);
    CU_ASSERT_TRUE(cache_core_close(c, NULL));

    /* a smaller cache keeps what fits and cuts the slot file */
    c = real_open(&f, test_policy("plc"), 1);
    CU_ASSERT(cache_core_cached(c) <= 1);
    CU_ASSERT(dir_bytes(f.cachedir, SSD_STORE_SLOT_FILE) <= SSD_SLOT_HEADER_SIZE + TEST_CONTAINER_SIZE);
    CU_ASSERT_TRUE(cache_core_close(c, NULL));
    fixture_free(&f);
}

static void test_plc_state_survives_restart(void)
{
    Fixture f;
    fixture_init(&f, 16, TEST_CONTAINER_SIZE, NULL);
    PlcTestParams p = test_default_params();
    p.plc_filter_threshold = 0;
    p.plc_delay_threshold = 0;
    p.plc_inout_auto = FALSE;
    p.plc_inout_factor = 1.0;
    p.plc_priority_mode = PLC_PRIORITY_FIXED;
    p.plc_initial_priority = 0;
    /* 1 and 2 cached with priority 0, then 1 hit (priority 1). After the
     * restart, 3 misses: the hand takes 1 to 0 and stops at 2; 3 goes under
     * the hand with priority 0 and 4 replaces it. Had the priorities been
     * lost (both 0), the victims would be 1 and then 3. */
    const uint32_t before[] = { 1, 2, 1 }, after[] = { 3, 4 };
    CacheCoreOptions o = real_options(&f, test_policy("plc"), &p, 2);
    CacheCore *c = cache_core_open(&o, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    for (size_t i = 0; i < 3; i++)
        CU_ASSERT_TRUE(read_ok(c, before[i]));
    CU_ASSERT_TRUE(cache_core_close(c, NULL));
    c = cache_core_open(&o, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    TestLog log;
    test_log_init(&log);
    cache_core_set_observer(c, test_log_observer, &log);
    for (size_t i = 0; i < 2; i++)
        CU_ASSERT_TRUE(read_ok(c, after[i]));
    CU_ASSERT_EQUAL_FATAL(log.evicted->len, 2);
    CU_ASSERT_EQUAL(TEST_LOG_AT(log.evicted, 0), 2);
    CU_ASSERT_EQUAL(TEST_LOG_AT(log.evicted, 1), 3);
    test_log_free(&log);
    cache_core_close(c, NULL);
    fixture_free(&f);
}

static void test_damaged_copy_is_dropped(void)
{
    Fixture f;
    fixture_init(&f, 16, TEST_CONTAINER_SIZE, NULL);
    CacheCore *c = real_open(&f, test_policy("lru"), 4);
    CU_ASSERT_TRUE(read_ok(c, 7)); /* slot 0 */
    CU_ASSERT_TRUE(read_ok(c, 8)); /* slot 1 */
    CU_ASSERT_TRUE(cache_core_close(c, NULL));
    corrupt_byte(f.cachedir, container_byte(0, 100)); /* inside container 7's copy */

    c = real_open(&f, test_policy("lru"), 4);
    CU_ASSERT_EQUAL(cache_core_cached(c), 2); /* a clean restart trusts the list... */
    CU_ASSERT_TRUE(read_ok(c, 7));            /* ...but every hit checks the bytes */
    const CacheCounters *k = cache_core_counters(c);
    CU_ASSERT_EQUAL(k->ssd_corrupt_dropped, 1);
    CU_ASSERT_EQUAL(k->hits, 0);
    CU_ASSERT_EQUAL(k->misses, 1);
    CU_ASSERT_EQUAL(k->admissions, 1); /* LRU wrote a good copy again */
    CU_ASSERT_TRUE(read_ok(c, 7));
    CU_ASSERT_TRUE(read_ok(c, 8));
    CU_ASSERT_EQUAL(k->hits, 2);
    CU_ASSERT_TRUE(cache_core_close(c, NULL));
    fixture_free(&f);
}

/* A copy the store no longer holds (put back from a copy, the id reused):
 * its hit serves the old bytes, which only the caller's recipe can tell;
 * the caller's reread gives the store's and drops the copy; a reread of a
 * copy the store still holds changes nothing. */
static void test_stale_copy_dropped_on_reread(void)
{
    Fixture f;
    fixture_init(&f, 16, TEST_CONTAINER_SIZE, NULL);
    CacheCore *c = real_open(&f, test_policy("lru"), 4);
    CU_ASSERT_TRUE(read_ok(c, 7));
    CU_ASSERT_TRUE(read_ok(c, 8));
    source_rewrite(f.src, 7, 1);
    CU_ASSERT_TRUE(read_is(c, 7, 0, FALSE)); /* a hit: the copy is sound, only stale */
    const CacheCounters *k = cache_core_counters(c);
    CU_ASSERT_EQUAL(k->hits, 1);
    unsigned reads = f.src->reads;
    uint64_t store_bytes = k->store_bytes_read;
    CU_ASSERT_TRUE(read_is(c, 7, 1, TRUE));
    CU_ASSERT_EQUAL(f.src->reads, reads + 1);
    CU_ASSERT_EQUAL(k->store_bytes_read, store_bytes + TEST_CONTAINER_SIZE);
    CU_ASSERT_EQUAL(k->ssd_stale_dropped, 1);
    CU_ASSERT_EQUAL(k->ssd_corrupt_dropped, 0);
    CU_ASSERT_FALSE(cache_core_contains(c, 7));
    CU_ASSERT_EQUAL(cache_core_cached(c), 1);

    CU_ASSERT_TRUE(read_is(c, 8, 0, TRUE)); /* the store's bytes are the copy's: */
    CU_ASSERT_TRUE(cache_core_contains(c, 8)); /* the mismatch was the store's own */
    CU_ASSERT_EQUAL(k->ssd_stale_dropped, 1);
    CU_ASSERT_TRUE(read_is(c, 7, 1, FALSE)); /* a miss now, cached afresh */
    CU_ASSERT_EQUAL(k->misses, 3);
    CU_ASSERT_TRUE(read_is(c, 7, 1, FALSE));
    CU_ASSERT_EQUAL(k->hits, 2);
    CU_ASSERT_TRUE(cache_core_close(c, NULL));

    /* the store itself has no copies to distrust */
    uint8_t *buf = g_malloc(TEST_CONTAINER_SIZE);
    GError *err = NULL;
    CU_ASSERT_FALSE(container_source_reread(&f.src->base, 7, buf, &err));
    CU_ASSERT_PTR_NULL(err);
    g_free(buf);
    fixture_free(&f);
}

/* A store rolled back and written again reuses a suffix of its ids: cache
 * open sees the highest cached container changed (or gone), drops exactly
 * the copies that are not the store's now, counts them, and keeps the
 * rest. An unchanged store costs no check. */
static void test_rollback_dropped_at_open(void)
{
    Fixture f;
    fixture_init(&f, 16, TEST_CONTAINER_SIZE, NULL);
    const uint32_t ids[] = { 2, 5, 9, 11, 12 };
    CacheCore *c = real_open(&f, test_policy("lru"), 8);
    for (size_t i = 0; i < G_N_ELEMENTS(ids); i++)
        CU_ASSERT_TRUE(read_ok(c, ids[i]));
    CU_ASSERT_TRUE(cache_core_close(c, NULL));

    c = real_open(&f, test_policy("lru"), 8); /* the same store: all kept */
    CU_ASSERT_EQUAL(cache_core_cached(c), 5);
    CU_ASSERT_EQUAL(cache_core_counters(c)->ssd_stale_dropped, 0);
    CU_ASSERT_TRUE(cache_core_close(c, NULL));

    for (ContainerId id = 9; id < 16; id++) /* put back with 9 containers, then a backup */
        source_rewrite(f.src, id, 1);
    c = real_open(&f, test_policy("lru"), 8);
    const CacheCounters *k = cache_core_counters(c);
    CU_ASSERT_EQUAL(cache_core_cached(c), 2);
    CU_ASSERT_EQUAL(k->ssd_stale_dropped, 3);
    CU_ASSERT_TRUE(cache_core_contains(c, 2));
    CU_ASSERT_TRUE(cache_core_contains(c, 5));
    CU_ASSERT_EQUAL(cache_core_access_count(c, 11), 0); /* another container's count */
    CU_ASSERT_EQUAL(cache_core_access_count(c, 5), 1);
    for (size_t i = 0; i < G_N_ELEMENTS(ids); i++)
        CU_ASSERT_TRUE(read_is(c, ids[i], ids[i] >= 9, FALSE));
    CU_ASSERT_EQUAL(k->hits, 2);
    CU_ASSERT_TRUE(cache_core_close(c, NULL));

    /* put back again with 10 containers, no backup since: the highest
     * cached container (12) is gone, the others are checked, 9 differs */
    for (ContainerId id = 9; id < 16; id++)
        source_rewrite(f.src, id, 0);
    f.src->n = 10;
    CacheCoreOptions o = real_options(&f, test_policy("lru"), NULL, 8);
    o.n_containers = 10;
    c = cache_core_open(&o, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_EQUAL(cache_core_cached(c), 2);
    CU_ASSERT_EQUAL(cache_core_counters(c)->ssd_stale_dropped, 1);
    CU_ASSERT_TRUE(read_ok(c, 9));
    CU_ASSERT_TRUE(cache_core_close(c, NULL));
    fixture_free(&f);
}

/* A cache opened on 8 of the store's containers serves the rest once
 * grown (a job committed since it opened), in every counts mode, and keeps
 * what it held; it saves and reopens on the larger store. */
static void test_grow(void)
{
    static const AccessCountsMode modes[] = { ACCESS_COUNTS_EXACT, ACCESS_COUNTS_COMPACT, ACCESS_COUNTS_SKETCH };
    for (size_t m = 0; m < G_N_ELEMENTS(modes); m++) {
        Fixture f;
        fixture_init(&f, 200, TEST_CONTAINER_SIZE, NULL);
        uint32_t refs8[8] = { 0 }, *refs = g_new0(uint32_t, 200);
        refs[150] = 3;
        CacheCoreOptions o = real_options(&f, test_policy("plc"), NULL, 4);
        o.n_containers = 8;
        o.reference_count = refs8;
        o.counters = modes[m];
        CacheCore *c = cache_core_open(&o, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(c);
        for (int i = 0; i < 6; i++) /* past PLC's filter: cached */
            CU_ASSERT_TRUE(read_ok(c, 3));
        CU_ASSERT_TRUE(cache_core_contains(c, 3));
        GError *err = NULL;
        uint8_t *buf = g_malloc(TEST_CONTAINER_SIZE);
        CU_ASSERT_FALSE(cache_access(c, 150, buf, &err));
        CU_ASSERT_TRUE(g_error_matches(err, DESTOR_ERROR, DESTOR_ERROR_USAGE));
        g_clear_error(&err);
        CU_ASSERT_TRUE(cache_core_grow(c, 200, refs, &err));
        CU_ASSERT_TRUE(cache_core_grow(c, 100, NULL, &err)); /* smaller: nothing */
        CU_ASSERT_EQUAL(cache_core_containers(c), 200);
        for (int i = 0; i < 6; i++)
            CU_ASSERT_TRUE(read_ok(c, 150));
        CU_ASSERT_TRUE(read_ok(c, 199));
        CU_ASSERT_TRUE(cache_core_contains(c, 150));
        CU_ASSERT_TRUE(cache_core_contains(c, 3));
        CU_ASSERT_EQUAL(cache_core_access_count(c, 3), 6);
        CU_ASSERT(cache_core_access_count(c, 150) >= 6);
        CU_ASSERT_TRUE(cache_core_close(c, NULL));
        o.n_containers = 200;
        o.reference_count = refs;
        c = cache_core_open(&o, NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(c);
        CU_ASSERT_TRUE(cache_core_contains(c, 150));
        CU_ASSERT_TRUE(read_ok(c, 150));
        CU_ASSERT_EQUAL(cache_core_counters(c)->hits, 1);
        CU_ASSERT_TRUE(cache_core_close(c, NULL));
        g_free(buf);
        g_free(refs);
        fixture_free(&f);
    }
}

static void test_unclean_shutdown(void)
{
    Fixture f;
    fixture_init(&f, 16, TEST_CONTAINER_SIZE, NULL);
    CacheCore *c = real_open(&f, test_policy("lru"), 4);
    for (uint32_t id = 0; id < 4; id++) /* container i in slot i */
        CU_ASSERT_TRUE(read_ok(c, id));
    CU_ASSERT_TRUE(cache_core_close(c, NULL));

    c = real_open(&f, test_policy("lru"), 4);
    CU_ASSERT_TRUE(read_ok(c, 4)); /* replaces 0 in slot 0 */
    CU_ASSERT_TRUE(read_ok(c, 5)); /* replaces 1 in slot 1 */
    cache_core_abandon(c);         /* the process dies */
    corrupt_byte(f.cachedir, container_byte(2, 9)); /* and slot 2 rots */

    c = real_open(&f, test_policy("lru"), 4);
    /* the list of the last clean run says 0 1 2 3: 0 and 1 were overwritten,
     * 2 is damaged; only 3 is still what the list says */
    CU_ASSERT_EQUAL(cache_core_cached(c), 1);
    CU_ASSERT_TRUE(cache_core_contains(c, 3));
    for (uint32_t id = 0; id < 6; id++)
        CU_ASSERT_TRUE(read_ok(c, id));
    CU_ASSERT_EQUAL(cache_core_counters(c)->hits, 1);
    CU_ASSERT_TRUE(cache_core_close(c, NULL));
    fixture_free(&f);
}

static void test_damaged_metadata(void)
{
    Fixture f;
    fixture_init(&f, 16, TEST_CONTAINER_SIZE, NULL);
    CacheCore *c = real_open(&f, test_policy("fifo"), 4);
    CU_ASSERT_TRUE(read_ok(c, 1));
    CU_ASSERT_TRUE(cache_core_close(c, NULL));
    char *meta = g_build_filename(f.cachedir, CACHE_META_FILE, NULL);
    int fd = open(meta, O_RDWR);
    CU_ASSERT_FATAL(fd >= 0);
    CU_ASSERT(pwrite(fd, "X", 1, 70) == 1);
    close(fd);
    GError *err = NULL;
    CacheMeta m;
    gboolean found = FALSE;
    CU_ASSERT_FALSE(cache_meta_load(meta, &m, &found, &err));
    CU_ASSERT_TRUE(g_error_matches(err, DESTOR_ERROR, DESTOR_ERROR_INTEGRITY));
    g_clear_error(&err);
    c = real_open(&f, test_policy("fifo"), 4); /* starts empty, with a warning */
    CU_ASSERT_EQUAL(cache_core_cached(c), 0);
    CU_ASSERT_TRUE(read_ok(c, 1));
    CU_ASSERT_TRUE(cache_core_close(c, NULL));
    g_free(meta);
    fixture_free(&f);
}

static void test_lock_refuses_second_user(void)
{
    Fixture f;
    fixture_init(&f, 8, TEST_CONTAINER_SIZE, NULL);
    CacheCore *c = real_open(&f, test_policy("lru"), 4);
    CacheCoreOptions o = real_options(&f, test_policy("lru"), NULL, 4);
    GError *err = NULL;
    CacheCore *second = cache_core_open(&o, &err);
    CU_ASSERT_PTR_NULL(second);
    CU_ASSERT_TRUE(g_error_matches(err, DESTOR_ERROR, DESTOR_ERROR_LOCKED));
    g_clear_error(&err);
    cache_core_close(c, NULL);
    second = cache_core_open(&o, &err);
    CU_ASSERT_PTR_NOT_NULL(second);
    cache_core_close(second, NULL);
    fixture_free(&f);
}

static void test_o_direct(void)
{
    /* tmpfs has no O_DIRECT: try a disk-backed directory, skip if none */
    const char *bases[] = { "/var/tmp", g_get_tmp_dir() };
    for (size_t b = 0; b < G_N_ELEMENTS(bases); b++) {
        if (g_access(bases[b], W_OK) != 0)
            continue;
        Fixture f;
        fixture_init(&f, 32, 8192, bases[b]);
        CacheCoreOptions o = real_options(&f, test_policy("lru"), NULL, 8);
        o.o_direct = TRUE;
        GError *err = NULL;
        CacheCore *c = cache_core_open(&o, &err);
        if (c == NULL) {
            fprintf(stderr, "\n  (O_DIRECT on %s: %s)", bases[b], err->message);
            g_clear_error(&err);
            fixture_free(&f);
            continue;
        }
        uint32_t *trace = test_trace(77, 32, 500);
        unsigned wrong = 0;
        for (size_t i = 0; i < 500; i++)
            if (!read_ok(c, trace[i])) /* g_malloc buffers: usually unaligned */
                wrong++;
        CU_ASSERT_EQUAL(wrong, 0);
        CU_ASSERT(cache_core_counters(c)->hits > 0);
        CU_ASSERT_TRUE(cache_core_close(c, NULL));
        g_free(trace);
        fixture_free(&f);
        return;
    }
    fprintf(stderr, "\n  (O_DIRECT not available here: skipped)");
}

static void test_o_direct_needs_aligned_size(void)
{
    Fixture f;
    fixture_init(&f, 4, 1000, NULL);
    CacheCoreOptions o = real_options(&f, test_policy("lru"), NULL, 2);
    o.o_direct = TRUE;
    GError *err = NULL;
    CU_ASSERT_PTR_NULL(cache_core_open(&o, &err));
    CU_ASSERT_TRUE(g_error_matches(err, DESTOR_ERROR, DESTOR_ERROR_CONFIG));
    g_clear_error(&err);
    fixture_free(&f);
}

static const uint8_t store_a[SSD_STORE_ID_LEN] = { 0xa1, 0xa2, 0xa3 };
static const uint8_t store_b[SSD_STORE_ID_LEN] = { 0xb1, 0xb2, 0xb3 };

static CacheCore *open_as(Fixture *f, const char *dir, const uint8_t *store, uint32_t capacity)
{
    CacheCoreOptions o = real_options(f, test_policy("lru"), NULL, capacity);
    o.directory = dir;
    memcpy(o.store_id, store, SSD_STORE_ID_LEN);
    CacheCore *c = cache_core_open(&o, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    return c;
}

/* A cache directory another store filled (cache.meta names that store) is
 * dropped whole at open, access counts included, and counted. */
static void test_foreign_directory_dropped(void)
{
    Fixture f;
    fixture_init(&f, 16, TEST_CONTAINER_SIZE, NULL);
    CacheCore *c = open_as(&f, f.cachedir, store_a, 4);
    CU_ASSERT_TRUE(read_ok(c, 3));
    CU_ASSERT_TRUE(read_ok(c, 5));
    CU_ASSERT_TRUE(cache_core_close(c, NULL));

    c = open_as(&f, f.cachedir, store_b, 4);
    CU_ASSERT_EQUAL(cache_core_cached(c), 0);
    CU_ASSERT_EQUAL(cache_core_access_count(c, 3), 0);
    CU_ASSERT_EQUAL(cache_core_counters(c)->ssd_foreign_dropped, 2);
    CU_ASSERT_TRUE(read_ok(c, 3));
    CU_ASSERT_EQUAL(cache_core_counters(c)->misses, 1);
    CU_ASSERT_TRUE(cache_core_close(c, NULL));
    fixture_free(&f);
}

/* A slot whose header names another store is never served, even when
 * cache.meta is this store's and the bytes match their recorded check. */
static void test_foreign_slot_dropped(void)
{
    Fixture f;
    fixture_init(&f, 16, TEST_CONTAINER_SIZE, NULL);
    char *other = g_build_filename(f.root, "other-cache", NULL);
    CacheCore *c = open_as(&f, f.cachedir, store_a, 4);
    CU_ASSERT_TRUE(read_ok(c, 3));
    CU_ASSERT_TRUE(cache_core_close(c, NULL));
    c = open_as(&f, other, store_b, 4);
    CU_ASSERT_TRUE(read_ok(c, 3));
    CU_ASSERT_TRUE(cache_core_close(c, NULL));
    char *mine = g_build_filename(f.cachedir, SSD_STORE_SLOT_FILE, NULL);
    char *theirs = g_build_filename(other, SSD_STORE_SLOT_FILE, NULL);
    CU_ASSERT_EQUAL(rename(theirs, mine), 0);

    c = open_as(&f, f.cachedir, store_a, 4);
    CU_ASSERT_EQUAL(cache_core_cached(c), 1); /* a clean restart trusts the list... */
    CU_ASSERT_TRUE(read_ok(c, 3));            /* ...but every hit checks the header */
    const CacheCounters *k = cache_core_counters(c);
    CU_ASSERT_EQUAL(k->ssd_foreign_dropped, 1);
    CU_ASSERT_EQUAL(k->ssd_corrupt_dropped, 0);
    CU_ASSERT_EQUAL(k->hits, 0);
    CU_ASSERT_TRUE(read_ok(c, 3)); /* LRU wrote this store's copy again */
    CU_ASSERT_EQUAL(k->hits, 1);
    CU_ASSERT_TRUE(cache_core_close(c, NULL));
    rm_rf(other);
    g_free(other);
    g_free(mine);
    g_free(theirs);
    fixture_free(&f);
}

static void test_open_from_config(void)
{
    Fixture f;
    fixture_init(&f, 50, TEST_CONTAINER_SIZE, NULL);
    CacheConfig cfg;
    cache_config_init(&cfg);
    GError *err = NULL;
    CU_ASSERT_PTR_NULL(cache_core_open_config(&cfg, store_a, TEST_CONTAINER_SIZE, 50, NULL, &f.src->base, NULL, 0, &err));
    CU_ASSERT_TRUE(g_error_matches(err, DESTOR_ERROR, DESTOR_ERROR_USAGE)); /* policy none */
    g_clear_error(&err);
    CU_ASSERT_EQUAL(cache_config_set(&cfg, "ssd-cache-policy", "plc", NULL), CACHE_CONFIG_OK);
    CU_ASSERT_PTR_NULL(cache_core_open_config(&cfg, store_a, TEST_CONTAINER_SIZE, 50, NULL, &f.src->base, NULL, 0, &err));
    CU_ASSERT_TRUE(g_error_matches(err, DESTOR_ERROR, DESTOR_ERROR_CONFIG)); /* no directory */
    g_clear_error(&err);
    CU_ASSERT_EQUAL(cache_config_set(&cfg, "ssd-cache-directory", f.cachedir, NULL), CACHE_CONFIG_OK);
    CacheCore *c = cache_core_open_config(&cfg, store_a, TEST_CONTAINER_SIZE, 50, NULL, &f.src->base, NULL, 0, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_EQUAL(cache_core_capacity(c), 10); /* 20% of 50 */
    CU_ASSERT_EQUAL(cache_core_mode(c), CACHE_MODE_REAL);
    cache_core_close(c, NULL);
    cfg.simulate = TRUE;
    CU_ASSERT_EQUAL(cache_config_set(&cfg, "ssd-cache-size", "64K", NULL), CACHE_CONFIG_OK);
    c = cache_core_open_config(&cfg, store_a, TEST_CONTAINER_SIZE, 50, NULL, NULL, NULL, 0, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_EQUAL(cache_core_capacity(c), 16);
    CU_ASSERT_EQUAL(cache_core_mode(c), CACHE_MODE_SIMULATE);
    cache_core_close(c, NULL);
    cache_config_clear(&cfg);
    fixture_free(&f);
}

static void test_stats_json(void)
{
    Fixture f;
    fixture_init(&f, 16, TEST_CONTAINER_SIZE, NULL);
    CacheCore *c = real_open(&f, test_policy("lru"), 2);
    cache_core_request_begin(c, 0);
    for (uint32_t id = 0; id < 5; id++)
        CU_ASSERT_TRUE(read_ok(c, id % 3));
    cache_core_request_end(c);
    CacheReport r;
    cache_core_report(c, &r);
    CU_ASSERT_EQUAL(r.c.requests, 1);
    JsonObject *o = test_report_json(&r);
    CU_ASSERT_EQUAL(json_object_get_int_member(o, "ssd_bytes_written"),
                    (gint64)(r.c.admissions * (uint64_t)TEST_CONTAINER_SIZE));
    CU_ASSERT_STRING_EQUAL(json_object_get_string_member(o, "mode"), "real");
    json_object_unref(o);
    cache_core_close(c, NULL);
    fixture_free(&f);
}

/* ssd-cache-write-budget with ssd-cache-admission bucket: a bucket of write
 * credit, one cache deep and full at open, gains the budget at every
 * request; a miss is admitted only while a container's worth is there. LRU, 2 slots, half a container a request,
 * ten misses of one access each: credit 2 -> admit (1), 1.5 -> admit
 * (0.5), 1 -> admit (0), 0.5 -> refuse, 1 -> admit (0), ... so requests
 * 1, 2, 3, 5, 7, 9 admit and 4, 6, 8, 10 are refused. An offline policy
 * refuses the budget. */
static void test_write_budget(void)
{
    CacheCoreOptions o = test_options(test_policy("lru"), NULL, 2, 20, NULL);
    o.write_budget = 0.5 * TEST_CONTAINER_SIZE;
    CU_ASSERT_TRUE_FATAL(admission_lookup("bucket", &o.admission));
    GError *err = NULL;
    CacheCore *c = cache_core_open(&o, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    static const gboolean admitted[10] = { 1, 1, 1, 0, 1, 0, 1, 0, 1, 0 };
    for (uint32_t i = 0; i < 10; i++) {
        uint64_t before = cache_core_counters(c)->admissions;
        cache_core_request_begin(c, 0);
        CU_ASSERT_TRUE(cache_access(c, i, NULL, NULL));
        cache_core_request_end(c);
        CU_ASSERT_EQUAL(cache_core_counters(c)->admissions - before, admitted[i]);
    }
    CacheReport r;
    cache_core_report(c, &r);
    CU_ASSERT_EQUAL(r.c.refused_write_budget, 4);
    CU_ASSERT_EQUAL(r.c.refused, 4);
    CU_ASSERT_EQUAL(r.c.ssd_bytes_written, 6 * (uint64_t)TEST_CONTAINER_SIZE);
    CU_ASSERT_DOUBLE_EQUAL(r.write_budget_bytes, 5.0 * TEST_CONTAINER_SIZE, 1e-9);
    /* never more than the budget over the requests plus one cache fill */
    CU_ASSERT(r.c.ssd_bytes_written <= r.write_budget_bytes + 2.0 * TEST_CONTAINER_SIZE);
    cache_core_close(c, NULL);

    o = test_options(test_policy("belady"), NULL, 2, 20, NULL);
    o.write_budget = 1;
    CU_ASSERT_PTR_NULL(cache_core_open(&o, &err));
    CU_ASSERT_TRUE(g_error_matches(err, DESTOR_ERROR, DESTOR_ERROR_USAGE));
    g_clear_error(&err);
}

static void add_suites(void)
{
    CU_pSuite s = CU_add_suite("cache core", NULL, NULL);
    CU_add_test(s, "real mode = simulation mode", test_real_equals_simulation);
    CU_add_test(s, "real mode = simulation mode, every admission rule", test_real_equals_simulation_admission);
    CU_add_test(s, "request_ids = begin, accesses, end", test_request_ids_equals_accesses);
    CU_add_test(s, "NULL buffer, ContainerSource", test_null_buffer_and_source);
    CU_add_test(s, "errors count nothing", test_errors_count_nothing);
    CU_add_test(s, "restart keeps entries", test_restart_keeps_entries);
    CU_add_test(s, "restart with other cache-counters", test_restart_changes_counters);
    CU_add_test(s, "a failed load_state starts the policy afresh", test_failed_load_state_starts_afresh);
    CU_add_test(s, "plc state survives restart", test_plc_state_survives_restart);
    CU_add_test(s, "damaged copy dropped", test_damaged_copy_is_dropped);
    CU_add_test(s, "stale copy dropped on reread", test_stale_copy_dropped_on_reread);
    CU_add_test(s, "rolled-back store: stale copies dropped at open", test_rollback_dropped_at_open);
    CU_add_test(s, "grow with the store", test_grow);
    CU_add_test(s, "another store's cache dropped", test_foreign_directory_dropped);
    CU_add_test(s, "registry: declarations", test_registry_declarations);
    CU_add_test(s, "registry: properties", test_registry_properties);
    CU_add_test(s, "registry: split replay = one run", test_registry_split_restart);
    CU_add_test(s, "offline policy", test_offline_policy);
    CU_add_test(s, "another store's slot dropped", test_foreign_slot_dropped);
    CU_add_test(s, "unclean shutdown", test_unclean_shutdown);
    CU_add_test(s, "damaged metadata", test_damaged_metadata);
    CU_add_test(s, "directory lock", test_lock_refuses_second_user);
    CU_add_test(s, "O_DIRECT", test_o_direct);
    CU_add_test(s, "O_DIRECT size check", test_o_direct_needs_aligned_size);
    CU_add_test(s, "open from config", test_open_from_config);
    CU_add_test(s, "stats JSON", test_stats_json);
    CU_add_test(s, "write budget", test_write_budget);
}

UNIT_MAIN(add_suites)
