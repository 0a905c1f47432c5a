# SPDX-License-Identifier: GPL-3.0-or-later
"""granularity_experiment: `experiment granularity`, the two SSD cache
designs side by side (issue 22): on one store and one trace, the container
cache (ssd-cache-granularity container) and the chunk cache
(ssd-cache-granularity chunk) with their policies at cache sizes that are
shares of the trace's working set (the unique chunk bytes it reads), all in
simulation. Each point reports the object hit ratio (per container or chunk
access), the request hit ratio (requests served wholly from the SSD), the
byte hit ratio (chunk cache), SSD bytes written, HDD reads and bytes read,
the cache's memory and the modelled request latency; the run writes
granularity.csv, granularity.json, REPORT.md (the tables, and CDAC-LRU and
CDAC-ARC against D-LRU and D-ARC as the CDAC paper compares them) and
fig-granularity.png (both designs' points: request hit ratio and HDD bytes
read against SSD bytes written).

Issue 23's axes: compression (none, lz4, zstd) for the container cache
(lru, in simulation: it reads the store's bytes to compress them), the
chunk cache's log layout (lru, in simulation: each admitted chunk read
from the store and compressed once; SSD bytes are the chunks' stored
bytes) and the chunk cache in AustereCache's bucket layout
(ssd-cache-layout buckets, policy austere, in real mode in a scratch cache
directory, so its SSD bytes are the device's, metadata areas included);
each row says its layout, compression and mode, and reports the
compression ratio, logical capacity and codec CPU.

The trace is compiled once per granularity (destor trace compile; at chunk
granularity it holds the chunk accesses) and every simulated point replays
the compiled trace, which gives the text trace's figures without its
recipe lookups (e2e compiled_trace.sh, compiled_trace_chunks.sh); the
real-mode bucket points replay the text trace.

Why it exists: users ask which design should guard their SSD in front of a
deduplicated store; this puts both on the same data and trace.

Fixed before any run (not tuned to results): the trace draws files by
Zipf exponent 0.9, 30% of requests byte ranges; --workload picks which
files: every-job (the default: one ranking of every job's files),
multi-version (gen-trace --versions over every live job: newer versions
read more, by classic Zipf over version ages, a path as popular in every
version) or newest-job (the same draw over the newest job alone); shares 20/40/60/80% of
the working set by default (the CDAC paper's range; --shares sets others,
and the CDAC average is taken over those within 20-80%); each point's SSD
is a whole number of containers (at least one), the same bytes for both
designs.

The chunk log's reclamation is an axis (--reclaim, all three by default):
evict (Nitro's whole-segment eviction, the product default), clean (a
cleaner that copies a segment's live chunks forward; the log is then given
twice the cache's bytes plus two segments, docs/CACHE.md) and reinsert
(the log at the cache's bytes, as evict; the oldest segment's live chunks
the policy keeps are rewritten, up to half a segment). Every chunk-log row
says its reclaim and the SSD bytes the log occupies (ssd_physical_bytes),
so designs can be compared at equal logical and at equal physical SSD
bytes; the CDAC-against-D-* comparison is made for each reclaim."""

import argparse
import os
import random
import subprocess
from typing import Any, Sequence

from . import child_command
from . import destor_runner
from . import result_files
from . import trace_draw
from .errors import ToolError
from .formatting import format_bytes
from .sizes import parse_size

CONTAINER_POLICIES = ["lru", "arc", "plc", "sigpop", "tinylfu"]
CHUNK_POLICIES = ["lru", "arc", "d-lru", "d-arc", "cdac-lru", "cdac-arc", "tinylfu", "plc", "sigpop"]
# chunk policies also run with ssd-cache-chunk-fetch container (a miss reads
# its whole container, once per request, and offers its other chunks to the
# policy): the admit-all ones and the write-aware ones
CONTAINER_FETCH_POLICIES = ["lru", "cdac-arc", "tinylfu", "plc", "sigpop"]
# issue 23's axes: compression for the container cache's lru, the chunk
# cache's log layout (lru) and its bucket layout (policy austere)
CODECS = ["none", "lz4", "zstd"]
COMPRESSION_CONTAINER_POLICY = "lru"
COMPRESSION_CHUNK_LOG_POLICY = "lru"
BUCKET_BYTES = 264 * 1024  # one bucket (chunk_buckets.h defaults): a smaller cache has no bucket point
SHARES = [0.2, 0.4, 0.6, 0.8]  # the default of --shares
CDAC_RANGE = (0.2, 0.8)  # the CDAC paper's comparison range of the working set
ALPHA = 0.9
WORKLOADS = ["every-job", "multi-version", "newest-job"]  # the default of --workload is the first
WORKLOAD_TEXT = {"every-job": "one ranking of every job's files",
                 "multi-version": "gen-trace --versions over every live job, version alpha 0",
                 "newest-job": "the newest job's files"}
