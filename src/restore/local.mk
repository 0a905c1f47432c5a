# src/restore: the read path (job restore, read-file single and trace).
libdestor_a_SOURCES += \
	src/restore/cached_source.c src/restore/cached_source.h \
	src/restore/container_lru.c src/restore/container_lru.h \
	src/restore/prefetch_source.c src/restore/prefetch_source.h \
	src/restore/file_output.c src/restore/file_output.h src/restore/file_range.h \
	src/restore/id_source.c src/restore/id_source.h \
	src/restore/job.c src/restore/job.h \
	src/restore/safe_path.c src/restore/safe_path.h \
	src/restore/restore.c src/restore/prefetch_source.c src/restore/restore.h \
	src/restore/read_session.c src/restore/read_session.h \
	src/restore/trace_line.c src/restore/trace_line.h \
	src/restore/trace_reader.c src/restore/trace_reader.h \
	src/restore/trace_summary.c src/restore/trace_summary.h \
	src/restore/compiled_replay.c src/restore/compiled_replay.h \
	src/restore/read_file.c src/restore/read_file.h

check_PROGRAMS += tests/unit/test_restore_hostile
tests_unit_test_restore_hostile_SOURCES = tests/unit/test_restore_hostile.c tests/unit/unit.h
tests_unit_test_restore_hostile_LDADD = $(UNIT_LIBS)
TESTS += tests/unit/test_restore_hostile
