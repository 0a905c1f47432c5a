# SPDX-License-Identifier: GPL-3.0-or-later
# tests/layout: the structure of src/ held against its #include lines, and
# every source file's licence line.
LAYOUT_TESTS = tests/layout/include_layers.py tests/layout/licence_lines.py
TESTS += $(LAYOUT_TESTS)
EXTRA_DIST += $(LAYOUT_TESTS)
