/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_config.c: destor.config parsing: Destor's own file loads, good and
 * bad lines, quoting, -p style overrides, and cross-key validation; a line
 * is a key and exactly the values it takes (issue 28). */
#include "config/config.h"
#include "config/upstream_keys.h"
#include "util/error.h"
#include "unit.h"

#include <string.h>

static gboolean apply(Config *cfg, const char *line, GError **err)
{
    return config_apply_line(cfg, line, "test.config", 3, err);
}

static void test_defaults(void)
{
    Config cfg;
    config_init(&cfg);
    CU_ASSERT_STRING_EQUAL(cfg.working_directory, "working");
    CU_ASSERT_EQUAL(cfg.chunk_algorithm, CHUNK_RABIN);
    CU_ASSERT_EQUAL(cfg.container_size, 2u << 20);
    CU_ASSERT_EQUAL(cfg.fingerprint, FP_SHA1);
    CU_ASSERT_EQUAL(cfg.container_store, CONTAINER_STORE_POOL);
    CU_ASSERT_TRUE(config_validate(&cfg, NULL));
    config_clear(&cfg);
}

static void test_good_lines(void)
{
    Config cfg;
    config_init(&cfg);
    GError *err = NULL;
    CU_ASSERT_TRUE(apply(&cfg, "working-directory \"/tmp/with space/\"  # comment", &err));
    CU_ASSERT_STRING_EQUAL(cfg.working_directory, "/tmp/with space/");
    CU_ASSERT_TRUE(apply(&cfg, "chunk-algorithm \"normalized rabin\"", &err));
    CU_ASSERT_EQUAL(cfg.chunk_algorithm, CHUNK_FASTCDC);
    CU_ASSERT_TRUE(apply(&cfg, "chunk-algorithm fixed", &err));
    CU_ASSERT_EQUAL(cfg.chunk_algorithm, CHUNK_FIXED);
    CU_ASSERT_TRUE(apply(&cfg, "chunk-avg-size 16K", &err));
    CU_ASSERT_EQUAL(cfg.chunk_sizes.avg_size, 16384);
    CU_ASSERT_TRUE(apply(&cfg, "container-size 4M", &err));
    CU_ASSERT_EQUAL(cfg.container_size, 4u << 20);
    CU_ASSERT_TRUE(apply(&cfg, "fingerprint-algorithm sha256", &err));
    CU_ASSERT_EQUAL(cfg.fingerprint, FP_SHA256);
    CU_ASSERT_TRUE(apply(&cfg, "container-store files", &err));
    CU_ASSERT_EQUAL(cfg.container_store, CONTAINER_STORE_FILES);
    CU_ASSERT_TRUE(apply(&cfg, "container-store pool", &err));
    CU_ASSERT_EQUAL(cfg.container_store, CONTAINER_STORE_POOL);
    CU_ASSERT_EQUAL(cfg.file_digest, FILE_DIGEST_NONE); /* unset: the store's own */
    CU_ASSERT_TRUE(apply(&cfg, "file-digest sha256", &err));
    CU_ASSERT_EQUAL(cfg.file_digest, FILE_DIGEST_SHA256);
    CU_ASSERT_TRUE(apply(&cfg, "file-digest xxh3", &err));
    CU_ASSERT_EQUAL(cfg.file_digest, FILE_DIGEST_XXH3);
    CU_ASSERT_TRUE(apply(&cfg, "simulation-level all", &err));
    CU_ASSERT_TRUE(cfg.simulate);
    CU_ASSERT_TRUE(apply(&cfg, "backup-workers 3", &err));
    CU_ASSERT_EQUAL(cfg.backup_workers, 3);
    CU_ASSERT_TRUE(apply(&cfg, "backup-workers auto", &err));
    CU_ASSERT_EQUAL(cfg.backup_workers, 0);
    CU_ASSERT_TRUE(apply(&cfg, "restore-cache lru 64", &err));
    CU_ASSERT_EQUAL(cfg.restore_cache.containers, 64);
    CU_ASSERT_FALSE(cfg.store_read_uncached);
    CU_ASSERT_TRUE(apply(&cfg, "store-read-uncached yes", &err));
    CU_ASSERT_TRUE(cfg.store_read_uncached);
    CU_ASSERT_TRUE(apply(&cfg, "   # only a comment", &err));
    CU_ASSERT_TRUE(apply(&cfg, "", &err));
    CU_ASSERT_TRUE(apply(&cfg, "container-store rados", &err));
    CU_ASSERT_EQUAL(cfg.container_store, CONTAINER_STORE_RADOS);
    CU_ASSERT_STRING_EQUAL(cfg.rados_namespace, "");
    CU_ASSERT_EQUAL(cfg.rados_timeout, 30);
    CU_ASSERT_EQUAL(cfg.rados_lock_duration, 30);
    CU_ASSERT_TRUE(apply(&cfg, "rados-conf \"/etc/ceph/my ceph.conf\"", &err));
    CU_ASSERT_TRUE(apply(&cfg, "rados-pool destor", &err));
    CU_ASSERT_TRUE(apply(&cfg, "rados-namespace host-a", &err));
    CU_ASSERT_TRUE(apply(&cfg, "rados-timeout 5", &err));
    CU_ASSERT_TRUE(apply(&cfg, "rados-lock-duration 3", &err));
    CU_ASSERT_STRING_EQUAL(cfg.rados_conf, "/etc/ceph/my ceph.conf");
    CU_ASSERT_STRING_EQUAL(cfg.rados_pool, "destor");
    CU_ASSERT_STRING_EQUAL(cfg.rados_namespace, "host-a");
    CU_ASSERT_EQUAL(cfg.rados_timeout, 5);
    CU_ASSERT_EQUAL(cfg.rados_lock_duration, 3);
    CU_ASSERT_TRUE(apply(&cfg, "container-store pool", &err));
    CU_ASSERT_TRUE(apply(&cfg, "rewrite-algorithm cbr 2048", &err));
    CU_ASSERT_EQUAL(cfg.rewrite.algorithm, REWRITE_CBR);
    CU_ASSERT_EQUAL(cfg.rewrite.buffer_chunks, 2048);
    CU_ASSERT_TRUE(apply(&cfg, "rewrite-algorithm cap", &err));
    CU_ASSERT_EQUAL(cfg.rewrite.algorithm, REWRITE_CAPPING);
    CU_ASSERT_EQUAL(cfg.rewrite.buffer_chunks, 2048); /* a count stays until another is given */
    CU_ASSERT_TRUE(apply(&cfg, "rewrite-capping-level 7", &err));
    CU_ASSERT_EQUAL(cfg.rewrite.capping_level, 7);
    CU_ASSERT_TRUE(apply(&cfg, "rewrite-cfl-require 0.7", &err));
    CU_ASSERT_DOUBLE_EQUAL(cfg.rewrite.cfl_require, 0.7, 1e-12);
    CU_ASSERT_TRUE(apply(&cfg, "rewrite-enable-har yes", &err));
    CU_ASSERT_TRUE(cfg.rewrite.har);
    CU_ASSERT_TRUE(apply(&cfg, "rewrite-enable-cache-aware yes", &err));
    CU_ASSERT_TRUE(cfg.rewrite.cache_aware);
    CU_ASSERT_TRUE(apply(&cfg, "rewrite-har-rewrite-limit 0", &err));
    CU_ASSERT_DOUBLE_EQUAL(cfg.rewrite.har_rewrite_limit, 0.0, 1e-12);
    CU_ASSERT_PTR_NULL(err);
    config_clear(&cfg);
}

