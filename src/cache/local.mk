# SPDX-License-Identifier: GPL-3.0-or-later
# src/cache: the SSD cache, its unit tests and its simulation benchmark
# (docs/CACHE.md), one folder a component, bottom up (a folder includes
# only those below it: tests/layout/include_layers.py):
#   policy/             the policy interface and the store-wide access counts policies read
#   structures/         data structures several policies share
#   common/             what both caches share: the cache directory's claim and lock (and the registry of
#                       the formats that may hold it), the codec, the device model, the report figures
#   admission/          the admission axis (admission.h): one file per rule, their registry, the write
#                       budget's bucket and the shared estimate of recent accesses
#   policies/container/ one file per container policy
#   policies/chunk/     one file per chunk policy (and cdac.c, the two CDAC policies' shared part)
#   policies/           the registry of both (one line per policy), their keys, `destor policies`
#   layouts/            the chunk cache's layout seam (chunk_layout.h) and the registry of layouts
#   layouts/log/        the segment log behind the seam
#   layouts/buckets/    AustereCache's buckets behind the seam
#   config/             the cache keys, their parsing and their checks across keys
#   container/          the container cache: slots on the SSD, cache.meta, persistence, its report,
#                       its readers (requests of several threads at once)
#   chunk/              the chunk cache: lookups, admission, offers, real mode's bytes, its report
CACHE_SOURCES = \
	src/cache/policy/access_counts.c \
	src/cache/policy/access_counts.h \
	src/cache/policy/count_min16.h \
	src/cache/policy/frequency_sketch.h \
	src/cache/policy/policy.h \
	src/cache/policy/opt_budget_plan.c \
	src/cache/policy/opt_budget_plan.h \
	src/cache/policy/chunk_policy.h \
	src/cache/structures/ghost_list.h \
	src/cache/structures/slot_heap.h \
	src/cache/structures/slot_list.h \
	src/cache/structures/slot_map.h \
	src/cache/structures/slot_queues.h \
	src/cache/structures/slot_reach.h \
	src/cache/structures/slru.h \
	src/cache/structures/chunk_table.h \
	src/cache/structures/index_list.h \
	src/cache/structures/key_table.h \
	src/cache/structures/open_table.h \
	src/cache/structures/meta_cache.h \
	src/cache/structures/sized_arc.h \
	src/cache/common/cache_codec.c \
	src/cache/common/cache_codec.h \
	src/cache/common/cache_dir.c \
	src/cache/common/cache_dir.h \
	src/cache/common/cache_stats.c \
	src/cache/common/cache_stats.h \
	src/cache/common/report_table.c \
	src/cache/common/report_table.h \
	src/cache/common/device_model.c \
	src/cache/common/device_model.h \
	src/cache/admission/admission.h \
	src/cache/admission/admission_registry.c \
	src/cache/admission/all.c \
	src/cache/admission/bucket.c \
	src/cache/admission/compete.c \
	src/cache/admission/learned.c \
	src/cache/admission/last_seen.h \
	src/cache/admission/value_share.h \
	src/cache/admission/doorkeeper.c \
	src/cache/admission/recent_accesses.h \
	src/cache/admission/write_credit.h \
	src/cache/policies/container/adapt.c \
	src/cache/policies/container/arc.c \
	src/cache/policies/container/belady.c \
	src/cache/policies/container/clock.c \
	src/cache/policies/container/fifo.c \
	src/cache/policies/container/larc.c \
	src/cache/policies/container/lfu.c \
	src/cache/policies/container/lru.c \
	src/cache/policies/container/minisim.c \
	src/cache/policies/container/offline_static.c \
	src/cache/policies/container/opt_budget.c \
	src/cache/policies/container/plc.c \
	src/cache/policies/container/s3fifo.c \
	src/cache/policies/container/sieve.c \
	src/cache/policies/container/sigpop.c \
	src/cache/policies/container/tinylfu.c \
	src/cache/policies/container/twoq.c \
	src/cache/policies/container/wlfu.c \
	src/cache/policies/container/wlfu_rule.h \
	src/cache/policies/container/count_order.h \
	src/cache/policies/container/wtinylfu.c \
	src/cache/policies/chunk/cdac.c \
	src/cache/policies/chunk/cdac.h \
	src/cache/policies/chunk/cdac_arc.c \
	src/cache/policies/chunk/cdac_lru.c \
	src/cache/policies/chunk/chunk_arc.c \
	src/cache/policies/chunk/chunk_austere.c \
	src/cache/policies/chunk/chunk_lru.c \
	src/cache/policies/chunk/chunk_plc.c \
	src/cache/policies/chunk/chunk_sigpop.c \
	src/cache/policies/chunk/chunk_tinylfu.c \
	src/cache/policies/chunk/d_arc.c \
	src/cache/policies/chunk/d_lru.c \
	src/cache/policies/policy_keys.c \
	src/cache/policies/policy_list.c \
	src/cache/policies/policy_list.h \
	src/cache/policies/policy_registry.c \
	src/cache/layouts/chunk_layout.c \
	src/cache/layouts/chunk_layout.h \
	src/cache/layouts/chunk_layout_report.c \
	src/cache/layouts/chunk_layout_report.h \
	src/cache/layouts/log/chunk_layout_log.c \
	src/cache/layouts/log/chunk_log.c \
	src/cache/layouts/log/chunk_log.h \
	src/cache/layouts/log/chunk_log_format.c \
	src/cache/layouts/log/chunk_log_format.h \
	src/cache/layouts/log/chunk_log_index.c \
	src/cache/layouts/log/chunk_log_index.h \
	src/cache/layouts/log/chunk_log_readers.c \
	src/cache/layouts/log/chunk_log_readers.h \
	src/cache/layouts/log/chunk_log_space.c \
	src/cache/layouts/log/chunk_log_space.h \
	src/cache/layouts/buckets/chunk_buckets.c \
	src/cache/layouts/buckets/chunk_buckets.h \
	src/cache/layouts/buckets/chunk_buckets_format.c \
	src/cache/layouts/buckets/chunk_buckets_format.h \
	src/cache/layouts/buckets/chunk_buckets_index.c \
	src/cache/layouts/buckets/chunk_buckets_index.h \
	src/cache/layouts/buckets/chunk_buckets_model.c \
	src/cache/layouts/buckets/chunk_buckets_model.h \
	src/cache/layouts/buckets/chunk_buckets_place.c \
	src/cache/layouts/buckets/chunk_buckets_place.h \
	src/cache/layouts/buckets/chunk_buckets_sketch.c \
	src/cache/layouts/buckets/chunk_buckets_sketch.h \
	src/cache/layouts/buckets/chunk_layout_buckets.c \
	src/cache/config/cache_config.c \
	src/cache/config/cache_config.h \
	src/cache/container/cache_core.c \
	src/cache/container/cache_core.h \
	src/cache/container/cache_core_internal.h \
	src/cache/container/cache_meta.c \
	src/cache/container/cache_meta.h \
	src/cache/container/cache_persist.c \
	src/cache/container/cache_reader.c \
	src/cache/container/cache_reader.h \
	src/cache/container/cache_report.c \
	src/cache/container/ssd_store.c \
	src/cache/container/ssd_store.h \
	src/cache/chunk/chunk_cache.c \
	src/cache/chunk/chunk_cache.h \
	src/cache/chunk/chunk_cache_internal.h \
	src/cache/chunk/chunk_cache_offer.c \
	src/cache/chunk/chunk_cache_real.c \
	src/cache/chunk/chunk_cache_report.c \
	src/cache/chunk/chunk_cache_stored.c
