/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz_config.c: destor.config and -p lines.
 *
 * The input is a config file. It is applied as config_load_file() does (split
 * at '\n', stop at the first error), then as a single `-p` override on a
 * fresh configuration (where '\n' is only a blank). Whenever every line was
 * accepted, config_validate() runs, and a configuration it accepts must be
 * usable: its chunker is built and cuts a buffer, its SSD cache policy name
 * resolves, and ssd-cache-size resolves for a few store sizes. */
#include "fuzz_util.h"

#include "cache/config/cache_config.h"
#include "cache/container/cache_core.h"
#include "cache/policy/policy.h"
#include "chunking/chunker.h"
#include "config/config.h"

static uint8_t sample[8192];

static void use_valid_config(const Config *cfg)
{
    if (sample[0] == 0 && sample[1] == 0) {
        uint32_t x = 2463534242u;
        for (size_t i = 0; i < sizeof sample; i++) {
            x ^= x << 13, x ^= x >> 17, x ^= x << 5;
            sample[i] = (uint8_t)x;
        }
    }
    /* Building a Rabin chunker costs ~1 ms under ASan: each distinct set of
     * chunk settings is tried once per process (a reproducer runs alone). */
    static GHashTable *tried;
    if (tried == NULL || g_hash_table_size(tried) > 100000) {
        if (tried != NULL)
            g_hash_table_destroy(tried);
        tried = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    }
    char *key = g_strdup_printf("%d %zu %zu %zu", (int)cfg->chunk_algorithm, cfg->chunk_sizes.min_size,
                                cfg->chunk_sizes.avg_size, cfg->chunk_sizes.max_size);
    if (!g_hash_table_add(tried, key))
        goto cache;
    Chunker *ch = chunker_new(cfg->chunk_algorithm, &cfg->chunk_sizes);
    size_t largest = cfg->chunk_algorithm == CHUNK_FIXED ? cfg->chunk_sizes.avg_size : cfg->chunk_sizes.max_size;
    size_t done = 0;
    while (done < sizeof sample) {
        size_t n = chunker_next(ch, sample + done, sizeof sample - done);
        if (n == 0 || n > sizeof sample - done || n > largest)
            abort(); /* a chunker must make progress within max_size */
        done += n;
    }
    chunker_free(ch);

cache:
    if (cache_config_enabled(&cfg->cache)) {
        const CachePolicyOps *ops = NULL;
        if ((ops = cfg->cache.policy_ops) == NULL)
            abort(); /* validate accepted a policy that does not exist */
    }
    static const uint32_t stores[] = { 0, 1, 7, 1000, UINT32_MAX };
    for (size_t i = 0; i < G_N_ELEMENTS(stores); i++) {
        uint32_t capacity = 0;
        GError *err = NULL;
        cache_config_resolve_capacity(&cfg->cache, cfg->container_size, stores[i], &capacity, &err);
        g_clear_error(&err);
    }
    CacheCoreOptions o;
    cache_core_options_from_config(&o, &cfg->cache);
}

static void finish(Config *cfg, gboolean ok)
{
    GError *err = NULL;
    if (ok && config_validate(cfg, &err))
        use_valid_config(cfg);
    g_clear_error(&err);
    config_clear(cfg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_quiet();
    /* config_load_file() reads with g_file_get_contents(), which adds a NUL:
     * the text ends at the first NUL byte. */
    char *text = g_strndup((const char *)data, size);

    Config cfg;
    config_init(&cfg);
    gchar **lines = g_strsplit(text, "\n", -1);
    gboolean ok = TRUE;
    for (int i = 0; lines[i] != NULL && ok; i++) {
        GError *err = NULL;
        ok = config_apply_line(&cfg, lines[i], "fuzz.config", i + 1, &err);
        if (ok != (err == NULL))
            abort(); /* FALSE must come with an error, TRUE without */
        g_clear_error(&err);
    }
    g_strfreev(lines);
    finish(&cfg, ok);

    config_init(&cfg);
    GError *err = NULL;
    ok = config_apply_line(&cfg, text, "-p override #1", 0, &err);
    if (ok != (err == NULL))
        abort();
    g_clear_error(&err);
    finish(&cfg, ok);

    g_free(text);
    return 0;
}