static void expect_bad(const char *line, const char *fragment)
{
    Config cfg;
    config_init(&cfg);
    GError *err = NULL;
    CU_ASSERT_FALSE(apply(&cfg, line, &err));
    CU_ASSERT_PTR_NOT_NULL_FATAL(err);
    CU_ASSERT_EQUAL(err->code, DESTOR_ERROR_CONFIG);
    CU_ASSERT_PTR_NOT_NULL(strstr(err->message, "test.config:3"));
    if (strstr(err->message, fragment) == NULL)
        fprintf(stderr, "\nmessage '%s' lacks '%s'\n", err->message, fragment);
    CU_ASSERT_PTR_NOT_NULL(strstr(err->message, fragment));
    g_error_free(err);
    config_clear(&cfg);
}

static void test_bad_lines(void)
{
    expect_bad("chunk-avg-size banana", "'banana' for chunk-avg-size");
    expect_bad("chunk-algorithm zigzag", "'zigzag' for chunk-algorithm");
    expect_bad("container-size 64K", "'64K' for container-size");
    expect_bad("container-size 32M", "'32M' for container-size");
    expect_bad("fingerprint-algorithm md5", "'md5' for fingerprint-algorithm");
    expect_bad("simulation-level maybe", "'maybe' for simulation-level");
    expect_bad("restore-cache mru 10", "'mru' for restore-cache: expected lru, opt or asm");
    expect_bad("restore-cache asm 1", "'1' for restore-cache: asm needs at least 2");
    expect_bad("restore-cache opt 0", "'0' for restore-cache");
    expect_bad("restore-opt-window-size 0", "'0' for restore-opt-window-size");
    expect_bad("restore-opt-window-size many", "'many' for restore-opt-window-size");
    expect_bad("backup-retention-time 0", "'0' for backup-retention-time");
    expect_bad("backup-retention-time 2.5", "'2.5' for backup-retention-time");
    expect_bad("backup-workers 0", "'0' for backup-workers");
    expect_bad("store-read-uncached sometimes", "'sometimes' for store-read-uncached");
    expect_bad("working-directory", "a value is required");
    expect_bad("working-directory \"unterminated", "unterminated quote");
    expect_bad("container-store ceph", "'ceph' for container-store: expected pool, files or rados");
    expect_bad("rados-timeout 0", "'0' for rados-timeout: expected 1 to 3600 seconds");
    expect_bad("rados-timeout 3601", "'3601' for rados-timeout");
    expect_bad("rados-lock-duration 2", "'2' for rados-lock-duration: expected 3 to 3600 seconds");
    expect_bad("rados-pool \"\"", "'' for rados-pool: must not be empty");
    expect_bad("rados-conf", "rados-conf: a value is required (one path)");
    expect_bad("rados-namespace a b", "rados-namespace takes one name; extra 'b'");
    expect_bad("container-store Files", "'Files' for container-store");
}

