# SPDX-License-Identifier: GPL-3.0-or-later
# src/util: small shared helpers (errors, queues, file I/O, fingerprints).
libdestor_a_SOURCES += \
	src/util/error.c src/util/error.h \
	src/util/output.c src/util/output.h \
	src/util/json_doc.c src/util/json_doc.h \
	src/util/le.h \
	src/util/check.h \
	src/util/thread_cpu.h \
	src/util/fileio.c src/util/fileio.h \
	src/util/output_file.c src/util/output_file.h \
	src/util/file_replace.c src/util/file_replace.h \
	src/util/dir_within.c src/util/dir_within.h \
	src/util/bounded_queue.c src/util/bounded_queue.h \
	src/util/huge_pages.c src/util/huge_pages.h \
	src/util/fingerprint.c src/util/fingerprint.h \
	src/util/file_digest.c src/util/file_digest.h \
	src/util/checksum.c src/util/checksum.h \
	src/util/size_parse.c src/util/size_parse.h \
	src/util/lock_file.c src/util/lock_file.h \
	src/util/bdb_error.c src/util/bdb_error.h

check_PROGRAMS += tests/unit/test_cli_text
tests_unit_test_cli_text_SOURCES = tests/unit/test_cli_text.c tests/unit/unit.h
tests_unit_test_cli_text_LDADD = $(UNIT_LIBS)

check_PROGRAMS += tests/unit/test_bounded_queue
tests_unit_test_bounded_queue_SOURCES = tests/unit/test_bounded_queue.c tests/unit/unit.h
tests_unit_test_bounded_queue_LDADD = $(UNIT_LIBS)

check_PROGRAMS += tests/unit/test_file_replace
tests_unit_test_file_replace_SOURCES = tests/unit/test_file_replace.c tests/unit/unit.h
tests_unit_test_file_replace_LDADD = $(UNIT_LIBS)

libdestor_a_SOURCES += src/util/edit_distance.c src/util/edit_distance.h

check_PROGRAMS += tests/unit/test_file_digest
tests_unit_test_file_digest_SOURCES = tests/unit/test_file_digest.c tests/unit/unit.h tests/unit/digest_reference.h
tests_unit_test_file_digest_LDADD = $(UNIT_LIBS)
