/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_file_replace.c: the safe-write helpers (src/util/file_replace.c,
 * dir_within.c). A replacement never opens what is at the target's name
 * (a symlink there is replaced, its target untouched), two replacements of
 * one name get different new files, an aborted one leaves the target and no
 * new file; a file opened in place (file_open_own) is refused when a
 * symlink, a hard link or something not a regular file is at its name, its
 * target untouched; file_publish_atomic, _unsynced_dir and _cached replace
 * a name whole;
 * dir_fd_within sees through symlinks and recognises the root; a write
 * refused for want of room is a DESTOR_ERROR_NO_SPACE, which gc's advice to
 * make room is decided from (issue 42), any other a DESTOR_ERROR_IO. */
#include "util/dir_within.h"
#include "util/file_replace.h"
#include "util/error.h"
#include "util/fileio.h"
#include "unit.h"

#include <glib/gstdio.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *scratch;

static int setup(void)
{
    scratch = g_dir_make_tmp("destor-file-replace-XXXXXX", NULL);
    return scratch == NULL;
}

static int teardown(void)
{
    char *cmd = g_strdup_printf("rm -rf '%s'", scratch);
    int rc = system(cmd);
    g_free(cmd);
    g_free(scratch);
    return rc;
}

static char *read_text(const char *dir, const char *name)
{
    char *path = g_build_filename(dir, name, NULL), *text = NULL;
    g_file_get_contents(path, &text, NULL, NULL);
    g_free(path);
    return text;
}

static guint entries(const char *dir)
{
    GDir *d = g_dir_open(dir, 0, NULL);
    guint n = 0;
    while (g_dir_read_name(d) != NULL)
        n++;
    g_dir_close(d);
    return n;
}

static void test_replace_never_writes_through(void)
{
    char *dir = g_build_filename(scratch, "a", NULL);
    g_mkdir(dir, 0755);
    int dfd = open(dir, O_RDONLY | O_DIRECTORY);
    g_assert(dfd >= 0);
    char *victim = g_build_filename(scratch, "victim", NULL);
    g_file_set_contents(victim, "precious", -1, NULL);
    CU_ASSERT_EQUAL(symlinkat(victim, dfd, "out"), 0);

    FileReplace one, two;
    CU_ASSERT_FATAL(file_replace_begin(&one, dfd, "out", NULL, 0644, NULL));
    CU_ASSERT_FATAL(file_replace_begin(&two, dfd, "out", NULL, 0644, NULL));
    CU_ASSERT_STRING_NOT_EQUAL(one.tmp_name, two.tmp_name);
    CU_ASSERT(file_write_all(one.fd, "first", 5, "out", NULL));
    CU_ASSERT(file_write_all(two.fd, "second", 6, "out", NULL));
    file_replace_abort(&two);
    CU_ASSERT_EQUAL(entries(dir), 2); /* out (still the symlink) and one's new file */
    CU_ASSERT(file_replace_commit(&one, TRUE, NULL));
    CU_ASSERT_EQUAL(entries(dir), 1);

    struct stat st;
    CU_ASSERT(fstatat(dfd, "out", &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode));
    char *text = read_text(dir, "out");
    CU_ASSERT_STRING_EQUAL(text, "first");
    g_free(text);
    text = read_text(scratch, "victim");
    CU_ASSERT_STRING_EQUAL(text, "precious");
    g_free(text);

    CU_ASSERT(file_replace_symlink(dfd, "out", "elsewhere"));
    char link[64] = { 0 };
    CU_ASSERT(readlinkat(dfd, "out", link, sizeof link - 1) == 9 && strcmp(link, "elsewhere") == 0);
    CU_ASSERT_EQUAL(entries(dir), 1);
    close(dfd);
    g_free(victim);
    g_free(dir);
}

/* file_publish_atomic, file_publish_unsynced_dir (without the directory's
 * fsync) and file_publish_cached (without fsyncs) each replace a name whole, a symlink there too (its target untouched),
 * and leave no other file. */
static void test_publish(void)
{
    char *dir = g_build_filename(scratch, "p", NULL);
    g_mkdir(dir, 0755);
    char *victim = g_build_filename(scratch, "p-victim", NULL);
    g_file_set_contents(victim, "precious", -1, NULL);
    gboolean (*const publish[])(const char *, const void *, size_t, GError **) = {
        file_publish_atomic, file_publish_unsynced_dir, file_publish_cached
    };
    for (guint i = 0; i < G_N_ELEMENTS(publish); i++) {
        char *path = g_build_filename(dir, "out", NULL);
        g_unlink(path);
        CU_ASSERT_EQUAL(symlink(victim, path), 0);
        CU_ASSERT(publish[i](path, "first", 5, NULL));
        CU_ASSERT(publish[i](path, "second!", 7, NULL));
        struct stat st;
        CU_ASSERT(lstat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 7);
        char *text = read_text(dir, "out");
        CU_ASSERT_STRING_EQUAL(text, "second!");
        g_free(text);
        CU_ASSERT_EQUAL(entries(dir), 1);
        text = read_text(scratch, "p-victim");
        CU_ASSERT_STRING_EQUAL(text, "precious");
        g_free(text);
        g_free(path);
    }
    g_free(victim);
    g_free(dir);
}

/* file_open_own(path, flags) fails with `want` and leaves the victim as it
 * was. */