/* Issue 28: a line is a key and exactly the values that key takes. */
static void test_extra_words_refused(void)
{
    expect_bad("ssd-cache-size 50 %", "ssd-cache-size takes one value; extra '%' after '50'");
    expect_bad("ssd-cache-policy lru plc", "ssd-cache-policy takes one value; extra 'plc'");
    expect_bad("working-directory /data/store two", "working-directory takes one path; extra 'two'");
    expect_bad("plc-filter-threshold 4 5", "plc-filter-threshold takes one value; extra '5'");
    expect_bad("restore-cache lru 30 40", "extra '40' after '30'");
    expect_bad("chunk-algorithm rabin fixed", "chunk-algorithm takes one name; extra 'fixed'");
    expect_bad("chunk-avg-size 8K 16K", "extra '16K'");
    expect_bad("ssd-cache-policy", "ssd-cache-policy: a value is required");
    expect_bad("plc-filter-threshold", "a value is required");
    expect_bad("restore-cache", "a value is required");
    expect_bad("container-store files pool", "container-store takes one kind; extra 'pool' after 'files'");
    expect_bad("container-store", "container-store: a value is required");
    expect_bad("file-digest md5", "'md5' for file-digest: expected xxh3 or sha256");
    expect_bad("file-digest xxh3 sha256", "file-digest takes one name; extra 'sha256' after 'xxh3'");
    expect_bad("file-digest", "file-digest: a value is required");
}

