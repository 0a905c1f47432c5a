# SPDX-License-Identifier: GPL-3.0-or-later
# tests/scripts/gen-dataset.mk: scripts/gen-dataset and its tests, included
# from Makefile.am.
EXTRA_DIST += tests/scripts/test_gen_dataset.py tests/scripts/run-gen-dataset-tests.sh