static void refused(const char *path, const char *victim, int flags, int want)
{
    errno = 0;
    CU_ASSERT_EQUAL(file_open_own(path, flags, 0644), -1);
    CU_ASSERT_EQUAL(errno, want);
    GError *err = NULL;
    file_open_own_error(&err, want, "open", path);
    CU_ASSERT(err != NULL && strstr(err->message, "never writes through") != NULL);
    g_clear_error(&err);
    char *text = NULL;
    CU_ASSERT(g_file_get_contents(victim, &text, NULL, NULL) && strcmp(text, "precious") == 0);
    g_free(text);
}

static void test_open_own(void)
{
    char *victim = g_build_filename(scratch, "victim-own", NULL);
    char *path = g_build_filename(scratch, "own", NULL);
    g_file_set_contents(victim, "precious", -1, NULL);
    CU_ASSERT_EQUAL(symlink(victim, path), 0);
    refused(path, victim, O_RDWR | O_CREAT, ELOOP);
    g_unlink(path);
    char *dangling = g_build_filename(scratch, "no-such-file", NULL);
    CU_ASSERT_EQUAL(symlink(dangling, path), 0);
    refused(path, victim, O_RDWR | O_CREAT, ELOOP);
    CU_ASSERT_FALSE(g_file_test(dangling, G_FILE_TEST_EXISTS)); /* not created through the link */
    g_unlink(path);
    CU_ASSERT_EQUAL(link(victim, path), 0);
    refused(path, victim, O_RDWR | O_CREAT, EMLINK);
    refused(path, victim, O_RDWR | O_CREAT | O_TRUNC, EMLINK); /* truncated only once known to be ours */
    g_unlink(path);
    CU_ASSERT_EQUAL(mkfifo(path, 0644), 0);
    refused(path, victim, O_RDWR | O_CREAT, ENXIO);
    g_unlink(path);

    int fd = file_open_own(path, O_RDWR | O_CREAT, 0644); /* a new file, then the same one again */
    CU_ASSERT(fd >= 0 && write(fd, "x", 1) == 1);
    close(fd);
    fd = file_open_own(path, O_RDWR, 0);
    CU_ASSERT(fd >= 0);
    close(fd);
    fd = file_open_own(path, O_RDWR | O_TRUNC, 0); /* its own file: truncated */
    struct stat st;
    CU_ASSERT(fd >= 0 && fstat(fd, &st) == 0 && st.st_size == 0);
    close(fd);
    g_free(dangling);
    g_free(path);
    g_free(victim);
}

static void test_dir_within(void)
{
    char *outer = g_build_filename(scratch, "store", NULL), *inner = g_build_filename(outer, "x/y", NULL);
    char *via_link = g_build_filename(scratch, "link-to-y", NULL), *other = g_build_filename(scratch, "other", NULL);
    g_mkdir_with_parents(inner, 0755);
    g_mkdir(other, 0755);
    CU_ASSERT_EQUAL(symlink(inner, via_link), 0);
    CU_ASSERT(dir_path_within(inner, outer));
    CU_ASSERT(dir_path_within(outer, outer));
    CU_ASSERT(dir_path_within(via_link, outer));
    CU_ASSERT(dir_path_within(inner, "/"));
    CU_ASSERT(dir_path_within("/", "/"));
    CU_ASSERT_FALSE(dir_path_within(outer, inner));
    CU_ASSERT_FALSE(dir_path_within(other, outer));
    CU_ASSERT_FALSE(dir_path_within(inner, "/no/such/directory"));
    CU_ASSERT_FALSE(dir_path_within("/no/such/directory", outer));
    g_free(outer);
    g_free(inner);
    g_free(via_link);
    g_free(other);
}

/* /dev/full refuses every write with ENOSPC: the error's code says so,
 * whatever its message ends with; EDQUOT alike, EIO not. */
static void test_no_space_code(void)
{
    GError *err = NULL;
    int fd = open("/dev/full", O_WRONLY);
    CU_ASSERT_FATAL(fd >= 0);
    CU_ASSERT_FALSE(file_write_all(fd, "x", 1, "/dev/full", &err));
    close(fd);
    CU_ASSERT_TRUE(g_error_matches(err, DESTOR_ERROR, DESTOR_ERROR_NO_SPACE));
    CU_ASSERT_TRUE(destor_error_is_io(err));
    g_prefix_error(&err, "job 3: ");
    g_free(err->message);
    err->message = g_strdup("the message rewritten, no errno text in it");
    CU_ASSERT_TRUE(g_error_matches(err, DESTOR_ERROR, DESTOR_ERROR_NO_SPACE));
    CU_ASSERT_EQUAL(destor_exit_status(err), DESTOR_EXIT_RUNTIME);
    g_clear_error(&err);
    destor_set_errno(&err, EDQUOT, "write x");
    CU_ASSERT_TRUE(g_error_matches(err, DESTOR_ERROR, DESTOR_ERROR_NO_SPACE));
    g_clear_error(&err);
    destor_set_errno(&err, EIO, "write %s", g_strerror(ENOSPC));
    CU_ASSERT_TRUE(g_error_matches(err, DESTOR_ERROR, DESTOR_ERROR_IO));
    CU_ASSERT_TRUE(destor_error_is_io(err));
    g_clear_error(&err);
}

static void add_suites(void)
{
    CU_pSuite s = CU_add_suite("file_replace", setup, teardown);
    CU_add_test(s, "a replacement never writes through a link", test_replace_never_writes_through);
    CU_add_test(s, "every publish replaces a name whole, never through a link", test_publish);
    CU_add_test(s, "a file opened in place is never one behind a link", test_open_own);
    CU_add_test(s, "dir_within", test_dir_within);
    CU_add_test(s, "a full disk's error says so by its code", test_no_space_code);
}

UNIT_MAIN(add_suites)
