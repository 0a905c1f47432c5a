# SPDX-License-Identifier: GPL-3.0-or-later
"""destor_runner: how the trace tools drive the destor binary and read its
settings.

Why it exists: gen-trace, replay and experiment all run destor (stat, list,
backup, read-file) and turn its failures into one-line errors; replay also
needs destor's settings as destor resolves them (config file, then -p) and
its HDD service-time model for the HDD-only run, which has no cache to model
it.  Both live here, next to each other, so they follow destor in one place.
"""

import functools
import json
import os
import shutil
import subprocess
import threading
from typing import Any, Sequence
from .errors import ToolError, UsageError


REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


# ---------------------------------------------------------------- destor

def default_destor() -> str:
    """The destor the scripts run when not given --destor: the installed one
    (destor_tools.installed, written by make install; the destor on PATH when
    pip installed the package outside a source tree), else the source tree's
    first executable of build/destor (scripts/setup.sh builds there) and
    ./destor (an in-tree ./configure && make); build/destor when neither is
    there, so check_destor names it."""
    try:
        from . import installed  # type: ignore[attr-defined]
        return str(installed.DESTOR)
    except ImportError:
        pass
    on_path = shutil.which("destor")
    if on_path and not os.path.isfile(os.path.join(REPO_ROOT, "configure.ac")):
        return on_path
    tree = [os.path.join(REPO_ROOT, "build", "destor"), os.path.join(REPO_ROOT, "destor")]
    for path in tree:
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    return tree[0]


# the help of every script's --destor option
DESTOR_HELP = ("destor binary (default: the installed destor; in the source tree build/destor, "
               "else ./destor of an in-tree build)")


def config_line(key: str, value: object) -> str:
    """A -p line setting key to value: quoted when it holds blanks (a
    path such as /mnt/my ssd), since destor takes exactly one value per key
    and refuses a second word."""
    value = str(value)
    if value and not any(c.isspace() for c in value) and value[0] not in '"#':
        return "%s %s" % (key, value)
    if '"' in value or "\n" in value or "\r" in value:
        raise UsageError("%s %r: destor's config cannot hold a value with blanks and a double quote or a "
                         "line break" % (key, value))
    return '%s "%s"' % (key, value)


def destor_base(destor: str, config: str | None = None, params: Sequence[str] = ()) -> list[str]:
    """The argv prefix: destor [-c CONFIG] [-p "key value"]..."""
    cmd = [destor]
    if config:
        cmd += ["-c", config]
    for p in params:
        cmd += ["-p", p]
    return cmd


def check_destor(destor: str) -> None:
    if not (os.path.isfile(destor) and os.access(destor, os.X_OK)):
        raise ToolError("destor binary %s not found or not executable (build it with "
                        "scripts/setup.sh or ./configure && make, or pass --destor)" % destor)


# destor processes running now (sweeps run several at once), so an
# interrupted sweep can stop them all; while it stops them none may start
_children = set()
_children_lock = threading.Lock()
_stopping = False


def start_destor(cmd: list[str], **kw: Any) -> subprocess.Popen:
    """Popen a destor command, remembered until reap_destor().  Refused
    (ToolError) between stop_children() and resume_children(): a sweep's
    worker thread between two destor runs when Ctrl-C came must not start
    one the stop has missed (the sweep would wait for all of it)."""
    with _children_lock:
        if _stopping:
            raise ToolError("interrupted: %s not started" % cmd[0])
        try:
            p = subprocess.Popen(cmd, **kw)
        except OSError as e:
            raise ToolError("cannot run %s: %s" % (cmd[0], e))
        _children.add(p)
    return p


def reap_destor(p: subprocess.Popen) -> None:
    with _children_lock:
        _children.discard(p)


def stop_children() -> None:
    """Terminate every destor process this process started and still runs,
    and start none until resume_children()."""
    global _stopping
    with _children_lock:
        _stopping = True
        procs = list(_children)
    for p in procs:
        if p.poll() is None:
            p.terminate()


def resume_children() -> None:
    """Let start_destor() run destor again, once the threads that were
    running points have ended."""
    global _stopping
    with _children_lock:
        _stopping = False


