# SPDX-License-Identifier: GPL-3.0-or-later
"""fragmentation_experiment: `scripts/experiment fragmentation`, what
rewriting during backup (issue 26) does to deduplication, to fragmentation,
to restore and to the SSD container cache.

Why it exists: fragmentation decides how many containers a file's chunks
are spread over, so a rewriting algorithm changes what the container cache
sees. For each rewriting setting this backs a multi-version dataset up into
a store of its own (every version, in order), and reports per version the
dedup ratio (cumulative, and what rewriting cost), the fragmentation level
(containers a restore reads per MiB, from destor's backup summary), then
restores the last version through each restore cache (timed, containers
read counted by destor), and replays one Zipf read trace over the last
version under each SSD cache policy (simulation mode): hit ratio and SSD
bytes written.

The rewriting settings are upstream Destor's defaults (rewrite_config.c),
fixed before any result here was seen; --algorithms picks among them.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import time
from typing import Any, Sequence

from .errors import UsageError
from .formatting import format_bytes
from . import child_command
from . import destor_runner
from . import plot_style
from . import policy_replay
from . import result_files
from . import trace_draw

# name -> the destor config lines of that setting (Destor's defaults otherwise)
ALGORITHMS = {
    "no": ["rewrite-algorithm no"],
    "capping": ["rewrite-algorithm capping"],
    "cfl": ["rewrite-algorithm cfl"],
    "cbr": ["rewrite-algorithm cbr"],
    "har": ["rewrite-enable-har yes"],
    "capping+har": ["rewrite-algorithm capping", "rewrite-enable-har yes"],
    "har+caf": ["rewrite-enable-har yes", "rewrite-enable-cache-aware yes"],
}
DEFAULT_ALGORITHMS = "no,capping,cfl,cbr,har,capping+har"  # and har+caf on request
DEFAULT_POLICIES = "lru,plc,sigpop,arc"
DEFAULT_RESTORE_CACHES = ["lru 30"]
GOAL_READ_FACTOR = 2.0   # issue 26: capping's last restore reads >= 2x fewer containers
GOAL_LOST_DEDUP = 0.10   # for <= 10% lost dedup

BACKUP_FIELDS = ["algorithm", "version", "logical_bytes", "stored_bytes", "rewritten_chunks", "rewritten_bytes",
                 "dedup_ratio_job", "dedup_ratio_cumulative", "dedup_ratio_lost_job", "restore_container_reads",
                 "containers_per_mib", "backup_seconds"]
RESTORE_FIELDS = ["algorithm", "restore_cache", "version", "bytes", "containers_read", "containers_per_mib",
                  "seconds_median", "mb_per_s", "runs"]
CACHE_FIELDS = ["algorithm", "policy", "cache_size", "requests", "hit_ratio", "ssd_bytes_written",
                "container_accesses"]


def add_arguments(ap: argparse.ArgumentParser) -> None:
    src = ap.add_mutually_exclusive_group()
    src.add_argument("--dataset", metavar="DIR",
                     help="a versioned tree: a directory of version subdirectories (v1, v2, ... as "
                          "scripts/gen-dataset writes them, else every subdirectory in name order)")
    src.add_argument("--preset", choices=("tiny", "small", "paper"), default="tiny",
                     help="gen-dataset preset when no --dataset is given (default tiny)")
    ap.add_argument("--versions", type=int, default=20, help="versions to generate (default 20)")
    ap.add_argument("--seed", type=int, default=1, help="gen-dataset and trace seed (default 1)")
    ap.add_argument("--algorithms", default=DEFAULT_ALGORITHMS,
                    help="comma-separated rewriting settings among %s (default %s)" % (", ".join(ALGORITHMS),
                                                                                         DEFAULT_ALGORITHMS))
    ap.add_argument("--restore-cache", dest="restore_caches", action="append", metavar='"KIND N"',
                    help="a restore-cache value to restore the last version with (repeatable; default "
                         "\"lru 30\"); any kind destor takes: lru, opt or asm, e.g. \"opt 30\", \"asm 30\"")
    ap.add_argument("--restore-runs", type=int, default=3, help="timed restores per cache (median; default 3)")
    ap.add_argument("--policies", default=DEFAULT_POLICIES,
                    help="SSD cache policies for the read trace (default %s)" % DEFAULT_POLICIES)
    ap.add_argument("--cache-size", default="20%",
                    help="SSD cache size: N containers, a size, or a share (default 20%%) of the containers "
                         "of the first setting's store (no rewriting when it is first), the same capacity for "
                         "every setting: rewriting stores more containers, and a share of each store's own "
                         "would give it a larger cache")
    ap.add_argument("--requests", type=int, default=2000, help="read-trace requests (default 2000)")
    ap.add_argument("--container-size", default=None,
                    help="container-size of the stores (default destor's, 2M)")
    ap.add_argument("-p", dest="params", action="append", default=[], metavar='"KEY VALUE"',
                    help="extra destor config line for every backup (repeatable)")
    ap.add_argument("--destor", default=destor_runner.default_destor(), help=destor_runner.DESTOR_HELP)
    ap.add_argument("--out", metavar="DIR", default=os.path.join("experiments", "fragmentation"),
                    help="results directory (default experiments/fragmentation)")
    ap.add_argument("--formats", default="png", help="plot formats (default png)")


def version_dirs(root: str) -> list[str]:
    names = [n for n in os.listdir(root) if os.path.isdir(os.path.join(root, n))]
    if not names:
        raise UsageError("%s holds no version subdirectory" % root)
    vs = [n for n in names if n[:1] == "v" and n[1:].isdigit()]
    names = sorted(vs, key=lambda n: int(n[1:])) if len(vs) == len(names) else sorted(names)
    return [os.path.join(root, n) for n in names]


def generate(a: argparse.Namespace) -> str:
    out = os.path.join(a.out, "dataset")
    if os.path.isdir(out) and len(version_dirs(out)) == a.versions:
        return out
    shutil.rmtree(out, ignore_errors=True)
    cmd, env = child_command.command_line("gen-dataset")
    subprocess.run(cmd + ["--out", out, "--preset", a.preset, "--versions", str(a.versions), "--seed", str(a.seed)],
                   check=True, stdout=subprocess.DEVNULL, env=env)
    return out


def destor_json(cmd: list[str], what: str) -> Any:
    return json.loads(destor_runner.run_destor(cmd, what).decode("utf-8"))


def backup_all(a: argparse.Namespace, alg: str, versions: Sequence[str],
               base: list[str]) -> list[dict[str, Any]]:
    rows = []
    logical = stored = 0
    for i, v in enumerate(versions, 1):
        t0 = time.monotonic()
        b = destor_json(base + ["backup", "--json", v], "destor backup (%s, version %d)" % (alg, i))
        secs = time.monotonic() - t0
        logical += b["logical_bytes"]
        stored += b["stored_bytes"]
        rows.append({
            "algorithm": alg, "version": i, "logical_bytes": b["logical_bytes"], "stored_bytes": b["stored_bytes"],
            "rewritten_chunks": b["rewritten_chunks"], "rewritten_bytes": b["rewritten_bytes"],
            "dedup_ratio_job": b["dedup_ratio"], "dedup_ratio_cumulative": logical / stored if stored else 0.0,
            "dedup_ratio_lost_job": b["dedup_ratio_lost"], "restore_container_reads": b["restore_container_reads"],
            "containers_per_mib": b["containers_per_mib"], "backup_seconds": secs})
    return rows


def restore_last(a: argparse.Namespace, alg: str, base: list[str], job: int, version: int,
                 scratch: str) -> list[dict[str, Any]]:
    rows = []
    for rc in a.restore_caches:
        times: list[float] = []
        last: Any = None
        for _ in range(a.restore_runs):
            target = os.path.join(scratch, "restore")
            shutil.rmtree(target, ignore_errors=True)
            last = destor_json(base + ["-p", "restore-cache %s" % rc, "restore", str(job), target, "--json"],
                               "destor restore (%s, restore-cache %s)" % (alg, rc))
            times.append(last["elapsed_ms"] / 1e3)
            shutil.rmtree(target, ignore_errors=True)
        med = statistics.median(times)
        rows.append({"algorithm": alg, "restore_cache": rc, "version": version, "bytes": last["bytes"],
                     "containers_read": last["containers_read"],
                     "containers_per_mib": last["containers_read"] / (last["bytes"] / 2**20) if last["bytes"] else 0,
                     "seconds_median": med, "mb_per_s": last["bytes"] / 1e6 / med if med > 0 else None,
                     "runs": len(times)})
    return rows


def cache_capacity(a: argparse.Namespace, params: list[str]) -> str:
    """The SSD cache's capacity in containers, fixed on the first store."""
    if not a.cache_size.endswith("%"):
        return a.cache_size
    st = destor_runner.store_stat(a.destor, None, params)
    share = float(a.cache_size[:-1]) / 100.0
    return str(max(1, int(round(share * st["containers"]))))


