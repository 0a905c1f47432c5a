# SPDX-License-Identifier: GPL-3.0-or-later
# scripts: the package every Python command imports (scripts/destor_tools/,
# with scripts/pyproject.toml for pip; installed into pkgdatadir by
# man/local.mk), and the tools for S.M.A.R.T. wear sampling and the
# endurance comparison (docs/SMART.md) with their tests.

# The package, relative to scripts/ (man/local.mk installs it).
DESTOR_TOOLS_PY = \
	destor_tools/__init__.py \
	destor_tools/child_command.py \
	destor_tools/destor_runner.py \
	destor_tools/errors.py \
	destor_tools/experiment_points.py \
	destor_tools/experiment_report.py \
	destor_tools/experiment_store.py \
	destor_tools/experiment_table.py \
	destor_tools/formatting.py \
	destor_tools/fragmentation_experiment.py \
	destor_tools/frontier_experiment.py \
	destor_tools/granularity_experiment.py \
	destor_tools/options.py \
	destor_tools/output_file.py \
	destor_tools/overall_experiment.py \
	destor_tools/paper_figures.py \
	destor_tools/parallel_sweep.py \
	destor_tools/pareto.py \
	destor_tools/plot_style.py \
	destor_tools/policy_replay.py \
	destor_tools/progress_bar.py \
	destor_tools/result_files.py \
	destor_tools/robustness_experiment.py \
	destor_tools/sizes.py \
	destor_tools/smart_ctl.py \
	destor_tools/smart_diff.py \
	destor_tools/smart_samples.py \
	destor_tools/smart_sysfs.py \
	destor_tools/sweep_experiments.py \
	destor_tools/trace_draw.py \
	destor_tools/trace_import.py \
	destor_tools/uniform_trace.py \
	destor_tools/units.py \
	destor_tools/wear.py \
	destor_tools/commands/__init__.py \
	destor_tools/commands/budget_goal.py \
	destor_tools/commands/compare.py \
	destor_tools/commands/endurance_compare.py \
	destor_tools/commands/experiment.py \
	destor_tools/commands/gen_dataset.py \
	destor_tools/commands/gen_trace.py \
	destor_tools/commands/import_trace.py \
	destor_tools/commands/replay.py \
	destor_tools/commands/smart_diff.py \
	destor_tools/commands/smart_sample.py
EXTRA_DIST += $(DESTOR_TOOLS_PY:%=scripts/%) scripts/pyproject.toml

# the type checker's cache (tests/scripts/test_package.py)
clean-local:
	-rm -rf mypy-cache

dist_noinst_SCRIPTS += \
	tests/scripts/run-smart-tests.sh \
	tests/scripts/fake-smartctl \
	tests/scripts/fake-destor

EXTRA_DIST += \
	tests/scripts/test_smart.py \
	tests/fixtures/smart/sata-intel-530.json \
	tests/fixtures/smart/sata-intel-530.advance.json \
	tests/fixtures/smart/sata-crucial-mx500.json \
	tests/fixtures/smart/sata-crucial-mx500.advance.json \
	tests/fixtures/smart/sata-samsung-860evo.json \
	tests/fixtures/smart/sata-samsung-860evo.advance.json \
	tests/fixtures/smart/nvme-samsung-970evoplus.json \
	tests/fixtures/smart/nvme-samsung-970evoplus.advance.json \
	tests/fixtures/smart/sata-vbox-nosmart.json


# the benchmark scripts (their pages are in man/), the quick start's two
# commands and the demo they run
dist_noinst_SCRIPTS += scripts/setup.sh scripts/test.sh scripts/demo.sh \
	scripts/bench-builds.sh scripts/bench-cache.sh scripts/bench-chunk-buckets.sh \
	scripts/bench-chunk-log.sh scripts/bench-compress.sh scripts/bench-container-cache.sh \
	scripts/bench-gc.sh scripts/bench-granularity.sh scripts/bench-index.sh \
	scripts/bench-mount-chunk.sh scripts/bench-mount.sh scripts/bench-opt-budget.sh \
	scripts/bench-rados-list.sh scripts/bench-rados.sh scripts/bench-replay.sh \
	scripts/bench-restore.sh scripts/bench-store.sh scripts/bench-stores.sh

# setup.sh's install step, which waits for another apt's locks, and its test
# (a stand-in apt-get; the real apt is never run).
dist_noinst_SCRIPTS += scripts/apt-install.sh tests/scripts/test-apt-install.sh