VERSION_ALPHA = 0.0  # multi-version: gen-trace's default, classic Zipf over version ages
RANGE_SHARE = 0.3
RECLAIMS = ["evict", "clean", "reinsert"]  # ssd-cache-segment-reclaim values; the default of --reclaim is all
FIELDS = ["granularity", "policy", "fetch", "share", "cache_bytes", "hit_ratio", "request_hit_ratio", "byte_hit_ratio",
          "ssd_bytes_written", "hdd_reads", "hdd_bytes_read", "memory_bytes", "memory_bytes_per_object",
          "latency_model_ms_mean", "offers_admitted", "layout", "compression", "mode", "compression_ratio",
          "capacity_logical_bytes", "cpu_compress_ms", "cpu_decompress_ms", "cached_objects", "layout_index_bytes",
          "bytes_per_stored_chunk", "log_dropped", "reclaim", "ssd_physical_bytes", "write_amplification",
          "cleaner_bytes_written", "reinserted_bytes_written", "evictions"]


def parse_shares(text: str) -> list[float]:
    """"10,20,40,80" -> [0.1, 0.2, 0.4, 0.8]: distinct percentages in (0, 100], in increasing order."""
    try:
        shares = [float(x) / 100 for x in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError("not a comma-separated list of percentages: %r" % text)
    if not shares or any(not 0 < s <= 1 for s in shares) or len(set(shares)) != len(shares):
        raise argparse.ArgumentTypeError("shares must be distinct percentages above 0 and at most 100: %r" % text)
    return sorted(shares)


def distinct_of(text: str, known: Sequence[str], what: str) -> list[str]:
    """"b,a" of known ["a", "b", "c"] -> ["a", "b"]: distinct names of `known`, in its order."""
    names = text.split(",")
    if any(n not in known for n in names) or len(set(names)) != len(names):
        raise argparse.ArgumentTypeError("%s must be distinct values of %s: %r" % (what, ",".join(known), text))
    return [n for n in known if n in names]


def parse_reclaims(text: str) -> list[str]:
    """"clean,evict" -> ["evict", "clean"]: distinct ssd-cache-segment-reclaim values, in RECLAIMS' order."""
    return distinct_of(text, RECLAIMS, "reclaim")


def parse_policies(text: str) -> list[str]:
    """"tinylfu,lru" -> ["lru", "tinylfu"]: distinct policy names this experiment runs."""
    return distinct_of(text, list(dict.fromkeys(CONTAINER_POLICIES + CHUNK_POLICIES + ["austere"])), "policies")


def parse_codecs(text: str) -> list[str]:
    """"zstd,none" -> ["none", "zstd"]: distinct codecs, in CODECS' order."""
    return distinct_of(text, CODECS, "codecs")


def parse_args(argv: list[str]) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="experiment granularity", description=__doc__.split("\n\n")[0])
    ap.add_argument("--destor", default=os.environ.get("DESTOR") or destor_runner.default_destor(),
                    help=destor_runner.DESTOR_HELP + "; the DESTOR environment variable overrides it")
    ap.add_argument("--out", default=os.path.join("experiments", "granularity"), help="output directory")
    ap.add_argument("--workdir", help="an existing store's working directory (else a dataset is generated)")
    ap.add_argument("--preset", help="scripts/gen-dataset preset (default small; tiny with --quick)")
    ap.add_argument("--versions", type=int, default=2, help="dataset versions, one backup job each")
    ap.add_argument("--container-size", default=None, help="container size of a generated store (2M; 128K quick)")
    ap.add_argument("--requests", type=int, default=None, help="trace requests (3000; 400 with --quick)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workload", choices=WORKLOADS, default=WORKLOADS[0],
                    help="which files the trace reads: every-job (one Zipf ranking of every job's files), "
                         "multi-version (gen-trace --versions over every live job) or newest-job (that draw "
                         "over the newest job alone); default every-job")
    ap.add_argument("--quick", action="store_true", help="tiny dataset and trace (seconds)")
    ap.add_argument("--shares", type=parse_shares, default=SHARES,
                    help="cache sizes as percentages of the working set, comma-separated (default 20,40,60,80)")
    ap.add_argument("--reclaim", type=parse_reclaims, default=list(RECLAIMS),
                    help="the chunk log's reclaims, comma-separated (default evict,clean,reinsert)")
    ap.add_argument("--policies", type=parse_policies, default=None,
                    help="run only these policies, comma-separated, at both granularities (austere: the bucket "
                         "layout's points); default all")
    ap.add_argument("--codecs", type=parse_codecs, default=list(CODECS),
                    help="compression points, comma-separated (default none,lz4,zstd; none alone: no "
                         "compression points beyond the uncompressed ones)")
    a = ap.parse_args(argv)
    a.preset = a.preset or ("tiny" if a.quick else "small")
    a.container_size = a.container_size or ("128K" if a.quick else "2M")
    a.requests = a.requests or (400 if a.quick else 3000)
    return a


