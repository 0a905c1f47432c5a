# SPDX-License-Identifier: GPL-3.0-or-later
# src/chunking: sources and unit tests of this module.
libdestor_a_SOURCES += \
	src/chunking/chunker.c src/chunking/chunker.h src/chunking/chunker_impl.h \
	src/chunking/rabin.c src/chunking/fixed.c src/chunking/fastcdc.c

check_PROGRAMS += tests/unit/test_chunking
tests_unit_test_chunking_SOURCES = tests/unit/test_chunking.c
tests_unit_test_chunking_LDADD = $(UNIT_LIBS)
