# src/util: small shared helpers (errors, queues, file I/O).
libdestor_a_SOURCES += src/util/error.c src/util/error.h
