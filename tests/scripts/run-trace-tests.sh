#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# run-trace-tests.sh: make check's entry to the unittest tests of
# scripts/gen-trace, scripts/replay and scripts/experiment (issue 4). The
# source tree is $TOP_SRCDIR and the binary $DESTOR_BIN (both set by make
# check), else found relative to this script and ./build/destor. Exits 77
# (skip) without Python; tests needing destor skip themselves without it.
set -eu

if [ -n "${TOP_SRCDIR:-}" ]; then
    top=$TOP_SRCDIR
else
    top=$(cd "$(dirname "$0")/../.." && pwd)
fi
DESTOR_BIN=${DESTOR_BIN:-$top/build/destor}
export DESTOR_BIN TOP_SRCDIR="$top"
python=/usr/bin/python3
if [ ! -x "$python" ]; then
    echo "run-trace-tests: $python not found, skipping" >&2
    exit 77
fi
if ! "$python" -c 'import matplotlib, numpy' 2>/dev/null; then
    echo "run-trace-tests: python3-matplotlib/python3-numpy missing, skipping" >&2
    exit 77
fi
# No __pycache__ in the source tree (it may be read-only under distcheck),
# and matplotlib's cache in a writable place.
PYTHONDONTWRITEBYTECODE=1
MPLBACKEND=Agg
export PYTHONDONTWRITEBYTECODE MPLBACKEND
if [ -z "${MPLCONFIGDIR:-}" ]; then
    MPLCONFIGDIR=$(mktemp -d "${TMPDIR:-/tmp}/trace-tests-mpl.XXXXXX")
    export MPLCONFIGDIR
    trap 'rm -rf "$MPLCONFIGDIR"' EXIT
fi
"$python" -m unittest discover -v -s "$top/tests/scripts" -p "test_trace_*.py"