libdestor_a_SOURCES += $(CACHE_SOURCES)

CACHE_TESTS = tests/unit/test_policy tests/unit/test_policy_field tests/unit/test_policy_offline \
	tests/unit/test_policy_minisim tests/unit/test_policy_wlfu \
	tests/unit/test_cache_core tests/unit/test_cache_reader tests/unit/test_cache_compress \
	tests/unit/test_cache_config tests/unit/test_cache_stats tests/unit/test_slot_heap \
	tests/unit/test_access_counts tests/unit/test_chunk_cache tests/unit/test_structure_checks \
	tests/unit/test_admission tests/unit/test_chunk_cache_real tests/unit/test_chunk_cache_readers
check_PROGRAMS += $(CACHE_TESTS) tests/bench/bench_cache_sim
tests_unit_test_policy_SOURCES = tests/unit/test_policy.c tests/unit/test_cache_util.h
tests_unit_test_policy_LDADD = $(UNIT_LIBS)
tests_unit_test_policy_field_SOURCES = tests/unit/test_policy_field.c tests/unit/test_cache_util.h
tests_unit_test_policy_field_LDADD = $(UNIT_LIBS)
tests_unit_test_policy_offline_SOURCES = tests/unit/test_policy_offline.c tests/unit/test_cache_util.h
tests_unit_test_policy_offline_LDADD = $(UNIT_LIBS)
tests_unit_test_policy_minisim_SOURCES = tests/unit/test_policy_minisim.c tests/unit/test_cache_util.h
tests_unit_test_policy_minisim_LDADD = $(UNIT_LIBS)
tests_unit_test_policy_wlfu_SOURCES = tests/unit/test_policy_wlfu.c tests/unit/test_cache_util.h
tests_unit_test_policy_wlfu_LDADD = $(UNIT_LIBS)
tests_unit_test_cache_core_SOURCES = tests/unit/test_cache_core.c tests/unit/test_cache_util.h
tests_unit_test_cache_core_LDADD = $(UNIT_LIBS)
tests_unit_test_cache_reader_SOURCES = tests/unit/test_cache_reader.c tests/unit/test_cache_util.h
tests_unit_test_cache_reader_LDADD = $(UNIT_LIBS)
tests_unit_test_cache_compress_SOURCES = tests/unit/test_cache_compress.c tests/unit/test_cache_util.h tests/unit/unit_tmpdir.h
tests_unit_test_cache_compress_LDADD = $(UNIT_LIBS)
tests_unit_test_cache_config_SOURCES = tests/unit/test_cache_config.c
tests_unit_test_cache_config_LDADD = $(UNIT_LIBS)
tests_unit_test_cache_stats_SOURCES = tests/unit/test_cache_stats.c
tests_unit_test_cache_stats_LDADD = $(UNIT_LIBS)
tests_unit_test_slot_heap_SOURCES = tests/unit/test_slot_heap.c
tests_unit_test_slot_heap_LDADD = $(UNIT_LIBS)
tests_unit_test_structure_checks_SOURCES = tests/unit/test_structure_checks.c
tests_unit_test_structure_checks_LDADD = $(UNIT_LIBS)
tests_unit_test_access_counts_SOURCES = tests/unit/test_access_counts.c tests/unit/test_cache_util.h
tests_unit_test_access_counts_LDADD = $(UNIT_LIBS)
tests_unit_test_chunk_cache_SOURCES = tests/unit/test_chunk_cache.c
tests_unit_test_chunk_cache_LDADD = $(UNIT_LIBS)
tests_unit_test_chunk_cache_real_SOURCES = tests/unit/test_chunk_cache_real.c tests/unit/unit_tmpdir.h \
	tests/unit/chunk_cache_real_options.h