static void test_unknown_keys_refused(void)
{
    expect_bad("ssd-cache-polcy plc", "unknown key 'ssd-cache-polcy' (did you mean ssd-cache-policy?)");
    expect_bad("plc-filter-treshold 4", "did you mean plc-filter-threshold?");
    expect_bad("no-such-key 1", "unknown key 'no-such-key'");
    expect_bad("container-stor files", "did you mean container-store?");
    /* keys of upstream Destor's older config files its parser no longer takes */
    expect_bad("fingerprint-index-feature-method uniform 1", "unknown key");
    expect_bad("fingerprint-index-segment-caching 256", "unknown key");
    /* a Destor key with a value upstream would refuse */
    expect_bad("rewrite-algorithm no 5", "invalid value '5' for rewrite-algorithm");
    expect_bad("rewrite-algorithm sometimes", "invalid value 'sometimes' for rewrite-algorithm");
    expect_bad("rewrite-algorithm cap 0", "invalid value '0' for rewrite-algorithm");
    expect_bad("rewrite-algorithm cap 10 20", "rewrite-algorithm takes");
    expect_bad("rewrite-algorithm", "rewrite-algorithm takes");
    expect_bad("rewrite-capping-level 0", "invalid value '0' for rewrite-capping-level");
    expect_bad("rewrite-capping-level -3", "invalid value '-3' for rewrite-capping-level");
    expect_bad("rewrite-cfl-require 0", "invalid value '0' for rewrite-cfl-require");
    expect_bad("rewrite-cfl-usage-threshold 1.5", "invalid value '1.5' for rewrite-cfl-usage-threshold");
    expect_bad("rewrite-enable-cfl-switch maybe", "invalid value 'maybe' for rewrite-enable-cfl-switch");
    expect_bad("rewrite-cbr-limit nan", "invalid value 'nan' for rewrite-cbr-limit");
    expect_bad("rewrite-cbr-minimal-utility -0.1", "invalid value '-0.1' for rewrite-cbr-minimal-utility");
    expect_bad("rewrite-har-utilization-threshold 2", "invalid value '2' for rewrite-har-utilization-threshold");
    expect_bad("rewrite-har-rewrite-limit x", "invalid value 'x' for rewrite-har-rewrite-limit");
    expect_bad("rewrite-capping-levl 4", "did you mean rewrite-capping-level?");
    expect_bad("fingerprint-index exact logical ddfs", "fingerprint-index (a Destor key");
    expect_bad("fingerprint-index exact", "fingerprint-index takes exact | near-exact and physical | logical; got only");
    expect_bad("fingerprint-index exact physical \"sampled index\"", "exact physical is ddfs");
    expect_bad("fingerprint-index near-exact physical ddfs", "near-exact physical is \"sampled index\"");
    expect_bad("fingerprint-index approximate physical", "expected exact or near-exact");
    expect_bad("fingerprint-index exact virtual", "expected physical or logical");
    expect_bad("fingerprint-index-sampling-method sometimes", "expected uniform, random, min or optmin");
    expect_bad("fingerprint-index-sampling-method uniform 0", "expected a sampling ratio from 1 to 65536");
    expect_bad("fingerprint-index-sampling-method uniform 8 9", "extra '9'");
    expect_bad("fingerprint-index-cache-size 0", "expected a container count from 1 to 65536");
    expect_bad("fingerprint-index-cache-size lots", "expected a container count");
    expect_bad("fingerprint-index-cache-size", "a value is required");
    expect_bad("rewrite-enable-har yes 0.5", "rewrite-enable-har takes one value");
    expect_bad("rewrite-enable-cache-aware sure", "invalid value 'sure' for rewrite-enable-cache-aware");
    expect_bad("fingerprint-index-segment-selection base 3", "invalid value '3' for fingerprint-index-segment-selection: only top");
    expect_bad("fingerprint-index-segment-selection top 0", "expected a segment count from 1 to 4096");
    expect_bad("fingerprint-index-segment-algorithm fixed 0", "expected a segment size from 1 to 100000 chunks");
    expect_bad("fingerprint-index-segment-algorithm file-defined 4", "file-defined takes no chunk count");
    expect_bad("fingerprint-index-segment-algorithm random", "expected fixed, content-defined or file-defined");
    expect_bad("fingerprint-index-segment-boundary 10 9", "at least the minimum");
    expect_bad("fingerprint-index-segment-boundary 10", "takes a minimum and a maximum chunk count; got only '10'");
    expect_bad("fingerprint-index-segment-prefetching 1x", "expected a segment count from 1 to 4096");
    expect_bad("backup-retention-time forever", "'forever' for backup-retention-time");
}

