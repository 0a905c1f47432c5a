#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# json_paths.sh: every JSON document destor prints parses with a strict
# parser, names its kind and version, and carries paths holding quotes,
# backslashes, control characters, newlines and invalid UTF-8 losslessly
# ("path" when valid UTF-8, else "path_b64": docs/FORMAT.md); list --json
# is streamed (its peak memory is the text listing's).
. "$TOP_SRCDIR/tests/e2e/lib.sh"

# A source directory whose own name is hostile too (stat shows it).
SRC=$("$PYTHON" - "$SCRATCH" <<'PY'
import os, sys
base = os.fsencode(sys.argv[1])
root = os.path.join(base, b'src "q" \\ \x01\n\xff')
names = [b'quote"d', b'back\\slash', b'ctl\x01\x1f\x7f', b'new\nline', b'bad\xff\xfeutf8', b'ok-\xc3\xa9', b'tab\there']
os.makedirs(os.path.join(root, b'dir\xc0'))
for i, n in enumerate(names):
    with open(os.path.join(root, n), 'wb') as f:
        f.write(os.urandom(1000 + i))
with open(os.path.join(root, b'dir\xc0', b'inner"\n'), 'wb') as f:
    f.write(b'inner')
sys.stdout.buffer.write(root)
PY
)
dst backup "$SRC" --json > "$SCRATCH/backup.json"
dst stat --json > "$SCRATCH/stat.json"
dst list 0 --json > "$SCRATCH/list.json"
dst list 0 --null > "$SCRATCH/list.null"
dst verify --json > "$SCRATCH/verify-ok.json"
TRACE="$SCRATCH/trace \"x\" \\ $(printf '\001\377')"
"$PYTHON" - "$SCRATCH/list.null" > "$TRACE" <<'PY'
import sys
for rec in open(sys.argv[1], "rb").read().split(b"\0")[:-1]:
    kind, _size, path = rec.split(b"\t", 2)
    if kind == b"f":
        sys.stdout.buffer.write(b"0\t" + path + b"\0")
PY
dst read-file --trace "$TRACE" --null --json > "$SCRATCH/trace.json"
dst restore 0 "$SCRATCH/restored" --json > "$SCRATCH/restore.json"
# A damaged container: verify's problems name the hostile paths.
zero_container_bytes "$SCRATCH/working" 0 2097152 200 64
set +e
dst verify --deep --json > "$SCRATCH/verify-bad.json" 2>/dev/null
rc=$?
set -e
[ $rc -eq 3 ] || fail "verify of a damaged store exited $rc"

"$PYTHON" - "$SCRATCH" "$SRC" "$TRACE" <<'PY'
import base64, json, os, sys
scratch, src, trace = (os.fsencode(a) for a in sys.argv[1:4])

def load(name, kind):
    text = open(os.path.join(scratch, name.encode()), "rb").read()
    assert text.endswith(b"\n") and text.count(b"\n") == 1, name + ": one document on one line"
    doc = json.loads(text.decode("utf-8"), strict=True)   # strict: no raw control characters
    assert doc["kind"] == kind and doc["version"] == 1, (name, doc.get("kind"), doc.get("version"))
    return doc

def path_of(obj, key):
    """The lossless path: KEY (UTF-8 text) or KEY_b64 (raw bytes)."""
    assert (key in obj) != (key + "_b64" in obj), (key, obj)
    if key in obj:
        return obj[key].encode("utf-8")
    return base64.b64decode(obj[key + "_b64"], validate=True)

stat = load("stat.json", "destor.stat")
assert path_of(stat["jobs"][0], "source_root") == src, path_of(stat["jobs"][0], "source_root")
backup = load("backup.json", "destor.backup")
assert path_of(backup, "source_root") == src
entries = load("list.json", "destor.list")["entries"]
from_null = [rec.split(b"\t", 2)[2] for rec in open(os.path.join(scratch, b"list.null"), "rb").read().split(b"\0")[:-1]]
got = [path_of(e, "path") for e in entries]
assert got == from_null, (got, from_null)
want = {b'quote"d', b'back\\slash', b'ctl\x01\x1f\x7f', b'new\nline', b'bad\xff\xfeutf8', b'ok-\xc3\xa9', b'tab\there',
        b'dir\xc0', b'dir\xc0/inner"\n'}
assert set(got) == want, set(got) ^ want
assert any("path_b64" in e for e in entries) and any("path" in e for e in entries)
assert load("verify-ok.json", "destor.verify")["problem_count"] == 0
summary = load("trace.json", "destor.trace-summary")
assert path_of(summary, "trace") == trace and summary["requests"] == 8, summary
assert "elapsed_ms" in summary and "latency_ms" in summary
load("restore.json", "destor.restore")
bad = load("verify-bad.json", "destor.verify")
assert bad["problem_count"] > 0 and len(bad["problems"]) == bad["problem_count"]
named = {path_of(p, "path") for p in bad["problems"] if p.get("path") is not None or "path_b64" in p}
assert named and named <= want, named
PY
note "every document parsed strictly and its paths round-tripped"

# list --json is streamed: on a job of 40,000 files its peak memory is the
# text listing's, not a tree of the whole document (a 200,000-file job
# took 290 MB), and the document is the same one, parsed strictly.
"$PYTHON" - "$SCRATCH/many" <<'PY'
import os, sys
for d in range(100):
    p = os.path.join(sys.argv[1], "d%03d" % d)
    os.makedirs(p)
    for i in range(400):
        with open(os.path.join(p, "f%05d" % i), "w") as f:
            f.write(str(i))
PY
printf 'working-directory "%s/w-many"\n' "$SCRATCH" > "$SCRATCH/many.config"
"$DESTOR_BIN" -c "$SCRATCH/many.config" backup "$SCRATCH/many" >/dev/null
peak() { /usr/bin/time -f %M -o "$SCRATCH/peak" "$DESTOR_BIN" -c "$SCRATCH/many.config" list 0 "$@" > "$SCRATCH/many.out" && cat "$SCRATCH/peak"; }
text_kb=$(peak)
json_kb=$(peak --json)
"$PYTHON" -c 'import json, sys
d = json.loads(open(sys.argv[1]).read(), strict=True)
assert d["kind"] == "destor.list" and len(d["entries"]) == 40100, len(d["entries"])' "$SCRATCH/many.out" ||
    fail "the streamed list --json is not one whole document"
if [ "${DESTOR_SANITIZERS:-no}" != yes ]; then
    [ "$json_kb" -lt $((text_kb + 16384)) ] ||
        fail "list --json of 40,000 files peaked at $json_kb KB, the text listing at $text_kb KB: not streamed"
fi
note "list --json of 40,100 entries: $json_kb KB peak (text: $text_kb KB)"
