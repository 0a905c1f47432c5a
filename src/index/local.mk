# SPDX-License-Identifier: GPL-3.0-or-later
# src/index: the fingerprint index (memory table + Berkeley DB).
libdestor_a_SOURCES += src/index/fp_index.c src/index/fp_index.h
