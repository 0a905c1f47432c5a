# SPDX-License-Identifier: GPL-3.0-or-later
# src/backup: the backup pipeline's stages (walk, chunk workers, hashers, the
# job writer: dedup, containers, commit); src/commands/backup.c wires them.
libdestor_a_SOURCES += \
	src/backup/backup_msg.h \
	src/backup/walker.c src/backup/walker.h \
	src/backup/block_hasher.c src/backup/block_hasher.h \
	src/backup/chunk_worker.c src/backup/chunk_worker.h \
	src/backup/rewrite_policy.c src/backup/rewrite_policy.h \
	src/backup/rewrite_stage.c src/backup/rewrite_stage.h \
	src/backup/segment_stage.c src/backup/segment_stage.h \
	src/backup/har_history.c src/backup/har_history.h \
	src/backup/files_cache.c src/backup/files_cache.h \
	src/backup/fragmentation.c src/backup/fragmentation.h \
	src/backup/job_writer.c src/backup/job_writer.h

check_PROGRAMS += tests/unit/test_chunk_worker
tests_unit_test_chunk_worker_SOURCES = tests/unit/test_chunk_worker.c
tests_unit_test_chunk_worker_LDADD = $(UNIT_LIBS)

check_PROGRAMS += tests/unit/test_block_hasher
tests_unit_test_block_hasher_SOURCES = tests/unit/test_block_hasher.c
tests_unit_test_block_hasher_LDADD = $(UNIT_LIBS)

check_PROGRAMS += tests/unit/test_rewrite_policy
tests_unit_test_rewrite_policy_SOURCES = tests/unit/test_rewrite_policy.c tests/unit/unit.h
tests_unit_test_rewrite_policy_LDADD = $(UNIT_LIBS)

check_PROGRAMS += tests/unit/test_segment_stage
tests_unit_test_segment_stage_SOURCES = tests/unit/test_segment_stage.c tests/unit/unit.h
tests_unit_test_segment_stage_LDADD = $(UNIT_LIBS)

check_PROGRAMS += tests/unit/test_file_status
tests_unit_test_file_status_SOURCES = tests/unit/test_file_status.c tests/unit/unit.h
tests_unit_test_file_status_LDADD = $(UNIT_LIBS)
