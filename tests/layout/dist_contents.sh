#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# dist_contents.sh: the release tarball holds every file git tracks, so a
# build from it (distcheck, a packager) finds each source, header, command
# and script the checkout has. Makes the tarball's tree with `make distdir`
# and lists what git tracks that it lacks. Outside a git checkout (the
# tarball itself, even unpacked inside a checkout) there is nothing to compare against: skipped.
set -eu
: "${TOP_SRCDIR:?}" "${TOP_BUILDDIR:?}"
# tracked but deliberately not shipped: CI's entry point, git's own files
NOT_SHIPPED='^(\.ci/|\.gitignore$|m4/\.keep$)'

top=$(git -C "$TOP_SRCDIR" rev-parse --show-toplevel 2>/dev/null || true)
if [ "$top" != "$(cd "$TOP_SRCDIR" && pwd -P)" ]; then
    echo "the source tree is not a git checkout's top: nothing to compare the tarball with"
    exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dist_contents.XXXXXX")
trap 'chmod -R u+w "$tmp"; rm -rf "$tmp"' EXIT
make -s -C "$TOP_BUILDDIR" distdir distdir="$tmp/tree" >"$tmp/make.log" 2>&1 || {
    cat "$tmp/make.log"; echo "FAIL: make distdir"; exit 1; }
(cd "$tmp/tree" && find . -type f | sed 's|^\./||' | LC_ALL=C sort) >"$tmp/shipped"
git -C "$TOP_SRCDIR" ls-files | grep -Ev "$NOT_SHIPPED" | LC_ALL=C sort -u >"$tmp/tracked"
LC_ALL=C comm -23 "$tmp/tracked" "$tmp/shipped" >"$tmp/missing"
if [ -s "$tmp/missing" ]; then
    echo "FAIL: tracked files the tarball lacks (add them to a local.mk's EXTRA_DIST or sources):"
    sed 's/^/  /' "$tmp/missing"
    exit 1
fi
echo "ok: $(wc -l <"$tmp/tracked") tracked files all in the tarball"
