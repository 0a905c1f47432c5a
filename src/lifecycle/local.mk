# SPDX-License-Identifier: GPL-3.0-or-later
# src/lifecycle: what makes stored bytes go away: deleting jobs and garbage
# collection (library functions; the commands and a retention rule call them).
libdestor_a_SOURCES += \
	src/lifecycle/job_delete.c src/lifecycle/job_delete.h \
	src/lifecycle/live_chunks.c src/lifecycle/live_chunks.h \
	src/lifecycle/compact.c src/lifecycle/compact.h \
	src/lifecycle/index_survivors.c src/lifecycle/index_survivors.h \
	src/lifecycle/gc.c src/lifecycle/gc.h \
	src/lifecycle/retention.c src/lifecycle/retention.h

check_PROGRAMS += tests/unit/test_lifecycle
tests_unit_test_lifecycle_SOURCES = tests/unit/test_lifecycle.c tests/unit/unit.h tests/unit/unit_tmpdir.h
tests_unit_test_lifecycle_LDADD = $(UNIT_LIBS)
