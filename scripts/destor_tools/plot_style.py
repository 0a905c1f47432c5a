# SPDX-License-Identifier: GPL-3.0-or-later
"""plot_style: how every figure of the trace and endurance tools looks.

Why it exists: a reader compares figures side by side, so a policy must
keep its colour and marker from one figure to the next (one table here,
covering every policy name, unknown ones by a stable hash), every figure is
written in the formats asked for, absolute quantities start at zero, value
labels share one precision, tick labels do not overlap and every axis
states its unit.  experiment and endurance-compare draw with these helpers.
"""

import hashlib
import math
import os
from typing import Any, Sequence
from .errors import UsageError
from .units import GIB, KIB, MIB


FORMATS = ("png", "pdf", "svg")

# One colour (colour-blind-friendly, Okabe-Ito and Tol) and marker per policy.
POLICY_STYLE = {
    "none": ("#7f7f7f", "x"),
    "fifo": ("#56b4e9", "s"),
    "lru": ("#0072b2", "o"),
    "lfu": ("#009e73", "^"),
    "lfu-incache": ("#cc79a7", "v"),
    "plc": ("#d55e00", "D"),
    "clock": ("#e69f00", "<"),
    "2q": ("#882255", ">"),
    "arc": ("#117733", "p"),
    "larc": ("#44aa99", "h"),
    "s3fifo": ("#332288", "*"),
    "sieve": ("#aa4499", "P"),
    "tinylfu": ("#999933", "X"),
    "wtinylfu": ("#ddcc77", "d"),
    "sigpop": ("#ee3377", "s"),
    "adapt": ("#bb5566", "o"),
    "minisim": ("#228833", "*"),
    "wlfu": ("#4477aa", "D"),
    "belady": ("#000000", "8"),
    "offline-static": ("#661100", "H"),
}
_SPARE_COLOURS = ("#6699cc", "#994455", "#997700", "#5e3c99", "#1b7837", "#b2182b", "#4393c3",
                  "#8c510a")
_SPARE_MARKERS = ("o", "s", "^", "v", "D", "<", ">", "p", "h", "*")

POLICY_LABELS = {"none": "HDD only", "fifo": "FIFO", "lru": "LRU", "lfu": "LFU",
                 "lfu-incache": "LFU (in-cache)", "plc": "PLC-Cache", "clock": "CLOCK", "2q": "2Q",
                 "arc": "ARC", "larc": "LARC", "s3fifo": "S3-FIFO", "sieve": "SIEVE",
                 "tinylfu": "TinyLFU", "wtinylfu": "W-TinyLFU", "sigpop": "sigpop",
                 "adapt": "adapt", "minisim": "minisim", "wlfu": "wlfu",
                 "belady": "Belady (offline)",
                 "offline-static": "offline static"}


def policy_style(name: str) -> tuple[str, str]:
    """(colour, marker) of a policy; a name not in the table gets a pair
    chosen by a hash of the name, the same in every run and figure."""
    if name in POLICY_STYLE:
        return POLICY_STYLE[name]
    h = int(hashlib.sha256(name.encode("utf-8")).hexdigest(), 16)
    return _SPARE_COLOURS[h % len(_SPARE_COLOURS)], _SPARE_MARKERS[(h // 7) % len(_SPARE_MARKERS)]


def policy_label(name: str) -> str:
    return POLICY_LABELS.get(name, name)


def parse_formats(text: str) -> list[str]:
    """'png,pdf,svg' -> ['png', 'pdf', 'svg']."""
    out = []
    for f in (text or "").split(","):
        f = f.strip().lower()
        if not f:
            continue
        if f not in FORMATS:
            raise UsageError("unknown figure format %r (png, pdf or svg)" % f)
        if f not in out:
            out.append(f)
    if not out:
        raise UsageError("--format names no figure format")
    return out


def pyplot() -> Any:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def save(fig: Any, outdir: str, stem: str, formats: Sequence[str]) -> list[str]:
    """Write the figure once per format; returns the paths, PNG first when
    it is asked for (reports embed it)."""
    paths = []
    for f in formats:
        path = os.path.join(outdir, "%s.%s" % (stem, f))
        fig.savefig(path, dpi=110 if f == "png" else None)
        paths.append(path)
    pyplot().close(fig)
    return paths


def decimals_for(values: Sequence[float | None], significant: int = 3) -> int:
    """Decimals that give the largest value `significant` significant digits;
    every label of one figure uses them, so labels share one precision."""
    finite = [abs(v) for v in values if v is not None and math.isfinite(v) and v != 0]
    if not finite:
        return 0
    digits = int(math.floor(math.log10(max(finite)))) + 1
    return max(0, significant - digits)


def label_bars(ax: Any, bars: Any, values: Sequence[float | None], decimals: int,
               errors: Sequence[float | None] | None = None) -> None:
    """Each bar's value above it (above its error bar when it has one)."""
    for k, (b, v) in enumerate(zip(bars, values)):
        if v is None or not math.isfinite(v):
            continue
        e = errors[k] if errors else None
        top = b.get_height() + (e if e is not None and math.isfinite(e) else 0)
        ax.annotate("%.*f" % (decimals, v), (b.get_x() + b.get_width() / 2, top),
                    xytext=(0, 2), textcoords="offset points", ha="center", va="bottom", fontsize=8)


def fit_category_ticks(ax: Any, fig: Any, labels: Sequence[str]) -> None:
    """Category tick labels that do not overlap: drawn level, and slanted
    when any two of them (measured as rendered) would touch."""
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels(labels)
    slant_if_colliding(ax, fig)


def slant_if_colliding(ax: Any, fig: Any) -> None:
    """Slant the x tick labels when any two of them would touch."""
    if labels_collide(fig, ax.get_xticklabels()):
        for t in ax.get_xticklabels():
            t.set_rotation(30)
            t.set_ha("right")
            t.set_rotation_mode("anchor")


def labels_collide(fig: Any, texts: Sequence[Any], pad: float = 4) -> bool:
    """Do any two of these rendered texts overlap (or come within `pad`
    pixels) horizontally?"""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    boxes = sorted((t.get_window_extent(renderer) for t in texts if t.get_text()),
                   key=lambda b: b.x0)
    return any(b.x0 < a.x1 + pad for a, b in zip(boxes, boxes[1:]))


def byte_unit(values: Sequence[float | None]) -> tuple[float, str]:
    m = max([v for v in values if v is not None and math.isfinite(v)] or [0])
    for scale, unit in ((GIB, "GiB"), (MIB, "MiB"), (KIB, "KiB")):
        if m >= scale:
            return scale, unit
    return 1, "bytes"
