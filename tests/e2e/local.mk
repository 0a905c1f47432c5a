# SPDX-License-Identifier: GPL-3.0-or-later
# tests/e2e: end-to-end shell tests of the destor binary.
E2E_TESTS = \
	tests/e2e/backup_restore.sh \
	tests/e2e/restore_caches.sh \
	tests/e2e/retention.sh \
	tests/e2e/chunkers.sh \
	tests/e2e/errors.sh \
	tests/e2e/output_errors.sh \
	tests/e2e/json_paths.sh \
	tests/e2e/cli.sh \
	tests/e2e/index_damage.sh \
	tests/e2e/big_files.sh \
	tests/e2e/cache_identity.sh \
	tests/e2e/deep_tree.sh \
	tests/e2e/kill_backup.sh \
	tests/e2e/kill_commit_steps.sh \
	tests/e2e/locking.sh \
	tests/e2e/one_file_system.sh \
	tests/e2e/missing_files.sh \
	tests/e2e/pool_loss.sh \
	tests/e2e/ssd_cache.sh \
	tests/e2e/chunk_cache.sh \
	tests/e2e/chunk_cache_real.sh \
	tests/e2e/chunk_cache_batch.sh \
	tests/e2e/chunk_cache_buckets.sh \
	tests/e2e/range_read.sh \
	tests/e2e/compiled_trace.sh \
	tests/e2e/compiled_trace_chunks.sh \
	tests/e2e/offline_bounds.sh \
	tests/e2e/trace_export.sh \
	tests/e2e/read_file_output.sh \
	tests/e2e/verify.sh \
	tests/e2e/verify_during_backup.sh \
	tests/e2e/workers.sh \
	tests/e2e/safe_writes.sh \
	tests/e2e/changed_while_read.sh \
	tests/e2e/config_lines.sh \
	tests/e2e/rewrite.sh \
	tests/e2e/kill_rewrite.sh \
	tests/e2e/stat_text.sh \
	tests/e2e/cache_rollback.sh \
	tests/e2e/cache_follow.sh \
	tests/e2e/cache_directory.sh \
	tests/e2e/kill_cache_o_direct.sh \
	tests/e2e/kill_chunk_buckets.sh \
	tests/e2e/kill_chunk_log.sh \
	tests/e2e/kill_chunk_cache.sh \
	tests/e2e/cache_compression.sh \
	tests/e2e/trace_export_hostile.sh \
	tests/e2e/container_store.sh \
	tests/e2e/kill_files_backup.sh \
	tests/e2e/old_store.sh \
	tests/e2e/delete_gc.sh \
	tests/e2e/kill_delete_gc.sh \
	tests/e2e/kill_retention.sh \
	tests/e2e/gc_disk_full.sh \
	tests/e2e/gc_full_fs.sh \
	tests/e2e/gc_cache.sh \
	tests/e2e/lifecycle_property.py \
	tests/e2e/platform_property.py \
	tests/e2e/file_digest.sh \
	tests/e2e/fp_index.sh \
	tests/e2e/kill_near_exact_backup.sh \
	tests/e2e/fp_index_property.py
TESTS += $(E2E_TESTS)
EXTRA_DIST += $(E2E_TESTS) tests/e2e/lib.sh tests/e2e/read_sample.py tests/fixtures/store-e803a33
