# SPDX-License-Identifier: GPL-3.0-or-later
# src/storage: container format and the container stores (pool, files, rados).
libdestor_a_SOURCES += \
	src/storage/container_source.h \
	src/storage/container.c src/storage/container.h \
	src/storage/chunk_read.c src/storage/chunk_read.h \
	src/storage/container_store.c src/storage/container_store.h \
	src/storage/container_pool.c src/storage/container_pool.h \
	src/storage/container_files.c src/storage/container_files.h \
	src/storage/container_rados.c src/storage/container_rados.h \
	src/storage/rados_api.c src/storage/rados_api.h \
	src/storage/rados_cluster.c src/storage/rados_cluster.h \
	src/storage/rados_lock.c src/storage/rados_lock.h \
	src/storage/rados_object.c src/storage/rados_object.h \
	src/storage/container_writer.c src/storage/container_writer.h

check_PROGRAMS += tests/unit/test_container
tests_unit_test_container_SOURCES = tests/unit/test_container.c tests/unit/unit.h
tests_unit_test_container_LDADD = $(UNIT_LIBS)

check_PROGRAMS += tests/unit/test_container_writer
tests_unit_test_container_writer_SOURCES = tests/unit/test_container_writer.c tests/unit/unit.h
tests_unit_test_container_writer_LDADD = $(UNIT_LIBS)

check_PROGRAMS += tests/unit/test_chunk_read
tests_unit_test_chunk_read_SOURCES = tests/unit/test_chunk_read.c tests/unit/unit.h tests/unit/unit_tmpdir.h
tests_unit_test_chunk_read_LDADD = $(UNIT_LIBS)
