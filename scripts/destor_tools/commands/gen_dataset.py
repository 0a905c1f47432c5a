# SPDX-License-Identifier: GPL-3.0-or-later
# gen-dataset: write a synthetic but realistic backup dataset, several
# versions of one file tree (OUT/v1, OUT/v2, ...), so tests, the README quick
# start and the PLC-Cache experiments back up the same bytes everywhere
# without shipping data.  Versions differ the way real backups do: most files
# unchanged, some overwritten in place, some with bytes inserted or deleted
# (which shifts content-defined chunk boundaries), some added, deleted,
# renamed or moved; some files are duplicated across directories; a share is
# compressible text, the rest random.  Everything comes from --seed: the same
# seed gives the same bytes, names and mtimes on any machine with this
# interpreter.  Standard library only.

import argparse
import os
import random
import re
import shutil
import sys
import time
from typing import NoReturn

from destor_tools.formatting import format_bytes
from destor_tools.options import option_values
from destor_tools.units import GIB, KIB, MIB, TIB

PROG = "gen-dataset"

# Presets: unique size of the first version and number of versions.
# paper: > 2.1 GiB unique after dedup, enough for 1,000 containers of 2 MiB.
PRESETS = {
    "tiny": {"size": 8 * MIB, "versions": 3},
    "small": {"size": 48 * MIB, "versions": 3},
    "paper": {"size": 2304 * MIB, "versions": 3},
}
DEFAULT_PRESET = "small"

WRITE_PIECE = 8 * MIB  # largest single buffer generated and written at once
EPOCH = 1577836800  # 2020-01-01T00:00:00Z, base of the deterministic mtimes
AVG_CHUNK = 8 * KIB  # used only for the unique-bytes estimate of edits

# Per-file fate from one version to the next (cumulative thresholds).
P_DELETE = 0.02
P_RENAME = P_DELETE + 0.025
P_OVERWRITE = P_RENAME + 0.045
P_SHIFT = P_OVERWRITE + 0.035  # insert or delete bytes near start or middle
P_ADD = 0.03  # new files per version, as a share of the file count
P_DUP_V1 = 0.06  # extra copies of v1 files placed in other directories
P_DUP_NEW = 0.1  # share of added files that are copies of existing ones

TOP_DIRS = ["home", "projects", "photos", "documents", "src", "mail", "music",
            "archive", "work", "build", "data", "backup", "notes", "www",
            "vendor", "logs"]
SUB_DIRS = ["src", "lib", "include", "docs", "tests", "assets", "img", "raw",
            "2017", "2018", "2019", "2020", "2021", "old", "misc", "drafts",
            "reports", "invoices", "scans", "thumbs", "cache", "config",
            "scripts", "results", "fixtures", "release", "design", "audio",
            "video", "shared", "personal", "team", "clients", "export",
            "holiday", "family", "alice", "bob", "carol", "kernel", "net",
            "ui", "db", "api", "tools", "third_party", "web", "static"]
TEXT_STEMS = ["notes", "readme", "report", "main", "utils", "config",
              "changelog", "todo", "draft", "summary", "letter", "index",
              "server", "parser", "test", "data", "invoice", "minutes",
              "mailbox", "access", "schema", "build"]
TEXT_EXTS = [".txt", ".md", ".c", ".h", ".py", ".log", ".csv", ".html",
             ".json", ".cfg", ".xml", ".tex"]
BIN_STEMS = ["IMG_", "DSC", "track", "video", "archive", "backup", "scan",
             "photo", "build", "blob", "model", "db", "snapshot", "movie",
             "sample", "bundle"]
BIN_EXTS = [".jpg", ".png", ".mp3", ".mp4", ".zip", ".gz", ".bin", ".pdf",
            ".o", ".sqlite", ".tar", ".xz", ".jar", ".iso"]


def die(msg: str) -> NoReturn:
    print(f"{PROG}: {msg}", file=sys.stderr)
    sys.exit(2)


