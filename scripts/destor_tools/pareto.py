# SPDX-License-Identifier: GPL-3.0-or-later
"""pareto: the Pareto frontier of (cost, gain) points, here SSD bytes
written against hit ratio.

Why it exists: experiment frontier asks which configurations no other one
beats on both counts, and how far each one is from the best hit ratio its
own write volume could buy.  The definition is kept in one small place,
free of destor and plotting, so it can be tested on hand-worked points.

A point (w, h) is on the frontier when no other point has h' >= h and
w' <= w with at least one of the two strict.  So equal points (duplicates)
are all on it, a point with the same hit ratio but more writes is not, and
a single point is.  The frontier as a curve is F(w) = the highest h among
the points with at most w written: a step function, defined from the
smallest w on.
"""

from typing import Sequence


def on_frontier(points: Sequence[tuple[float, float]]) -> list[bool]:
    """[(w, h), ...] -> [bool, ...]: which points are on the frontier.
    Points are taken in order of w; within one w only those with the
    largest h can be on it, and they are when that h is above every h of a
    smaller w."""
    order = sorted(range(len(points)), key=lambda i: points[i][0])
    flags = [False] * len(points)
    best = None  # the highest h among the points of smaller w seen so far
    k = 0
    while k < len(order):
        w = points[order[k]][0]
        group = []
        while k < len(order) and points[order[k]][0] == w:
            group.append(order[k])
            k += 1
        top = max(points[i][1] for i in group)
        if best is None or top > best:
            for i in group:
                flags[i] = points[i][1] == top
            best = top
    return flags


def best_within(points: Sequence[tuple[float, float]], w: float) -> float | None:
    """F(w): the highest h among the points with at most w written (None
    when every point writes more)."""
    hs = [h for pw, h in points if pw <= w]
    return max(hs) if hs else None


def gap_below(points: Sequence[tuple[float, float]], point: tuple[float, float]) -> float | None:
    """How far `point` is below the frontier of `points` at its own write
    volume: F(w) - h, never negative when `point` is one of `points`."""
    best = best_within(points, point[0])
    return None if best is None else best - point[1]
