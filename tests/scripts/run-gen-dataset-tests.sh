#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# run-gen-dataset-tests.sh: make check's entry to the unittest tests of
# scripts/gen-dataset. The source tree is $TOP_SRCDIR (set by make check),
# else found relative to this script. Exits 77 (skip) without Python.
set -eu

if [ -n "${TOP_SRCDIR:-}" ]; then
    top=$TOP_SRCDIR
else
    top=$(cd "$(dirname "$0")/../.." && pwd)
fi
python=/usr/bin/python3
if [ ! -x "$python" ]; then
    echo "run-gen-dataset-tests: $python not found, skipping" >&2
    exit 77
fi

GEN_DATASET=$top/scripts/gen-dataset
export GEN_DATASET
# No __pycache__ in the source tree (it may be read-only under distcheck).
PYTHONDONTWRITEBYTECODE=1
export PYTHONDONTWRITEBYTECODE
exec "$python" -m unittest discover -v -s "$top/tests/scripts" \
    -p test_gen_dataset.py
