/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_trace_line.c: a read-file trace record (docs/FORMAT.md, "Trace
 * file"): the forms without a time, as every trace before times was
 * written, read as before; the optional time '@SECONDS<TAB>' first, in
 * nanoseconds, and what it refuses; and the reader's clock check (every
 * request timed or none, times never going back). */
#include "trace/trace_line.h"
#include "unit.h"
#include "util/error.h"

#include <string.h>

/* Parse a copy of `text`: TRUE when it parses (req filled). */
static gboolean parse(const char *text, TraceRequest *req, char **copy)
{
    *copy = g_strdup(text);
    GError *err = NULL;
    gboolean ok = trace_line_parse(*copy, "t", 3, req, &err);
    CU_ASSERT(ok == (err == NULL));
    if (err != NULL) {
        CU_ASSERT(g_error_matches(err, DESTOR_ERROR, DESTOR_ERROR_USAGE));
        CU_ASSERT(g_str_has_prefix(err->message, "t:3: "));
    }
    g_clear_error(&err);
    return ok;
}

static void test_untimed(void)
{
    TraceRequest r;
    char *c;
    CU_ASSERT_TRUE(parse("7\tdir/a file", &r, &c));
    CU_ASSERT(r.job == 7 && strcmp(r.path, "dir/a file") == 0 && !r.ranged && !r.timed && r.time_ns == 0);
    g_free(c);
    CU_ASSERT_TRUE(parse("0\tp\t10\t-", &r, &c));
    CU_ASSERT(r.ranged && r.range.offset == 10 && r.range.length == FILE_RANGE_TO_END && !r.timed);
    g_free(c);
    CU_ASSERT_TRUE(parse("1\tp\twith\ttabs\t5\t6", &r, &c));
    CU_ASSERT(strcmp(r.path, "p\twith\ttabs") == 0 && r.range.offset == 5 && r.range.length == 6);
    g_free(c);
    /* an '@' inside the path is the path's */
    CU_ASSERT_TRUE(parse("2\t@1\tx", &r, &c));
    CU_ASSERT(strcmp(r.path, "@1\tx") == 0 && !r.timed);
    g_free(c);
    CU_ASSERT_FALSE(parse("x\tp", &r, &c));
    g_free(c);
}

static void test_timed(void)
{
    static const struct {
        const char *line;
        uint64_t ns;
    } ok[] = {
        { "@0\t3\tp", 0 },
        { "@12\t3\tp", 12000000000ull },
        { "@1.5\t3\tp", 1500000000ull },
        { "@0.000000001\t3\tp", 1 },
        { "@007.120\t3\tp", 7120000000ull },
        { "@18446744073.709551615\t3\tp", UINT64_MAX },
    };
    for (size_t i = 0; i < G_N_ELEMENTS(ok); i++) {
        TraceRequest r;
        char *c;
        CU_ASSERT_TRUE(parse(ok[i].line, &r, &c));
        CU_ASSERT(r.timed && r.time_ns == ok[i].ns && r.job == 3 && strcmp(r.path, "p") == 0 && !r.ranged);
        g_free(c);
    }
    TraceRequest r;
    char *c;
    CU_ASSERT_TRUE(parse("@2.25\t4\tp\t0\t100", &r, &c));
    CU_ASSERT(r.timed && r.time_ns == 2250000000ull && r.job == 4 && r.ranged && r.range.length == 100);
    g_free(c);
    static const char *bad[] = {
        "@\t3\tp", "@1.\t3\tp", "@.5\t3\tp", "@1.0000000001\t3\tp", "@-1\t3\tp", "@1e3\t3\tp", "@1 \t3\tp",
        "@18446744073.709551616\t3\tp", "@18446744074\t3\tp", "@99999999999999999999\t3\tp", "@5", "@5\t",
        "@5\t3",
    };
    for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
        CU_ASSERT_FALSE(parse(bad[i], &r, &c));
        g_free(c);
    }
}

/* Feed `lines` to one clock: the index of the first refused, or -1. */
static int clock_refuses(const char *const *lines, size_t n)
{
    TraceClock clock = { 0 };
    for (size_t i = 0; i < n; i++) {
        TraceRequest r;
        char *c;
        CU_ASSERT_TRUE_FATAL(parse(lines[i], &r, &c));
        GError *err = NULL;
        gboolean ok = trace_clock_check(&clock, &r, "t", (int)i + 1, &err);
        g_free(c);
        if (!ok) {
            CU_ASSERT(g_error_matches(err, DESTOR_ERROR, DESTOR_ERROR_USAGE));
            g_clear_error(&err);
            return (int)i;
        }
    }
    return -1;
}

static void test_clock(void)
{
    const char *untimed[] = { "1\ta", "1\tb" };
    const char *timed[] = { "@5\t1\ta", "@5\t1\tb", "@6.5\t1\ta" };
    const char *back[] = { "@5\t1\ta", "@6\t1\tb", "@5.999999999\t1\ta" };
    const char *late[] = { "1\ta", "@1\t1\tb" };
    const char *missing[] = { "@1\t1\ta", "1\tb" };
    CU_ASSERT_EQUAL(clock_refuses(untimed, 2), -1);
    CU_ASSERT_EQUAL(clock_refuses(timed, 3), -1);
    CU_ASSERT_EQUAL(clock_refuses(back, 3), 2);
    CU_ASSERT_EQUAL(clock_refuses(late, 2), 1);
    CU_ASSERT_EQUAL(clock_refuses(missing, 2), 1);
}

static void add_suites(void)
{
    CU_pSuite s = CU_add_suite("trace_line", NULL, NULL);
    CU_add_test(s, "records without a time read as before", test_untimed);
    CU_add_test(s, "a time first, in nanoseconds; malformed ones refused", test_timed);
    CU_add_test(s, "every request timed or none, never going back", test_clock);
}

UNIT_MAIN(add_suites)