def run(cmd: list[str], **kw: Any) -> bytes:
    p = subprocess.run(cmd, capture_output=True, **kw)
    if p.returncode != 0:
        raise ToolError("%s exited %d: %s" % (" ".join(cmd[:6]), p.returncode,
                                              p.stderr.decode("utf-8", "replace").strip()))
    return p.stdout


def make_store(a: argparse.Namespace, root: str) -> str:
    """The config file naming the store (generated and backed up unless --workdir)."""
    cfg = os.path.join(root, "destor.config")
    workdir = os.path.abspath(a.workdir) if a.workdir else os.path.join(root, "store")
    with open(cfg, "w") as f:
        f.write('working-directory "%s"\ncontainer-size %s\n' % (workdir, a.container_size))
    if a.workdir:
        return cfg
    data = os.path.join(root, "data")
    if not os.path.isdir(data):
        gen, env = child_command.command_line("gen-dataset")
        run(gen + ["--out", data, "--preset", a.preset, "--versions", str(a.versions), "--seed", str(a.seed)],
            env=env)
    if not os.path.isdir(workdir):
        for v in range(1, a.versions + 1):
            run([a.destor, "-c", cfg, "backup", os.path.join(data, "v%d" % v)])
    return cfg


def every_job_picks(a: argparse.Namespace, cfg: str, rng: random.Random) -> list[tuple[int, bytes, int]]:
    """(job, path, size) of a.requests Zipf (ALPHA) draws over one ranking of every job's non-empty files."""
    files = []
    job = 0
    while True:
        p = subprocess.run([a.destor, "-c", cfg, "list", str(job), "--null"], capture_output=True)
        if p.returncode != 0:
            break
        for rec in p.stdout.split(b"\0")[:-1]:
            kind, size_text, name = rec.split(b"\t", 2)
            if kind == b"f" and b"\n" not in name and b"\r" not in name and int(size_text) > 0:
                files.append((job, name, int(size_text)))
        job += 1
    if not files:
        raise ToolError("the store has no files to read")
    rng.shuffle(files)
    weights = [1.0 / (i + 1) ** ALPHA for i in range(len(files))]
    return rng.choices(files, weights, k=a.requests)


def version_picks(a: argparse.Namespace, cfg: str) -> list[tuple[int, bytes, int]]:
    """(job, path, size) of a.requests draws of gen-trace's multi-version workload (trace_draw) over every
    live job (multi-version) or the newest one (newest-job), its paths by Zipf exponent ALPHA."""
    versions = len(trace_draw.live_jobs(a.destor, cfg)) if a.workload == "multi-version" else 1
    listings = trace_draw.multiversion_listings(a.destor, versions, cfg)
    drawn, _ = trace_draw.draw_multiversion(listings, 1.0 - ALPHA, VERSION_ALPHA, a.seed, a.requests)
    return [(listings[v][0], listings[v][1][i][0], listings[v][1][i][1]) for v, i in drawn]


