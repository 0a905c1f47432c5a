/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_prefetch_source.c: the read-ahead source (src/read/prefetch_source.c)
 * with one and with several reader threads over a source whose reads take
 * uneven times, so they complete out of order: every planned read, repeats
 * included, comes back in plan order with its own bytes, through read and
 * through read_exchange (which hands over the reader's buffer: the
 * caller's buffer changes, its bytes are the container's); a read off the
 * plan goes to the backing source; a planned read that failed fails at its
 * turn and the plan goes on; over a source that maps, mappings are handed
 * over and none is left behind; freed before the plan is consumed, it stops
 * (under valgrind: without leaks). */
#include "read/prefetch_source.h"
#include "util/error.h"
#include "unit.h"

#include <string.h>

#define CSIZE 4096u
#define BAD_ID 13u /* the backing source fails to read it */

typedef struct {
    ContainerSource source;
    gint reads;
} TestSource;

static gboolean slow_read(ContainerSource *self, ContainerId id, uint8_t *buf, GError **err)
{
    TestSource *t = (TestSource *)self;
    g_atomic_int_inc(&t->reads);
    g_usleep((id * 7919u) % 5u * 300u); /* uneven: reads finish out of order */
    if (id == BAD_ID) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_IO, "read container %u: test failure", id);
        return FALSE;
    }
    memset(buf, (int)(id & 0xff), CSIZE);
    buf[0] = (uint8_t)(id >> 8);
    return TRUE;
}

static gboolean holds(const uint8_t *buf, ContainerId id)
{
    return buf[0] == (uint8_t)(id >> 8) && buf[1] == (uint8_t)(id & 0xff) && buf[CSIZE - 1] == (uint8_t)(id & 0xff);
}

static GArray *plan_of(const ContainerId *ids, guint n)
{
    GArray *plan = g_array_new(FALSE, FALSE, sizeof(ContainerId));
    g_array_append_vals(plan, ids, n);
    return plan;
}

static void run_plan(guint threads, gboolean exchange)
{
    const ContainerId ids[] = { 3, 1, 4, 1, 5, 9, 2, 6, BAD_ID, 5, 3, 5, 8, 9, 7, 9, 300, 2, 3, 8 };
    TestSource t = { .source = { .read = slow_read, .container_size = CSIZE } };
    PrefetchSource *p = prefetch_source_new(&t.source, plan_of(ids, G_N_ELEMENTS(ids)), 3, threads);
    ContainerSource *src = prefetch_source_source(p);
    uint8_t *buf = g_malloc(CSIZE);
    size_t wrong = 0, exchanged = 0;
    for (guint i = 0; i < G_N_ELEMENTS(ids); i++) {
        GError *err = NULL;
        uint8_t *before = buf;
        gboolean ok = exchange ? container_source_read_buffer(src, ids[i], &buf, &err)
                               : container_source_read(src, ids[i], buf, &err);
        exchanged += buf != before;
        if (ids[i] == BAD_ID) {
            wrong += ok || !g_error_matches(err, DESTOR_ERROR, DESTOR_ERROR_IO);
            g_clear_error(&err);
        } else {
            wrong += !ok || !holds(buf, ids[i]);
        }
    }
    CU_ASSERT_EQUAL(wrong, 0);
    CU_ASSERT_EQUAL(g_atomic_int_get(&t.reads), (gint)G_N_ELEMENTS(ids)); /* each once, by the readers */
    CU_ASSERT_EQUAL(exchanged, exchange ? G_N_ELEMENTS(ids) - 1 : 0);     /* the failed one keeps its buffer */
    GError *err = NULL; /* off the plan (it is used up): the backing source */
    CU_ASSERT_TRUE(container_source_read_buffer(src, 42, &buf, &err) && holds(buf, 42));
    CU_ASSERT_EQUAL(g_atomic_int_get(&t.reads), (gint)G_N_ELEMENTS(ids) + 1);
    prefetch_source_free(p);
    g_free(buf);
}

static void test_one_reader(void)
{
    run_plan(1, FALSE);
    run_plan(1, TRUE);
}

static void test_several_readers(void)
{
    run_plan(2, FALSE);
    run_plan(2, TRUE);
    run_plan(PREFETCH_THREADS_MAX, TRUE);
}

/* A read the plan does not expect next is served by the backing source,
 * and the planned one stays for its turn. */
static void test_off_plan_read(void)
{
    const ContainerId ids[] = { 10, 11, 12 };
    TestSource t = { .source = { .read = slow_read, .container_size = CSIZE } };
    PrefetchSource *p = prefetch_source_new(&t.source, plan_of(ids, G_N_ELEMENTS(ids)), 2, 2);
    ContainerSource *src = prefetch_source_source(p);
    uint8_t *buf = g_malloc(CSIZE);
    GError *err = NULL;
    CU_ASSERT_TRUE(container_source_read_buffer(src, 77, &buf, &err) && holds(buf, 77));
    for (guint i = 0; i < G_N_ELEMENTS(ids); i++)
        CU_ASSERT_TRUE(container_source_read_buffer(src, ids[i], &buf, &err) && holds(buf, ids[i]));
    prefetch_source_free(p);
    g_free(buf);
}

