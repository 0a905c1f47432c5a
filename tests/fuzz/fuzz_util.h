/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz_util.h: helpers shared by the fuzz targets (tests/fuzz/fuzz_*.c).
 *
 * Every target defines LLVMFuzzerTestOneInput(). Built with clang and
 * -fsanitize=fuzzer,address,undefined by scripts/fuzz.sh it is a libFuzzer
 * binary; built with standalone_main.c (make check) it replays files.
 *
 * Most targets read a leading "mode" byte that tells the harness to repair
 * checksums or length fields before calling the parser, so the fuzzer gets
 * past the CRC checks and explores the field and layout checks behind them;
 * with the bits clear the bytes are passed unchanged. */
#ifndef DESTOR_FUZZ_UTIL_H
#define DESTOR_FUZZ_UTIL_H

#include <glib.h>
#include <glib/gstdio.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_quiet_print(const gchar *msg)
{
    (void)msg;
}

/* Warnings are expected on hostile input and dropped; a critical (a failed
 * g_return_if_fail) or an error is a bug: abort so the fuzzer reports it. */
static void fuzz_log_handler(const gchar *domain, GLogLevelFlags level, const gchar *msg, gpointer user)
{
    (void)user;
    if (level & (G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_ERROR)) {
        fprintf(stderr, "fuzz: glib %s: %s\n", domain ? domain : "", msg);
        abort();
    }
}

/* Silence the parsers' warnings (g_printerr, g_warning). Call at the start
 * of every input; cheap after the first. */
static inline void fuzz_quiet(void)
{
    static gboolean done;
    if (done || getenv("FUZZ_VERBOSE") != NULL)
        return;
    done = TRUE;
    g_set_printerr_handler(fuzz_quiet_print);
    g_log_set_default_handler(fuzz_log_handler, NULL);
}

/* An exactly sized heap copy (so ASan sees any read past its end). */
static inline uint8_t *fuzz_dup(const uint8_t *data, size_t size)
{
    uint8_t *p = malloc(size ? size : 1);
    if (p == NULL)
        abort();
    if (size)
        memcpy(p, data, size);
    return p;
}

/* The input of a target that takes a mode byte and then the structure:
 * silences the parsers, and returns an exactly sized copy of what follows
 * the mode byte (free() it), or NULL when the input is shorter than
 * `min_size` bytes in all. */
static inline uint8_t *fuzz_mode_input(const uint8_t *data, size_t size, size_t min_size, uint8_t *mode,
                                       size_t *len)
{
    fuzz_quiet();
    if (size < 1 || size < min_size)
        return NULL;
    *mode = data[0];
    *len = size - 1;
    return fuzz_dup(data + 1, *len);
}

static inline uint32_t fuzz_crc(const uint8_t *p, size_t len)
{
    return (uint32_t)crc32_z(0, p, len);
}

/* A private scratch directory for targets that must go through a file
 * (on tmpfs when there is one); created once, removed at exit. */
static char *fuzz_scratch;

static void fuzz_scratch_remove(void)
{
    if (fuzz_scratch == NULL)
        return;
    GDir *d = g_dir_open(fuzz_scratch, 0, NULL);
    if (d != NULL) {
        const char *name;
        while ((name = g_dir_read_name(d)) != NULL) {
            char *p = g_build_filename(fuzz_scratch, name, NULL);
            g_unlink(p);
            g_free(p);
        }
        g_dir_close(d);
    }
    g_rmdir(fuzz_scratch);
}

static inline const char *fuzz_scratch_dir(void)
{
    if (fuzz_scratch == NULL) {
        const char *base = g_file_test("/dev/shm", G_FILE_TEST_IS_DIR) && access("/dev/shm", W_OK) == 0
                               ? "/dev/shm" : g_get_tmp_dir();
        char *tmpl = g_build_filename(base, "destor-fuzz.XXXXXX", NULL);
        if (g_mkdtemp(tmpl) == NULL)
            abort();
        fuzz_scratch = tmpl;
        atexit(fuzz_scratch_remove);
    }
    return fuzz_scratch;
}

/* Write data to `name` in the scratch directory; returns the path (g_free). */
static inline char *fuzz_write_file(const char *name, const uint8_t *data, size_t size)
{
    char *path = g_build_filename(fuzz_scratch_dir(), name, NULL);
    FILE *f = fopen(path, "wb");
    if (f == NULL || (size > 0 && fwrite(data, 1, size, f) != size) || fclose(f) != 0)
        abort();
    return path;
}

#endif
