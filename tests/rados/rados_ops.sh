#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# rados_ops.sh: test_rados_ops (the rados store's ops, in C) against a
# cluster of its own.
. "$TOP_SRCDIR/tests/rados/lib.sh"
rados_setup
export CEPH_CONF RADOS_POOL
"$TOP_BUILDDIR/tests/rados/test_rados_ops"
