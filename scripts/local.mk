# SPDX-License-Identifier: GPL-3.0-or-later
# scripts: the package every Python command imports (scripts/destor_tools/,
# installed into pkgdatadir by man/local.mk), and the tools for S.M.A.R.T.
# wear sampling and the endurance comparison (docs/SMART.md) with their
# tests.
EXTRA_DIST += \
	scripts/destor_tools/__init__.py \
	scripts/destor_tools/errors.py \
	scripts/destor_tools/units.py \
	scripts/destor_tools/sizes.py \
	scripts/destor_tools/formatting.py \
	scripts/destor_tools/options.py \
	scripts/destor_tools/wear.py \
	scripts/destor_tools/destor_runner.py \
	scripts/destor_tools/progress_bar.py \
	scripts/destor_tools/trace_draw.py \
	scripts/destor_tools/trace_import.py \
	scripts/destor_tools/policy_replay.py \
	scripts/destor_tools/parallel_sweep.py \
	scripts/destor_tools/result_files.py \
	scripts/destor_tools/granularity_experiment.py \
	scripts/destor_tools/plot_style.py \
	scripts/destor_tools/pareto.py \
	scripts/destor_tools/frontier_experiment.py \
	scripts/destor_tools/robustness_experiment.py \
	scripts/destor_tools/fragmentation_experiment.py \
	scripts/destor_tools/smart_ctl.py \
	scripts/destor_tools/smart_sysfs.py \
	scripts/destor_tools/smart_samples.py \
	scripts/destor_tools/smart_diff.py

dist_noinst_SCRIPTS += \
	scripts/smart-sample \
	scripts/smart-diff \
	scripts/endurance-compare \
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


# setup.sh's install step, which waits for another apt's locks, and its test
# (a stand-in apt-get; the real apt is never run).
dist_noinst_SCRIPTS += scripts/apt-install.sh tests/scripts/test-apt-install.sh