def draw_trace(a: argparse.Namespace, cfg: str, path: str) -> None:
    """The --workload's reads, RANGE_SHARE of those of a non-empty file byte ranges."""
    rng = random.Random(a.seed)
    picks = every_job_picks(a, cfg, rng) if a.workload == "every-job" else version_picks(a, cfg)
    with open(path, "wb") as f:
        for job, name, size in picks:
            if size > 0 and rng.random() < RANGE_SHARE:
                start = rng.randrange(size)
                f.write(trace_draw.trace_record(job, name, b"\n", start, rng.randrange(1, size - start + 1)))
            else:
                f.write(trace_draw.trace_record(job, name))


def compile_trace(a: argparse.Namespace, cfg: str, trace: str, granularity: str) -> str:
    """The trace compiled once for `granularity` (destor trace compile:
    container accesses, or chunk accesses): every simulated point replays
    it with the text trace's figures and no recipe lookups."""
    out = "%s.%s.compiled" % (trace, granularity)
    run([a.destor, "-c", cfg, "-p", "ssd-cache-granularity %s" % granularity, "trace", "compile", trace, "-o", out])
    return out


def replay(a: argparse.Namespace, cfg: str, trace: str, granularity: str, policy: str, size: str,
           fetch: str = "chunk", layout: str = "log", compression: str = "none", real_dir: str | None = None,
           reclaim: str | None = None) -> dict[str, Any]:
    """One point; real_dir: real mode in that (emptied) cache directory, else simulation; reclaim: the
    chunk log's ssd-cache-segment-reclaim (None: the configuration's, evict by default)."""
    import json
    import shutil
    cmd = [a.destor, "-c", cfg, "-p", "ssd-cache-granularity %s" % granularity, "-p",
           "ssd-cache-policy %s" % policy, "-p", "ssd-cache-size %s" % size, "-p",
           "ssd-cache-compression %s" % compression]
    if granularity == "chunk":  # chunk-only keys are errors at container granularity
        cmd += ["-p", "ssd-cache-chunk-fetch %s" % fetch, "-p", "ssd-cache-layout %s" % layout]
    if reclaim:
        cmd += ["-p", "ssd-cache-segment-reclaim %s" % reclaim]
    if real_dir:
        shutil.rmtree(real_dir, ignore_errors=True)
        cmd += ["-p", "ssd-cache-directory %s" % real_dir, "read-file", "--trace", trace, "--json"]
    else:
        cmd += ["read-file", "--trace", trace, "--simulate", "--json"]
    out = run(cmd)
    if real_dir:
        shutil.rmtree(real_dir, ignore_errors=True)
    return json.loads(out.decode("utf-8"))["cache"]


def row(granularity: str, policy: str, fetch: str, share: float, cache_bytes: int, c: dict[str, Any],
        reclaim: str | None = None) -> dict[str, Any]:
    chunk = granularity == "chunk"
    log = c.get("chunk_log") if chunk and c.get("layout") == "log" else None
    cached = c["cached_chunks"] if chunk else c["cached_containers"]
    return {
        "granularity": granularity, "policy": policy, "fetch": fetch, "share": share, "cache_bytes": cache_bytes,
        "hit_ratio": c["hit_ratio"], "request_hit_ratio": c["request_hit_ratio"],
        "byte_hit_ratio": c["byte_hit_ratio"] if chunk else None,
        "ssd_bytes_written": c["ssd_bytes_written"], "hdd_reads": c["hdd_reads"],
        "hdd_bytes_read": c["hdd_bytes_read"], "memory_bytes": c["memory_bytes"],
        "memory_bytes_per_object": c["memory_bytes"] / cached if cached else None,
        "latency_model_ms_mean": c["request_latency_model_ms_mean"],
        "offers_admitted": c.get("offers_admitted") if chunk else None,
        "layout": c.get("layout", ""), "compression": c.get("compression", "none"), "mode": c["mode"],
        "compression_ratio": c.get("compression_ratio"), "capacity_logical_bytes": c.get("capacity_logical_bytes"),
        "cpu_compress_ms": c.get("cpu_compress_ms"), "cpu_decompress_ms": c.get("cpu_decompress_ms"),
        "cached_objects": cached, "layout_index_bytes": c.get("layout_index_bytes") if chunk else None,
        "bytes_per_stored_chunk": c.get("bytes_per_stored_chunk") if chunk else None,
        "log_dropped": c.get("log_dropped") if chunk else None,
        "reclaim": reclaim if log else None,
        # the SSD bytes the design occupies: the log's segments (clean: 2x the cache + 2 segments), else the cache
        "ssd_physical_bytes": log["capacity_bytes"] if log else cache_bytes,
        "write_amplification": c.get("write_amplification") if chunk else None,
        "cleaner_bytes_written": log["cleaner_bytes_written"] if log else None,
        "reinserted_bytes_written": log.get("reinserted_bytes_written") if log else None,
        "evictions": c.get("evictions"),
    }


