# SPDX-License-Identifier: GPL-3.0-or-later
# src/recipe: job_meta_data records, the recipe offset index, job manifests.
libdestor_a_SOURCES += \
	src/recipe/file_record.c src/recipe/file_record.h \
	src/recipe/job_meta.c src/recipe/job_meta.h \
	src/recipe/recipe_index.c src/recipe/recipe_index.h \
	src/recipe/job_catalog.c src/recipe/job_catalog.h \
	src/recipe/job_tombstone.c src/recipe/job_tombstone.h \
	src/recipe/file_status.c src/recipe/file_status.h \
	src/recipe/refcount_recount.c src/recipe/refcount_recount.h

check_PROGRAMS += tests/unit/test_index_recipe
tests_unit_test_index_recipe_SOURCES = tests/unit/test_index_recipe.c tests/unit/unit.h tests/unit/unit_tmpdir.h
tests_unit_test_index_recipe_LDADD = $(UNIT_LIBS)

check_PROGRAMS += tests/unit/test_manifest_versions
tests_unit_test_manifest_versions_SOURCES = tests/unit/test_manifest_versions.c tests/unit/unit.h tests/unit/unit_tmpdir.h
tests_unit_test_manifest_versions_LDADD = $(UNIT_LIBS)