static void test_override_named(void)
{
    Config cfg;
    config_init(&cfg);
    GError *err = NULL;
    CU_ASSERT_FALSE(config_apply_line(&cfg, "ssd-cache-size 50 %", "-p override #2", 0, &err));
    CU_ASSERT_TRUE(err != NULL && g_str_has_prefix(err->message, "-p override #2: ssd-cache-size takes one value"));
    g_clear_error(&err);
    config_clear(&cfg);
}

static void test_forms_accepted(void)
{
    Config cfg;
    config_init(&cfg);
    GError *err = NULL;
    CU_ASSERT_TRUE(apply(&cfg, "working-directory \"/data/my store\"", &err));
    CU_ASSERT_STRING_EQUAL(cfg.working_directory, "/data/my store");
    CU_ASSERT_TRUE(apply(&cfg, "ssd-cache-directory \"/mnt/my ssd\"", &err));
    CU_ASSERT_STRING_EQUAL(cfg.cache.directory, "/mnt/my ssd");
    CU_ASSERT_TRUE(apply(&cfg, "chunk-algorithm normalized rabin", &err));
    CU_ASSERT_EQUAL(cfg.chunk_algorithm, CHUNK_FASTCDC);
    CU_ASSERT_TRUE(apply(&cfg, "restore-cache 12", &err));
    CU_ASSERT_EQUAL(cfg.restore_cache.containers, 12);
    CU_ASSERT_TRUE(apply(&cfg, "ssd-cache-size 50%", &err));
    CU_ASSERT_EQUAL(cfg.cache.size.kind, CACHE_SIZE_PERCENT);
    /* another policy's key than the selected one: a file may hold several */
    CU_ASSERT_TRUE(apply(&cfg, "ssd-cache-policy lru", &err));
    CU_ASSERT_TRUE(apply(&cfg, "sigpop-z 3", &err));
    CU_ASSERT_TRUE(apply(&cfg, "plc_filter_threshold 6", &err));
    /* upstream Destor's multi-value keys, in its forms */
    CU_ASSERT_TRUE(apply(&cfg, "fingerprint-index exact physical", &err));
    CU_ASSERT_EQUAL(cfg.fp_index.kind, FP_INDEX_EXACT);
    CU_ASSERT_TRUE(apply(&cfg, "fingerprint-index near-exact physical \"sampled index\"", &err));
    CU_ASSERT_EQUAL(cfg.fp_index.kind, FP_INDEX_SAMPLED);
    CU_ASSERT_TRUE(apply(&cfg, "fingerprint-index near-exact logical silo", &err));
    CU_ASSERT_EQUAL(cfg.fp_index.kind, FP_INDEX_SILO);
    CU_ASSERT_EQUAL(fp_index_sampling(&cfg.fp_index), SAMPLING_MIN); /* SiLo's, unless a line says */
    CU_ASSERT_TRUE(apply(&cfg, "fingerprint-index-sampling-method optmin", &err));
    CU_ASSERT_EQUAL(cfg.fp_index.sampling, SAMPLING_OPTMIN);
    CU_ASSERT_EQUAL(fp_index_sampling(&cfg.fp_index), SAMPLING_OPTMIN);
    CU_ASSERT_EQUAL(cfg.fp_index.sampling_ratio, FP_INDEX_DEFAULT_RATIO);
    CU_ASSERT_TRUE(apply(&cfg, "fingerprint-index-cache-size 7", &err));
    CU_ASSERT_EQUAL(cfg.fp_index.cache_containers, 7);
    CU_ASSERT_TRUE(apply(&cfg, "fingerprint-index near-exact logical \"sparse index\"", &err));
    CU_ASSERT_TRUE(apply(&cfg, "fingerprint-index-segment-boundary 128 10240", &err));
    CU_ASSERT_TRUE(apply(&cfg, "fingerprint-index-sampling-method random 128", &err));
    CU_ASSERT_EQUAL(cfg.fp_index.sampling, SAMPLING_RANDOM);
    CU_ASSERT_EQUAL(cfg.fp_index.sampling_ratio, 128);
    CU_ASSERT_TRUE(apply(&cfg, "fingerprint-index-segment-selection top 2", &err));
    CU_ASSERT_TRUE(cfg.fp_index.segment.selection == SEGMENT_SELECT_TOP && cfg.fp_index.segment.top_k == 2);
    CU_ASSERT_TRUE(apply(&cfg, "fingerprint-index-segment-selection mix", &err));
    CU_ASSERT_TRUE(cfg.fp_index.segment.selection == SEGMENT_SELECT_MIX && cfg.fp_index.segment.top_k == 1);
    CU_ASSERT_TRUE(cfg.fp_index.segment.min == 128 && cfg.fp_index.segment.max == 10240);
    CU_ASSERT_TRUE(apply(&cfg, "fingerprint-index-segment-algorithm content-defined 512", &err));
    CU_ASSERT_TRUE(cfg.fp_index.segment.algorithm == SEGMENT_CONTENT_DEFINED && cfg.fp_index.segment.size == 512);
    CU_ASSERT_TRUE(apply(&cfg, "fingerprint-index-segment-algorithm file-defined", &err));
    CU_ASSERT_TRUE(cfg.fp_index.segment.algorithm == SEGMENT_FILE_DEFINED && cfg.fp_index.segment.size == 512);
    CU_ASSERT_TRUE(apply(&cfg, "fingerprint-index-segment-prefetching 0", &err));
    CU_ASSERT_EQUAL(cfg.fp_index.segment.prefetching, SEGMENT_DEFAULT_PREFETCHING);
    CU_ASSERT_TRUE(apply(&cfg, "fingerprint-index-segment-prefetching 128", &err));
    CU_ASSERT_EQUAL(cfg.fp_index.segment.prefetching, 128);
    CU_ASSERT_TRUE(apply(&cfg, "rewrite-algorithm \"context-based rewriting\" 2048", &err));
    CU_ASSERT_TRUE(apply(&cfg, "backup-retention-time -1", &err));
    CU_ASSERT_EQUAL(cfg.backup_retention, -1);
    CU_ASSERT_TRUE(apply(&cfg, "backup-retention-time 3", &err));
    CU_ASSERT_EQUAL(cfg.backup_retention, 3);
    Config fresh; /* Destor's defaults; without the line read-file keeps its per-request LRU */
    config_init(&fresh);
    /* Destor's segment defaults: fixed 1024, boundary 128 10240, top 1, SiLo's 16 prefetched */
    CU_ASSERT_TRUE(fresh.fp_index.segment.algorithm == SEGMENT_FIXED && fresh.fp_index.segment.size == 1024 &&
                   fresh.fp_index.segment.min == 128 && fresh.fp_index.segment.max == 10240 &&
                   fresh.fp_index.segment.selection == SEGMENT_SELECT_TOP && fresh.fp_index.segment.top_k == 1 &&
                   fresh.fp_index.segment.prefetching == 16);
    CU_ASSERT_TRUE(!fresh.restore_cache.set && fresh.restore_cache.kind == RESTORE_CACHE_LRU &&
                   fresh.restore_cache.containers == 30 && fresh.restore_cache.opt_window == 1000000 &&
                   fresh.backup_retention == -1);
    config_clear(&fresh);
    CU_ASSERT_TRUE(apply(&cfg, "restore-cache opt 16", &err));
    CU_ASSERT_TRUE(cfg.restore_cache.kind == RESTORE_CACHE_OPT && cfg.restore_cache.containers == 16);
    CU_ASSERT_TRUE(cfg.restore_cache.set);
    CU_ASSERT_TRUE(apply(&cfg, "restore-cache ASM 2", &err));
    CU_ASSERT_TRUE(cfg.restore_cache.kind == RESTORE_CACHE_ASM && cfg.restore_cache.containers == 2);
    CU_ASSERT_TRUE(apply(&cfg, "restore-opt-window-size 5000", &err));
    CU_ASSERT_EQUAL(cfg.restore_cache.opt_window, 5000);
    CU_ASSERT_PTR_NULL(err);
    config_clear(&cfg);
}

