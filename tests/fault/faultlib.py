# SPDX-License-Identifier: GPL-3.0-or-later
"""faultlib.py: shared helpers of the fault-injection and corruption sweeps
(tests/fault/*.py). Imported, not run.

Every sweep runs destor from DESTOR_BIN on stores in a scratch directory
(removed on success, kept on failure), classifies each case into an outcome,
collects failures with what is needed to reproduce them, and prints a
summary. Cases run in parallel (FAULT_JOBS, default: the CPU count, at most
4); FAULT_SCALE (default 1; 0.15 for a sanitizer build) scales the number of
sampled cases, e.g. 0.2 for a quick look or 5 for a long soak.
"""
import concurrent.futures
import hashlib
import json
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time

DESTOR = os.environ.get("DESTOR_BIN")
TOP_SRCDIR = os.environ.get("TOP_SRCDIR")
TOP_BUILDDIR = os.environ.get("TOP_BUILDDIR", "")
PYTHON = "/usr/bin/python3"
ERRNO_TEXT = {"ENOSPC": "No space left on device", "EIO": "Input/output error"}
# GLib prints these for assertion failures and double frees it catches;
# a sanitizer build prints the latter. Either means memory went wrong.
BAD_STDERR = ("GLib-CRITICAL", "GLib-WARNING", "-CRITICAL **", "ERROR: AddressSanitizer",
              "runtime error:", "ERROR: LeakSanitizer", "double free", "corrupted")


