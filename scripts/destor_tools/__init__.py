# SPDX-License-Identifier: GPL-3.0-or-later
"""destor_tools: the code the Python commands in scripts/ share.

Why it exists: gen-trace, import-trace, replay, experiment, compare,
gen-dataset, endurance-compare, smart-sample and smart-diff must fail, read
sizes, print sizes and run destor the same way.  Each of those things is
written once in this package, one module a purpose, and the commands are
thin command lines over it.  The commands put scripts/ (or, installed,
pkgdatadir) on sys.path and import from here; so do the tests.

  errors, units, sizes, formatting, options  what every command shares
  destor_runner                              running destor, its settings
  trace_draw, trace_import                   writing and importing traces
  policy_replay, parallel_sweep              replaying traces through destor
  result_files, plot_style, pareto,          results, figures and the
  frontier_experiment                        frontier experiment
  progress_bar                               the progress bar
  wear, smart_ctl, smart_sysfs,              S.M.A.R.T. sampling and wear
  smart_samples, smart_diff                  arithmetic (docs/SMART.md)

Standard library only (plot_style imports matplotlib when it draws).
"""
