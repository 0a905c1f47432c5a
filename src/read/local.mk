# SPDX-License-Identifier: GPL-3.0-or-later
# src/read: the read services under every command that reads: jobs opened
# for reading, the per-request container LRU, the restore caches (lru, opt,
# the forward assembly area) and the chunk streams they look ahead in, the
# prefetcher, the SSD
# cache over the pool, the SSD chunk cache as a chunk source, id-only sources, file assembly, safe paths, and the
# read session that serves requests one by one.
libdestor_a_SOURCES += \
	src/read/cached_source.c src/read/cached_source.h \
	src/read/chunk_cache_source.c src/read/chunk_cache_source.h \
	src/read/chunk_recorder.c src/read/chunk_recorder.h \
	src/read/container_lru.c src/read/container_lru.h \
	src/read/chunk_stream.c src/read/chunk_stream.h \
	src/read/opt_window.c src/read/opt_window.h \
	src/read/assembly_area.c src/read/assembly_area.h \
	src/read/restore_cache.c src/read/restore_cache.h \
	src/read/chunk_source.h src/read/record_cache.c src/read/record_cache.h \
	src/read/container_chunks.c src/read/container_chunks.h \
	src/read/prefetch_source.c src/read/prefetch_source.h \
	src/read/file_output.c src/read/file_output.h src/read/file_range.h \
	src/read/id_source.c src/read/id_source.h \
	src/read/job.c src/read/job.h \
	src/read/safe_path.c src/read/safe_path.h \
	src/read/read_session.c src/read/read_session.h

check_PROGRAMS += tests/unit/test_chunk_source
tests_unit_test_chunk_source_SOURCES = tests/unit/test_chunk_source.c tests/unit/unit.h
tests_unit_test_chunk_source_LDADD = $(UNIT_LIBS)

check_PROGRAMS += tests/unit/test_prefetch_source
tests_unit_test_prefetch_source_SOURCES = tests/unit/test_prefetch_source.c tests/unit/unit.h
tests_unit_test_prefetch_source_LDADD = $(UNIT_LIBS)

check_PROGRAMS += tests/unit/test_restore_cache
tests_unit_test_restore_cache_SOURCES = tests/unit/test_restore_cache.c tests/unit/unit.h
tests_unit_test_restore_cache_LDADD = $(UNIT_LIBS)

check_PROGRAMS += tests/unit/test_chunk_recorder tests/unit/test_record_cache
tests_unit_test_record_cache_SOURCES = tests/unit/test_record_cache.c tests/unit/unit.h
tests_unit_test_record_cache_LDADD = $(UNIT_LIBS)
tests_unit_test_chunk_recorder_SOURCES = tests/unit/test_chunk_recorder.c tests/unit/unit.h
tests_unit_test_chunk_recorder_LDADD = $(UNIT_LIBS)

check_PROGRAMS += tests/unit/test_file_output
tests_unit_test_file_output_SOURCES = tests/unit/test_file_output.c tests/unit/unit.h
tests_unit_test_file_output_LDADD = $(UNIT_LIBS)