def plot(rows: list[dict[str, Any]], outdir: str, shares: Sequence[float], reclaims: Sequence[str]) -> str:
    """One row of panels per reclaim: its chunk-log series beside the rows without a log (container cache,
    bucket layout), which repeat in every row as the reference."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, grid = plt.subplots(len(reclaims), 2, figsize=(12, 1.9 + 3.6 * len(reclaims)), squeeze=False)
    def key(r):
        return (r["granularity"], r["policy"], r["fetch"], r.get("compression", "none"))
    colours = plt.get_cmap("tab20")
    for axes, reclaim in zip(grid, reclaims):
        mine = [r for r in rows if r.get("reclaim") in (None, reclaim)]
        for i, (gran, policy, fetch, codec) in enumerate(sorted({key(r) for r in mine})):
            marker = "s" if gran == "container" else "o" if fetch == "chunk" else "^"
            # tab20's colours, then dashed lines: no two series look alike
            style = {"color": colours(i % 20), "linestyle": "-" if i < 20 else "--"}
            pts = sorted((r for r in mine if key(r) == (gran, policy, fetch, codec)), key=lambda r: r["share"])
            label = "%s %s" % (gran, policy) + (" (fetch container)" if gran == "chunk" and fetch != "chunk" else
                                                "") + ("" if codec == "none" else " " + codec)
            x = [r["ssd_bytes_written"] / 2**20 for r in pts]
            axes[0].plot(x, [r["request_hit_ratio"] for r in pts], marker=marker, label=label, **style)
            axes[1].plot(x, [r["hdd_bytes_read"] / 2**20 for r in pts], marker=marker, label=label, **style)
        axes[0].set_ylabel("request hit ratio")
        axes[1].set_ylabel("HDD MiB read")
        for ax in axes:
            ax.set_title("chunk log reclaim: %s" % reclaim, fontsize=9)
            ax.set_xscale("log")  # SSD writes span three decades (write-aware admission against whole containers)
            ax.set_xlabel("SSD MiB written (log scale)")
            ax.grid(alpha=0.3)
    handles, labels = grid[0][0].get_legend_handles_labels()  # the same series in every row; below all panels
    fig.legend(handles, labels, loc="lower center", fontsize=7, ncol=4)
    fig.suptitle("Container cache and chunk cache on one store and trace (shares %g-%g%% of the working set)" % (
        shares[0] * 100, shares[-1] * 100))
    fig.tight_layout(rect=(0, 1.5 / (1.9 + 3.6 * len(reclaims)), 1, 1))  # the legend takes the bottom 1.5 in
    path = os.path.join(outdir, "fig-granularity.png")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def cdac_lines(rows: list[dict[str, Any]], reclaim: str | None = None) -> list[str]:
    """CDAC against D-* on the chunk-fetch log rows (of that reclaim, if given)."""
    if reclaim is not None:
        rows = [r for r in rows if r.get("reclaim") == reclaim]
    out = ["| share | CDAC-LRU / D-LRU | CDAC-ARC / D-ARC | (chunk hit ratio, then byte hit ratio) |",
           "|---|---|---|---|"]
    ratios = []
    for share in sorted({r["share"] for r in rows}):
        at = {r["policy"]: r for r in rows
              if r["granularity"] == "chunk" and r["fetch"] == "chunk" and r["share"] == share}
        cells = []
        for a, b in (("cdac-lru", "d-lru"), ("cdac-arc", "d-arc")):
            if a in at and b in at and at[b]["hit_ratio"] > 0:
                q = at[a]["hit_ratio"] / at[b]["hit_ratio"]
                if CDAC_RANGE[0] <= share <= CDAC_RANGE[1]:
                    ratios.append(q)
                cells.append("%.3fx (%.3f vs %.3f; bytes %.3f vs %.3f)" % (
                    q, at[a]["hit_ratio"], at[b]["hit_ratio"], at[a]["byte_hit_ratio"], at[b]["byte_hit_ratio"]))
            else:
                cells.append("-")
        out.append("| %d%% | %s | %s | |" % (round(share * 100), cells[0], cells[1]))
    if ratios:
        out.append("")
        out.append(("With reclaim %s: " % reclaim if reclaim else "") + "CDAC over D-*: at most %.3fx, on average %.3fx at %d-%d%% of the working set (the paper "
                   "reports up to 19.49x, 1.95x on average, on its traces)." % (
                       max(ratios), sum(ratios) / len(ratios), CDAC_RANGE[0] * 100, CDAC_RANGE[1] * 100))
    return out


REINSERT_POLICIES = ["lru", "arc", "tinylfu"]  # issue 39's goal names these
REINSERT_GAIN = 0.9  # reinsert keeps at least this share of clean's hit gain over evict (issue 39)


def reinsert_lines(rows: list[dict[str, Any]]) -> list[str]:
    """Issue 39's goal at each share: the chunk log's reinsert (the cache's own SSD bytes) against evict and
    clean, for lru, arc and tinylfu (chunk fetch, uncompressed): the share of clean's hit-ratio gain over evict
    that reinsert keeps (met: at least REINSERT_GAIN, or clean gains nothing and reinsert loses nothing), and
    its SSD bytes written against clean's (met: no more)."""
    at = {(r["policy"], r["share"], r["reclaim"]): r for r in rows
          if r["granularity"] == "chunk" and r["fetch"] == "chunk" and r.get("layout") == "log"
          and r.get("compression", "none") == "none" and r.get("reclaim")}
    out = ["| policy | share | hit evict / clean / reinsert | share of clean's gain | SSD written evict / clean / "
           "reinsert | HDD read evict / clean / reinsert | goal |", "|---|---|---|---|---|---|---|"]
    met = []
    for policy in REINSERT_POLICIES:
        for share in sorted({k[1] for k in at if k[0] == policy}):
            e, c, r = (at.get((policy, share, k)) for k in ("evict", "clean", "reinsert"))
            if not (e and c and r):
                continue
            gain = c["hit_ratio"] - e["hit_ratio"]
            kept = (r["hit_ratio"] - e["hit_ratio"]) / gain if gain > 0 else None
            ok = (kept >= REINSERT_GAIN if kept is not None else r["hit_ratio"] >= e["hit_ratio"]) and \
                r["ssd_bytes_written"] <= c["ssd_bytes_written"]
            met.append(ok)
            out.append("| %s | %d%% | %.3f / %.3f / %.3f | %s | %s / %s / %s | %s / %s / %s | %s |" % (
                policy, round(share * 100), e["hit_ratio"], c["hit_ratio"], r["hit_ratio"],
                "%.2f" % kept if kept is not None else "-",
                format_bytes(e["ssd_bytes_written"]), format_bytes(c["ssd_bytes_written"]),
                format_bytes(r["ssd_bytes_written"]), format_bytes(e["hdd_bytes_read"]),
                format_bytes(c["hdd_bytes_read"]), format_bytes(r["hdd_bytes_read"]), "met" if ok else "missed"))
    if met:
        out += ["", "Issue 39's goal (reinsert keeps >= %d%% of clean's hit gain over evict, writing no more SSD "
                "bytes than clean): met at %d of %d points." % (REINSERT_GAIN * 100, sum(met), len(met))]
    return out


def compression_lines(rows: list[dict[str, Any]]) -> list[str]:
    """The compression and memory table: container lru, chunk log lru and chunk buckets at each codec."""
    out = ["| design | compression | mode | share | hit | request hit | SSD written | compression ratio | "
           "logical capacity | CPU compress ms | CPU decompress ms | latency ms | memory per object |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        chunk_log = (r["granularity"] == "chunk" and r["policy"] == COMPRESSION_CHUNK_LOG_POLICY and
                     r.get("layout") == "log" and r["fetch"] == "chunk")
        if r.get("compression") is None or not (r["policy"] == "austere" or chunk_log or (
                r["granularity"] == "container" and r["policy"] == COMPRESSION_CONTAINER_POLICY)):
            continue
        design = "container lru" if r["granularity"] == "container" else \
            "chunk log lru, reclaim %s" % r["reclaim"] if chunk_log else "chunk buckets (austere)"
        out.append("| %s | %s | %s | %d%% | %.3f | %.3f | %s | %s | %s | %s | %s | %.3f | %s |" % (
            design, r["compression"], r["mode"], round(r["share"] * 100), r["hit_ratio"], r["request_hit_ratio"],
            format_bytes(r["ssd_bytes_written"]), result_files.fmt(r["compression_ratio"], "%.3f"),
            format_bytes(r["capacity_logical_bytes"]) if r["capacity_logical_bytes"] is not None else "-",
            result_files.fmt(r["cpu_compress_ms"], "%.1f"), result_files.fmt(r["cpu_decompress_ms"], "%.1f"),
            r["latency_model_ms_mean"], result_files.fmt(r["memory_bytes_per_object"], "%.0f B")))
    return out


def report(a: argparse.Namespace, outdir: str, rows: list[dict[str, Any]], working_set: int, trace: str,
           fig: str) -> str:
    lines = ["# Container cache and chunk cache: one store, one trace", "",
             "Simulation; %d requests (workload %s: %s, Zipf exponent %.1f over paths; %d%% byte ranges), "
             "working set %d bytes (unique chunk bytes the trace reads); container size %s; cache sizes %s of the "
             "working set, rounded to whole containers, the same bytes for both designs." % (
                 a.requests, a.workload, WORKLOAD_TEXT[a.workload], ALPHA, RANGE_SHARE * 100, working_set,
                 a.container_size,
                 ", ".join("%g%%" % (s * 100) for s in a.shares)), "",
             "Chunk-log rows run with each reclaim (%s). The cache size is the policy's capacity; "
             "the SSD column is the bytes the design occupies: with clean the log is given twice the cache plus "
             "two segments (docs/CACHE.md), so compare clean rows also with evict and container rows at that "
             "larger size. WA is the cache's write amplification (device bytes written, cleaner copies and "
             "reinsertions included, over bytes admitted); dropped counts live chunks the log's reclamation "
             "dropped (with reinsert: those the policy did not keep); evictions are the policy's own." % ", ".join(a.reclaim), "",
             "| granularity | policy | miss reads | reclaim | share | cache | SSD | hit | request hit | byte hit | "
             "SSD written | WA | dropped | evictions | HDD reads | HDD read | memory | per object | latency ms | "
             "offers admitted |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append("| %s | %s | %s | %s | %d%% | %s | %s | %.3f | %.3f | %s | %s | %s | %s | %s | %d | %s | %s | "
                     "%s | %.3f | %s |" % (
            r["granularity"], r["policy"], r["fetch"], r["reclaim"] or "-", round(r["share"] * 100),
            format_bytes(r["cache_bytes"]), format_bytes(r["ssd_physical_bytes"]),
            r["hit_ratio"], r["request_hit_ratio"], result_files.fmt(r["byte_hit_ratio"], "%.3f"),
            format_bytes(r["ssd_bytes_written"]), result_files.fmt(r["write_amplification"], "%.3f"),
            result_files.fmt(r["log_dropped"], "%d"), result_files.fmt(r["evictions"], "%d"), r["hdd_reads"],
            format_bytes(r["hdd_bytes_read"]), format_bytes(r["memory_bytes"]),
            result_files.fmt(r["memory_bytes_per_object"], "%.0f B"), r["latency_model_ms_mean"],
            result_files.fmt(r["offers_admitted"], "%d")))
    lines += ["", "## CDAC against CacheDedup (the CDAC paper's comparison, in kind)"]
    for reclaim in a.reclaim:
        lines += ["", "### reclaim %s" % reclaim, ""] + cdac_lines(rows, reclaim)
    if "reinsert" in a.reclaim:
        lines += ["", "## Reinsert against evict and clean (issue 39)", ""] + reinsert_lines(rows)
    lines += ["", "## Compression and layout (issue 23)", ""] + compression_lines(rows)
    lines += ["", "![both designs](%s)" % os.path.basename(fig), ""]
    path = os.path.join(outdir, "REPORT.md")
    with open(path, "w") as f:
        f.write("\n".join(lines))
    return path


def main(argv: list[str]) -> int:
    a = parse_args(argv)
    outdir = os.path.abspath(a.out)
    os.makedirs(outdir, exist_ok=True)
    cfg = make_store(a, outdir)
    trace = os.path.join(outdir, "trace")
    draw_trace(a, cfg, trace)
    compiled = {g: compile_trace(a, cfg, trace, g) for g in ("container", "chunk")}
    # clean: the log is given room never to drop a chunk, so each unique
    # chunk is admitted once (evict's whole-segment drops would admit some twice)
    whole = replay(a, cfg, compiled["chunk"], "chunk", "lru", "100%", reclaim="clean")
    if whole["evictions"] or whole["log_dropped"]:
        raise ToolError("the working set does not fit the store's size: cannot measure it")
    working_set = whole["admitted_bytes"]
    cs = parse_size(a.container_size)
    want = (lambda p: True) if a.policies is None else (lambda p: p in a.policies)
    codecs = [codec for codec in a.codecs if codec != "none"]
    rows = []
    for share in a.shares:
        containers = max(1, int(round(share * working_set / cs)))
        points = [("container", p, "container", None) for p in CONTAINER_POLICIES if want(p)] + \
                 [("chunk", p, "chunk", rc) for rc in a.reclaim for p in CHUNK_POLICIES if want(p)] + \
                 [("chunk", p, "container", rc) for rc in a.reclaim for p in CONTAINER_FETCH_POLICIES if want(p)]
        for gran, policy, fetch, reclaim in points:
            c = replay(a, cfg, compiled[gran], gran, policy, str(containers), fetch, reclaim=reclaim)
            rows.append(row(gran, policy, fetch, share, containers * cs, c, reclaim))
            print("%-9s %-8s fetch %-9s %-5s %3d%%: hit %.3f, request hit %.3f, SSD %d B, HDD %d B" % (
                gran, policy, fetch, reclaim or "", round(share * 100), c["hit_ratio"], c["request_hit_ratio"],
                c["ssd_bytes_written"], c["hdd_bytes_read"]), flush=True)
        # issue 23: compression for the container cache's lru and the chunk
        # log's lru (their none points are above) and every codec for the
        # bucket layout (real mode)
        extra: list[tuple[str, str, str, str, str, str | None, str | None]]
        extra = [("container", COMPRESSION_CONTAINER_POLICY, "container", "log", codec, None, None)
                 for codec in codecs if want(COMPRESSION_CONTAINER_POLICY)]
        extra += [("chunk", COMPRESSION_CHUNK_LOG_POLICY, "chunk", "log", codec, None, rc)
                  for rc in a.reclaim for codec in codecs if want(COMPRESSION_CHUNK_LOG_POLICY)]
        if want("austere") and containers * cs >= BUCKET_BYTES:
            extra += [("chunk", "austere", "chunk", "buckets", codec, os.path.join(outdir, "ssd-scratch"), None)
                      for codec in a.codecs]
        elif want("austere"):
            print("%3d%%: %s holds no cache bucket: no bucket-layout point" % (
                round(share * 100), format_bytes(containers * cs)), flush=True)
        for gran, policy, fetch, layout, codec, real_dir, reclaim in extra:
            c = replay(a, cfg, trace if real_dir else compiled[gran], gran, policy, str(containers), fetch, layout,
                       codec, real_dir, reclaim)
            rows.append(row(gran, policy, fetch, share, containers * cs, c, reclaim))
            print("%-9s %-8s %-7s %-4s %3d%%: hit %.3f, SSD %d B, compression ratio %.3f" % (
                gran, policy, layout, codec, round(share * 100), c["hit_ratio"], c["ssd_bytes_written"],
                c.get("compression_ratio", 1.0)), flush=True)
    result_files.write_csv(os.path.join(outdir, "granularity.csv"), rows, FIELDS)
    result_files.write_json(os.path.join(outdir, "granularity.json"), {
        "experiment": "granularity", "mode": "simulate (bucket-layout rows: real)", "args": vars(a),
        "working_set_bytes": working_set,
        "rows": rows})
    fig = plot(rows, outdir, a.shares, a.reclaim)
    path = report(a, outdir, rows, working_set, trace, fig)
    print("== granularity: %s" % os.path.relpath(path))
    for reclaim in a.reclaim:
        print("\n".join(cdac_lines(rows, reclaim)))
    return 0
