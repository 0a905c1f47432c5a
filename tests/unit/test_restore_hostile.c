/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_restore_hostile.c: a job whose stored paths try to escape the
 * restore target ("../x", "/abs", "a/../../x", a symlink followed by a file
 * "under" it, a symlink planted in the target beforehand), or whose entries
 * conflict with each other (a file "under" the job's own symlink or file,
 * in either order), restores its honest entries, refuses the rest with an
 * integrity error, and writes nothing outside the target. The job is
 * written with the store's own writers, as a damaged or malicious store
 * would hold it. */
#include "config/config.h"
#include "recipe/job_catalog.h"
#include "recipe/job_meta.h"
#include "recipe/recipe_index.h"
#include "commands/restore.h"
#include "storage/container.h"
#include "store/store.h"
#include "util/error.h"
#include "util/file_digest.h"
#include "unit.h"

#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#define CSIZE (128u * 1024)
static const char content[] = "hello, restore\n";

static void add_entry(JobMetaWriter *w, RecipeIndex *idx, EntryType type, const char *path,
                      const char *link, ContainerId cid, uint32_t off, JobManifest *m)
{
    FileRecord *r = file_record_new(type, path, strlen(path));
    r->mode = type == ENTRY_DIR ? 0755 : 0644;
    r->mtime_sec = 1600000000;
    if (link)
        g_byte_array_append(r->link, (const guint8 *)link, (guint)strlen(link));
    if (type == ENTRY_FILE) {
        ChunkRef c = { .container = cid, .offset = off, .length = sizeof content - 1 };
        fingerprint_compute(FP_SHA1, content, c.length, &c.fp);
        g_array_append_val(r->chunks, c);
        r->size = c.length;
        FileHasher *h = file_hasher_new(FILE_DIGEST_XXH3); /* a new store's digest */
        file_hasher_begin(h);
        file_hasher_add(h, content, c.length);
        file_hasher_end(h, r->digest);
        file_hasher_free(h);
        m->files++;
        m->logical_bytes += r->size;
    }
    uint64_t at;
    uint32_t len;
    GError *err = NULL;
    CU_ASSERT_TRUE(job_meta_writer_append(w, r, &at, &len, &err));
    CU_ASSERT_TRUE(recipe_index_put(idx, path, strlen(path), at, len, &err));
    file_record_free(r);
}

typedef struct {
    EntryType type;
    const char *path, *link; /* link "TOP": the test's top directory, outside the target */
} Entry;

/* A store in top/working holding one container with `content` and one job
 * of `entries`; its id. */
