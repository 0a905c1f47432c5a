#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# run-admission-reference.sh: make check's entry to the per-access
# comparison of the value-ranked admission rules (compete, learned) in
# front of lru with their Python reference models (admission_reference.py).
# Needs the policy_decisions and opt_plan drivers built by make check;
# exits 77 (skip) without Python.
set -eu
if [ -n "${TOP_SRCDIR:-}" ]; then
    top=$TOP_SRCDIR
else
    top=$(cd "$(dirname "$0")/../.." && pwd)
fi
build=${TOP_BUILDDIR:-$top/build}
python=/usr/bin/python3
if [ ! -x "$python" ]; then
    echo "run-admission-reference: $python not found, skipping" >&2
    exit 77
fi
PYTHONDONTWRITEBYTECODE=1
export PYTHONDONTWRITEBYTECODE
exec "$python" "$top/tests/policy_ref/admission_reference.py" "$build/tests/policy_ref/policy_decisions" \
    "$build/tests/policy_ref/opt_plan"
