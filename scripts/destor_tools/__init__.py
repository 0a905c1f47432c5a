# SPDX-License-Identifier: GPL-3.0-or-later
"""destor_tools: the code the Python commands in scripts/ share.

Why it exists: gen-trace, import-trace, replay, experiment, compare,
gen-dataset, endurance-compare, smart-sample and smart-diff must fail, read
sizes, print sizes and run destor the same way.  Each of those things is
written once in this package, one module a purpose, and each command is a
module of commands/ with a main() that scripts/pyproject.toml names as its
entry point.  scripts/NAME runs that main() from the source tree (Python
puts scripts/ first on sys.path for a script there), `make install` writes
the same wrapper for pkgdatadir, and `pip install scripts/` installs it.

  commands                                   one module a command
  errors, units, sizes, formatting, options  what every command shares
  destor_runner, child_command               running destor; one command
                                             running another
  trace_draw, trace_import, uniform_trace    writing and importing traces
  policy_replay, parallel_sweep              replaying traces through destor
  result_files, plot_style, pareto           results and figures
  experiment_table, experiment_store,        what `experiment` runs, its
  experiment_points, experiment_report       store, points and report
  overall_experiment, sweep_experiments,     one module an experiment (the
  paper_figures, frontier_experiment,        paper's sweeps share one, and
  robustness_experiment,                     their figures paper_figures)
  fragmentation_experiment,
  granularity_experiment
  progress_bar                               the progress bar
  wear, smart_ctl, smart_sysfs,              S.M.A.R.T. sampling and wear
  smart_samples, smart_diff                  arithmetic (docs/SMART.md)

Standard library only (plot_style imports matplotlib when it draws).
"""
