# src/trace: compiled traces (format, stamp, compile) and their export.
libdestor_a_SOURCES += \
	src/trace/compiled_trace.c src/trace/compiled_trace.h \
	src/trace/compiled_trace_stamp.c src/trace/compiled_trace_stamp.h \
	src/trace/trace_compile.c src/trace/trace_compile.h \
	src/trace/trace_export.c src/trace/trace_export.h

check_PROGRAMS += tests/unit/test_compiled_trace
tests_unit_test_compiled_trace_SOURCES = tests/unit/test_compiled_trace.c tests/unit/unit.h
tests_unit_test_compiled_trace_LDADD = $(UNIT_LIBS)
TESTS += tests/unit/test_compiled_trace
