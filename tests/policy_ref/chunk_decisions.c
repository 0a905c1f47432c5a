/* SPDX-License-Identifier: GPL-3.0-or-later */
/* chunk_decisions.c: runs the real chunk cache core (simulation mode) over
 * a chunk-access sequence and prints the decision taken at every access,
 * so that tests/policy_ref/check_chunk_reference.py can hold each chunk
 * policy against its independent Python reference model, access by access.
 *
 * Usage: chunk_decisions CAPACITY_BYTES AVG_CHUNK KEY VALUE [KEY VALUE]... < accesses
 * KEY VALUE are cache configuration lines (ssd-cache-policy, policy keys).
 * accesses: one per line, "CHUNK LENGTH ADDRESS TOUCH_OFFSET TOUCH_LENGTH"
 * in decimal (CHUNK names the chunk: its fingerprint is CHUNK's 8 bytes,
 * little-endian, then zeros, or then the bytes 8..31 given in hex by an
 * optional last field FPTAIL, as the bucket layout's sketch reads bytes
 * past the eighth), or "o CHUNK LENGTH [FPTAIL]": an offer of that chunk
 * (chunk_cache_offer, as ssd-cache-chunk-fetch container offers a
 * container's other chunks). A line "-" ends a request. Output, one line
 * per access: "h" hit, "m" miss of a cached chunk (no write), "r" refused
 * miss, "a" admitted, each admission followed by " CHUNK" for every chunk
 * it evicted, " -CHUNK" for every chunk the log's reclamation then
 * dropped and " +CHUNK" for every chunk the policy kept there
 * (ssd-cache-segment-reclaim reinsert), in order; an offer of a chunk
 * cached already prints "c".
 * The log is run with ssd-cache-segment-reclaim clean (unless a KEY says
 * otherwise; the buckets layout, which has no segments, with the default): given room, it never drops a live chunk by itself, so every
 * decision printed is the policy's (evict's whole-segment drops are the
 * log's model's, tests/e2e/chunk_cache_real.sh and tests/unit/test_chunk_layout.c).
 * Exit 2 on bad arguments or input, 1 if the cache
 * fails. */
#include "cache/config/cache_config.h"
#include "cache/chunk/chunk_cache.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    char kind;
    GString *evicted;
} Decision;

static uint64_t chunk_of(const Fingerprint *fp)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | fp->bytes[i];
    return v;
}

/* Bytes 8.. of the fingerprint from an optional FPTAIL field at `rest`
 * (hex, two digits a byte, at most FP_SLOT - 8 bytes). FALSE if malformed. */
