# SPDX-License-Identifier: GPL-3.0-or-later
# tests/fault: fault injection (LD_PRELOAD shim) and corruption sweeps
# (declared in tests/manifest.mk).
#
# io_backup.py  I/O faults (ENOSPC, EIO; once and from then on) over every
#               write, read, fsync and rename of a backup
# io_read.py    the same over read-file (-o, stdout, --trace) and restore
# io_cache.py   the same over the SSD cache's files while read-file reads
# corrupt.py    byte flips in every store structure and the cache files
# verify_during_repair.py  verify held (FAULT_ACTION=stop) across repair's
#               rebuild of the fingerprint index
# read_during_gc.py  restore held (FAULT_ACTION=stop) across delete and gc
# mutate_recipes.py  structure-aware mutants of job_meta_data and the recipe
#               index (fields changed and the CRC made right again)
#
# Run one by hand: DESTOR_BIN=... TOP_SRCDIR=... tests/fault/corrupt.py
# (FAULT_SCALE=0.2 for a quick look, FAULT_JOBS=N workers).
EXTRA_DIST += tests/fault/faultlib.py tests/fault/fault_shim.c

# The shim is test code only: a shared object built by explicit rules (the
# project has no libtool), never installed, and check data, so that any
# `make check` (of some TESTS too) builds it before the tests run.
FAULT_SHIM = tests/fault/fault_shim.so
check_DATA += $(FAULT_SHIM)
$(FAULT_SHIM): $(srcdir)/tests/fault/fault_shim.c
	@$(MKDIR_P) tests/fault
	$(AM_V_CC)$(CC) -shared -fPIC -O1 -Wall -Wextra -o $@ $(srcdir)/tests/fault/fault_shim.c -ldl
CLEANFILES += $(FAULT_SHIM)
# The chunk log's kill sweep drives the log through a small program of its
# own (tests/e2e/kill_chunk_log.sh).
check_PROGRAMS += tests/fault/chunk_log_driver
tests_fault_chunk_log_driver_SOURCES = tests/fault/chunk_log_driver.c tests/fault/chunk_layout_check.h
tests_fault_chunk_log_driver_LDADD = $(UNIT_LIBS)
# The bucketized chunk layout's kill sweep, the same way
# (tests/e2e/kill_chunk_buckets.sh).
check_PROGRAMS += tests/fault/chunk_buckets_driver
tests_fault_chunk_buckets_driver_SOURCES = tests/fault/chunk_buckets_driver.c tests/fault/chunk_layout_check.h
tests_fault_chunk_buckets_driver_LDADD = $(UNIT_LIBS)
