/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_index_recipe.c: fingerprint index persistence across reopen and
 * rebuild after an unclean stop; file records, job_meta_data and the recipe
 * offset index (lookup by path without scanning). */
#include "index/fp_index.h"
#include "recipe/job_catalog.h"
#include "recipe/job_meta.h"
#include "recipe/recipe_index.h"
#include "storage/container.h"
#include "storage/container_store.h"
#include "util/error.h"
#include "unit.h"
#include "unit_tmpdir.h"

#include <glib/gstdio.h>
#include <string.h>

#define CSIZE (128u * 1024)

static Fingerprint fp_of(uint32_t i)
{
    Fingerprint fp;
    fingerprint_compute(FP_SHA1, &i, sizeof i, &fp);
    return fp;
}

static void test_index_persists_and_rebuilds(void)
{
    char *idx_dir = g_build_filename(tmpdir, "index", NULL);
    GError *err = NULL;
    ContainerStore *pool = container_store_open(CONTAINER_STORE_POOL, tmpdir, CSIZE, TRUE, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(pool);
    FpIndex *idx = fp_index_open(idx_dir, 20, container_store_source(pool), 0, NULL, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(idx);
    CU_ASSERT_TRUE(fp_index_begin_job(idx, &err));
    uint8_t *buf = g_malloc(CSIZE), data[1000];
    ContainerBuilder b;
    container_builder_init(&b, buf, CSIZE, 0);
    for (uint32_t i = 0; i < 50; i++) {
        Fingerprint fp = fp_of(i);
        memset(data, (int)i, sizeof data);
        ChunkLocation loc = { 0, container_builder_add(&b, &fp, data, sizeof data), sizeof data };
        fp_index_add(idx, &fp, &loc);
    }
    container_builder_seal(&b, FP_SHA1);
    ChunkLocation loc;
    gboolean found;
    Fingerprint f7 = fp_of(7), missing = fp_of(999);
    CU_ASSERT_TRUE(fp_index_lookup(idx, &f7, &loc, &found, &err) && found);
    CU_ASSERT_TRUE(container_store_write(pool, 0, buf, &err) && container_store_sync(pool, &err));
    CU_ASSERT_TRUE(fp_index_persist_container(idx, buf, CSIZE, &err));
    /* The store's first job (no container at open) skips the DB on lookups:
     * its persisted chunks are still found, an unknown one is not. */
    CU_ASSERT_TRUE(fp_index_lookup(idx, &f7, &loc, &found, &err) && found);
    CU_ASSERT_TRUE(fp_index_lookup(idx, &missing, &loc, &found, &err));
    CU_ASSERT_FALSE(found);
    CU_ASSERT_TRUE(fp_index_commit_job(idx, &err));
    fp_index_close(idx);

    /* A new process finds every fingerprint in the DB. */
    idx = fp_index_open(idx_dir, 20, container_store_source(pool), 1, NULL, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(idx);
    for (uint32_t i = 0; i < 50; i++) {
        Fingerprint fp = fp_of(i);
        CU_ASSERT_TRUE(fp_index_lookup(idx, &fp, &loc, &found, &err));
        CU_ASSERT_TRUE(found);
        CU_ASSERT_EQUAL(loc.container, 0);
        CU_ASSERT_EQUAL(loc.length, 1000);
        CU_ASSERT_EQUAL(buf[loc.offset], (uint8_t)i);
    }
    CU_ASSERT_TRUE(fp_index_lookup(idx, &missing, &loc, &found, &err));
    CU_ASSERT_FALSE(found);
    uint64_t n = 0;
    CU_ASSERT_TRUE(fp_index_count(idx, &n, &err));
    CU_ASSERT_EQUAL(n, 50);

    /* Killed mid-job: DIRTY stays, the DB is garbage; reopening rebuilds
     * it from the pool. */
    CU_ASSERT_TRUE(fp_index_begin_job(idx, &err));
    fp_index_close(idx);
    char *db = g_build_filename(idx_dir, "fingerprints.db", NULL);
    CU_ASSERT_TRUE(g_file_set_contents(db, "garbage", 7, NULL));
    idx = fp_index_open(idx_dir, 20, container_store_source(pool), 1, NULL, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(idx);
    CU_ASSERT_TRUE(fp_index_lookup(idx, &f7, &loc, &found, &err) && found);
    CU_ASSERT_TRUE(fp_index_count(idx, &n, &err));
    CU_ASSERT_EQUAL(n, 50);
    fp_index_close(idx);
    container_store_close(pool);
    g_free(db);
    g_free(buf);
    g_free(idx_dir);
}

static FileRecord *sample_record(const char *path, int nchunks)
{
    FileRecord *r = file_record_new(ENTRY_FILE, path, strlen(path));
    r->mode = 0640;
    r->mtime_sec = 1700000000;
    r->mtime_nsec = 123456789;
    for (int i = 0; i < nchunks; i++) {
        ChunkRef c = { .fp = fp_of((uint32_t)i), .container = (ContainerId)i / 3, .offset = 64 + (uint32_t)i * 10, .length = 10 };
        g_array_append_val(r->chunks, c);
        r->size += 10;
    }
    memset(r->digest, 0xab, FILE_DIGEST_SLOT);
    return r;
}

static void test_record_round_trip_and_damage(void)
{
    FileRecord *r = sample_record("dir/with space/\xc3\xa9t\xc3\xa9\nnewline", 7);
    GByteArray *enc = g_byte_array_new();
    file_record_encode(r, enc);
    CU_ASSERT_EQUAL(file_record_length(enc->data), enc->len);
    GError *err = NULL;
    FileRecord *d = file_record_decode(enc->data, enc->len, "test", &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    CU_ASSERT_EQUAL(d->path->len, r->path->len);
    CU_ASSERT_EQUAL(memcmp(d->path->data, r->path->data, r->path->len), 0);
    CU_ASSERT_EQUAL(d->mode, 0640);
    CU_ASSERT_EQUAL(d->mtime_nsec, 123456789);
    CU_ASSERT_EQUAL(d->size, 70);
    CU_ASSERT_EQUAL(d->chunks->len, 7);
    CU_ASSERT_EQUAL(g_array_index(d->chunks, ChunkRef, 6).container, 2);
    file_record_free(d);
    for (guint i = 0; i < enc->len; i += 7) {
        enc->data[i] ^= 1;
        d = file_record_decode(enc->data, enc->len, "test", &err);
        CU_ASSERT_PTR_NULL(d);
        CU_ASSERT_TRUE(err != NULL && err->code == DESTOR_ERROR_INTEGRITY);
        g_clear_error(&err);
        file_record_free(d);
        enc->data[i] ^= 1;
    }
    g_byte_array_unref(enc);
    /* With a right CRC, fields no backup writes are damage too: a mode past
     * the permission bits, nanoseconds of a second or more (restore would
     * leave the mtime unset and exit 0). */
    const struct { uint32_t mode, nsec; } bad[] = { { 010000, 0 }, { 0xFFFFFFFFu, 0 }, { 0640, 1000000000 },
                                                     { 0640, 0xFFFFFFFFu } };
    for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
        r->mode = bad[i].mode;
        r->mtime_nsec = bad[i].nsec;
        enc = g_byte_array_new();
        file_record_encode(r, enc);
        d = file_record_decode(enc->data, enc->len, "test", &err);
        CU_ASSERT_PTR_NULL(d);
        CU_ASSERT_TRUE(g_error_matches(err, DESTOR_ERROR, DESTOR_ERROR_INTEGRITY));
        g_clear_error(&err);
        file_record_free(d);
        g_byte_array_unref(enc);
    }
    file_record_free(r);
}

/* Job `job`'s job_meta_data and recipe index of n sample records, record i
 * at path_of(i) with chunks_of(i) chunks; the records file's size. */
static uint64_t write_sample_job(const char *meta, const char *ridx, uint32_t job, int n,
                                 void (*path_of)(int i, char path[64]), int (*chunks_of)(int i))
{
    GError *err = NULL;
    JobMetaWriter *w = job_meta_writer_create(meta, job, &err);
    RecipeIndex *idx = recipe_index_create(ridx, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    CU_ASSERT_PTR_NOT_NULL_FATAL(idx);
    for (int i = 0; i < n; i++) {
        char path[64];
        path_of(i, path);
        FileRecord *r = sample_record(path, chunks_of(i));
        uint64_t off;
        uint32_t len;
        CU_ASSERT_TRUE(job_meta_writer_append(w, r, &off, &len, &err));
        CU_ASSERT_TRUE(recipe_index_put(idx, path, strlen(path), off, len, &err));
        file_record_free(r);
    }
    uint64_t size = 0;
    CU_ASSERT_TRUE(job_meta_writer_finish(w, &size, &err));
    CU_ASSERT_TRUE(recipe_index_finish(idx, &err));
    CU_ASSERT_PTR_NULL(err);
    return size;
}

static void flat_path(int i, char path[64])
{
    g_snprintf(path, 64, "d%d/file-%05d", i % 17, i);
}

static int flat_chunks(int i)
{
    return i % 50;
}

static void walk_path(int i, char path[64])
{
    g_snprintf(path, 64, "d%d/f%04d", i % 7, i);
}

/* record 400 alone is longer than the window */
static int walk_chunks(int i)
{
    return i == 400 ? (int)(JOB_META_WINDOW / CHUNK_REF_SIZE) + 5 : i % 40;
}

static void test_job_meta_and_offset_index(void)
{
    char *meta = g_build_filename(tmpdir, "job_meta_data", NULL);
    char *ridx = g_build_filename(tmpdir, "recipe_index.db", NULL);
    GError *err = NULL;
    const int N = 3000;
    uint64_t size = write_sample_job(meta, ridx, 4, N, flat_path, flat_chunks);

    JobMetaReader *rd = job_meta_reader_open(meta, 4, &err);
    RecipeIndex *idx = recipe_index_open(ridx, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(rd);
    CU_ASSERT_PTR_NOT_NULL_FATAL(idx);
    for (int i = N - 1; i >= 0; i -= 37) {
        char path[64];
        g_snprintf(path, sizeof path, "d%d/file-%05d", i % 17, i);
        uint64_t off;
        uint32_t len;
        gboolean found;
        CU_ASSERT_TRUE(recipe_index_get(idx, path, strlen(path), &off, &len, &found, &err));
        CU_ASSERT_TRUE_FATAL(found);
        FileRecord *r = job_meta_reader_at(rd, off, len, &err);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        CU_ASSERT_EQUAL(r->chunks->len, (guint)(i % 50));
        CU_ASSERT_EQUAL(memcmp(r->path->data, path, strlen(path)), 0);
        file_record_free(r);
    }
    uint64_t off;
    uint32_t len;
    gboolean found = TRUE;
    CU_ASSERT_TRUE(recipe_index_get(idx, "nope", 4, &off, &len, &found, &err));
    CU_ASSERT_FALSE(found);
    int count = 0;
    FileRecord *r;
    while ((r = job_meta_reader_next(rd, &err)) != NULL) {
        count++;
        file_record_free(r);
    }
    CU_ASSERT_PTR_NULL(err);
    CU_ASSERT_EQUAL(count, N);
    /* A damaged index entry is an integrity error, whatever its numbers:
     * one whose offset + length wraps past 2^64 once read as exit 1, an
     * I/O error (pread at a negative offset). */
    const struct { uint64_t off; uint32_t len; } bad[] = {
        { UINT64_MAX - 10, 100 }, { UINT64_MAX, 1000 }, { (uint64_t)1 << 63, 100 }, { size, 92 }, { 32, 20 },
        { size - 50, 100 }, { 10, 100 },
    };
    for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
        CU_ASSERT_PTR_NULL(job_meta_reader_at(rd, bad[i].off, bad[i].len, &err));
        CU_ASSERT_TRUE(g_error_matches(err, DESTOR_ERROR, DESTOR_ERROR_INTEGRITY));
        g_clear_error(&err);
    }
    recipe_index_close(idx);
    job_meta_reader_close(rd);
    /* Opened as another job's file: refused. */
    CU_ASSERT_PTR_NULL(job_meta_reader_open(meta, 5, &err));
    CU_ASSERT_TRUE(err != NULL && err->code == DESTOR_ERROR_INTEGRITY);
    g_clear_error(&err);
    g_free(meta);
    g_free(ridx);
}

/* A listing's reads (mount): a cursor's steps find what a seek after each
 * key finds, and records read through a window are the records read one by
 * one, including one longer than the window, each checked as damaged. */
static void test_cursor_and_record_window(void)
{
    char *meta = g_build_filename(tmpdir, "walk_meta_data", NULL);
    char *ridx = g_build_filename(tmpdir, "walk_index.db", NULL);
    GError *err = NULL;
    const int N = 800;
    uint64_t size = write_sample_job(meta, ridx, 6, N, walk_path, walk_chunks);
    JobMetaReader *rd = job_meta_reader_open(meta, 6, &err);
    RecipeIndex *idx = recipe_index_open(ridx, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(rd);
    CU_ASSERT_PTR_NOT_NULL_FATAL(idx);

    RecipeIndexCursor *cur = recipe_index_cursor_open(idx, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cur);
    GByteArray *key = g_byte_array_new(), *want = g_byte_array_new(), *from = g_byte_array_new();
    JobMetaWindow win = { 0 };
    uint64_t off, woff;
    uint32_t len, wlen;
    gboolean found, wfound;
    int n = 0;
    CU_ASSERT_TRUE(recipe_index_cursor_seek(cur, "d3/", 3, key, &off, &len, &found, &err));
    while (found) {
        g_byte_array_set_size(from, 0);
        g_byte_array_append(from, key->data, key->len);
        g_byte_array_append(from, (const guint8 *)"", 1);
        FileRecord *direct = job_meta_reader_at(rd, off, len, &err);
        FileRecord *through = job_meta_reader_at_window(rd, &win, off, len, &err);
        CU_ASSERT_PTR_NOT_NULL_FATAL(direct);
        CU_ASSERT_PTR_NOT_NULL_FATAL(through);
        CU_ASSERT_EQUAL(through->path->len, key->len);
        CU_ASSERT_EQUAL(memcmp(through->path->data, key->data, key->len), 0);
        CU_ASSERT_EQUAL(through->chunks->len, direct->chunks->len);
        CU_ASSERT_TRUE(direct->chunks->len == 0 || memcmp(through->chunks->data, direct->chunks->data,
                                                          direct->chunks->len * sizeof(ChunkRef)) == 0);
        file_record_free(direct);
        file_record_free(through);
        n++;
        CU_ASSERT_TRUE(recipe_index_cursor_next(cur, key, &off, &len, &found, &err));
        CU_ASSERT_TRUE(recipe_index_seek(idx, from->data, from->len, want, &woff, &wlen, &wfound, &err));
        CU_ASSERT_EQUAL(found, wfound);
        if (found && wfound) {
            CU_ASSERT_TRUE(key->len == want->len && memcmp(key->data, want->data, key->len) == 0);
            CU_ASSERT_TRUE(off == woff && len == wlen);
        }
    }
    CU_ASSERT_PTR_NULL(err);
    CU_ASSERT_EQUAL(n, N - N / 7 * 3 - MIN(N % 7, 3)); /* d3/ onwards: d3 to d6 */
    recipe_index_cursor_close(cur);
    /* out of range through the window too: an integrity error */
    CU_ASSERT_PTR_NULL(job_meta_reader_at_window(rd, &win, size - 50, 100, &err));
    CU_ASSERT_TRUE(g_error_matches(err, DESTOR_ERROR, DESTOR_ERROR_INTEGRITY));
    g_clear_error(&err);
    /* a byte changed in a record the window holds: damaged, said with its offset */
    CU_ASSERT_TRUE(recipe_index_get(idx, "d0/f0007", 8, &off, &len, &found, &err) && found);
    job_meta_window_clear(&win);
    FileRecord *r = job_meta_reader_at_window(rd, &win, off, len, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    file_record_free(r);
    win.bytes[off - win.start + len / 2] ^= 1;
    CU_ASSERT_PTR_NULL(job_meta_reader_at_window(rd, &win, off, len, &err));
    char *at = g_strdup_printf("offset %llu", (unsigned long long)off);
    CU_ASSERT_TRUE(g_error_matches(err, DESTOR_ERROR, DESTOR_ERROR_INTEGRITY) && strstr(err->message, at) != NULL);
    g_free(at);
    g_clear_error(&err);
    job_meta_window_clear(&win);
    g_byte_array_unref(key);
    g_byte_array_unref(want);
    g_byte_array_unref(from);
    recipe_index_close(idx);
    job_meta_reader_close(rd);
    g_free(meta);
    g_free(ridx);
}

static void test_manifest_and_refcount(void)
{
    char *work = g_build_filename(tmpdir, "work", NULL);
    GError *err = NULL;
    uint32_t id;
    char *dir;
    CU_ASSERT_TRUE(job_catalog_create_job(work, &id, &dir, &err));
    CU_ASSERT_EQUAL(id, 0);
    /* Not visible before its manifest. */
    GArray *ids = job_catalog_list(work, &err);
    CU_ASSERT_EQUAL(ids->len, 0);
    g_array_unref(ids);
    uint32_t counts[5] = { 1, 0, 3, 2, 9 };
    CU_ASSERT_TRUE(refcount_save(dir, counts, 5, &err));
    JobManifest m = { .job_id = 0, .files = 12, .logical_bytes = 1u << 30, .containers_total = 5,
                      .container_size = CSIZE, .source_root = g_strdup("/data/v1") };
    CU_ASSERT_TRUE(job_manifest_publish(dir, &m, &err));
    ids = job_catalog_list(work, &err);
    CU_ASSERT_EQUAL(ids->len, 1);
    g_array_unref(ids);
    JobManifest back;
    CU_ASSERT_TRUE(job_manifest_load(work, 0, &back, &err));
    CU_ASSERT_EQUAL(back.files, 12);
    CU_ASSERT_EQUAL(back.logical_bytes, 1u << 30);
    CU_ASSERT_STRING_EQUAL(back.source_root, "/data/v1");
    job_manifest_clear(&back);
    CU_ASSERT_FALSE(job_manifest_load(work, 1, &back, &err));
    CU_ASSERT_TRUE(err != NULL && err->code == DESTOR_ERROR_USAGE);
    g_clear_error(&err);
    uint32_t *got, n;
    CU_ASSERT_TRUE(refcount_load_current(work, &got, &n, &err));
    CU_ASSERT_EQUAL(n, 5);
    CU_ASSERT_EQUAL(got[4], 9);
    g_free(got);
    /* The next job gets id 1. */
    char *dir1;
    CU_ASSERT_TRUE(job_catalog_create_job(work, &id, &dir1, &err));
    CU_ASSERT_EQUAL(id, 1);
    job_manifest_clear(&m);
    g_free(dir);
    g_free(dir1);
    g_free(work);
}

static void add_suites(void)
{
    CU_pSuite s = CU_add_suite("index and recipes", make_tmp, remove_tmp);
    CU_add_test(s, "fingerprint index persists and rebuilds", test_index_persists_and_rebuilds);
    CU_add_test(s, "file record round trip and damage", test_record_round_trip_and_damage);
    CU_add_test(s, "job_meta_data and recipe offset index", test_job_meta_and_offset_index);
    CU_add_test(s, "recipe index cursor and record window", test_cursor_and_record_window);
    CU_add_test(s, "manifest and reference counts", test_manifest_and_refcount);
}

UNIT_MAIN(add_suites)
