# SPDX-License-Identifier: GPL-3.0-or-later
# tests/layout: the structure of src/ held against its #include lines, every
# source file's licence line, tests/manifest.mk against the test files, and
# the release tarball against what git tracks
# (the tests themselves are declared in tests/manifest.mk).
