#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# run-smart-tests.sh: runs the Python tests of the S.M.A.R.T. / endurance
# scripts (tests/scripts/test_smart.py) from `make check`, with Debian's
# interpreter as the project decided.  Exits non-zero when a test fails,
# 77 (automake's "skipped") when /usr/bin/python3 is missing.
set -u

here=$(cd "$(dirname "$0")" && pwd)
TOP_SRCDIR=${TOP_SRCDIR:-$(cd "$here/../.." && pwd)}
export TOP_SRCDIR
# Keep __pycache__ out of the source tree.
PYTHONDONTWRITEBYTECODE=1
export PYTHONDONTWRITEBYTECODE

python=/usr/bin/python3
if [ ! -x "$python" ]; then
	echo "run-smart-tests: $python not found; skipping" >&2
	exit 77
fi

"$python" -m unittest discover -v -s "$TOP_SRCDIR/tests/scripts" \
	-t "$TOP_SRCDIR/tests/scripts" -p 'test_smart.py'
