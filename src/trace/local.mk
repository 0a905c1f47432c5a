# SPDX-License-Identifier: GPL-3.0-or-later
# src/trace: trace formats: text trace records and lines, the replay
# summary, compiled traces (format, stamp, compile, replay) and export.
libdestor_a_SOURCES += \
	src/trace/trace_line.c src/trace/trace_line.h \
	src/trace/trace_reader.c src/trace/trace_reader.h \
	src/trace/trace_summary.c src/trace/trace_summary.h \
	src/trace/compiled_replay.c src/trace/compiled_replay.h \
	src/trace/compiled_trace.c src/trace/compiled_trace.h \
	src/trace/compiled_trace_stamp.c src/trace/compiled_trace_stamp.h \
	src/trace/trace_compile.c src/trace/trace_compile.h \
	src/trace/trace_export.c src/trace/trace_export.h

check_PROGRAMS += tests/unit/test_compiled_trace
tests_unit_test_compiled_trace_SOURCES = tests/unit/test_compiled_trace.c tests/unit/unit.h
tests_unit_test_compiled_trace_LDADD = $(UNIT_LIBS)

check_PROGRAMS += tests/unit/test_trace_summary
tests_unit_test_trace_summary_SOURCES = tests/unit/test_trace_summary.c tests/unit/unit.h
tests_unit_test_trace_summary_LDADD = $(UNIT_LIBS)

check_PROGRAMS += tests/unit/test_trace_line
tests_unit_test_trace_line_SOURCES = tests/unit/test_trace_line.c tests/unit/unit.h
tests_unit_test_trace_line_LDADD = $(UNIT_LIBS)
