/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_trace_summary.c: the trace summary's percentiles, which select
 * ranks in linear time instead of sorting: equal to a sorted array's
 * nearest-rank values on random arrays (many ties, odd sizes) and on
 * hand-worked small ones. */
#include "trace/trace_summary.h"
#include "unit.h"

#include <stdlib.h>

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double nearest_rank(const double *sorted, size_t n, double p)
{
    size_t rank = (size_t)(p / 100.0 * n + 0.999999);
    rank = rank < 1 ? 1 : rank > n ? n : rank;
    return sorted[rank - 1];
}

static void test_by_hand(void)
{
    double v[] = { 5, 1, 4, 2, 3 }; /* sorted 1..5: p50 rank 3, p95 and p99 rank 5 */
    GArray *a = g_array_new(FALSE, FALSE, sizeof(double));
    g_array_append_vals(a, v, 5);
    LatencyFigures f = latency_figures(a);
    CU_ASSERT_DOUBLE_EQUAL(f.mean, 3.0, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(f.p50, 3.0, 0);
    CU_ASSERT_DOUBLE_EQUAL(f.p95, 5.0, 0);
    CU_ASSERT_DOUBLE_EQUAL(f.p99, 5.0, 0);
    g_array_set_size(a, 0);
    f = latency_figures(a);
    CU_ASSERT_DOUBLE_EQUAL(f.p99, 0.0, 0);
    g_array_unref(a);
}

static void test_against_sort(void)
{
    GRand *rng = g_rand_new_with_seed(12);
    unsigned wrong = 0;
    for (int round = 0; round < 1500; round++) {
        size_t n = 1 + (size_t)g_rand_int_range(rng, 0, round < 1480 ? 300 : 5000);
        int distinct = g_rand_int_range(rng, 1, 60);
        GArray *a = g_array_new(FALSE, FALSE, sizeof(double));
        double *sorted = g_new(double, n);
        for (size_t i = 0; i < n; i++) {
            double x = (double)g_rand_int_range(rng, 0, distinct);
            g_array_append_val(a, x);
            sorted[i] = x;
        }
        qsort(sorted, n, sizeof(double), compare_double);
        LatencyFigures f = latency_figures(a);
        if (f.p50 != nearest_rank(sorted, n, 50) || f.p95 != nearest_rank(sorted, n, 95) ||
            f.p99 != nearest_rank(sorted, n, 99))
            wrong++;
        g_array_unref(a);
        g_free(sorted);
    }
    CU_ASSERT_EQUAL(wrong, 0);
    g_rand_free(rng);
}

static void add_suites(void)
{
    CU_pSuite s = CU_add_suite("trace_summary", NULL, NULL);
    CU_add_test(s, "percentiles worked by hand", test_by_hand);
    CU_add_test(s, "percentiles = sorted nearest rank", test_against_sort);
}

UNIT_MAIN(add_suites)
