# SPDX-License-Identifier: GPL-3.0-or-later
# src/index: the fingerprint index (Berkeley DB record, one file per lookup design).
libdestor_a_SOURCES += src/index/fp_index.c src/index/fp_index.h src/index/fp_design.h \
	src/index/fp_index_params.c src/index/fp_index_params.h \
	src/index/fp_exact.c src/index/fp_sampled.c src/index/fp_silo.c \
	src/index/fp_table.c src/index/fp_table.h \
	src/index/locality_cache.c src/index/locality_cache.h \
	src/index/sampling.c src/index/sampling.h \
	src/index/segmenting.c src/index/segmenting.h \
	src/index/samples_file.c src/index/samples_file.h \
	src/index/segments_file.c src/index/segments_file.h

check_PROGRAMS += tests/unit/test_fp_sampled
tests_unit_test_fp_sampled_SOURCES = tests/unit/test_fp_sampled.c tests/unit/unit.h tests/unit/unit_tmpdir.h
tests_unit_test_fp_sampled_LDADD = $(UNIT_LIBS)

check_PROGRAMS += tests/unit/test_segmenting
tests_unit_test_segmenting_SOURCES = tests/unit/test_segmenting.c tests/unit/unit.h
tests_unit_test_segmenting_LDADD = $(UNIT_LIBS)
