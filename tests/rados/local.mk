# SPDX-License-Identifier: GPL-3.0-or-later
# tests/rados: `container-store rados` against a real single-node Ceph
# cluster each script (declared in tests/manifest.mk) starts and stops
# itself (cluster.sh; about 6 s and 450 MB of RAM), each on its own free
# port, so make -j2 runs two at once.
# The ops in C, run by rados_ops.sh (it needs the cluster), not on their own.
check_PROGRAMS += tests/rados/test_rados_ops
tests_rados_test_rados_ops_SOURCES = tests/rados/test_rados_ops.c tests/unit/unit.h
tests_rados_test_rados_ops_LDADD = $(UNIT_LIBS)
EXTRA_DIST += tests/rados/lib.sh tests/rados/cluster.sh tests/rados/rados_shim.c

# The shim that kills or stops destor at a RADOS write: test code only,
# built by an explicit rule like tests/fault's, before any test runs.
RADOS_SHIM = tests/rados/rados_shim.so
check_DATA += $(RADOS_SHIM)
$(RADOS_SHIM): $(srcdir)/tests/rados/rados_shim.c
	@$(MKDIR_P) tests/rados
	$(AM_V_CC)$(CC) -shared -fPIC -O1 -Wall -Wextra -o $@ $(srcdir)/tests/rados/rados_shim.c -ldl
CLEANFILES += $(RADOS_SHIM)
