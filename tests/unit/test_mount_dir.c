/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_mount_dir.c: what a mount's paths name (the root of jobs, latest, a
 * job's tree, ids only in their canonical form), and a job's directories
 * listed from its recipe index by seeks: children in byte order, each once,
 * a parent stored without a record of its own listed, what lies deeper
 * skipped, names that are not plain never listed, a stop obeyed. */
#include "mount/mount_dir.h"
#include "mount/mount_path.h"
#include "recipe/recipe_index.h"
#include "unit.h"
#include "unit_tmpdir.h"

#include <string.h>

static void test_paths(void)
{
    MountPath p = mount_path_parse("/", FALSE, 0);
    CU_ASSERT_EQUAL(p.kind, MOUNT_PATH_ROOT);
    p = mount_path_parse("/latest", FALSE, 0);
    CU_ASSERT_EQUAL(p.kind, MOUNT_PATH_LATEST);
    p = mount_path_parse("/12/a/b", FALSE, 0);
    CU_ASSERT_EQUAL(p.kind, MOUNT_PATH_JOB);
    CU_ASSERT_EQUAL(p.job, 12);
    CU_ASSERT_STRING_EQUAL(p.inner, "a/b");
    p = mount_path_parse("/0", FALSE, 0);
    CU_ASSERT_TRUE(p.kind == MOUNT_PATH_JOB && p.job == 0 && p.inner[0] == '\0');
    p = mount_path_parse("/4294967295", FALSE, 0);
    CU_ASSERT_TRUE(p.kind == MOUNT_PATH_JOB && p.job == UINT32_MAX);
    const char *nothing[] = { "/00", "/01", "/+1", "/4294967296", "/latest/x", "/x", "/1x", "/-1" };
    for (size_t i = 0; i < G_N_ELEMENTS(nothing); i++)
        CU_ASSERT_EQUAL(mount_path_parse(nothing[i], FALSE, 0).kind, MOUNT_PATH_NONE);
    /* one job: every path is in it, latest included */
    p = mount_path_parse("/latest", TRUE, 7);
    CU_ASSERT_TRUE(p.kind == MOUNT_PATH_JOB && p.job == 7);
    CU_ASSERT_STRING_EQUAL(p.inner, "latest");
    p = mount_path_parse("/", TRUE, 7);
    CU_ASSERT_TRUE(p.kind == MOUNT_PATH_JOB && p.inner[0] == '\0');
}

typedef struct {
    GString *seen; /* names, each followed by '|' */
    int stop_after; /* 0: never */
    int calls;
} Seen;

/* Takes each entry but the stop_after-th, which it refuses. */
static gboolean collect(void *ctx, const MountDirEntry *e)
{
    Seen *s = ctx;
    if (++s->calls == s->stop_after)
        return FALSE;
    g_string_append(s->seen, e->name);
    /* a record's place as put (key i at i * 100), or '*' without one */
    if (e->has_record)
        g_string_append_printf(s->seen, "@%llu", (unsigned long long)e->offset);
    else
        g_string_append_c(s->seen, '*');
    CU_ASSERT_TRUE(e->path->len >= strlen(e->name) &&
                   memcmp(e->path->data + e->path->len - strlen(e->name), e->name, strlen(e->name)) == 0);
    g_string_append_c(s->seen, '|');
    return TRUE;
}

/* The listing of dir from `from` (NULL: the start), stopped by the
 * stop_after-th entry's refusal (0: never). */
static char *listing_from(Job *job, const char *dir, GByteArray *from, int stop_after)
{
    Seen s = { .seen = g_string_new(""), .stop_after = stop_after };
    GError *err = NULL;
    GByteArray *start = from != NULL ? from : g_byte_array_new();
    gboolean ended = FALSE;
    CU_ASSERT_TRUE(mount_dir_list(job, dir, start, collect, &s, &ended, &err));
    CU_ASSERT_PTR_NULL(err);
    CU_ASSERT_EQUAL(ended, stop_after == 0);
    if (from == NULL)
        g_byte_array_unref(start);
    return g_string_free(s.seen, FALSE);
}

static char *listing(Job *job, const char *dir, int stop_after)
{
    return listing_from(job, dir, NULL, stop_after);
}