tests_unit_test_chunk_cache_real_LDADD = $(UNIT_LIBS)
tests_unit_test_chunk_cache_readers_SOURCES = tests/unit/test_chunk_cache_readers.c tests/unit/unit_tmpdir.h \
	tests/unit/chunk_cache_real_options.h
tests_unit_test_chunk_cache_readers_LDADD = $(UNIT_LIBS)
tests_unit_test_admission_SOURCES = tests/unit/test_admission.c tests/unit/test_cache_util.h
tests_unit_test_admission_LDADD = $(UNIT_LIBS)
tests_bench_bench_cache_sim_SOURCES = tests/bench/bench_cache_sim.c
tests_bench_bench_cache_sim_LDADD = $(UNIT_LIBS)
CHUNK_LOG_TESTS = tests/unit/test_chunk_log tests/unit/test_chunk_log_reinsert
check_PROGRAMS += $(CHUNK_LOG_TESTS)
tests_unit_test_chunk_log_SOURCES = tests/unit/test_chunk_log.c tests/unit/chunk_log_series.h
tests_unit_test_chunk_log_LDADD = $(UNIT_LIBS)
tests_unit_test_chunk_log_reinsert_SOURCES = tests/unit/test_chunk_log_reinsert.c tests/unit/chunk_log_series.h
tests_unit_test_chunk_log_reinsert_LDADD = $(UNIT_LIBS)
check_PROGRAMS += tests/bench/bench_chunk_log
tests_bench_bench_chunk_log_SOURCES = tests/bench/bench_chunk_log.c
tests_bench_bench_chunk_log_LDADD = $(UNIT_LIBS)
CHUNK_BUCKETS_TESTS = tests/unit/test_chunk_buckets
check_PROGRAMS += $(CHUNK_BUCKETS_TESTS)
tests_unit_test_chunk_buckets_SOURCES = tests/unit/test_chunk_buckets.c
tests_unit_test_chunk_buckets_LDADD = $(UNIT_LIBS)
check_PROGRAMS += tests/bench/bench_chunk_buckets
tests_bench_bench_chunk_buckets_SOURCES = tests/bench/bench_chunk_buckets.c
tests_bench_bench_chunk_buckets_LDADD = $(UNIT_LIBS)
CHUNK_LAYOUT_TESTS = tests/unit/test_chunk_layout
check_PROGRAMS += $(CHUNK_LAYOUT_TESTS)
tests_unit_test_chunk_layout_SOURCES = tests/unit/test_chunk_layout.c
tests_unit_test_chunk_layout_LDADD = $(UNIT_LIBS)