def die(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def require_env():
    if not DESTOR or not TOP_SRCDIR:
        die("DESTOR_BIN and TOP_SRCDIR must be set (make check sets them)")


_sanitized = None


def sanitized():
    """Is DESTOR_BIN built with AddressSanitizer (configure --enable-sanitizers)?"""
    global _sanitized
    if _sanitized is None:
        with open(DESTOR, "rb") as f:
            _sanitized = b"__asan_init" in f.read()
    return _sanitized


def scale(n, minimum=1):
    """n scaled by FAULT_SCALE; by default 1, or 0.15 for a sanitizer build,
    where every process costs several times more and the point is finding
    memory errors on each kind of path, not the statistics."""
    default = "0.15" if sanitized() else "1"
    return max(minimum, int(round(n * float(os.environ.get("FAULT_SCALE", default)))))


def workers(io_bound=False):
    """Parallel cases: FAULT_JOBS, else the CPUs (at most 4); twice that
    for sweeps that mostly wait (backup polls its stages every 200 ms,
    the cache fsyncs)."""
    if os.environ.get("FAULT_JOBS"):
        return max(1, int(os.environ["FAULT_JOBS"]))
    cpus = os.cpu_count() or 2
    return max(1, min(4, 2 * cpus if io_bound else cpus))


def evenly(n, k):
    """k indexes spread evenly over 1..n (all of them when k >= n)."""
    if n <= 0:
        return []
    if k >= n:
        return list(range(1, n + 1))
    return sorted({1 + (i * (n - 1)) // max(1, k - 1) for i in range(k)})


class Scratch:
    """A scratch directory, removed when the sweep passes."""

    def __init__(self, name):
        self.dir = tempfile.mkdtemp(prefix="destor-%s." % name, dir=os.environ.get("TMPDIR", "/tmp"))

    def path(self, *parts):
        return os.path.join(self.dir, *parts)

    def finish(self, ok):
        if ok:
            shutil.rmtree(self.dir, ignore_errors=True)
        else:
            print("scratch kept: " + self.dir, file=sys.stderr)


def shim(scratch):
    """The LD_PRELOAD shim: make check builds it in the build tree; run by
    hand, the sweep compiles it into its scratch directory."""
    candidates = [os.environ.get("FAULT_SHIM", "")]
    if TOP_BUILDDIR:
        candidates.append(os.path.join(TOP_BUILDDIR, "tests", "fault", "fault_shim.so"))
    src = os.path.join(TOP_SRCDIR, "tests", "fault", "fault_shim.c")
    for c in candidates:
        if c and os.path.exists(c) and os.path.getmtime(c) >= os.path.getmtime(src):
            return c
    out = scratch.path("fault_shim.so")
    cc = os.environ.get("CC", "cc")
    subprocess.run([cc, "-shared", "-fPIC", "-O1", "-o", out, src, "-ldl"], check=True)
    return out


class Result:
    def __init__(self, args, rc, out, err, timed_out=False):
        self.args, self.rc, self.out, self.err, self.timed_out = args, rc, out, err, timed_out

    @property
    def crashed(self):
        return self.timed_out or self.rc < 0

    def err_text(self):
        return self.err.decode("utf-8", "replace")

    def last_destor_line(self):
        lines = [l for l in self.err_text().splitlines() if l.startswith("destor: ")
                 and not l.startswith("destor: warning:") and not l.startswith("destor: note:")]
        return lines[-1] if lines else None

    def bad_stderr(self):
        t = self.err_text()
        return [b for b in BAD_STDERR if b in t]

    def describe(self):
        what = "timed out" if self.timed_out else ("killed by signal %d" % -self.rc if self.rc < 0 else "exit %d" % self.rc)
        tail = self.err_text().strip().splitlines()[-3:]
        return "%s: %s; stderr: %s" % (" ".join(self.args[1:]), what, " | ".join(tail))


LSAN_SUPPRESSIONS = None


def suppress_bdb_leaks(scratch):
    """After a page fails its checksum, Berkeley DB panics its environment
    and DB->close returns DB_RUNRECOVERY without freeing anything: in a
    sanitizer build LeakSanitizer reports the whole handle. That is the
    library's documented behaviour (the process must exit), so sweeps that
    damage its files suppress leaks allocated inside it (__os_malloc)."""
    global LSAN_SUPPRESSIONS
    LSAN_SUPPRESSIONS = scratch.path("lsan.supp")
    with open(LSAN_SUPPRESSIONS, "w") as f:
        f.write("leak:__os_malloc\n")


def run_env(env_extra=None):
    """The environment of a destor run, with env_extra (a shim's) added."""
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    if LSAN_SUPPRESSIONS:
        env["LSAN_OPTIONS"] = (env.get("LSAN_OPTIONS", "") + ":suppressions=" + LSAN_SUPPRESSIONS).lstrip(":")
    if env_extra:
        env.update(env_extra)
        if "LD_PRELOAD" in env_extra:
            # A sanitizer build wants its runtime first; the shim is first instead.
            env["ASAN_OPTIONS"] = (env.get("ASAN_OPTIONS", "") + ":verify_asan_link_order=0").lstrip(":")
    return env


def run(args, env_extra=None, timeout=120, stdin=None):
    env = run_env(env_extra)
    try:
        p = subprocess.run(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           stdin=subprocess.DEVNULL if stdin is None else stdin, timeout=timeout)
        return Result(args, p.returncode, p.stdout, p.stderr)
    except subprocess.TimeoutExpired as e:
        return Result(args, -999, e.stdout or b"", e.stderr or b"", timed_out=True)


def destor(config, *args, env=None, timeout=120):
    return run([DESTOR, "-c", config] + list(args), env, timeout)


def write_config(path, workdir, *lines):
    with open(path, "w") as f:
        f.write('working-directory "%s"\n' % workdir)
        for l in lines:
            f.write(l + "\n")
    return path


def gen_data(out, *args):
    subprocess.run([PYTHON, os.path.join(TOP_SRCDIR, "scripts", "gen-dataset"), "--out", out] + list(args),
                   check=True, stdout=subprocess.DEVNULL)


def two_version_store(scratch, seed, *gen_args, config_lines=()):
    """Generate a tiny two-version dataset and back both versions up into a
    store of 128 KiB containers (and config_lines). Returns (config,
    workdir, v1, v2)."""
    data = scratch.path("data")
    gen_data(data, "--preset", "tiny", "--size", "4M", "--versions", "2", "--seed", str(seed), *gen_args)
    v1, v2 = os.path.join(data, "v1"), os.path.join(data, "v2")
    work = scratch.path("w")
    cfg = write_config(scratch.path("destor.config"), work, "container-size 128K", *config_lines)
    for v in (v1, v2):
        r = destor(cfg, "backup", v)
        if r.rc != 0:
            die(r.describe())
    return cfg, work, v1, v2


def copy_tree(src, dst):
    subprocess.run(["cp", "-a", src, dst], check=True)


# Berkeley DB 5.3 itself crashes (SIGSEGV in __os_closehandle, called from
# __fop_file_setup) when a close() fails while it opens a database: a
# library bug, not destor's. Close faults and "any" sweeps leave its files
# alone.
BDB_FILES = ".db"



def held(p, what):
    """Wait until p (a Popen run with FAULT_ACTION=stop) has stopped itself
    (state T), failing if it exits first; the bound only catches a hang."""
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        if p.poll() is not None:
            out, err = p.communicate()
            die("%s ended (exit %d) before the point it was to be held at: %s"
                % (what, p.returncode, err.decode("utf-8", "replace").strip()))
        with open("/proc/%d/stat" % p.pid) as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
        if state == "T":
            return
        time.sleep(0.02)
    p.kill()
    die("%s was never held" % what)


def let_go(p, what):
    """Continue a process held() and wait for it: its Result."""
    os.kill(p.pid, signal.SIGCONT)
    try:
        out, err = p.communicate(timeout=300)
    except subprocess.TimeoutExpired:
        p.kill()
        die("%s hung after it was let go" % what)
    return Result(p.args, p.returncode, out, err)

def fault_env(shim_path, kind, at, errno, repeat=1, path=None, count_file=None, exclude=None):
    env = {"LD_PRELOAD": shim_path, "FAULT_CALL": kind, "FAULT_AT": str(at), "FAULT_ERRNO": errno,
           "FAULT_REPEAT": str(repeat)}
    if path:
        env["FAULT_PATH"] = path
    if exclude:
        env["FAULT_EXCLUDE"] = exclude
    if count_file:
        env["FAULT_COUNT_FILE"] = count_file
    return env


def read_counts(path):
    """The shim's count file: {'write': n, ..., 'fired': n, 'first': (call, index, path)}."""
    counts = {}
    try:
        with open(path, encoding="utf-8", errors="surrogateescape") as f:
            text = f.read()
    except FileNotFoundError:
        return counts
    # "first" comes last and its path may hold anything, newlines included.
    head, sep, first = text.partition("\nfirst ")
    for line in head.splitlines():
        name, value = line.split(" ", 1)
        counts[name] = int(value)
    if sep:
        call, index, where = first[:-1].split(" ", 2)
        counts["first"] = (call, int(index), where)
    return counts


# ---- trees -----------------------------------------------------------------

def tree(root):
    """relpath -> (type, mode, mtime_ns, content or link target) of a tree."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            full = os.path.join(dirpath, name)
            rel = os.path.relpath(full, root)
            st = os.lstat(full)
            if stat.S_ISLNK(st.st_mode):
                out[rel] = ("l", None, None, os.readlink(full))
            elif stat.S_ISDIR(st.st_mode):
                out[rel] = ("d", stat.S_IMODE(st.st_mode), st.st_mtime_ns, None)
            elif stat.S_ISREG(st.st_mode):
                with open(full, "rb") as f:
                    out[rel] = ("f", stat.S_IMODE(st.st_mode), st.st_mtime_ns, f.read())
            else:
                out[rel] = ("?", None, None, None)
    return out


def tree_diff(want, got_root, allow_missing=()):
    """Differences between a tree() and a restored tree, as strings (empty: same)."""
    got = tree(got_root) if isinstance(got_root, str) else got_root
    problems = []
    for rel, w in want.items():
        g = got.get(rel)
        if g is None:
            if rel not in allow_missing:
                problems.append("missing " + rel)
        elif g != w:
            what = "bytes" if g[3] != w[3] else "mode/mtime/type"
            problems.append("%s differs (%s)" % (rel, what))
    for rel in got:
        if rel not in want:
            problems.append("unexpected " + rel)
    return problems


def partial_tree_problems(want, got_root):
    """A failed restore may stop part way, but nothing it wrote may be wrong:
    every entry exists in the source, every file is a prefix of the source."""
    problems = []
    if not os.path.isdir(got_root):
        return problems
    for rel, g in tree(got_root).items():
        w = want.get(rel)
        if w is None:
            if not rel.endswith(".destor-tmp"):
                problems.append("unexpected " + rel)
            continue
        if g[0] != w[0] and not (w[0] == "l" and g[0] == "f" and not g[3]):
            problems.append("%s has the wrong type" % rel)
        elif g[0] == "f" and not w[3].startswith(g[3]):
            problems.append("%s holds wrong bytes" % rel)
        elif g[0] == "l" and g[3] != w[3]:
            problems.append("%s has the wrong target" % rel)
    return problems


def store_digest(workdir):
    """A digest of every file of a store, to prove a reader changed nothing."""
    h = hashlib.sha256()
    for dirpath, dirnames, filenames in sorted(os.walk(workdir)):
        dirnames.sort()
        for name in sorted(filenames):
            full = os.path.join(dirpath, name)
            if name == "LOCK":
                continue
            h.update(os.path.relpath(full, workdir).encode() + b"\0")
            with open(full, "rb") as f:
                h.update(hashlib.sha256(f.read()).digest())
    return h.hexdigest()


def list_files(config, job):
    """(path bytes, size) of every regular file of a job, from `destor list --null`."""
    r = destor(config, "list", str(job), "--null")
    if r.rc != 0:
        die(r.describe())
    out = []
    for rec in r.out.split(b"\0")[:-1]:
        kind, size, path = rec.split(b"\t", 2)
        if kind == b"f":
            out.append((path, int(size)))
    return out


# ---- the sweep driver -------------------------------------------------------

class Sweep:
    """Runs cases in parallel, counts outcomes per category and collects
    failures. A case function returns an outcome string (or raises
    CaseFailure); the outcome is counted under its category."""

    def __init__(self, name, io_bound=False):
        self.name = name
        self.workers = workers(io_bound)
        self.lock = threading.Lock()
        self.outcomes = {}   # category -> {outcome: count}
        self.failures = []   # (category, case, message)
        self.started = time.monotonic()

    def record(self, category, outcome):
        with self.lock:
            d = self.outcomes.setdefault(category, {})
            d[outcome] = d.get(outcome, 0) + 1

    def fail(self, category, case, message):
        with self.lock:
            self.failures.append((category, case, message))
            d = self.outcomes.setdefault(category, {})
            d["FAILED"] = d.get("FAILED", 0) + 1
        print("FAIL [%s] %s: %s" % (category, case, message), file=sys.stderr, flush=True)

    def run(self, cases):
        """cases: list of (category, case description, callable)."""
        def one(c):
            category, desc, fn = c
            try:
                outcome = fn()
                self.record(category, outcome)
            except CaseFailure as e:
                self.fail(category, desc, str(e))
            except Exception as e:  # a bug in the test itself is a failure too
                self.fail(category, desc, "test error: %r" % (e,))
        with concurrent.futures.ThreadPoolExecutor(max_workers=self.workers) as ex:
            list(ex.map(one, cases))

    def total(self):
        return sum(sum(d.values()) for d in self.outcomes.values())

    def summary(self):
        print("# %s: %d cases in %.1f s (%d workers)" % (self.name, self.total(),
                                                        time.monotonic() - self.started, self.workers))
        for category in sorted(self.outcomes):
            d = self.outcomes[category]
            parts = ", ".join("%s %d" % (k, v) for k, v in sorted(d.items(), key=lambda kv: -kv[1]))
            print("#   %-34s %4d: %s" % (category, sum(d.values()), parts))
        if os.environ.get("FAULT_SUMMARY_JSON"):
            with open(os.environ["FAULT_SUMMARY_JSON"], "a") as f:
                f.write(json.dumps({"sweep": self.name, "outcomes": self.outcomes,
                                    "failures": len(self.failures)}) + "\n")
        return not self.failures


class CaseFailure(Exception):
    pass


def check(cond, msg):
    if not cond:
        raise CaseFailure(msg)


def names_error(line, errno):
    """Does a `destor: ...` line name the injected error? destor reads small
    files whole through GLib, which keeps no errno: its "read PATH" errors
    say EIO for anything but ENOENT and EACCES (a known, minor wart)."""
    if ERRNO_TEXT[errno] in line:
        return True
    return re.search(r"(^destor: |: )read /", line) is not None and ERRNO_TEXT["EIO"] in line


def expect_clean_failure(r, allowed=(1,)):
    """A failed command: the expected exit status, no signal, no memory
    errors, and a one-line `destor: ...` message last."""
    check(not r.crashed, "crashed: " + r.describe())
    check(not r.bad_stderr(), "memory error reported (%s): %s" % (r.bad_stderr(), r.describe()))
    check(r.rc in allowed, "exit %d, expected %s: %s" % (r.rc, allowed, r.describe()))
    line = r.last_destor_line()
    check(line is not None, "no 'destor: ...' error line: " + r.describe())
    return line
