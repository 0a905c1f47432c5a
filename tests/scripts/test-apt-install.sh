#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# test-apt-install.sh: scripts/apt-install.sh (setup.sh's install step)
# against a stand-in apt-get on PATH that logs its arguments and reports the
# package lists locked for its first LOCKED updates, as apt-get does when
# another apt holds them. The real apt is never run. Checks: the update is
# tried again until the lock is free, then the install runs, every call
# asks apt to wait for dpkg's lock (DPkg::Lock::Timeout); any other update
# failure ends at once with exit 1; no package is a usage error (exit 2).
set -eu
top=${TOP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/apt-install-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/bin"
cat > "$tmp/bin/apt-get" <<'FAKE'
#!/bin/sh
echo "$*" >> "$FAKE_LOG"
case " $* " in
*" update "*)
    n=$(grep -c ' update ' "$FAKE_LOG")
    if [ "$FAKE_MODE" = broken ]; then
        echo "E: Failed to fetch http://deb.example/dists/bookworm/InRelease" >&2
        exit 100
    fi
    if [ "$n" -le "$FAKE_LOCKED" ]; then
        echo "E: Could not get lock /var/lib/apt/lists/lock. It is held by process 1 (apt-get)" >&2
        echo "E: Unable to lock directory /var/lib/apt/lists/" >&2
        exit 100
    fi ;;
esac
exit 0
FAKE
printf '#!/bin/sh\nexec "$@"\n' > "$tmp/bin/sudo"
chmod +x "$tmp/bin/apt-get" "$tmp/bin/sudo"
PATH="$tmp/bin:$PATH"
export PATH FAKE_LOG="$tmp/log"
fail() { echo "FAIL: $*" >&2; cat "$tmp/log" "$tmp/err" >&2 2>/dev/null; exit 1; }

# the lists locked for two updates: waits, then installs
: > "$tmp/log"
FAKE_LOCKED=2 FAKE_MODE=ok "$top/scripts/apt-install.sh" pkg-a pkg-b 2> "$tmp/err" || fail "locked lists: exit $?"
[ "$(grep -c ' update ' "$tmp/log")" -eq 3 ] || fail "expected 3 updates"
[ "$(tail -n 1 "$tmp/log")" = "-o DPkg::Lock::Timeout=600 install -y -qq pkg-a pkg-b" ] || fail "install line"
[ "$(grep -c -v '^-o DPkg::Lock::Timeout=600 ' "$tmp/log")" -eq 0 ] || fail "a call without the lock timeout"
[ "$(grep -c 'waiting for it' "$tmp/err")" -eq 1 ] || fail "the wait is said once"

# another failure of the update: no retry, no install
: > "$tmp/log"
if FAKE_LOCKED=0 FAKE_MODE=broken "$top/scripts/apt-install.sh" pkg-a 2> "$tmp/err"; then fail "broken: exit 0"; fi
[ "$(wc -l < "$tmp/log")" -eq 1 ] || fail "broken: retried or installed"
grep -q 'Failed to fetch' "$tmp/err" || fail "broken: apt's message not shown"

# no package
set +e
"$top/scripts/apt-install.sh" 2> "$tmp/err"
st=$?
set -e
[ "$st" -eq 2 ] || fail "no package: exit $st"
echo "PASS: apt-install waits for the package lists' lock and asks apt to wait for dpkg's"
