# SPDX-License-Identifier: GPL-3.0-or-later
# tests/scripts/trace-tools.mk: the trace replayer and experiment scripts of
# issue 4 (scripts/gen-trace, replay, experiment; their package
# scripts/destor_tools/ is listed in scripts/local.mk) and their tests;
# included from Makefile.am. (docs/, with docs/EXPERIMENTS.md, is already
# in EXTRA_DIST.)
EXTRA_DIST += \
	tests/scripts/test_trace_compare.py \
	tests/scripts/test_trace_frontier.py \
	tests/scripts/test_trace_robustness.py \
	tests/scripts/test_trace_granularity.py \
	tests/scripts/test_trace_fragmentation.py \
	tests/scripts/test_trace_plots.py \
	tests/scripts/test_trace_sweeps.py \
	tests/scripts/test_trace_import.py \
	tests/fixtures/traces/msr.csv \
	tests/fixtures/traces/fiu.txt \
	tests/fixtures/traces/arc.lis \
	tests/fixtures/traces/umass.spc \
	tests/fixtures/traces/libcachesim.csv \
	tests/fixtures/traces/oracle.bin \
	tests/fixtures/traces/ids.txt \
	tests/scripts/test_trace_tools.py \
	tests/scripts/run-trace-tests.sh \
	tests/scripts/test_trace_writer.py \
	tests/scripts/test_trace_destor_lookup.py \
	tests/scripts/test_trace_options.py