def parse_size(text: str) -> int:
    """'64M', '2G', '512KiB', '1.5G', '4096' -> bytes (powers of 1024)."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(?:i?b)?\s*", text, re.I)
    if not m:
        raise argparse.ArgumentTypeError(f"bad size '{text}' (e.g. 64M, 2G)")
    mult = {"": 1, "k": KIB, "m": MIB, "g": GIB, "t": TIB}
    value = int(float(m.group(1)) * mult[m.group(2).lower()])
    if value < 1:
        raise argparse.ArgumentTypeError(f"size '{text}' is too small")
    return value


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not an integer")
    if value < 1:
        raise argparse.ArgumentTypeError(f"'{text}' must be at least 1")
    return value


class Content:
    """Fresh bytes: random (incompressible) or text-like (compressible)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        letters = "etaoinshrdlcumwfgypbvkjxqz"
        weights = [12.7, 9.1, 8.2, 7.5, 7.0, 6.7, 6.3, 6.1, 6.0, 4.3, 4.0,
                   2.8, 2.8, 2.4, 2.4, 2.2, 2.0, 2.0, 1.9, 1.5, 1.0, 0.8,
                   0.2, 0.2, 0.1, 0.1]
        vocab = []
        for _ in range(6000):
            n = min(12, max(1, int(rng.expovariate(1 / 4.5)) + 1))
            word = "".join(rng.choices(letters, weights, k=n))
            if rng.random() < 0.06:
                word = word.capitalize()
            r = rng.random()
            sep = "\n" if r < 0.08 else ", " if r < 0.12 else ". " if r < 0.15 else " "
            vocab.append(word + sep)
        for tok in ("0", "1", "42", "2020", "{\n", "}\n", "    ", "= ", "; ",
                    "(", ")", "#include ", "return ", "if ", "the ", "and "):
            vocab.append(tok)
        self.vocab = vocab
        self.avg = sum(map(len, vocab)) / len(vocab)

    def text(self, n: int) -> bytes:
        parts = []
        have = 0
        while have < n:
            k = min(1 << 20, int((n - have) / self.avg) + 16)
            s = "".join(self.rng.choices(self.vocab, k=k)).encode("ascii")
            parts.append(s)
            have += len(s)
        return b"".join(parts)[:n]

    def make(self, kind: str, n: int) -> bytes:
        if n <= 0:
            return b""
        if kind == "text":
            return self.text(n)
        return self.rng.randbytes(n)


class Entry:
    __slots__ = ("kind", "size", "mtime")

    def __init__(self, kind: str, size: int, mtime: int) -> None:
        self.kind = kind
        self.size = size
        self.mtime = mtime


