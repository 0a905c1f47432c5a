# src/trace: compiled traces (format, stamp, compile) and their export.
libdestor_a_SOURCES += \
	src/trace/compiled_trace.c src/trace/compiled_trace.h \
	src/trace/compiled_trace_stamp.c src/trace/compiled_trace_stamp.h \
	src/trace/trace_compile.c src/trace/trace_compile.h
