#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# run-reference-models.sh: make check's entry to the per-access comparison of
# the field's policies (clock, 2q, arc, larc, s3fifo, sieve, tinylfu,
# wtinylfu), sigpop, adapt, minisim, wlfu and the offline bounds (belady, offline-static) with
# their Python reference models (check_reference.py). Needs the
# policy_decisions driver built by make check; exits 77 (skip) without Python.
set -eu
if [ -n "${TOP_SRCDIR:-}" ]; then
    top=$TOP_SRCDIR
else
    top=$(cd "$(dirname "$0")/../.." && pwd)
fi
driver=${TOP_BUILDDIR:-$top/build}/tests/policy_ref/policy_decisions
python=/usr/bin/python3
if [ ! -x "$python" ]; then
    echo "run-reference-models: $python not found, skipping" >&2
    exit 77
fi
PYTHONDONTWRITEBYTECODE=1
export PYTHONDONTWRITEBYTECODE
# Under the sanitizers the C side is what is checked, and the Python models
# cost the same: a quarter of the accesses, every policy and capacity still.
if [ "${DESTOR_SANITIZERS:-no}" = yes ]; then
    set -- --length 3000
fi
exec "$python" "$top/tests/policy_ref/check_reference.py" "$driver" "$@"
