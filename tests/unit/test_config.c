/* test_config.c: destor.config parsing: Destor's own file loads, good and
 * bad lines, quoting, -p style overrides, and cross-key validation. */
#include "config.h"
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
    CU_ASSERT_TRUE(apply(&cfg, "simulation-level all", &err));
    CU_ASSERT_TRUE(cfg.simulate);
    CU_ASSERT_TRUE(apply(&cfg, "backup-workers 3", &err));
    CU_ASSERT_EQUAL(cfg.backup_workers, 3);
    CU_ASSERT_TRUE(apply(&cfg, "backup-workers auto", &err));
    CU_ASSERT_EQUAL(cfg.backup_workers, 0);
    CU_ASSERT_TRUE(apply(&cfg, "restore-cache lru 64", &err));
    CU_ASSERT_EQUAL(cfg.restore_cache_containers, 64);
    CU_ASSERT_FALSE(cfg.store_read_uncached);
    CU_ASSERT_TRUE(apply(&cfg, "store-read-uncached yes", &err));
    CU_ASSERT_TRUE(cfg.store_read_uncached);
    CU_ASSERT_TRUE(apply(&cfg, "   # only a comment", &err));
    CU_ASSERT_TRUE(apply(&cfg, "", &err));
    CU_ASSERT_TRUE(apply(&cfg, "rewrite-algorithm cbr 2048", &err)); /* Destor key, ignored */
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
    expect_bad("restore-cache opt 10", "'opt' for restore-cache");
    expect_bad("backup-workers 0", "'0' for backup-workers");
    expect_bad("store-read-uncached sometimes", "'sometimes' for store-read-uncached");
    expect_bad("working-directory", "a value is required");
    expect_bad("working-directory \"unterminated", "unterminated quote");
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
    CU_add_test(s, "shipped destor.config loads", test_shipped_config_loads);
}

UNIT_MAIN(add_suites)
