# SPDX-License-Identifier: GPL-3.0-or-later
# tests/unit/valgrind.mk: every CUnit program again under Valgrind memcheck
# (tests/unit/valgrind-unit.sh). ASan finds most of the same bugs in the
# sanitizer build, but it cannot see reads of uninitialised memory, which
# memcheck does; the two cannot run together, so the script skips itself
# under --enable-sanitizers. The programs it runs are the check_PROGRAMS
# under tests/unit/ (every module's CUnit test lives there), taken from
# check_PROGRAMS rather than TESTS so that `make check TESTS=...valgrind-unit.sh`
# still runs them all.
EXTRA_DIST += tests/unit/valgrind-unit.sh tests/unit/valgrind.supp
AM_TESTS_ENVIRONMENT += \
	VALGRIND_UNIT_PROGRAMS='$(check_PROGRAMS)'; export VALGRIND_UNIT_PROGRAMS;
