# SPDX-License-Identifier: GPL-3.0-or-later
# src/store: the working directory: store.meta, the writer lock, the pool,
# the committed jobs.
libdestor_a_SOURCES += src/store/store.c src/store/store.h
