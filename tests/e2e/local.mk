# SPDX-License-Identifier: GPL-3.0-or-later
# tests/e2e: end-to-end tests of the destor binary (each test is declared in
# tests/manifest.mk); their shared helpers and fixtures.
EXTRA_DIST += tests/e2e/lib.sh tests/e2e/mount_lib.sh tests/e2e/read_sample.py tests/fixtures/store-e803a33 tests/fixtures/chunk_reports.txt