static gboolean fp_tail(const char *rest, Fingerprint *fp)
{
    while (*rest == ' ' || *rest == '\t')
        rest++;
    size_t n = strcspn(rest, " \t\r\n");
    if (n % 2 != 0 || n / 2 > FP_SLOT - 8 || rest[n + strspn(rest + n, " \t\r\n")] != '\0')
        return FALSE;
    for (size_t i = 0; i < n / 2; i++) {
        int hi = g_ascii_xdigit_value(rest[2 * i]), lo = g_ascii_xdigit_value(rest[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return FALSE;
        fp->bytes[8 + i] = (uint8_t)(hi << 4 | lo);
    }
    return TRUE;
}

static void observe(const ChunkEvent *ev, void *user)
{
    Decision *d = user;
    switch (ev->kind) {
    case CHUNK_EVENT_HIT: d->kind = 'h'; break;
    case CHUNK_EVENT_MISS_CACHED: d->kind = 'm'; break;
    case CHUNK_EVENT_REFUSE: d->kind = 'r'; break;
    case CHUNK_EVENT_EVICT:
        g_string_append_printf(d->evicted, " %" G_GUINT64_FORMAT, chunk_of(ev->fp));
        break;
    case CHUNK_EVENT_ADMIT: d->kind = 'a'; break;
    case CHUNK_EVENT_LOG_DROP:
        g_string_append_printf(d->evicted, " -%" G_GUINT64_FORMAT, chunk_of(ev->fp));
        break;
    case CHUNK_EVENT_KEEP:
        g_string_append_printf(d->evicted, " +%" G_GUINT64_FORMAT, chunk_of(ev->fp));
        break;
    }
}

int main(int argc, char **argv)
{
    if (argc < 5 || argc % 2 != 1) {
        fprintf(stderr, "usage: chunk_decisions CAPACITY_BYTES AVG_CHUNK KEY VALUE [KEY VALUE]... < accesses\n");
        return 2;
    }
    CacheConfig cfg;
    cache_config_init(&cfg);
    GError *err = NULL;
    if (cache_config_set(&cfg, "ssd-cache-segment-reclaim", "clean", &err) != CACHE_CONFIG_OK) {
        fprintf(stderr, "chunk_decisions: %s\n", err ? err->message : "ssd-cache-segment-reclaim clean");
        return 2;
    }
    for (int i = 3; i + 1 < argc; i += 2) {
        if (cache_config_set(&cfg, argv[i], argv[i + 1], &err) != CACHE_CONFIG_OK) {
            fprintf(stderr, "chunk_decisions: bad key %s %s%s%s\n", argv[i], argv[i + 1], err ? ": " : "",
                    err ? err->message : "");
            return 2;
        }
    }
    if (cfg.layout == CHUNK_LAYOUT_BUCKETS)
        cfg.segment_reclaim = CHUNK_LOG_EVICT; /* its default: the buckets layout has no segments to reclaim */
    cfg.simulate = TRUE;
    cfg.granularity = CACHE_GRANULARITY_CHUNK;
    ChunkCacheOptions o;
    if (!chunk_cache_options_from_config(&o, &cfg, 1 << 20, 1, (uint32_t)strtoul(argv[2], NULL, 10), &err)) {
        fprintf(stderr, "chunk_decisions: %s\n", err->message);
        return 2;
    }
    o.capacity_bytes = strtoull(argv[1], NULL, 10);
    ChunkCache *c = chunk_cache_open(&o, &err);
    cache_config_clear(&cfg);
    if (c == NULL) {
        fprintf(stderr, "chunk_decisions: %s\n", err->message);
        return 1;
    }
    Decision d = { 0, g_string_new(NULL) };
    chunk_cache_set_observer(c, observe, &d);
    char line[256];
    gboolean open_request = FALSE;
    while (fgets(line, sizeof line, stdin) != NULL) {
        if (line[0] == '-') {
            if (open_request)
                chunk_cache_request_end(c);
            open_request = FALSE;
            continue;
        }
        unsigned long long chunk, length, address, off, len;
        ChunkRef ref;
        memset(&ref, 0, sizeof ref);
        if (line[0] == 'o') {
            int used = 0;
            if (sscanf(line, "o %llu %llu%n", &chunk, &length, &used) != 2 || length == 0 ||
                !fp_tail(line + used, &ref.fp)) {
                fprintf(stderr, "chunk_decisions: bad offer line: %s", line);
                return 2;
            }
            for (int i = 0; i < 8; i++)
                ref.fp.bytes[i] = (uint8_t)(chunk >> (8 * i));
            ref.length = (uint32_t)length;
            d.kind = 'c';
            g_string_truncate(d.evicted, 0);
            if (!chunk_cache_offer(c, &ref, &err)) {
                fprintf(stderr, "chunk_decisions: %s\n", err->message);
                return 1;
            }
            printf("%c%s\n", d.kind, d.evicted->str);
            continue;
        }
        int used = 0;
        if (sscanf(line, "%llu %llu %llu %llu %llu%n", &chunk, &length, &address, &off, &len, &used) != 5 ||
            length == 0 || off + len > length || !fp_tail(line + used, &ref.fp)) {
            fprintf(stderr, "chunk_decisions: bad access line: %s", line);
            return 2;
        }
        if (!open_request)
            chunk_cache_request_begin(c, 0);
        open_request = TRUE;
        for (int i = 0; i < 8; i++)
            ref.fp.bytes[i] = (uint8_t)(chunk >> (8 * i));
        ref.length = (uint32_t)length;
        ChunkCachePosition pos = { address, (uint32_t)off, (uint32_t)len };
        d.kind = '?';
        g_string_truncate(d.evicted, 0);
        if (!chunk_cache_touch(c, &ref, &pos, &err)) {
            fprintf(stderr, "chunk_decisions: %s\n", err->message);
            return 1;
        }
        printf("%c%s\n", d.kind, d.evicted->str);
    }
    if (open_request)
        chunk_cache_request_end(c);
    g_string_free(d.evicted, TRUE);
    chunk_cache_close(c, NULL);
    return 0;
}