class Generator:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.rng = random.Random(args.seed)
        self.content = Content(self.rng)
        self.dirs: list[str] = []  # relative directory paths, parents before children
        self.state: dict[str, Entry] = {}  # path -> Entry, insertion-ordered (deterministic)
        self.taken: set[str] = set()  # paths in use (never iterated: order-free)
        self.specials: list[tuple[str, str, str | None, int | None]] = []  # odd-names symlinks and empty dirs, per version
        self.size_cap = 32 * MIB
        self.files_written = 0
        self.bytes_written = 0
        self.fresh = 0  # bytes generated fresh (not copies)
        self.unique_est = 0  # fresh + chunk-boundary slack of edits

    # ---------------------------------------------------------------- sizes
    def sample_size(self) -> int:
        if self.args.shape == "source":  # a source-code release: small files
            s = self.rng.lognormvariate(9.0, 1.0)  # median ~8 KiB
            return max(1, min(int(s), 512 * KIB, self.size_cap))
        r = self.rng.random()
        if r < 0.78:  # many small files, a few KiB
            s = self.rng.lognormvariate(8.3, 0.9)  # median ~4 KiB
            s = min(max(s, 64), 64 * KIB)
        elif r < 0.97:  # some of hundreds of KiB
            s = self.rng.lognormvariate(12.2, 0.6)  # median ~200 KiB
            s = min(max(s, 64 * KIB), 2 * MIB)
        else:  # a few of several MiB
            s = self.rng.lognormvariate(15.4, 0.55)  # median ~5 MiB
            s = min(max(s, 2 * MIB), 32 * MIB)
        return max(1, min(int(s), self.size_cap))

    def plan_sizes(self, total: int, nfiles: int) -> list[int]:
        self.size_cap = max(4 * KIB, total // 6)
        if nfiles is None:
            sizes = []
            have = 0
            while have < total:
                s = min(self.sample_size(), total - have)
                sizes.append(s)
                have += s
            return sizes
        sizes = [self.sample_size() for _ in range(nfiles)]
        scale = total / sum(sizes)
        sizes = [max(1, int(s * scale)) for s in sizes]
        sizes[-1] = max(1, sizes[-1] + total - sum(sizes))
        return sizes

    def kind_for(self, size: int) -> str:
        if self.args.shape == "source":  # mostly text, a few binaries
            return "text" if self.rng.random() < 0.85 else "bin"
        p = 0.45 if size < 64 * KIB else 0.25 if size < 2 * MIB else 0.1
        return "text" if self.rng.random() < p else "bin"

    # ---------------------------------------------------------------- names
    def plan_dirs(self, nfiles: int) -> None:
        rng = self.rng
        ndirs = max(4, nfiles // 12)
        tops = rng.sample(TOP_DIRS, k=min(len(TOP_DIRS), 3 + ndirs // 40))
        self.dirs = list(tops)
        depth = {d: 1 for d in tops}
        while len(self.dirs) < ndirs:
            parent = rng.choice(self.dirs)
            if depth[parent] >= 6:
                continue
            name = rng.choice(SUB_DIRS)
            if rng.random() < 0.3:
                name += f"-{rng.randrange(100)}"
            path = f"{parent}/{name}"
            if path in depth:
                continue
            depth[path] = depth[parent] + 1
            self.dirs.append(path)

    def new_name(self, kind: str) -> str:
        rng = self.rng
        if kind == "text":
            stem = rng.choice(TEXT_STEMS)
            sep = rng.choice(["-", "_", ""])
            return f"{stem}{sep}{rng.randrange(1000)}{rng.choice(TEXT_EXTS)}"
        stem = rng.choice(BIN_STEMS)
        return f"{stem}{rng.randrange(10000):04d}{rng.choice(BIN_EXTS)}"

    def free_path(self, directory: str, name: str) -> str:
        path = f"{directory}/{name}"
        stem, dot, ext = name.rpartition(".")
        n = 2
        while path in self.taken:
            path = f"{directory}/{stem} ({n}).{ext}"
            n += 1
        return path

    def new_path(self, kind: str, directory: str | None = None) -> str:
        if directory is None:
            directory = self.rng.choice(self.dirs)
        return self.free_path(directory, self.new_name(kind))

    # ---------------------------------------------------------------- I/O
    def write_fresh(self, full: str, kind: str, size: int) -> None:
        with open(full, "wb", buffering=0) as f:
            left = size
            while left > 0:
                n = min(left, WRITE_PIECE)
                f.write(self.content.make(kind, n))
                left -= n
        self.fresh += size
        self.unique_est += size
        self.bytes_written += size
        self.files_written += 1

    def write_bytes(self, full: str, data: bytes) -> None:
        with open(full, "wb", buffering=0) as f:
            f.write(data)
        self.bytes_written += len(data)
        self.files_written += 1

    def copy(self, src: str, dst: str) -> None:
        shutil.copyfile(src, dst)
        self.bytes_written += os.path.getsize(dst)
        self.files_written += 1

    def makedirs_for(self, root: str, path: str) -> None:
        d = os.path.dirname(path)
        if d:
            os.makedirs(os.path.join(root, d), exist_ok=True)

    # ---------------------------------------------------------------- v1
    def version_time(self, v: int) -> int:
        return EPOCH + (v - 1) * 7 * 86400

    def gen_first(self, root: str, total: int, nfiles: int) -> None:
        rng = self.rng
        sizes = self.plan_sizes(total, nfiles)
        self.plan_dirs(len(sizes))
        t1 = self.version_time(1)
        for size in sizes:
            kind = self.kind_for(size)
            path = self.new_path(kind)
            self.taken.add(path)
            mtime = t1 - rng.randrange(3 * 365 * 86400)
            self.state[path] = Entry(kind, size, mtime)
            self.makedirs_for(root, path)
            self.write_fresh(os.path.join(root, path), kind, size)
        originals = list(self.state)
        for _ in range(int(len(originals) * P_DUP_V1)):
            self.add_duplicate(root, rng.choice(originals), root)
        if self.args.odd_names:
            self.gen_odd(root)

    def add_duplicate(self, root: str, src_path: str, src_root: str, mtime: int | None = None) -> str:
        """Copy src_path (from src_root) into another directory of root."""
        e = self.state[src_path]
        directory = self.rng.choice(self.dirs)
        name = os.path.basename(src_path)
        if self.rng.random() < 0.3:
            stem, dot, ext = name.rpartition(".")
            name = f"{stem} - copy.{ext}"
        path = self.free_path(directory, name)
        self.taken.add(path)
        self.state[path] = Entry(e.kind, e.size, e.mtime if mtime is None else mtime)
        self.makedirs_for(root, path)
        self.copy(os.path.join(src_root, src_path), os.path.join(root, path))
        return path

    def gen_odd(self, root: str) -> None:
        """Hostile names and non-regular entries; identical in every version."""
        odd = "odd names"
        utf8 = os.fsdecode("ünïcødé-日本語-файл.txt".encode("utf-8"))
        names = [
            (f"{odd}/notes with spaces.txt", "text", 3000),
            (f"{odd}/line\nbreak.txt", "text", 1500),
            (f"{odd}/{utf8}", "text", 2200),
            (f"{odd}/-leading-dash.bin", "bin", 5000),
            (f"{odd}/  two  leading spaces.bin", "bin", 700),
            (f"{odd}/empty.txt", "text", 0),
            ("-dash at top.txt", "text", 900),
        ]
        # A stream of their own, so --odd-names leaves every other byte as is.
        main_content, self.content = self.content, Content(
            random.Random(f"odd-names:{self.args.seed}"))
        t1 = self.version_time(1)
        for path, kind, size in names:
            self.taken.add(path)
            # Kept out of self.state so the per-version churn never touches
            # them; re-copied into every version by write_specials.
            self.specials.append(("file", path, kind, size))
            self.makedirs_for(root, path)
            full = os.path.join(root, path)
            self.write_fresh(full, kind, size)
            os.utime(full, (t1, t1))
        self.content = main_content
        self.specials.append(("dir", f"{odd}/empty dir", None, None))
        self.specials.append(("link", f"{odd}/link to notes",
                              "notes with spaces.txt", None))
        self.specials.append(("link", f"{odd}/dangling link",
                              "no such file.txt", None))
        self.write_specials(root, None)

    def write_specials(self, root: str, prev_root: str | None) -> None:
        for what, path, extra, size in self.specials:
            full = os.path.join(root, path)
            self.makedirs_for(root, path)
            if what == "file":
                if prev_root is not None:
                    self.copy(os.path.join(prev_root, path), full)
                    shutil.copystat(os.path.join(prev_root, path), full)
            elif what == "dir":
                os.makedirs(full, exist_ok=True)
            else:
                assert extra is not None, "a link names its target"
                os.symlink(extra, full)
            if what != "file" or prev_root is None:
                t = self.version_time(1)
                os.utime(full, (t, t), follow_symlinks=False)

    # ---------------------------------------------------------------- v2..
    def edit_overwrite(self, data: bytes, kind: str) -> bytes:
        rng = self.rng
        data = bytearray(data)
        size = len(data)
        touched = 0
        for _ in range(rng.randint(1, 4)):
            n = rng.randint(1, max(1, min(64 * KIB, size // 16)))
            off = rng.randrange(max(1, size - n + 1))
            fresh = self.content.make(kind, n)
            data[off:off + n] = fresh
            touched += len(fresh) + min(size, AVG_CHUNK)
            self.fresh += len(fresh)
        self.unique_est += min(size, touched)
        return bytes(data)

    def edit_shift(self, data: bytes, kind: str) -> bytes:
        rng = self.rng
        size = len(data)
        if rng.random() < 0.5:  # near the start
            off = rng.randrange(max(1, min(size, 64 * KIB, size // 10 + 1)))
        else:  # around the middle
            off = int(size * rng.uniform(0.4, 0.6))
        n = rng.randint(1, max(1, min(32 * KIB, size // 8)))
        if rng.random() < 0.6 or size - off < 2:  # insert
            fresh = self.content.make(kind, n)
            self.fresh += n
            self.unique_est += n + min(size, 2 * AVG_CHUNK)
            return data[:off] + fresh + data[off:]
        n = min(n, size - off - 1)
        self.unique_est += min(size - n, 2 * AVG_CHUNK)
        return data[:off] + data[off + n:]

    def gen_next(self, v: int, root: str, prev_root: str) -> None:
        rng = self.rng
        tv = self.version_time(v)
        old = self.state
        self.state = {}
        for path, e in old.items():
            r = rng.random()
            src = os.path.join(prev_root, path)
            if r < P_DELETE:
                self.taken.discard(path)
                continue
            if r < P_RENAME:
                if rng.random() < 0.5:  # rename within its directory
                    new = self.new_path(e.kind, os.path.dirname(path))
                else:  # move to another directory, same name
                    new = self.free_path(rng.choice(self.dirs),
                                         os.path.basename(path))
                self.taken.discard(path)
                self.taken.add(new)
                path = new
            elif r < P_SHIFT and e.size > 0:
                with open(src, "rb") as f:
                    data = f.read()
                if r < P_OVERWRITE:
                    data = self.edit_overwrite(data, e.kind)
                else:
                    data = self.edit_shift(data, e.kind)
                e = Entry(e.kind, len(data), tv - rng.randrange(7 * 86400))
                self.state[path] = e
                full = os.path.join(root, path)
                self.makedirs_for(root, path)
                self.write_bytes(full, data)
                os.utime(full, (e.mtime, e.mtime))
                continue
            self.state[path] = e
            full = os.path.join(root, path)
            self.makedirs_for(root, path)
            self.copy(src, full)
            os.utime(full, (e.mtime, e.mtime))
        # Added files: mostly fresh, some copies of files already present.
        existing = list(self.state)
        for _ in range(max(1, int(len(old) * P_ADD))):
            mtime = tv - rng.randrange(7 * 86400)
            if existing and rng.random() < P_DUP_NEW:
                path = self.add_duplicate(root, rng.choice(existing), root, mtime)
            else:
                size = self.sample_size()
                kind = self.kind_for(size)
                path = self.new_path(kind)
                self.taken.add(path)
                self.state[path] = Entry(kind, size, mtime)
                self.makedirs_for(root, path)
                self.write_fresh(os.path.join(root, path), kind, size)
            full = os.path.join(root, path)
            os.utime(full, (mtime, mtime))
        self.write_specials(root, prev_root)

    def finish_version(self, v: int, root: str) -> None:
        """Deterministic mtimes for v1's files and every directory."""
        if v == 1:
            for path, e in self.state.items():
                os.utime(os.path.join(root, path), (e.mtime, e.mtime))
        tv = self.version_time(v)
        for dirpath, dirnames, filenames in os.walk(root):
            os.utime(dirpath, (tv, tv))

    def run(self, out: str, total: int, nfiles: int, versions: int) -> None:
        prev: str | None = None
        for v in range(1, versions + 1):
            root = os.path.join(out, f"v{v}")
            os.makedirs(root)
            if v == 1:
                self.gen_first(root, total, nfiles)
            else:
                assert prev is not None
                self.gen_next(v, root, prev)
            self.finish_version(v, root)
            prev = root


def prepare_out(out: str, force: bool) -> None:
    if os.path.lexists(out) and not os.path.isdir(out):
        die(f"'{out}' exists and is not a directory")
    if os.path.isdir(out) and os.listdir(out):
        if not force:
            die(f"'{out}' is not empty (use --force to overwrite)")
        # Only what we would write is removed: the v<N> trees.
        for name in os.listdir(out):
            full = os.path.join(out, name)
            if re.fullmatch(r"v\d+", name) and os.path.isdir(full) \
                    and not os.path.islink(full):
                shutil.rmtree(full)
    os.makedirs(out, exist_ok=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog=PROG,
        description="Write a deterministic multi-version dataset for backup "
                    "tests and benchmarks: OUT/v1, OUT/v2, ... each a full tree.")
    ap.add_argument("--out", required=True, metavar="DIR",
                    help="output directory (must be empty unless --force)")
    ap.add_argument("--seed", type=int, default=1,
                    help="random seed; same seed, same bytes (default 1)")
    ap.add_argument("--preset", choices=sorted(PRESETS),
                    help="tiny (~8 MiB, CI), small (~48 MiB, README default), "
                         "paper (>2.1 GiB unique, >=1000 2 MiB containers); "
                         f"default {DEFAULT_PRESET}")
    ap.add_argument("--size", type=parse_size, metavar="SIZE",
                    help="unique size of the first version: 64M, 2G, ... "
                         "(overrides the preset)")
    ap.add_argument("--versions", type=positive_int, metavar="N",
                    help="number of versions (default 3)")
    ap.add_argument("--files", type=positive_int, metavar="N",
                    help="files in the first version (default: from --size)")
    ap.add_argument("--shape", choices=("mixed", "source"), default="mixed",
                    help="file sizes: mixed (default: mostly a few KiB, some "
                         "of hundreds of KiB and MiB) or source (a source-code "
                         "tree: median ~8 KiB, at most 512 KiB, 85%% text)")
    ap.add_argument("--odd-names", action="store_true",
                    help="add names with spaces, a newline, UTF-8, a leading "
                         "dash, an empty file, an empty dir and symlinks")
    ap.add_argument("--force", action="store_true",
                    help="write into a non-empty DIR, replacing its v<N> trees")
    args = ap.parse_args(option_values(ap, sys.argv[1:] if argv is None else argv))

    preset = PRESETS[args.preset or DEFAULT_PRESET]
    total = args.size if args.size is not None else preset["size"]
    versions = args.versions if args.versions is not None else preset["versions"]

    prepare_out(args.out, args.force)
    t0 = time.monotonic()
    gen = Generator(args)
    try:
        gen.run(args.out, total, args.files, versions)
    except OSError as e:
        die(f"{e}")
    secs = time.monotonic() - t0
    print(f"{PROG}: {args.out}: {versions} versions, {gen.files_written} files "
          f"({len(gen.state) + sum(1 for s in gen.specials if s[0] == 'file')} "
          f"in v{versions}), {gen.bytes_written} bytes "
          f"({format_bytes(gen.bytes_written, digits=1, largest=3)}) written, ~{format_bytes(gen.unique_est, digits=1, largest=3)} "
          f"unique, seed {args.seed}, {secs:.1f} s")
    return 0
