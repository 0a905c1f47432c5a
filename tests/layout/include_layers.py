#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""include_layers.py: the layer rule of src/ (docs/ARCHITECTURE.md), held
against the code's own #include lines: every source file sits in a folder
of src/ (none loose), and no two folders include each other, directly or
round a longer circle. A circle is printed with one include that closes
it, so the fix is plain; on success the folders are printed bottom up.

src/cache is held to a fixed order besides (CACHE_LAYERS): a folder there
includes only folders of a lower rank, so an upward include fails even
before it closes a circle, and a new folder fails until it is given its
rank.
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)

# src/cache's folders, bottom up (docs/ARCHITECTURE.md, "The cache as
# components"); folders of one rank (the two granularities' policies, the
# layouts, the two caches) do not include each other. Every folder
# cache/layouts/NAME is a layout, of the layouts' rank, listed or not: a
# new layout is its folder and its registry line (cache_dir.h).
CACHE_LAYERS = [
    ("cache/policy",),
    ("cache/structures",),
    ("cache/common",),
    ("cache/admission",),
    ("cache/policies/container", "cache/policies/chunk"),
    ("cache/policies",),
    ("cache/layouts",),
    ("cache/layouts/log", "cache/layouts/buckets"),
    ("cache/config",),
    ("cache/container", "cache/chunk"),
]
CACHE_RANK = {folder: rank for rank, folders in enumerate(CACHE_LAYERS) for folder in folders}
LAYOUT_RANK = CACHE_RANK["cache/layouts/log"]


def rank_of(folder):
    """A folder's rank in CACHE_LAYERS (a layout's folder: the layouts'),
    or None."""
    parts = folder.split("/")
    if folder not in CACHE_RANK and len(parts) == 3 and parts[:2] == ["cache", "layouts"]:
        return LAYOUT_RANK
    return CACHE_RANK.get(folder)


def folder_of(rel):
    """cache/core/x.c -> cache/core: a file's folder below src/."""
    return os.path.dirname(rel)


def read_graph(src):
    edges = {}    # folder -> {folder: "file includes header"}
    loose = []
    for root, _, names in os.walk(src):
        for name in names:
            if not name.endswith((".c", ".h")):
                continue
            path = os.path.join(root, name)
            rel = os.path.relpath(path, src)
            here = folder_of(rel)
            if here == "":
                loose.append(rel)
            edges.setdefault(here, {})
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read()
            for inc in INCLUDE.findall(text):
                target = inc if os.path.exists(os.path.join(src, inc)) else os.path.join(here, inc)
                if not os.path.exists(os.path.join(src, target)):
                    continue  # a test helper or generated header, not a folder of src/
                there = folder_of(os.path.normpath(target))
                if there != here:
                    edges[here].setdefault(there, "%s includes %s" % (rel, inc))
    return edges, loose


def in_cache(folder):
    return folder == "cache" or folder.startswith("cache/")


def cache_order(edges):
    """FAIL lines: a folder of src/cache without a rank, an include up or
    sideways among them."""
    out = []
    for here in sorted(f for f in edges if in_cache(f)):
        if rank_of(here) is None:
            out.append("FAIL: src/%s has no place in CACHE_LAYERS (tests/layout/include_layers.py)" % here)
            continue
        for there, why in sorted(edges[here].items()):
            if in_cache(there) and rank_of(there) is not None and rank_of(there) >= rank_of(here):
                out.append("FAIL: %s includes %s, which is not below it: %s" % (here, there, why))
    return out


def circles(edges):
    """Strongly connected components of more than one folder (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, {}):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def bottom_up(edges):
    order, done = [], set()

    def place(v):
        if v in done:
            return
        done.add(v)
        for w in sorted(edges.get(v, {})):
            place(w)
        order.append(v)

    for v in sorted(edges):
        place(v)
    return order


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.environ["TOP_SRCDIR"], "src")
    edges, loose = read_graph(src)
    ok = True
    for rel in sorted(loose):
        print("FAIL: src/%s is loose in src/: every file belongs to the folder of its role" % rel)
        ok = False
    for line in cache_order(edges):
        print(line)
        ok = False
    for comp in circles(edges):
        ok = False
        print("FAIL: these folders include each other: %s" % ", ".join(comp))
        for a in comp:
            for b in comp:
                if b in edges.get(a, {}):
                    print("  %s -> %s: %s" % (a, b, edges[a][b]))
    if not ok:
        return 1
    print("# folders of src/, bottom up: %s" % " < ".join(bottom_up(edges)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