def cache_rows(a: argparse.Namespace, alg: str, params: list[str], job: int,
               scratch: str) -> list[dict[str, Any]]:
    trace, info = trace_draw.make_trace(a.destor, job, dist="zipf", alpha=0.47, seed=a.seed, requests=a.requests,
                                        params=params)
    path = os.path.join(scratch, "trace-%s.txt" % alg.replace("+", "_"))
    with open(path, "wb") as f:
        f.write(trace)
    rows, _ = policy_replay.replay(path, a.policies.split(","), cache_size=a.cache_containers, simulate=True,
                                   destor=a.destor, params=params)
    return [{"algorithm": alg, "policy": r["policy"], "cache_size": a.cache_containers, "requests": r["requests"],
             "hit_ratio": r["hit_ratio"], "ssd_bytes_written": r["ssd_bytes_written"],
             "container_accesses": r["container_accesses"]} for r in rows]


def plots(a: argparse.Namespace, backups: list[dict[str, Any]], restores: list[dict[str, Any]],
          caches: list[dict[str, Any]], algs: Sequence[str]) -> list[str]:
    plt = plot_style.pyplot()
    formats = plot_style.parse_formats(a.formats)
    made = []
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
    for alg in algs:
        rs = [r for r in backups if r["algorithm"] == alg]
        ax1.plot([r["version"] for r in rs], [r["containers_per_mib"] for r in rs], marker="o", ms=3, label=alg)
        ax2.plot([r["version"] for r in rs], [r["dedup_ratio_cumulative"] for r in rs], marker="o", ms=3, label=alg)
    ax1.set_xlabel("version")
    ax1.set_ylabel("containers read per MiB restored\n(restore-cache model, lower is better)")
    ax1.set_title("Fragmentation of each version's job")
    ax2.set_xlabel("version")
    ax2.set_ylabel("dedup ratio, versions 1..v (logical / stored)")
    ax2.set_title("Cumulative dedup ratio")
    from matplotlib.ticker import MaxNLocator
    for ax in (ax1, ax2):
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax1.legend(fontsize=8)
    ax2.legend(fontsize=8)
    fig.tight_layout()
    made += plot_style.save(fig, a.out, "fig-fragmentation", formats)

    fig, axes = plt.subplots(1, 3, figsize=(14, 4))
    rcs = a.restore_caches
    width = 0.8 / max(1, len(rcs))
    for k, rc in enumerate(rcs):
        ys = [next((r["mb_per_s"] or 0) for r in restores if r["algorithm"] == alg and r["restore_cache"] == rc)
              for alg in algs]
        cs = [next(r["containers_read"] for r in restores if r["algorithm"] == alg and r["restore_cache"] == rc)
              for alg in algs]
        xs = [i + k * width for i in range(len(algs))]
        axes[0].bar(xs, cs, width, label="restore-cache %s" % rc)
        axes[1].bar(xs, ys, width, label="restore-cache %s" % rc)
    for ax in axes[:2]:
        ax.set_xticks([i + width * (len(rcs) - 1) / 2 for i in range(len(algs))])
        ax.set_xticklabels(algs, rotation=20, fontsize=8)
        ax.legend(fontsize=8)
    axes[0].set_ylabel("containers read (restore of the last version)")
    axes[0].set_title("Restore: containers read")
    axes[1].set_ylabel("restore speed (MB/s, median; 1 MB = 10^6 bytes)")
    axes[1].set_title("Restore speed (machine shared)")
    pols = a.policies.split(",")
    width = 0.8 / max(1, len(pols))
    for k, pol in enumerate(pols):
        ys = [next((r["hit_ratio"] or 0) for r in caches if r["algorithm"] == alg and r["policy"] == pol)
              for alg in algs]
        axes[2].bar([i + k * width for i in range(len(algs))], ys, width, label=plot_style.policy_label(pol),
                    color=plot_style.policy_style(pol)[0])
    axes[2].set_xticks([i + width * (len(pols) - 1) / 2 for i in range(len(algs))])
    axes[2].set_xticklabels(algs, rotation=20, fontsize=8)
    axes[2].set_ylabel("SSD cache hit ratio (read trace,\n%s-container cache)" % a.cache_containers)
    axes[2].set_title("SSD cache hit ratio")
    axes[2].legend(fontsize=8)
    fig.tight_layout()
    made += plot_style.save(fig, a.out, "fig-restore-cache", formats)

    fig, ax = plt.subplots(figsize=(7, 4))
    for k, pol in enumerate(pols):
        ys = [next((r["ssd_bytes_written"] or 0) for r in caches if r["algorithm"] == alg and r["policy"] == pol)
              / 2**20 for alg in algs]
        ax.bar([i + k * width for i in range(len(algs))], ys, width, label=plot_style.policy_label(pol),
               color=plot_style.policy_style(pol)[0])
    ax.set_xticks([i + width * (len(pols) - 1) / 2 for i in range(len(algs))])
    ax.set_xticklabels(algs, rotation=20, fontsize=8)
    ax.set_ylabel("SSD bytes written (MiB, read trace)")
    ax.set_title("SSD cache writes under each rewriting setting")
    ax.legend(fontsize=8)
    fig.tight_layout()
    made += plot_style.save(fig, a.out, "fig-ssd-writes", formats)
    return made


