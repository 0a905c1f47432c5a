#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# man_pages.sh: every manual page renders without a warning (groff -ww and
# man --warnings), and every Python command in scripts/ has one.
set -eu
: "${TOP_SRCDIR:?}" "${TOP_BUILDDIR:?}"
pages="$TOP_SRCDIR/man/destor.1 $TOP_SRCDIR/man/*.sh.1 $TOP_BUILDDIR/man/destor.config.5"
for s in "$TOP_SRCDIR"/scripts/*; do
    [ -f "$s" ] || continue   # scripts/destor_tools/: the commands' package
    case $s in *.py|*.toml|*/local.mk|*/setup.sh|*/apt-install.sh|*/test.sh|*/fuzz.sh|*/demo.sh|*/bench-stores.sh) continue ;; esac
    name=$(basename "$s")
    case $name in
    *.sh) page="$TOP_SRCDIR/man/$name.1" ;;
    *) page="$TOP_BUILDDIR/man/$name.1" ;;
    esac
    [ -f "$page" ] || { echo "FAIL: scripts/$name has no man page ($page)" >&2; exit 1; }
done
for p in "$TOP_BUILDDIR"/man/*.[15] $pages; do
    out=$(groff -ww -man -z "$p" 2>&1) || { echo "$out"; echo "FAIL: groff failed on $p" >&2; exit 1; }
    [ -z "$out" ] || { echo "$out"; echo "FAIL: groff warns about $p" >&2; exit 1; }
    out=$(MANWIDTH=80 man --warnings -l "$p" 2>&1 >/dev/null) || true
    [ -z "$out" ] || { echo "$out"; echo "FAIL: man warns about $p" >&2; exit 1; }
done
echo "# man pages render without warnings"
