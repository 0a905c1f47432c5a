# SPDX-License-Identifier: GPL-3.0-or-later
# tests/manifest.mk: every test of `make check`, declared once, here; the
# module fragments (local.mk, *.mk) only build the programs and shims the
# tests use. A test is listed in exactly one group, named by its tier and by
# where scripts/test.sh runs it:
#
#   tier   QUICK  the developer's loop: `make check-quick` (about 5 minutes)
#          SLOW   kill sweeps, property tests, fault sweeps, the policies
#                 against their reference models, the experiment scripts'
#                 tests, RADOS, valgrind (`make check` runs both tiers)
#   where  STORE  our C code on `pool` stores it makes: run in the plain
#                 build, again on `container-store files` stores, and again
#                 under the sanitizers
#          C      our C code (a store kind of its own, no container, or
#                 only reads through the container seam): the plain build
#                 and the sanitizers
#          PLAIN  Python tools, the build and install, layout rules, and
#                 valgrind (which cannot run beside ASan): the plain build
#
# distcheck runs the QUICK tier from the release tarball. tests/layout's
# manifest check fails when a test is listed twice, or a test file is in
# no group.

# The CUnit programs (check_PROGRAMS of their modules), each a few seconds.
QUICK_UNIT_TESTS = \
	tests/unit/test_cli_text \
	tests/unit/test_bounded_queue \
	tests/unit/test_file_replace \
	tests/unit/test_file_digest \
	tests/unit/test_chunking \
	tests/unit/test_container \
	tests/unit/test_container_writer \
	tests/unit/test_chunk_read \
	tests/unit/test_fp_sampled \
	tests/unit/test_segmenting \
	tests/unit/test_index_recipe \
	tests/unit/test_manifest_versions \
	tests/unit/test_file_status \
	tests/unit/test_policy \
	tests/unit/test_policy_field \
	tests/unit/test_policy_offline \
	tests/unit/test_policy_minisim \
	tests/unit/test_policy_wlfu \
	tests/unit/test_cache_core \
	tests/unit/test_cache_reader \
	tests/unit/test_cache_compress \
	tests/unit/test_cache_config \
	tests/unit/test_cache_stats \
	tests/unit/test_slot_heap \
	tests/unit/test_structure_checks \
	tests/unit/test_access_counts \
	tests/unit/test_chunk_cache \
	tests/unit/test_chunk_cache_real \
	tests/unit/test_chunk_cache_readers \
	tests/unit/test_admission \
	tests/unit/test_chunk_log \
	tests/unit/test_chunk_log_reinsert \
	tests/unit/test_chunk_buckets \
	tests/unit/test_chunk_layout \
	tests/unit/test_config \
	tests/unit/test_chunk_worker \
	tests/unit/test_block_hasher \
	tests/unit/test_rewrite_policy \
	tests/unit/test_segment_stage \
	tests/unit/test_chunk_source \
	tests/unit/test_prefetch_source \
	tests/unit/test_restore_cache \
	tests/unit/test_chunk_recorder \
	tests/unit/test_record_cache \
	tests/unit/test_lifecycle \
	tests/unit/test_compiled_trace \
	tests/unit/test_trace_line \
	tests/unit/test_trace_summary \
	tests/unit/test_restore_hostile \
	tests/unit/test_mount_dir \
	tests/unit/test_file_output

# Writing, damaging, verifying and freeing containers.
QUICK_STORE_TESTS = \
	tests/e2e/rewrite.sh \
	tests/e2e/gc_disk_full.sh \
	tests/e2e/gc_cache.sh \
	tests/e2e/delete_gc.sh \
	tests/e2e/verify.sh \
	tests/e2e/backup_restore.sh \
	tests/e2e/gc_full_fs.sh \
	tests/e2e/index_damage.sh \
	tests/e2e/retention.sh \
	tests/e2e/verify_during_backup.sh \
	tests/e2e/workers.sh \
	tests/e2e/files_cache.sh \
	tests/e2e/later_job_syncs.sh

# The command line, the read paths, the SSD cache, traces and indexes.
QUICK_C_TESTS = \
	tests/e2e/planted_dirs.sh \
	tests/e2e/planted_subdir.sh \
	tests/e2e/planted_links.sh \
	tests/e2e/pool_loss.sh \
	tests/e2e/fp_index.sh \
	tests/e2e/restore_caches.sh \
	tests/e2e/chunk_cache_real.sh \
	tests/e2e/chunk_log_reinsert.sh \
	tests/e2e/ssd_cache.sh \
	tests/e2e/container_store.sh \
	tests/e2e/compiled_trace_chunks.sh \
	tests/e2e/json_paths.sh \
	tests/e2e/range_read.sh \
	tests/e2e/chunk_cache_buckets.sh \
	tests/e2e/cli.sh \
	tests/e2e/mount.sh \
	tests/e2e/locking.sh \
	tests/e2e/file_digest.sh \
	tests/e2e/compiled_trace.sh \
	tests/e2e/cache_compression.sh \
	tests/e2e/chunkers.sh \
	tests/e2e/chunk_cache.sh \
	tests/e2e/chunk_reports.sh \
	tests/e2e/admission.sh \
	tests/e2e/dwpd_budget.sh \
	tests/e2e/offline_bounds.sh \
	tests/e2e/safe_writes.sh \
	tests/e2e/cache_usage_errors.sh \
	tests/e2e/chunk_cache_batch.sh \
	tests/e2e/cache_identity.sh \
	tests/e2e/output_errors.sh \
	tests/e2e/cache_rollback.sh \
	tests/e2e/config_lines.sh \
	tests/e2e/errors.sh \
	tests/e2e/old_store.sh \
	tests/e2e/cache_directory.sh \
	tests/e2e/cache_follow.sh \
	tests/e2e/deep_tree.sh \
	tests/e2e/trace_export.sh \
	tests/e2e/missing_files.sh \
	tests/e2e/changed_while_read.sh \
	tests/e2e/one_file_system.sh \
	tests/e2e/read_file_output.sh \
	tests/e2e/stat_text.sh \
	tests/e2e/trace_export_hostile.sh \
	tests/e2e/restore_conflicts.sh \
	tests/fuzz/run-corpus.sh