def goal(backups: list[dict[str, Any]], restores: list[dict[str, Any]], algs: Sequence[str],
         restore_cache: str) -> dict[str, Any] | None:
    """Capping against no rewriting on the last version: read factor and
    lost dedup (cumulative ratio over every version)."""
    if "no" not in algs or "capping" not in algs:
        return None
    last = max(r["version"] for r in backups)
    pick = lambda alg: next(r for r in restores if r["algorithm"] == alg and r["restore_cache"] == restore_cache)
    dd = lambda alg: next(r for r in backups if r["algorithm"] == alg and r["version"] == last)
    reads_no, reads_cap = pick("no")["containers_read"], pick("capping")["containers_read"]
    lost = 1 - dd("capping")["dedup_ratio_cumulative"] / dd("no")["dedup_ratio_cumulative"]
    factor = reads_no / reads_cap if reads_cap else None
    return {"versions": last, "restore_cache": restore_cache, "containers_read_no": reads_no,
            "containers_read_capping": reads_cap, "read_factor": factor, "lost_dedup": lost,
            "met": factor is not None and factor >= GOAL_READ_FACTOR and lost <= GOAL_LOST_DEDUP}


def run(a: argparse.Namespace) -> int:
    algs = a.algorithms.split(",")
    for alg in algs:
        if alg not in ALGORITHMS:
            raise UsageError("unknown rewriting setting %r (expected %s)" % (alg, ", ".join(ALGORITHMS)))
    a.restore_caches = a.restore_caches or DEFAULT_RESTORE_CACHES
    destor_runner.check_destor(a.destor)
    os.makedirs(a.out, exist_ok=True)
    root = a.dataset if a.dataset else generate(a)
    versions = version_dirs(root)
    backups, restores, caches = [], [], []
    for alg in algs:
        store = os.path.join(a.out, "stores", alg.replace("+", "_"))
        shutil.rmtree(store, ignore_errors=True)
        params = [destor_runner.config_line("working-directory", os.path.abspath(store))] + list(a.params)
        if a.container_size:
            params.append("container-size %s" % a.container_size)
        params += ALGORITHMS[alg]
        base = destor_runner.destor_base(a.destor, None, params)
        print("fragmentation: %s: %d versions" % (alg, len(versions)), flush=True)
        backups += backup_all(a, alg, versions, base)
        job = len(versions) - 1
        restores += restore_last(a, alg, base, job, len(versions), os.path.join(a.out, "stores"))
        if not hasattr(a, "cache_containers"):
            a.cache_containers = cache_capacity(a, params)
        caches += cache_rows(a, alg, params, job, os.path.join(a.out, "stores"))
    result_files.write_csv(os.path.join(a.out, "fragmentation.csv"), backups, BACKUP_FIELDS)
    result_files.write_csv(os.path.join(a.out, "restore.csv"), restores, RESTORE_FIELDS)
    result_files.write_csv(os.path.join(a.out, "cache.csv"), caches, CACHE_FIELDS)
    g = goal(backups, restores, algs, a.restore_caches[0])
    result_files.write_json(os.path.join(a.out, "fragmentation.json"),
                            {"dataset": root, "versions": len(versions), "algorithms": algs,
                             "restore_caches": a.restore_caches, "policies": a.policies.split(","),
                             "cache_size": a.cache_size, "cache_containers": a.cache_containers, "backups": backups, "restores": restores,
                             "cache": caches, "goal": g})
    made = plots(a, backups, restores, caches, algs)
    report(a, root, versions, backups, restores, caches, algs, g, made)
    return 0