static uint32_t make_job(Config *cfg, const char *top, const Entry *entries, size_t n)
{
    char *work = g_build_filename(top, "working", NULL);
    config_init(cfg);
    g_free(cfg->working_directory);
    cfg->working_directory = g_strdup(work);
    cfg->container_size = CSIZE;
    GError *err = NULL;
    Store *store = store_open_write(cfg, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(store);

    uint8_t *buf = g_malloc(CSIZE);
    ContainerBuilder b;
    container_builder_init(&b, buf, CSIZE, 0);
    Fingerprint fp;
    fingerprint_compute(FP_SHA1, content, sizeof content - 1, &fp);
    uint32_t off = container_builder_add(&b, &fp, content, sizeof content - 1);
    container_builder_seal(&b, FP_SHA1);
    CU_ASSERT_TRUE(container_store_write(store->containers, 0, buf, &err) && container_store_sync(store->containers, &err));

    uint32_t id;
    char *dir;
    CU_ASSERT_TRUE_FATAL(job_catalog_create_job(work, &id, &dir, &err));
    char *meta = g_build_filename(dir, JOB_META_FILE, NULL);
    char *ridx = g_build_filename(dir, JOB_RECIPE_INDEX_FILE, NULL);
    JobMetaWriter *w = job_meta_writer_create(meta, id, &err);
    RecipeIndex *idx = recipe_index_create(ridx, &err);
    JobManifest m = { .job_id = id, .containers_total = 1, .container_size = CSIZE, .source_root = g_strdup("/hostile") };
    for (size_t i = 0; i < n; i++) {
        const char *link = entries[i].link != NULL && strcmp(entries[i].link, "TOP") == 0 ? top : entries[i].link;
        add_entry(w, idx, entries[i].type, entries[i].path, link, 0, off, &m);
    }
    uint64_t size;
    CU_ASSERT_TRUE(job_meta_writer_finish(w, &size, &err));
    CU_ASSERT_TRUE(recipe_index_finish(idx, &err));
    m.job_meta_size = size;
    uint32_t refs[1] = { 1 };
    CU_ASSERT_TRUE(refcount_save(dir, refs, 1, &err) && job_manifest_publish(dir, &m, &err));
    store_close(store);
    job_manifest_clear(&m);
    g_free(meta);
    g_free(ridx);
    g_free(dir);
    g_free(buf);
    g_free(work);
    return id;
}

/* The job's own entries in conflict: a file below its symlink (which
 * points outside the target), a file below its file (after it), a file
 * after entries below it, a symlink over its directory. The honest entry
 * is restored, the conflicts are an integrity error (exit 3, not a target
 * that refused them), and nothing lands outside the target. */
static void test_conflicting_entries(void)
{
    char *top = g_dir_make_tmp("destor-conflict-XXXXXX", NULL);
    char *target = g_build_filename(top, "target", NULL);
    static const Entry entries[] = {
        { ENTRY_SYMLINK, "trap", "TOP" },   { ENTRY_FILE, "trap/evil", NULL }, { ENTRY_FILE, "ok.txt", NULL },
        { ENTRY_FILE, "plain", NULL },      { ENTRY_FILE, "plain/below", NULL },
        { ENTRY_FILE, "later/x", NULL },    { ENTRY_FILE, "later", NULL },
        { ENTRY_DIR, "d", NULL },           { ENTRY_SYMLINK, "d", "TOP" },
    };
    Config cfg;
    uint32_t id = make_job(&cfg, top, entries, G_N_ELEMENTS(entries));
    GError *err = NULL;
    CU_ASSERT_FALSE(restore_run(&cfg, id, target, FALSE, FALSE, &err));
    CU_ASSERT_TRUE(err != NULL && err->code == DESTOR_ERROR_INTEGRITY);
    CU_ASSERT_TRUE(err != NULL && strstr(err->message, "4 unsafe or conflicting") != NULL);
    g_clear_error(&err);

    char *ok = g_build_filename(target, "ok.txt", NULL);
    gchar *got = NULL;
    CU_ASSERT_TRUE(g_file_get_contents(ok, &got, NULL, NULL));
    CU_ASSERT_STRING_EQUAL(got, content);
    g_free(got);
    /* No symlink was made: the file below "trap" is in a directory of the
     * target, and the top directory holds only what the test made. */
    const char *dirs[] = { "trap", "d", "later" };
    for (size_t i = 0; i < G_N_ELEMENTS(dirs); i++) {
        char *p = g_build_filename(target, dirs[i], NULL);
        CU_ASSERT_TRUE(g_file_test(p, G_FILE_TEST_IS_DIR) && !g_file_test(p, G_FILE_TEST_IS_SYMLINK));
        g_free(p);
    }
    GDir *d = g_dir_open(top, 0, NULL);
    const char *name;
    while ((name = g_dir_read_name(d)) != NULL)
        CU_ASSERT_TRUE(strcmp(name, "working") == 0 || strcmp(name, "target") == 0);
    g_dir_close(d);

    char *cmd = g_strdup_printf("rm -rf '%s'", top);
    CU_ASSERT_EQUAL(system(cmd), 0);
    g_free(cmd);
    g_free(ok);
    g_free(target);
    g_free(top);
    config_clear(&cfg);
}

static void test_hostile_paths(void)
{
    char *top = g_dir_make_tmp("destor-hostile-XXXXXX", NULL);
    char *work = g_build_filename(top, "working", NULL);
    char *target = g_build_filename(top, "target", NULL);
    Config cfg;
    config_init(&cfg);
    g_free(cfg.working_directory);
    cfg.working_directory = g_strdup(work);
    cfg.container_size = CSIZE;
    GError *err = NULL;
    Store *store = store_open_write(&cfg, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(store);

    uint8_t *buf = g_malloc(CSIZE);
    ContainerBuilder b;
    container_builder_init(&b, buf, CSIZE, 0);
    Fingerprint fp;
    fingerprint_compute(FP_SHA1, content, sizeof content - 1, &fp);
    uint32_t off = container_builder_add(&b, &fp, content, sizeof content - 1);
    container_builder_seal(&b, FP_SHA1);
    CU_ASSERT_TRUE(container_store_write(store->containers, 0, buf, &err) && container_store_sync(store->containers, &err));

    uint32_t id;
    char *dir;
    CU_ASSERT_TRUE_FATAL(job_catalog_create_job(work, &id, &dir, &err));
    char *meta = g_build_filename(dir, JOB_META_FILE, NULL);
    char *ridx = g_build_filename(dir, JOB_RECIPE_INDEX_FILE, NULL);
    JobMetaWriter *w = job_meta_writer_create(meta, id, &err);
    RecipeIndex *idx = recipe_index_create(ridx, &err);
    JobManifest m = { .job_id = id, .containers_total = 1, .container_size = CSIZE, .source_root = g_strdup("/hostile") };
    add_entry(w, idx, ENTRY_DIR, "safe", NULL, 0, 0, &m);
    add_entry(w, idx, ENTRY_FILE, "safe/ok.txt", NULL, 0, off, &m);
    add_entry(w, idx, ENTRY_FILE, "../escape.txt", NULL, 0, off, &m);
    add_entry(w, idx, ENTRY_FILE, "/tmp/destor-absolute-escape.txt", NULL, 0, off, &m);
    add_entry(w, idx, ENTRY_FILE, "safe/../../up.txt", NULL, 0, off, &m);
    add_entry(w, idx, ENTRY_FILE, "safe//double.txt", NULL, 0, off, &m);
    add_entry(w, idx, ENTRY_SYMLINK, "link", "..", 0, 0, &m);
    add_entry(w, idx, ENTRY_FILE, "link/through-link.txt", NULL, 0, off, &m);
    add_entry(w, idx, ENTRY_FILE, "planted/through-planted.txt", NULL, 0, off, &m);
    uint64_t size;
    CU_ASSERT_TRUE(job_meta_writer_finish(w, &size, &err));
    CU_ASSERT_TRUE(recipe_index_finish(idx, &err));
    m.job_meta_size = size;
    uint32_t refs[1] = { 1 };
    CU_ASSERT_TRUE(refcount_save(dir, refs, 1, &err) && job_manifest_publish(dir, &m, &err));
    store_close(store);

    /* A symlink already in the target, pointing outside it. */
    g_mkdir_with_parents(target, 0755);
    char *planted = g_build_filename(target, "planted", NULL);
    CU_ASSERT_EQUAL(symlink(top, planted), 0);

    CU_ASSERT_FALSE(restore_run(&cfg, id, target, FALSE, FALSE, &err));
    CU_ASSERT_TRUE(err != NULL && err->code == DESTOR_ERROR_INTEGRITY);
    g_clear_error(&err);

    char *ok = g_build_filename(target, "safe", "ok.txt", NULL);
    gchar *got = NULL;
    CU_ASSERT_TRUE(g_file_get_contents(ok, &got, NULL, NULL));
    CU_ASSERT_STRING_EQUAL(got, content);
    g_free(got);
    /* Nothing landed outside the target. */
    const char *outside[] = { "escape.txt", "up.txt", "through-link.txt", "through-planted.txt" };
    for (size_t i = 0; i < G_N_ELEMENTS(outside); i++) {
        char *p = g_build_filename(top, outside[i], NULL);
        CU_ASSERT_FALSE(g_file_test(p, G_FILE_TEST_EXISTS));
        g_free(p);
    }
    CU_ASSERT_FALSE(g_file_test("/tmp/destor-absolute-escape.txt", G_FILE_TEST_EXISTS));
    /* The stored symlink named "link" did not become a way out. */
    char *through = g_build_filename(top, "through-link.txt", NULL);
    CU_ASSERT_FALSE(g_file_test(through, G_FILE_TEST_EXISTS));
    g_free(through);

    char *cmd = g_strdup_printf("rm -rf '%s'", top);
    CU_ASSERT_EQUAL(system(cmd), 0);
    g_free(cmd);
    g_free(ok);
    g_free(planted);
    job_manifest_clear(&m);
    g_free(meta);
    g_free(ridx);
    g_free(dir);
    g_free(buf);
    g_free(work);
    g_free(target);
    g_free(top);
    config_clear(&cfg);
}

static void add_suites(void)
{
    CU_pSuite s = CU_add_suite("hostile restore", NULL, NULL);
    CU_add_test(s, "stored paths cannot escape the target", test_hostile_paths);
    CU_add_test(s, "the job's own conflicting entries are damage", test_conflicting_entries);
}

UNIT_MAIN(add_suites)