QUICK_PLAIN_TESTS = \
	tests/scripts/test_package.py \
	tests/scripts/run-smart-tests.sh \
	tests/scripts/run-gen-dataset-tests.sh \
	tests/scripts/test-apt-install.sh \
	tests/install/install.sh \
	tests/install/man_pages.sh \
	tests/layout/include_layers.py \
	tests/layout/doc_links.py \
	tests/layout/licence_lines.py \
	tests/layout/test_manifest.py \
	tests/layout/dist_contents.sh

SLOW_STORE_TESTS = \
	tests/e2e/kill_delete_gc.sh \
	tests/e2e/kill_gc_copy.sh \
	tests/e2e/kill_near_exact_backup.sh \
	tests/e2e/kill_backup.sh \
	tests/e2e/platform_property.py \
	tests/e2e/lifecycle_property.py

SLOW_C_TESTS = \
	tests/fault/corrupt.py \
	tests/e2e/kill_chunk_log.sh \
	tests/fault/io_backup.py \
	tests/rados/rados_kill.sh \
	tests/rados/rados_kill_lifecycle.sh \
	tests/rados/rados_kill_pull.sh \
	tests/fault/io_read.py \
	tests/e2e/kill_retention.sh \
	tests/e2e/kill_files_backup.sh \
	tests/fault/io_cache.py \
	tests/e2e/big_files.sh \
	tests/policy_ref/run-chunk-reference-models.sh \
	tests/e2e/kill_chunk_buckets.sh \
	tests/policy_ref/run-reference-models.sh \
	tests/policy_ref/run-admission-reference.sh \
	tests/e2e/kill_chunk_cache.sh \
	tests/fault/mutate_recipes.py \
	tests/rados/rados_osd_kill.sh \
	tests/e2e/kill_rewrite.sh \
	tests/rados/rados_store.sh \
	tests/rados/rados_shared.sh \
	tests/rados/rados_index.sh \
	tests/rados/rados_readers.sh \
	tests/rados/rados_mount.sh \
	tests/rados/rados_writers.sh \
	tests/rados/rados_errors.sh \
	tests/e2e/kill_commit_steps.sh \
	tests/e2e/kill_cache_o_direct.sh \
	tests/e2e/fp_index_property.py \
	tests/rados/rados_ops.sh \
	tests/rados/rados_gc.sh \
	tests/fault/read_during_gc.py \
	tests/fault/verify_during_repair.py

SLOW_PLAIN_TESTS = \
	tests/unit/valgrind-unit.sh \
	tests/scripts/run-trace-tests.sh

# The slow tier first, and in each group the longest tests first: make -j2
# starts them in this order, so a long test (valgrind's alone is several
# minutes) runs beside the many short ones instead of alone at the end.
SCRIPT_TESTS = $(SLOW_PLAIN_TESTS) $(SLOW_STORE_TESTS) $(SLOW_C_TESTS) \
	$(QUICK_STORE_TESTS) $(QUICK_C_TESTS) $(QUICK_PLAIN_TESTS)
TESTS = $(SCRIPT_TESTS) $(QUICK_UNIT_TESTS)
EXTRA_DIST += $(SCRIPT_TESTS)

QUICK_TESTS = $(QUICK_UNIT_TESTS) $(QUICK_STORE_TESTS) $(QUICK_C_TESTS) $(QUICK_PLAIN_TESTS)

# The quick tier alone: a developer's edit-test loop, on every core unless
# make was given -j itself.
check-quick:
	@case " $(MAKEFLAGS) " in *" -j"* | *jobserver*) jobs= ;; *) jobs=-j$$(nproc) ;; esac; \
	$(MAKE) $(AM_MAKEFLAGS) $$jobs check TESTS='$(QUICK_TESTS)'

# The groups for scripts/test.sh, a line each: TEST TIER WHERE.
list-tests:
	@for t in $(SLOW_PLAIN_TESTS); do echo "$$t slow plain"; done
	@for t in $(SLOW_STORE_TESTS); do echo "$$t slow store"; done
	@for t in $(SLOW_C_TESTS); do echo "$$t slow c"; done
	@for t in $(QUICK_STORE_TESTS); do echo "$$t quick store"; done
	@for t in $(QUICK_C_TESTS); do echo "$$t quick c"; done
	@for t in $(QUICK_PLAIN_TESTS); do echo "$$t quick plain"; done
	@for t in $(QUICK_UNIT_TESTS); do echo "$$t quick c"; done
.PHONY: check-quick list-tests