def report(a: argparse.Namespace, root: str, versions: Sequence[str], backups: list[dict[str, Any]],
           restores: list[dict[str, Any]], caches: list[dict[str, Any]], algs: Sequence[str],
           g: dict[str, Any] | None, made: list[str]) -> None:
    last = len(versions)
    lines = ["# Fragmentation experiment", "",
             "Dataset %s, %d versions; rewriting settings: Destor's defaults (rewrite_config.c)." % (root, last), "",
             "| setting | dedup ratio (all versions) | rewritten (all versions) | containers/MiB, last version | "
             "restore containers read (%s) |" % a.restore_caches[0], "|---|---|---|---|---|"]
    for alg in algs:
        rs = [r for r in backups if r["algorithm"] == alg]
        rw = sum(r["rewritten_bytes"] for r in rs)
        rr = next(r for r in restores if r["algorithm"] == alg and r["restore_cache"] == a.restore_caches[0])
        lines.append("| %s | %.2f | %s | %.3f | %d |" % (alg, rs[-1]["dedup_ratio_cumulative"], format_bytes(rw),
                                                       rs[-1]["containers_per_mib"], rr["containers_read"]))
    lines += ["", "| setting | policy | hit ratio | SSD bytes written |", "|---|---|---|---|"]
    for r in caches:
        lines.append("| %s | %s | %.4f | %s |" % (r["algorithm"], r["policy"], r["hit_ratio"] or 0,
                                                  format_bytes(r["ssd_bytes_written"] or 0)))
    if g:
        lines += ["", "Goal (capping, last of %d versions): containers read %d without rewriting, %d with "
                      "capping: %.2fx fewer (goal >= %.0fx); dedup lost %.1f%% (goal <= %.0f%%): %s."
                  % (g["versions"], g["containers_read_no"], g["containers_read_capping"], g["read_factor"] or 0,
                     GOAL_READ_FACTOR, 100 * g["lost_dedup"], 100 * GOAL_LOST_DEDUP,
                     "met" if g["met"] else "NOT met")]
    lines += [""] + ["![](%s)" % os.path.basename(p) for p in made if p.endswith(".png")]
    with open(os.path.join(a.out, "REPORT.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines[:-len(made) - 1] if made else lines))


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="experiment fragmentation",
                                 description="For each rewriting setting: back a multi-version dataset up, "
                                             "report dedup ratio and fragmentation per version, restore the "
                                             "last version with each restore cache, and replay a read trace "
                                             "under each SSD cache policy. Writes fragmentation.csv, "
                                             "restore.csv, cache.csv, fragmentation.json, plots and REPORT.md.")
    add_arguments(ap)
    a = ap.parse_args(argv)
    if a.versions < 1 or a.restore_runs < 1 or a.requests < 1:
        raise UsageError("--versions, --restore-runs and --requests must be at least 1")
    return run(a)
