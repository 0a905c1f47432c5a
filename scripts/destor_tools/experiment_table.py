# SPDX-License-Identifier: GPL-3.0-or-later
"""experiment_table: the experiments `experiment` runs, one entry each:
the paper's figures, what is swept, its default and quick points and its
policies.

Why it exists: the plan, the figures and the report of every experiment
read the same table, so an experiment is added here once.
"""

from typing import Any


PROG = "experiment"

# name -> (paper figures, what is swept, default points, quick points, default policies)
EXPERIMENTS: dict[str, dict[str, Any]] = {
    "overall": {
        "figs": "Figs. 6-9", "fig0": 6, "title": "Overall comparison: HDD only and every online policy",
        "x": None, "values": None, "quick": None,
        "policies": ["none", "all"],  # all: every online policy `destor policies` lists
    },
    "cache-size": {
        "figs": "Figs. 10-12", "fig0": 10, "title": "SSD cache size, 10% to 40% of the stored containers",
        "x": "cache_size_pct", "xlabel": "SSD cache size (% of stored containers)",
        "values": [10, 15, 20, 25, 30, 35, 40], "quick": [10, 20, 40],
        "policies": ["lru", "plc"],
    },
    "alpha": {
        "figs": "Figs. 13-15", "fig0": 13, "title": "Zipf alpha of equation (1), 0.2 to 0.9",
        "x": "alpha", "xlabel": "Zipf alpha (dimensionless; P(i) ~ 1/i^(1-alpha))",
        "values": [0.2, 0.3, 0.4, 0.47, 0.5, 0.6, 0.7, 0.8, 0.9], "quick": [0.2, 0.47, 0.9],
        "policies": ["lru", "plc"],
    },
    "container-size": {
        "figs": "Figs. 16-18", "fig0": 16, "title": "Container size, 128 KiB to 16 MiB (one store per size)",
        "x": "container_size", "xlabel": "container size (bytes, log scale)",
        "values": ["128K", "256K", "512K", "1M", "2M", "4M", "8M", "16M"],
        "quick": ["128K", "256K", "512K"],
        "policies": ["lru", "plc"],
    },
    "filter-threshold": {
        "figs": "Figs. 19-21", "fig0": 19, "title": "PLC-Cache Popularity Filter threshold, 0 to 14",
        "x": "plc_filter_threshold", "xlabel": "Popularity Filter threshold (accesses)",
        "key": "plc-filter-threshold", "default": 4,
        "values": list(range(0, 15)), "quick": [0, 4, 14],
        "policies": ["plc"],
    },
    "delay-threshold": {
        "figs": "Figs. 22-24", "fig0": 22, "title": "PLC-Cache Delayed Eviction threshold, 0 to 14",
        "x": "plc_delay_threshold", "xlabel": "Delayed Eviction threshold (clock sweeps)",
        "key": "plc-delay-threshold", "default": 2,
        "values": list(range(0, 15)), "quick": [0, 2, 14],
        "policies": ["plc"],
    },
    "frontier": {
        "figs": None, "fig0": None, "title": "Hit ratio against SSD bytes written: the Pareto frontier",
        "x": "setting", "values": None, "quick": None,
        "policies": None,  # every policy destor lists, sweeps from frontier_experiment.SWEEPS
    },
    "robustness": {
        "figs": None, "fig0": None, "title": "Every online policy on several workloads and cache sizes",
        "x": "workload", "values": None, "quick": None,
        "policies": ["all"],  # workloads and sizes from robustness_experiment
    },
}
# the paper's experiments, which `all` runs; frontier is beyond the paper
ORDER = ["overall", "cache-size", "alpha", "container-size", "filter-threshold", "delay-threshold"]


def figs_note(name: str) -> str:
    figs = EXPERIMENTS[name]["figs"]
    return "paper %s" % figs if figs else "not in the paper"