static void test_listing(void)
{
    /* keys as a job (or a forged one) may hold them; (path, bytes) */
    static const struct {
        const char *key;
        size_t len;
    } keys[] = {
        { "a", 1 }, { "a.txt", 5 }, { "a/x", 3 }, { "a/y/z", 5 }, { "a/y/z/w", 7 }, { "a0", 2 },
        { "b/c", 3 },            /* b: no record of its own */
        { "/abs", 4 },           /* absolute: empty first name */
        { "..", 2 }, { "../evil", 7 }, { "./dot", 5 },
        { "d//e", 4 },           /* d's only entry has an empty name */
        { "e/..", 4 },
        { "f\0g", 3 },           /* a NUL byte in a name */
        { "g!", 2 }, { "g", 1 }, { "g/h", 3 }, /* a sibling sorting between g and g/ */
    };
    char *path = g_build_filename(tmpdir, "recipe_index.db", NULL);
    GError *err = NULL;
    RecipeIndex *idx = recipe_index_create(path, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(idx);
    for (size_t i = 0; i < G_N_ELEMENTS(keys); i++)
        CU_ASSERT_TRUE(recipe_index_put(idx, keys[i].key, keys[i].len, i * 100, 100, &err));
    CU_ASSERT_TRUE(recipe_index_finish(idx, &err));
    Job job = { .recipes = recipe_index_open(path, &err) };
    CU_ASSERT_PTR_NOT_NULL_FATAL(job.recipes);

    char *got = listing(&job, "", 0);
    CU_ASSERT_STRING_EQUAL(got, "a@0|a.txt@100|a0@500|b*|d*|e*|g@1500|g!@1400|");
    g_free(got);
    got = listing(&job, "a", 0);
    CU_ASSERT_STRING_EQUAL(got, "x@200|y*|");
    g_free(got);
    got = listing(&job, "a/y", 0);
    CU_ASSERT_STRING_EQUAL(got, "z@300|");
    g_free(got);
    got = listing(&job, "d", 0);
    CU_ASSERT_STRING_EQUAL(got, "");
    g_free(got);
    got = listing(&job, "g", 0);
    CU_ASSERT_STRING_EQUAL(got, "h@1600|");
    g_free(got);
    /* a buffer at a time: stopped at the 3rd entry, then on from there */
    GByteArray *from = g_byte_array_new();
    got = listing_from(&job, "", from, 3);
    CU_ASSERT_STRING_EQUAL(got, "a@0|a.txt@100|");
    g_free(got);
    got = listing_from(&job, "", from, 4);
    CU_ASSERT_STRING_EQUAL(got, "a0@500|b*|d*|");
    g_free(got);
    got = listing_from(&job, "", from, 0);
    CU_ASSERT_STRING_EQUAL(got, "e*|g@1500|g!@1400|");
    g_free(got);
    g_byte_array_unref(from);

    gboolean has = FALSE;
    CU_ASSERT_TRUE(mount_dir_has_entries(&job, "b", &has, &err) && has);
    CU_ASSERT_TRUE(mount_dir_has_entries(&job, "a.txt", &has, &err) && !has);
    CU_ASSERT_TRUE(mount_dir_has_entries(&job, "zz", &has, &err) && !has);
    CU_ASSERT_TRUE(mount_dir_has_entries(&job, "", &has, &err) && has);

    /* the seek itself: at or after, and past the last */
    GByteArray *key = g_byte_array_new();
    uint64_t off;
    uint32_t len;
    gboolean found;
    CU_ASSERT_TRUE(recipe_index_seek(job.recipes, "a/", 2, key, &off, &len, &found, &err) && found);
    CU_ASSERT_TRUE(key->len == 3 && memcmp(key->data, "a/x", 3) == 0 && off == 200 && len == 100);
    CU_ASSERT_TRUE(recipe_index_seek(job.recipes, "zzz", 3, key, &off, &len, &found, &err) && !found);
    CU_ASSERT_TRUE(recipe_index_seek(job.recipes, NULL, 0, key, &off, &len, &found, &err) && found);
    CU_ASSERT_TRUE(key->len == 2 && memcmp(key->data, "..", 2) == 0); /* the first key: "." sorts before "/" */
    g_byte_array_unref(key);
    recipe_index_close(job.recipes);
    g_free(path);
}

static void add_suites(void)
{
    CU_pSuite s = CU_add_suite("mount paths and directories", make_tmp, remove_tmp);
    CU_add_test(s, "paths of a mount", test_paths);
    CU_add_test(s, "a directory listed from the recipe index", test_listing);
}

UNIT_MAIN(add_suites)
