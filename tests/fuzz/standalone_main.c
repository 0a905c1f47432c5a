/* SPDX-License-Identifier: GPL-3.0-or-later */
/* standalone_main.c: a main() for the fuzz targets without libFuzzer. It
 * runs LLVMFuzzerTestOneInput() once per file named on the command line or
 * found (recursively) under a named directory, in sorted order, so the
 * corpus and the saved crash inputs replay as regression tests in
 * `make check`. A crash, a sanitizer report or an abort ends the process
 * with a failing status; the file being run is printed first with -v. */
#include <glib.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static gboolean verbose;
static unsigned runs;

static gint compare_names(gconstpointer a, gconstpointer b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_file(const char *path)
{
    gchar *buf = NULL;
    gsize len = 0;
    GError *err = NULL;
    if (!g_file_get_contents(path, &buf, &len, &err)) {
        fprintf(stderr, "standalone: %s\n", err->message);
        g_error_free(err);
        return 1;
    }
    if (verbose) {
        fprintf(stderr, "standalone: running %s (%zu bytes)\n", path, (size_t)len);
        fflush(stderr);
    }
    /* An exactly sized copy, as libFuzzer gives, so ASan sees overreads. */
    uint8_t *copy = malloc(len ? len : 1);
    if (copy == NULL)
        abort();
    memcpy(copy, buf, len);
    g_free(buf);
    LLVMFuzzerTestOneInput(copy, len);
    free(copy);
    runs++;
    return 0;
}

static int run_path(const char *path)
{
    if (!g_file_test(path, G_FILE_TEST_IS_DIR))
        return run_file(path);
    GError *err = NULL;
    GDir *d = g_dir_open(path, 0, &err);
    if (d == NULL) {
        fprintf(stderr, "standalone: %s\n", err->message);
        g_error_free(err);
        return 1;
    }
    GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
    const char *name;
    while ((name = g_dir_read_name(d)) != NULL)
        if (name[0] != '.')
            g_ptr_array_add(names, g_build_filename(path, name, NULL));
    g_dir_close(d);
    g_ptr_array_sort(names, compare_names);
    int rc = 0;
    for (guint i = 0; i < names->len; i++)
        rc |= run_path(names->pdata[i]);
    g_ptr_array_unref(names);
    return rc;
}

int main(int argc, char **argv)
{
    if (LLVMFuzzerInitialize != NULL)
        LLVMFuzzerInitialize(&argc, &argv);
    int first = 1;
    if (argc > 1 && strcmp(argv[1], "-v") == 0) {
        verbose = TRUE;
        first = 2;
    }
    if (first >= argc) {
        fprintf(stderr, "usage: %s [-v] FILE|DIR...\n", argv[0]);
        return 2;
    }
    int rc = 0;
    for (int i = first; i < argc; i++) {
        if (!g_file_test(argv[i], G_FILE_TEST_EXISTS))
            continue; /* e.g. a target without saved regressions */
        rc |= run_path(argv[i]);
    }
    printf("%s: %u inputs run\n", argv[0], runs);
    return rc;
}
