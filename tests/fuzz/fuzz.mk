# SPDX-License-Identifier: GPL-3.0-or-later
# tests/fuzz: fuzz targets of the parsers and their regression runs.
#
# Each tests/fuzz/fuzz_TARGET.c defines LLVMFuzzerTestOneInput(). Here they
# are linked with standalone_main.c into plain programs, and run-corpus.sh
# replays tests/fuzz/corpus/TARGET/ and tests/fuzz/regressions/TARGET/ (the
# crashes scripts/fuzz.sh found) through them. scripts/fuzz.sh builds the
# same sources as libFuzzer binaries under clang with ASan and UBSan.
FUZZ_TARGETS = config file_record job_meta container manifest refcount trace_line cache_meta compiled_trace cache_codec
FUZZ_BINS = tests/fuzz/fuzz_config tests/fuzz/fuzz_file_record tests/fuzz/fuzz_job_meta \
	tests/fuzz/fuzz_container tests/fuzz/fuzz_manifest tests/fuzz/fuzz_refcount \
	tests/fuzz/fuzz_trace_line tests/fuzz/fuzz_cache_meta tests/fuzz/fuzz_compiled_trace \
	tests/fuzz/fuzz_cache_codec
FUZZ_COMMON = tests/fuzz/standalone_main.c tests/fuzz/fuzz_util.h
FUZZ_LIBS = $(DESTOR_LIBS) $(ZLIB_LIBS)

check_PROGRAMS += $(FUZZ_BINS)
EXTRA_DIST += tests/fuzz/run-corpus.sh tests/fuzz/make-corpus.sh tests/fuzz/corpus tests/fuzz/regressions \
	scripts/fuzz.sh

tests_fuzz_fuzz_config_SOURCES = tests/fuzz/fuzz_config.c $(FUZZ_COMMON)
tests_fuzz_fuzz_config_LDADD = $(FUZZ_LIBS)
tests_fuzz_fuzz_file_record_SOURCES = tests/fuzz/fuzz_file_record.c $(FUZZ_COMMON)
tests_fuzz_fuzz_file_record_LDADD = $(FUZZ_LIBS)
tests_fuzz_fuzz_job_meta_SOURCES = tests/fuzz/fuzz_job_meta.c $(FUZZ_COMMON)
tests_fuzz_fuzz_job_meta_LDADD = $(FUZZ_LIBS)
tests_fuzz_fuzz_container_SOURCES = tests/fuzz/fuzz_container.c $(FUZZ_COMMON)
tests_fuzz_fuzz_container_LDADD = $(FUZZ_LIBS)
tests_fuzz_fuzz_manifest_SOURCES = tests/fuzz/fuzz_manifest.c $(FUZZ_COMMON)
tests_fuzz_fuzz_manifest_LDADD = $(FUZZ_LIBS)
tests_fuzz_fuzz_refcount_SOURCES = tests/fuzz/fuzz_refcount.c $(FUZZ_COMMON)
tests_fuzz_fuzz_refcount_LDADD = $(FUZZ_LIBS)
tests_fuzz_fuzz_trace_line_SOURCES = tests/fuzz/fuzz_trace_line.c $(FUZZ_COMMON)
tests_fuzz_fuzz_trace_line_LDADD = $(FUZZ_LIBS)
tests_fuzz_fuzz_cache_meta_SOURCES = tests/fuzz/fuzz_cache_meta.c $(FUZZ_COMMON)
tests_fuzz_fuzz_cache_meta_LDADD = $(FUZZ_LIBS)
tests_fuzz_fuzz_compiled_trace_SOURCES = tests/fuzz/fuzz_compiled_trace.c $(FUZZ_COMMON)
tests_fuzz_fuzz_compiled_trace_LDADD = $(FUZZ_LIBS)
tests_fuzz_fuzz_cache_codec_SOURCES = tests/fuzz/fuzz_cache_codec.c $(FUZZ_COMMON)
tests_fuzz_fuzz_cache_codec_LDADD = $(FUZZ_LIBS)
