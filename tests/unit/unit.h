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
