# SPDX-License-Identifier: GPL-3.0-or-later
# src/commands: what each command does (the command table in src/cli names
# them): backup (wiring the pipeline), restore, read-file, stat and list,
# verify (and the fingerprint index against the containers), repair,
# delete and gc, and mount.
libdestor_a_SOURCES += \
	src/commands/backup.c src/commands/backup.h \
	src/commands/restore.c src/commands/restore.h \
	src/commands/read_file.c src/commands/read_file.h \
	src/commands/stat.c src/commands/stat.h \
	src/commands/verify.c src/commands/verify.h \
	src/commands/verify_index.c src/commands/verify_index.h \
	src/commands/repair.c src/commands/repair.h \
	src/commands/rados_migrate.c src/commands/rados_migrate.h \
	src/commands/delete.c src/commands/delete.h \
	src/commands/gc.c src/commands/gc.h \
	src/commands/mount.c src/commands/mount.h

check_PROGRAMS += tests/unit/test_restore_hostile
tests_unit_test_restore_hostile_SOURCES = tests/unit/test_restore_hostile.c tests/unit/unit.h
tests_unit_test_restore_hostile_LDADD = $(UNIT_LIBS)