/* The keys upstream_keys.c accepts are the ones destor.config (and so
 * destor.config(5)) lists, and each listed form loads. */
static void test_upstream_keys_documented(void)
{
    const char *top = g_getenv("TOP_SRCDIR");
    char *path = g_build_filename(top ? top : ".", "destor.config", NULL);
    char *text = NULL;
    CU_ASSERT_TRUE_FATAL(g_file_get_contents(path, &text, NULL, NULL));
    for (size_t i = 0; upstream_key_at(i) != NULL; i++) {
        char *line = g_strdup_printf("\n#   %s ", upstream_key_at(i));
        if (strstr(text, line) == NULL)
            fprintf(stderr, "\n%s is not listed in destor.config\n", upstream_key_at(i));
        CU_ASSERT_PTR_NOT_NULL(strstr(text, line));
        g_free(line);
    }
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "\nrewrite-enable-cache-aware no\n"));
    /* upstream's 33 keys less the 10 we implement, the 11 rewrite keys
     * (rewrite_config.c), fingerprint-index-sampling-method and -cache-size,
     * and the four fingerprint-index-segment-* keys (fingerprint-index stays
     * here for its unimplemented logical designs) */
    CU_ASSERT_PTR_NOT_NULL(upstream_key_at(5));
    CU_ASSERT_PTR_NULL(upstream_key_at(6));
    g_free(text);
    g_free(path);
}

