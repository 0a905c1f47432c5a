/* SPDX-License-Identifier: GPL-3.0-or-later */
/* unit.h: the shared main() of every CUnit test program.
 *
 * A test file defines `static void add_suites(void)` that calls
 * CU_add_suite/CU_add_test, then writes UNIT_MAIN(add_suites). The program
 * exits non-zero when any assertion failed, so automake counts it. */
#ifndef DESTOR_UNIT_H
#define DESTOR_UNIT_H

#include <CUnit/Basic.h>
#include <stdlib.h>

#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#define UNIT_ON_VALGRIND() (RUNNING_ON_VALGRIND != 0)
#endif
#endif
#ifndef UNIT_ON_VALGRIND
#define UNIT_ON_VALGRIND() 0
#endif

/* unit_thin(): the factor by which a long sweep (every Nth byte damaged,
 * thousands of requests) is thinned: 1, or 4 under valgrind, which looks
 * for memory errors on each path rather than at each position; the plain
 * and sanitizer builds run every position (tests/unit/valgrind-unit.sh).
 * unit_reps(n): n repetitions thinned so, at least one. */
static inline unsigned unit_thin(void)
{
    return UNIT_ON_VALGRIND() ? 4u : 1u;
}
static inline unsigned unit_reps(unsigned n)
{
    return n / unit_thin() ? n / unit_thin() : 1u;
}

#define UNIT_MAIN(add_suites)                                        \
    int main(void)                                                   \
    {                                                                \
        if (CU_initialize_registry() != CUE_SUCCESS)                 \
            return EXIT_FAILURE;                                     \
        add_suites();                                                \
        CU_basic_set_mode(CU_BRM_VERBOSE);                           \
        CU_basic_run_tests();                                        \
        unsigned failed = CU_get_number_of_failures() +              \
                          CU_get_number_of_tests_failed();           \
        CU_cleanup_registry();                                       \
        return failed ? EXIT_FAILURE : EXIT_SUCCESS;                 \
    }

#endif
