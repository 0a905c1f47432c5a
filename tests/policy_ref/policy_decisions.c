/* SPDX-License-Identifier: GPL-3.0-or-later */
/* policy_decisions.c: runs the real cache core (simulation mode) over a
 * container-id sequence and prints the decision taken at every access, so
 * that tests/policy_ref/check_reference.py can hold each policy against its
 * independent Python reference model, access by access. It reads all the
 * ids first: an offline policy is handed the whole sequence
 * (cache_core_prepare) before the first access.
 *
 * Usage: policy_decisions [--requests] N_CONTAINERS KEY VALUE [KEY VALUE]... < ids
 * KEY VALUE are cache configuration lines (ssd-cache-policy, ssd-cache-size,
 * policy keys, ssd-cache-admission...). --requests: each access is a
 * request of its own (what a write budget's credit counts). ids: whitespace-separated decimal container ids,
 * each as ID or, with --requests, ID@NS: the request's time in nanoseconds (0 when not given; what
 * ssd-cache-write-budget-dwpd's credit counts). Output, one
 * line per access: "h" hit, "r" refused miss, "a" admitted into a free slot,
 * "e ID" admitted in place of container ID. Exit 2 on bad arguments or
 * input, 1 if the cache fails. */
#include "cache/config/cache_config.h"
#include "cache/container/cache_core.h"
#include "cache/container/ssd_store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    char kind;
    ContainerId evicted;
} Decision;

static void observe(const CacheEvent *ev, void *user)
{
    Decision *d = user;
    switch (ev->kind) {
    case CACHE_EVENT_HIT: d->kind = 'h'; break;
    case CACHE_EVENT_REFUSE: d->kind = 'r'; break;
    case CACHE_EVENT_EVICT: d->kind = 'e'; d->evicted = ev->id; break;
    case CACHE_EVENT_ADMIT: if (d->kind != 'e') d->kind = 'a'; break;
    default: break;
    }
}

int main(int argc, char **argv)
{
    gboolean requests = argc > 1 && strcmp(argv[1], "--requests") == 0;
    if (requests) {
        argv++;
        argc--;
    }
    if (argc < 4 || argc % 2 != 0) {
        fprintf(stderr, "usage: policy_decisions [--requests] N_CONTAINERS KEY VALUE [KEY VALUE]... < ids\n");
        return 2;
    }
    uint32_t n = (uint32_t)strtoul(argv[1], NULL, 10);
    CacheConfig cfg;
    cache_config_init(&cfg);
    GError *err = NULL;
    for (int i = 2; i + 1 < argc; i += 2) {
        if (cache_config_set(&cfg, argv[i], argv[i + 1], &err) != CACHE_CONFIG_OK) {
            fprintf(stderr, "policy_decisions: bad key %s %s%s%s\n", argv[i], argv[i + 1],
                    err ? ": " : "", err ? err->message : "");
            return 2;
        }
    }
    cfg.simulate = TRUE;
    static const uint8_t store_id[SSD_STORE_ID_LEN]; /* simulation: no store to name */
    CacheCore *c = cache_core_open_config(&cfg, store_id, 4096, n, NULL, NULL, NULL, 0, &err);
    cache_config_clear(&cfg);
    if (c == NULL) {
        fprintf(stderr, "policy_decisions: %s\n", err->message);
        return 1;
    }
    GArray *ids = g_array_new(FALSE, FALSE, sizeof(ContainerId));
    GArray *times = g_array_new(FALSE, TRUE, sizeof(uint64_t));
    char token[64];
    while (scanf("%63s", token) == 1) {
        char *end;
        unsigned long id = strtoul(token, &end, 10);
        uint64_t ns = 0;
        if (*end == '@' && requests)
            ns = g_ascii_strtoull(end + 1, &end, 10);
        if (*end != '\0' || id >= n) {
            fprintf(stderr, "policy_decisions: %s is not a container below %u (ID, or ID@NS with --requests)\n",
                    token, n);
            return 2;
        }
        ContainerId cid = (ContainerId)id;
        g_array_append_val(ids, cid);
        g_array_append_val(times, ns);
    }
    /* an offline policy gets the whole sequence first (nothing for an online one) */
    if (!cache_core_prepare(c, (const ContainerId *)(const void *)ids->data, ids->len, &err)) {
        fprintf(stderr, "policy_decisions: %s\n", err->message);
        return 1;
    }
    Decision d;
    cache_core_set_observer(c, observe, &d);
    for (guint i = 0; i < ids->len; i++) {
        ContainerId x = g_array_index(ids, ContainerId, i);
        d.kind = '?';
        if (requests)
            cache_core_request_begin(c, g_array_index(times, uint64_t, i));
        gboolean ok = cache_access(c, x, NULL, &err);
        if (requests)
            cache_core_request_end(c);
        if (!ok) {
            fprintf(stderr, "policy_decisions: access to %u failed: %s\n", x, err->message);
            return 1;
        }
        if (d.kind == 'e')
            printf("e %u\n", d.evicted);
        else
            printf("%c\n", d.kind);
    }
    cache_core_close(c, NULL);
    g_array_free(ids, TRUE);
    g_array_free(times, TRUE);
    return 0;
}