static void test_cross_checks(void)
{
    Config cfg;
    config_init(&cfg);
    GError *err = NULL;
    CU_ASSERT_TRUE(apply(&cfg, "chunk-avg-size 3000", &err));
    CU_ASSERT_FALSE(config_validate(&cfg, &err)); /* rabin needs a power of two */
    CU_ASSERT_TRUE(err != NULL && err->code == DESTOR_ERROR_CONFIG);
    g_clear_error(&err);
    config_clear(&cfg);

    config_init(&cfg);
    CU_ASSERT_TRUE(apply(&cfg, "container-size 128K", &err));
    CU_ASSERT_TRUE(apply(&cfg, "chunk-max-size 16M", &err));
    CU_ASSERT_FALSE(config_validate(&cfg, &err)); /* chunk larger than a container */
    CU_ASSERT_TRUE(err != NULL && strstr(err->message, "does not fit") != NULL);
    g_clear_error(&err);
    config_clear(&cfg);

    config_init(&cfg);
    CU_ASSERT_TRUE(apply(&cfg, "container-store rados", &err));
    CU_ASSERT_TRUE(apply(&cfg, "rados-conf /etc/ceph/ceph.conf", &err));
    CU_ASSERT_FALSE(config_validate(&cfg, &err)); /* no pool */
    CU_ASSERT_TRUE(err != NULL && strstr(err->message, "needs rados-conf and rados-pool") != NULL);
    g_clear_error(&err);
    CU_ASSERT_TRUE(apply(&cfg, "rados-pool destor", &err));
    CU_ASSERT_TRUE(config_validate(&cfg, &err));
    config_clear(&cfg);
}

static void test_shipped_config_loads(void)
{
    const char *top = g_getenv("TOP_SRCDIR");
    char *path = g_build_filename(top ? top : ".", "destor.config", NULL);
    Config cfg;
    config_init(&cfg);
    GError *err = NULL;
    CU_ASSERT_TRUE(config_load_file(&cfg, path, &err));
    CU_ASSERT_TRUE(config_validate(&cfg, &err));
    if (err)
        fprintf(stderr, "\n%s\n", err->message);
    g_clear_error(&err);
    config_clear(&cfg);
    g_free(path);
}

static void add_suites(void)
{
    CU_pSuite s = CU_add_suite("config", NULL, NULL);
    CU_add_test(s, "defaults", test_defaults);
    CU_add_test(s, "good lines", test_good_lines);
    CU_add_test(s, "bad lines", test_bad_lines);
    CU_add_test(s, "cross-key checks", test_cross_checks);
    CU_add_test(s, "extra words refused", test_extra_words_refused);
    CU_add_test(s, "unknown keys refused", test_unknown_keys_refused);
    CU_add_test(s, "-p override named", test_override_named);
    CU_add_test(s, "one-value and Destor forms accepted", test_forms_accepted);
    CU_add_test(s, "upstream keys documented", test_upstream_keys_documented);
    CU_add_test(s, "shipped destor.config loads", test_shipped_config_loads);
}

UNIT_MAIN(add_suites)
