#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# install.sh: `make install` into a fresh prefix gives working commands:
# destor, the Python commands (which find their modules and the installed
# destor, not the build tree's), the sample config and the man pages; and
# `make uninstall` takes it all away again.
set -eu
: "${TOP_SRCDIR:?}" "${TOP_BUILDDIR:?}"
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/destor-install.XXXXXX")
trap 'rc=$?; if [ $rc -eq 0 ]; then rm -rf "$SCRATCH"; else echo "scratch kept: $SCRATCH"; fi; exit $rc' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
P="$SCRATCH/prefix with space"
make -s -C "$TOP_BUILDDIR" install prefix="$P" >/dev/null

cd "$SCRATCH"   # away from the source tree
env -i PATH=/usr/bin:/bin "$P/bin/destor" --help | grep -q '^usage: destor' || fail "installed destor --help"
for c in backup restore read-file trace stat list verify repair; do
    "$P/bin/destor" $c --help >/dev/null || fail "installed destor $c --help"
done
for s in gen-dataset gen-trace replay experiment endurance-compare smart-sample smart-diff; do
    [ -x "$P/bin/$s" ] || fail "$s not installed"
    env -i PATH=/usr/bin:/bin "$P/bin/$s" --help >/dev/null 2>"$SCRATCH/err" || { cat "$SCRATCH/err"; fail "installed $s --help"; }
    if grep -q '^from destor_tools' "$P/bin/$s"; then
        grep -q "^sys.path.insert(0, \"$P/share/destor-plc\")\$" "$P/bin/$s" || fail "$s does not load its modules from the prefix"
    fi
    [ -f "$P/share/man/man1/$s.1" ] || fail "no man page for $s"
done
/usr/bin/python3 - "$P" <<'PY' || fail "the installed modules do not name the installed destor"
import sys
sys.path.insert(0, sys.argv[1] + "/share/destor-plc")
from destor_tools import destor_runner
assert destor_runner.__file__.startswith(sys.argv[1]), destor_runner.__file__
assert destor_runner.default_destor() == sys.argv[1] + "/bin/destor", destor_runner.default_destor()
PY
# The installed tools work together: a store made by the installed destor,
# a trace made by the installed gen-trace with its default destor.
mkdir -p data && head -c 100000 /dev/urandom > data/f && echo x > data/g
printf 'working-directory "%s/w"\n' "$SCRATCH" > c.config
"$P/bin/destor" -c c.config backup data >/dev/null
"$P/bin/gen-trace" -c c.config --job 0 --requests 5 --quiet > t || fail "installed gen-trace with its default destor"
"$P/bin/destor" -c c.config read-file --trace t --json | grep -q '"kind":"destor.trace-summary"' || fail "trace replay"
[ -f "$P/share/doc/destor-plc/destor.config" ] || fail "sample config not installed"
for page in man1/destor.1 man5/destor.config.5; do
    [ -f "$P/share/man/$page" ] || fail "$page not installed"
    MANWIDTH=80 man -l "$P/share/man/$page" >/dev/null 2>&1 || fail "$page does not render"
done

make -s -C "$TOP_BUILDDIR" uninstall prefix="$P" >/dev/null
left=$(find "$P" -type f | head -5)
[ -z "$left" ] || fail "uninstall left files: $left"
echo "# install into a new prefix, installed commands, uninstall: ok"
