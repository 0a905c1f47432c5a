#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# config_lines.sh: a config line is a key and exactly the values that key
# takes (issue 28): an extra word, a missing value or an unknown key is a
# configuration error (exit 2) naming the file and line or the -p override,
# never a setting cut short or a default; upstream Destor's keys this store
# does not implement load with one warning naming them.
. "$TOP_SRCDIR/tests/e2e/lib.sh"

# `policies` needs no store: it exits 0 whenever the configuration loads.
bad_line() {
    printf 'log-level notice\n%s\n' "$1" > "$SCRATCH/bad.config"
    expect_status 2 "$DESTOR_BIN" -c "$SCRATCH/bad.config" policies
    grep -q "^destor: $SCRATCH/bad.config:2: .*$2" "$SCRATCH/err" || { cat "$SCRATCH/err" >&2; fail "'$1': no error naming line 2 and '$2'"; }
    expect_status 2 "$DESTOR_BIN" -p"log-level notice" -p"$1" policies
    grep -q "^destor: -p override #2: .*$2" "$SCRATCH/err" || { cat "$SCRATCH/err" >&2; fail "-p'$1': no error naming the override"; }
}
bad_line 'ssd-cache-size 50 %' "extra '%'"
bad_line 'ssd-cache-policy lru plc' "extra 'plc'"
bad_line 'working-directory /data/store two' "extra 'two'"
bad_line 'ssd-cache-polcy plc' "unknown key 'ssd-cache-polcy' (did you mean ssd-cache-policy?)"
bad_line 'ssd-cache-size' 'a value is required'
bad_line 'fingerprint-index exact' 'fingerprint-index takes exact | near-exact and physical | logical'
bad_line 'fingerprint-index near-exact logical ddfs' 'fingerprint-index (a Destor key this store does not support) takes'
bad_line 'fingerprint-index-sampling-method uniform 0' 'expected a sampling ratio from 1 to 65536'
bad_line 'fingerprint-index-cache-size 0' 'expected a container count from 1 to 65536'
bad_line 'fingerprint-index-segment-selection top 0' 'expected a segment count from 1 to 4096'
bad_line 'fingerprint-index-segment-boundary 9 8' 'at least the minimum'
bad_line 'rewrite-algorithm cbr 2048 extra' 'rewrite-algorithm takes'
bad_line 'rewrite-enable-cache-aware 2' "invalid value '2' for rewrite-enable-cache-aware"
bad_line 'trace-format csv' 'trace-format (a Destor key this store does not support) takes'

# Upstream Destor's keys, in its forms: one warning for the file naming them.
cat > "$SCRATCH/upstream.config" <<'CFG'
working-directory "working"
fingerprint-index near-exact logical "sparse index"
restore-cache lru 30
trace-format destor
chunk-algorithm normalized rabin
CFG
expect_status 0 "$DESTOR_BIN" -c "$SCRATCH/upstream.config" policies
[ "$(grep -c . "$SCRATCH/err")" -eq 1 ] || { cat "$SCRATCH/err" >&2; fail "expected one warning line"; }
grep -q "^destor: warning: .*upstream.config: Destor keys this store does not support, ignored: fingerprint-index (line 2), trace-format (line 4)$" \
    "$SCRATCH/err" || { cat "$SCRATCH/err" >&2; fail "warning must name the unsupported keys and lines"; }

# The shipped file loads without a word.
expect_status 0 "$DESTOR_BIN" -c "$TOP_SRCDIR/destor.config" policies
[ ! -s "$SCRATCH/err" ] || { cat "$SCRATCH/err" >&2; fail "the shipped destor.config warns"; }

# A quoted value with blanks is one value: the store is where it says.
mkdir -p "$SCRATCH/src"
echo hello > "$SCRATCH/src/a.txt"
printf 'working-directory "%s/my store"\n' "$SCRATCH" > "$SCRATCH/spaced.config"
"$DESTOR_BIN" -c "$SCRATCH/spaced.config" backup "$SCRATCH/src" >/dev/null
[ -d "$SCRATCH/my store" ] && [ ! -e "$SCRATCH/my" ] || fail "the quoted working directory was not used whole"
"$DESTOR_BIN" -p"working-directory \"$SCRATCH/my store\"" verify >/dev/null || fail "verify through a quoted -p value"
note "config lines: extra words, missing values and unknown keys refused; Destor keys warned"