def run_destor(cmd: list[str], what: str, input_bytes: bytes | None = None) -> bytes:
    """Run a destor command to completion; stdout as bytes, ToolError with
    destor's own message otherwise."""
    p = start_destor(cmd, stdin=subprocess.PIPE if input_bytes is not None else subprocess.DEVNULL,
                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        out, err = p.communicate(input_bytes)
    except BaseException:  # interrupted: destor must not run on unseen
        p.terminate()
        p.wait()
        raise
    finally:
        reap_destor(p)
    if p.returncode != 0:
        msg = err.decode("utf-8", "replace").strip() or "exit status %d" % p.returncode
        raise ToolError("%s failed (exit %d): %s" % (what, p.returncode, msg))
    return out


def destor_policies(destor: str) -> list[dict[str, Any]]:
    """destor policies --json: every registered cache policy (name,
    description, citation, offline, keys, counters), in registry order."""
    out = run_destor([destor, "policies", "--json"], "destor policies")
    try:
        return json.loads(out.decode("utf-8"))["policies"]
    except (ValueError, KeyError, TypeError) as e:
        raise ToolError("destor policies --json printed something unexpected: %s" % e)


def resolve_policies(destor: str, spec: str | Sequence[str], allow_none: bool = True) -> list[str]:
    """The policy names a --policies value asks for: comma-separated names
    destor knows ('none' = no cache, when allow_none), or 'all' = every
    online policy destor lists.  Raises UsageError naming the unknown ones."""
    known = destor_policies(destor)
    names = [p.strip() for p in spec.split(",") if p.strip()] if isinstance(spec, str) else list(spec)
    if names == ["all"]:
        return [p["name"] for p in known if not p["offline"]]
    valid = (["none"] if allow_none else []) + [p["name"] for p in known]
    if not names:
        raise UsageError("--policies is empty")
    for n in names:
        if n not in valid:
            raise UsageError("unknown policy %r (one of %s, or all)" % (n, ", ".join(valid)))
    if len(set(names)) != len(names):
        raise UsageError("a policy is listed twice in --policies")
    return names


@functools.lru_cache(maxsize=None)
def _policy_keys(destor: str) -> frozenset[str]:
    out = run_destor([destor, "policies", "--json"], "destor policies")
    try:
        doc = json.loads(out.decode("utf-8"))
        return frozenset(k["name"] for kind in ("policies", "chunk_policies") for p in doc.get(kind, [])
                         for k in p.get("keys", []))
    except (ValueError, AttributeError, KeyError, TypeError) as e:
        raise ToolError("destor policies --json printed something unexpected: %s" % e)


def store_params(destor: str, params: Sequence[str]) -> list[str]:
    """The lines of params a command on the store alone (stat, list, trace
    compile) takes: without the SSD cache's settings and the policies' own
    keys, which destor refuses where no cache policy is set."""
    if not params:
        return []
    keys = _policy_keys(destor)
    kept = []
    for p in params:
        key = p.split()[0] if p.split() else ""
        if not key.startswith("ssd-cache-") and key not in keys:
            kept.append(p)
    return kept


def store_stat(destor: str, config: str | None = None, params: Sequence[str] = ()) -> dict[str, Any]:
    """destor stat --json, parsed (params: as store_params keeps them)."""
    out = run_destor(destor_base(destor, config, store_params(destor, params)) + ["stat", "--json"],
                     "destor stat")
    try:
        return json.loads(out.decode("utf-8"))
    except ValueError as e:
        raise ToolError("destor stat --json printed something that is not JSON: %s" % e)


def parse_listing(data: bytes, keep_all: bool = False) -> tuple[list[tuple[bytes, int]], int]:
    """Parse `destor list JOB --null` output: NUL-terminated records
    TYPE<TAB>SIZE<TAB>PATH.  Returns (files, skipped): files is a list of
    (path bytes, size) of the regular files whose path fits on a trace line
    (all of them with keep_all, for NUL-terminated traces); skipped counts
    the regular files left out because their path holds a newline or CR."""
    files = []
    skipped = 0
    for rec in data.split(b"\0"):
        if not rec:
            continue
        parts = rec.split(b"\t", 2)
        if len(parts) != 3:
            raise ToolError("unexpected record in destor list output: %r" % rec[:80])
        kind, size_text, path = parts
        if kind != b"f":
            continue
        try:
            size = int(size_text)
        except ValueError:
            raise ToolError("unexpected size in destor list output: %r" % rec[:80])
        if not keep_all and (b"\n" in path or b"\r" in path):
            skipped += 1
            continue
        files.append((path, size))
    files.sort()
    return files, skipped


def list_job_files(destor: str, job: int, config: str | None = None, params: Sequence[str] = (),
                   keep_all: bool = False) -> tuple[list[tuple[bytes, int]], int]:
    out = run_destor(destor_base(destor, config, store_params(destor, params)) + ["list", str(job), "--null"],
                     "destor list %s" % job)
    return parse_listing(out, keep_all)


# ---------------------------------------------------------------- device model

# destor's defaults (src/cache/common/device_model.c), and the config keys that
# change them; used for the HDD-only run, which has no cache to model it.
DEVICE_DEFAULTS = {
    "model-hdd-seek-ms": 10.0,
    "model-hdd-rpm": 5400.0,
    "model-hdd-mb-per-s": 100.0,
}


def config_lines(path: str | None) -> list[tuple[str, str]]:
    """(key, value) of a destor.config, in order (quotes removed)."""
    out: list[tuple[str, str]] = []
    if not path:
        return out
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                out.append(_split_config_line(line))
    except OSError as e:
        raise ToolError("cannot read config %s: %s" % (path, e))
    return [kv for kv in out if kv]


def _split_config_line(line):
    line = line.strip()
    if not line or line.startswith("#"):
        return None
    key, _, value = line.partition(" ")
    if "\t" in key:
        key, _, rest = key.partition("\t")
        value = rest + value
    value = value.strip()
    if "#" in value and not value.startswith('"'):
        value = value.split("#", 1)[0].strip()
    if len(value) >= 2 and value[0] == '"' and value.endswith('"'):
        value = value[1:-1]
    return key.strip().replace("_", "-"), value


def effective_settings(config: str | None = None, params: Sequence[str] = ()) -> dict[str, str]:
    """Settings as destor resolves them: config file lines, then -p lines."""
    kv = dict(config_lines(config))
    for p in params:
        sp = _split_config_line(p)
        if sp:
            kv[sp[0]] = sp[1]
    return kv


def hdd_service_s(container_size: int, settings: dict[str, str]) -> float:
    """Modelled HDD read of one container (device_model_hdd_service):
    average seek + half a rotation + transfer."""
    def get(k):
        try:
            return float(settings.get(k, DEVICE_DEFAULTS[k]))
        except ValueError:
            return DEVICE_DEFAULTS[k]
    seek = get("model-hdd-seek-ms") / 1e3
    rpm = get("model-hdd-rpm")
    rate = get("model-hdd-mb-per-s")
    half_turn = 0.5 * 60.0 / rpm if rpm > 0 else 0.0
    return seek + half_turn + (container_size / (rate * 1e6) if rate > 0 else 0.0)
