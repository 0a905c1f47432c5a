# src/cache: the SSD container cache (policies, core, config, statistics),
# its unit tests and its simulation benchmark (docs/CACHE.md).
CACHE_SOURCES = \
	src/cache/policy.h src/cache/policy_registry.c src/cache/policy_keys.c src/cache/slot_list.h \
	src/cache/policy_list.c src/cache/policy_list.h \
	src/cache/fifo.c src/cache/lru.c src/cache/lfu.c src/cache/plc.c \
	src/cache/slot_queues.h src/cache/ghost_list.h src/cache/slru.h src/cache/slot_heap.h \
	src/cache/frequency_sketch.h src/cache/count_min16.h src/cache/slot_map.h \
	src/cache/access_counts.c src/cache/access_counts.h \
	src/cache/clock.c src/cache/twoq.c src/cache/arc.c src/cache/larc.c \
	src/cache/s3fifo.c src/cache/sieve.c src/cache/tinylfu.c src/cache/wtinylfu.c \
	src/cache/sigpop.c src/cache/belady.c src/cache/offline_static.c \
	src/cache/cache_config.c src/cache/cache_config.h \
	src/cache/device_model.c src/cache/device_model.h \
	src/cache/cache_stats.c src/cache/cache_stats.h \
	src/cache/cache_meta.c src/cache/cache_meta.h \
	src/cache/ssd_store.c src/cache/ssd_store.h \
	src/cache/cache_core_internal.h \
	src/cache/cache_core.c src/cache/cache_core.h \
	src/cache/cache_persist.c src/cache/cache_report.c
libdestor_a_SOURCES += $(CACHE_SOURCES)

CACHE_TESTS = tests/unit/test_policy tests/unit/test_policy_field tests/unit/test_policy_offline \
	tests/unit/test_cache_core \
	tests/unit/test_cache_config tests/unit/test_cache_stats tests/unit/test_slot_heap \
	tests/unit/test_access_counts
check_PROGRAMS += $(CACHE_TESTS) tests/bench/bench_cache_sim
TESTS += $(CACHE_TESTS)
tests_unit_test_policy_SOURCES = tests/unit/test_policy.c tests/unit/test_cache_util.h
tests_unit_test_policy_LDADD = $(UNIT_LIBS)
tests_unit_test_policy_field_SOURCES = tests/unit/test_policy_field.c tests/unit/test_cache_util.h
tests_unit_test_policy_field_LDADD = $(UNIT_LIBS)
tests_unit_test_policy_offline_SOURCES = tests/unit/test_policy_offline.c tests/unit/test_cache_util.h
tests_unit_test_policy_offline_LDADD = $(UNIT_LIBS)
tests_unit_test_cache_core_SOURCES = tests/unit/test_cache_core.c tests/unit/test_cache_util.h
tests_unit_test_cache_core_LDADD = $(UNIT_LIBS)
tests_unit_test_cache_config_SOURCES = tests/unit/test_cache_config.c
tests_unit_test_cache_config_LDADD = $(UNIT_LIBS)
tests_unit_test_cache_stats_SOURCES = tests/unit/test_cache_stats.c
tests_unit_test_cache_stats_LDADD = $(UNIT_LIBS)
tests_unit_test_slot_heap_SOURCES = tests/unit/test_slot_heap.c
tests_unit_test_slot_heap_LDADD = $(UNIT_LIBS)
tests_unit_test_access_counts_SOURCES = tests/unit/test_access_counts.c tests/unit/test_cache_util.h
tests_unit_test_access_counts_LDADD = $(UNIT_LIBS)
tests_bench_bench_cache_sim_SOURCES = tests/bench/bench_cache_sim.c
tests_bench_bench_cache_sim_LDADD = $(UNIT_LIBS)
