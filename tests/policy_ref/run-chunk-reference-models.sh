#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# run-chunk-reference-models.sh: make check's entry to the per-access
# comparison of the chunk policies (ssd-cache-granularity chunk) with their
# Python reference models (check_chunk_reference.py). Needs the
# chunk_decisions driver built by make check; exits 77 (skip) without Python.
set -eu
if [ -n "${TOP_SRCDIR:-}" ]; then
    top=$TOP_SRCDIR
else
    top=$(cd "$(dirname "$0")/../.." && pwd)
fi
driver=${TOP_BUILDDIR:-$top/build}/tests/policy_ref/chunk_decisions
python=/usr/bin/python3
if [ ! -x "$python" ]; then
    echo "run-chunk-reference-models: $python not found, skipping" >&2
    exit 77
fi
PYTHONDONTWRITEBYTECODE=1
export PYTHONDONTWRITEBYTECODE
# Under the sanitizers the C side is what is checked, and the Python models
# cost the same: a quarter of the accesses, every policy and capacity still.
if [ "${DESTOR_SANITIZERS:-no}" = yes ]; then
    set -- --requests 400
fi
exec "$python" "$top/tests/policy_ref/check_chunk_reference.py" "$driver" "$@"
