# SPDX-License-Identifier: GPL-3.0-or-later
# src/mount: `destor mount`'s file system: what a mount's paths name, a
# job's directories listed from its recipe index, the attributes shown, the
# handles and paths the operations share, the readers that serve reads at
# once, the FUSE operations over the read session (entries, directories,
# the refusals of every change), the watcher that keeps the kernel's
# caches of the root true, the figures of its reads, and libfuse's
# session around them.
libdestor_a_SOURCES += \
	src/mount/mount_path.c src/mount/mount_path.h \
	src/mount/mount_dir.c src/mount/mount_dir.h \
	src/mount/mount_attr.c src/mount/mount_attr.h \
	src/mount/mount_fuse.h \
	src/mount/mount_stats.c src/mount/mount_stats.h \
	src/mount/mount_readers.c src/mount/mount_readers.h \
	src/mount/mount_node.c src/mount/mount_node.h \
	src/mount/mount_fs.c \
	src/mount/mount_readdir.c \
	src/mount/mount_refuse.c \
	src/mount/mount_watch.c src/mount/mount_watch.h \
	src/mount/mount_serve.c src/mount/mount_serve.h

check_PROGRAMS += tests/unit/test_mount_dir
tests_unit_test_mount_dir_SOURCES = tests/unit/test_mount_dir.c tests/unit/unit.h tests/unit/unit_tmpdir.h
tests_unit_test_mount_dir_LDADD = $(UNIT_LIBS)