/* Over a source that maps: the readers map, and each planned container is
 * handed over as the reader's mapping (map), or copied out of it and
 * unmapped (read, read_exchange); freed midway, it unmaps what it still
 * holds: no mapping outlives its unmap. */
static gint mapped_now; /* mappings not unmapped yet */

static gboolean slow_map(ContainerSource *self, ContainerId id, const uint8_t **bytes, GError **err)
{
    uint8_t *buf = g_malloc(CSIZE);
    if (!slow_read(self, id, buf, err)) {
        g_free(buf);
        return FALSE;
    }
    g_atomic_int_inc(&mapped_now);
    *bytes = buf;
    return TRUE;
}

static void slow_unmap(ContainerSource *self, const uint8_t *bytes)
{
    (void)self;
    g_atomic_int_add(&mapped_now, -1);
    g_free((void *)bytes);
}

static void test_mapping_source(void)
{
    const ContainerId ids[] = { 3, 1, 4, 1, 5, 9, 2, 6, BAD_ID, 5, 3, 5, 8, 9 };
    TestSource t = { .source = { .read = slow_read, .map = slow_map, .unmap = slow_unmap, .container_size = CSIZE } };
    PrefetchSource *p = prefetch_source_new(&t.source, plan_of(ids, G_N_ELEMENTS(ids)), 3, 2);
    ContainerSource *src = prefetch_source_source(p);
    CU_ASSERT_TRUE_FATAL(container_source_maps(src));
    uint8_t *buf = g_malloc(CSIZE);
    size_t wrong = 0;
    for (guint i = 0; i < G_N_ELEMENTS(ids); i++) {
        GError *err = NULL;
        const uint8_t *m = NULL;
        gboolean ok = i % 3 == 0   ? container_source_read(src, ids[i], buf, &err)
                    : i % 3 == 1 ? container_source_read_buffer(src, ids[i], &buf, &err)
                                 : container_source_map(src, ids[i], &m, &err);
        if (ids[i] == BAD_ID) {
            wrong += ok || !g_error_matches(err, DESTOR_ERROR, DESTOR_ERROR_IO);
            g_clear_error(&err);
            continue;
        }
        wrong += !ok || !holds(m != NULL ? m : buf, ids[i]);
        container_source_unmap(src, m);
    }
    CU_ASSERT_EQUAL(wrong, 0);
    CU_ASSERT_EQUAL(g_atomic_int_get(&t.reads), (gint)G_N_ELEMENTS(ids));
    prefetch_source_free(p);
    CU_ASSERT_EQUAL(g_atomic_int_get(&mapped_now), 0);

    GArray *plan = g_array_new(FALSE, FALSE, sizeof(ContainerId));
    for (ContainerId id = 0; id < 100; id++)
        g_array_append_val(plan, id);
    p = prefetch_source_new(&t.source, plan, 4, 2);
    const uint8_t *m = NULL;
    GError *err = NULL;
    CU_ASSERT_TRUE(container_source_map(prefetch_source_source(p), 0, &m, &err) && holds(m, 0));
    g_usleep(20000); /* the ring fills */
    prefetch_source_free(p);
    CU_ASSERT_EQUAL(g_atomic_int_get(&mapped_now), 1); /* the one taken */
    slow_unmap(&t.source, m);
    g_free(buf);
}

/* Freed with most of a long plan unread: the readers stop. */
static void test_free_midway(void)
{
    GArray *plan = g_array_new(FALSE, FALSE, sizeof(ContainerId));
    for (ContainerId id = 0; id < 1000; id++)
        g_array_append_val(plan, id);
    TestSource t = { .source = { .read = slow_read, .container_size = CSIZE } };
    PrefetchSource *p = prefetch_source_new(&t.source, plan, 4, 2);
    uint8_t *buf = g_malloc(CSIZE);
    GError *err = NULL;
    CU_ASSERT_TRUE(container_source_read(prefetch_source_source(p), 0, buf, &err) && holds(buf, 0));
    prefetch_source_free(p);
    CU_ASSERT(g_atomic_int_get(&t.reads) <= 1 + 4 + 2); /* the one taken, a full ring, one per reader */
    g_free(buf);
}

static void add_suites(void)
{
    CU_pSuite s = CU_add_suite("prefetch_source", NULL, NULL);
    CU_add_test(s, "one reader, in plan order", test_one_reader);
    CU_add_test(s, "several readers, out-of-order completion, in plan order", test_several_readers);
    CU_add_test(s, "a read off the plan", test_off_plan_read);
    CU_add_test(s, "over a source that maps", test_mapping_source);
    CU_add_test(s, "freed midway", test_free_midway);
}

UNIT_MAIN(add_suites)
