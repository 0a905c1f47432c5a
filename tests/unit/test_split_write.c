/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_split_write.c: a write issued as pieces at once (src/util/split_write.c)
 * leaves exactly the bytes one whole write does, for lengths of one unit to
 * many, at an offset, with more pieces than units, and with one piece; a
 * failed write (a descriptor not open for writing) is reported, once. */
#include "util/split_write.h"
#include "unit.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define UNIT 4096

static int scratch_file(char **path)
{
    *path = g_build_filename(g_get_tmp_dir(), "test_split_write.XXXXXX", NULL);
    int fd = g_mkstemp(*path);
    CU_ASSERT_FATAL(fd >= 0);
    return fd;
}

/* Write `units` units at `at_unit` with `pieces` pieces over a file full of
 * 0xee; the file must then be 0xee around the range and the bytes within. */
static void check_write(guint pieces, size_t units, size_t at_unit)
{
    char *path;
    int fd = scratch_file(&path);
    size_t len = units * UNIT, total = (at_unit + units + 1) * UNIT;
    uint8_t *old = g_malloc(total), *buf = g_malloc(len), *back = g_malloc(total);
    memset(old, 0xee, total);
    CU_ASSERT_EQUAL_FATAL(pwrite(fd, old, total, 0), (ssize_t)total);
    GRand *r = g_rand_new_with_seed((guint32)(pieces * 1000 + units));
    for (size_t i = 0; i < len; i++)
        buf[i] = (uint8_t)g_rand_int(r);
    g_rand_free(r);
    GError *err = NULL;
    SplitWriter *w = split_writer_new(pieces, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    CU_ASSERT_TRUE(split_writer_pwrite(w, fd, buf, len, (off_t)(at_unit * UNIT), UNIT, path, &err));
    CU_ASSERT_PTR_NULL(err);
    split_writer_free(w);
    CU_ASSERT_EQUAL(pread(fd, back, total, 0), (ssize_t)total);
    memcpy(old + at_unit * UNIT, buf, len);
    CU_ASSERT_EQUAL(memcmp(back, old, total), 0);
    close(fd);
    unlink(path);
    g_free(path);
    g_free(old);
    g_free(buf);
    g_free(back);
}

static void test_bytes_as_one_write(void)
{
    check_write(4, 512, 0);  /* a 2 MiB container, 4 equal pieces */
    check_write(4, 7, 3);    /* pieces of 1 and 2 units, at an offset */
    check_write(4, 2, 1);    /* fewer units than pieces */
    check_write(1, 9, 2);    /* one piece: a plain write */
    check_write(3, 1000, 5); /* uneven shares */
}

static void test_failure_reported(void)
{
    char *path;
    int fd = scratch_file(&path);
    int ro = open(path, O_RDONLY);
    CU_ASSERT_FATAL(ro >= 0);
    uint8_t *buf = g_malloc0(8 * UNIT);
    SplitWriter *w = split_writer_new(4, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    GError *err = NULL;
    CU_ASSERT_FALSE(split_writer_pwrite(w, ro, buf, 8 * UNIT, 0, UNIT, path, &err));
    CU_ASSERT_PTR_NOT_NULL(err);
    g_clear_error(&err);
    /* the writer is still usable after a failure */
    CU_ASSERT_TRUE(split_writer_pwrite(w, fd, buf, 8 * UNIT, 0, UNIT, path, &err));
    split_writer_free(w);
    close(ro);
    close(fd);
    unlink(path);
    g_free(path);
    g_free(buf);
}

static void add_suites(void)
{
    CU_pSuite s = CU_add_suite("split_write", NULL, NULL);
    CU_add_test(s, "pieces leave the bytes of one write", test_bytes_as_one_write);
    CU_add_test(s, "a failed piece fails the write", test_failure_reported);
}

UNIT_MAIN(add_suites)
