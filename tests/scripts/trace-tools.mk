# tests/scripts/trace-tools.mk: the trace replayer and experiment scripts of
# issue 4 (scripts/gen-trace, replay, experiment and their shared modules
# scripts/plc_*.py) and their tests; included from Makefile.am. The scripts
# run from the source tree and are not installed. (docs/, with
# docs/EXPERIMENTS.md, is already in EXTRA_DIST.)
TESTS += tests/scripts/run-trace-tests.sh
EXTRA_DIST += \
	scripts/gen-trace \
	scripts/replay \
	scripts/experiment \
	scripts/import-trace \
	scripts/compare \
	tests/scripts/test_trace_compare.py \
	scripts/plc_import.py \
	scripts/plc_sweep.py \
	scripts/plc_plots.py \
	scripts/plc_pareto.py \
	scripts/plc_frontier.py \
	tests/scripts/test_trace_frontier.py \
	tests/scripts/test_trace_plots.py \
	tests/scripts/test_trace_sweeps.py \
	tests/scripts/test_trace_import.py \
	tests/fixtures/traces/msr.csv \
	tests/fixtures/traces/fiu.txt \
	tests/fixtures/traces/libcachesim.csv \
	tests/fixtures/traces/oracle.bin \
	tests/fixtures/traces/ids.txt \
	scripts/plc_common.py \
	scripts/plc_progress.py \
	scripts/plc_destor.py \
	scripts/plc_trace.py \
	scripts/plc_replay.py \
	scripts/plc_results.py \
	tests/scripts/test_trace_tools.py \
	tests/scripts/run-trace-tests.sh \
	tests/scripts/test_trace_writer.py \
	tests/scripts/test_trace_destor_lookup.py \
	tests/scripts/test_trace_options.py
