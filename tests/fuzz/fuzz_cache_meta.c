/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz_cache_meta.c: the SSD cache's cache.meta, cache_meta_load(), and
 * (mode bit 2) what a real-mode cache does with it on open.
 *
 * Input: a mode byte, then the file. Mode bits, applied before loading:
 *   0  recompute the trailing CRC;
 *   1  write into n_counts (offset 32) the count that makes the sizes add up
 *      for the n_entries given, when one does (cells of the file's counts
 *      mode: 2 bytes for a version-4 compact or sketch, else 4);
 *   2  deep: open a real-mode cache (4 KiB containers, 16 of them, capacity
 *      from the file clamped to 1..8, the file's policy when it names one)
 *      on a scratch directory holding this cache.meta and a slot file of
 *      known bytes, with the file's cache-counters, make 32 accesses,
 *      close it;
 *   3  write the harness's container size (4096) at offset 16 (any other
 *      size makes the cache start empty);
 *   4  write into each entry's check the true check of its container's
 *      bytes (so an unclean file's entries whose slot holds that container
 *      can be taken back);
 *   5  write the harness's store identity (16 zero bytes) at offset 64, so
 *      a version-2 or 3 file is this store's and not dropped as another's;
 *   6  version 3 and up: make the policy-state section fill what follows
 *      the access counts (its length, then the blob's CRC), so the blob
 *      reaches the policy's load_state;
 *   7  version 3 and up: write the state version of the named policy.
 * Offsets past the header follow the file's version (docs/FORMAT.md).
 * Container i's bytes are 4096 bytes of value i, in the backing store and in
 * slot i of the slot file, whose header names the harness's store and
 * container i. Every access must return the container's bytes: even a file
 * that lies consistently (an entry's check is that of another container's
 * bytes) cannot make the cache serve them, as the slot header names the
 * container it holds.
 * The loader works on a file, so each input is written to a scratch file. */
#include "fuzz_util.h"

#include "cache/config/cache_config.h"
#include "cache/container/cache_core.h"
#include "cache/container/cache_meta.h"
#include "cache/policy/policy.h"
#include "cache/container/ssd_store.h"
#include "util/le.h"

#define CSIZE 4096
#define NCONT 16
#define MAXCAP 8

static void container_bytes(uint8_t *buf, ContainerId id)
{
    memset(buf, (int)(uint8_t)id, CSIZE);
}

/* The check cache.meta keeps of a slot (docs/CACHE.md): zlib crc32 in the
 * low 32 bits, adler32 in the high 32. */
static uint64_t slot_check(const uint8_t *buf, size_t len)
{
    uLong crc = crc32_z(0L, buf, len), ad = adler32_z(1L, buf, len);
    return (uint64_t)(uint32_t)ad << 32 | (uint32_t)crc;
}

static gboolean backing_read(ContainerSource *self, ContainerId id, uint8_t *buf, GError **err)
{
    (void)self;
    (void)err;
    if (buf != NULL)
        container_bytes(buf, id);
    return TRUE;
}

static void remove_in(const char *dir, const char *name)
{
    char *p = g_build_filename(dir, name, NULL);
    g_unlink(p);
    g_free(p);
}

static void open_cache(const uint8_t *file, size_t len, const CacheMeta *m)
{
    const char *dir = fuzz_scratch_dir();
    remove_in(dir, SSD_STORE_SLOT_FILE);
    remove_in(dir, CACHE_DIR_LOCK_FILE);
    uint32_t capacity = m->capacity < 1 ? 1 : m->capacity > MAXCAP ? MAXCAP : m->capacity;

    /* Slot s holds container s, header and bytes (docs/FORMAT.md), for
     * the checks of an unclean file. */
    size_t stride = SSD_SLOT_HEADER_SIZE + CSIZE;
    uint8_t *slots = g_malloc0((size_t)MAXCAP * stride);
    for (uint32_t s = 0; s < MAXCAP; s++) {
        uint8_t *h = slots + (size_t)s * stride;
        container_bytes(h + SSD_SLOT_HEADER_SIZE, s);
        memcpy(h, SSD_SLOT_MAGIC, 8);
        le32_put(h + 8, SSD_SLOT_VERSION);
        le32_put(h + 12, s);
        le64_put(h + 32, slot_check(h + SSD_SLOT_HEADER_SIZE, CSIZE));
        le32_put(h + 44, CSIZE); /* a raw copy (codec 0 at 40) */
        le32_put(h + SSD_SLOT_HEADER_SIZE - 4, fuzz_crc(h, SSD_SLOT_HEADER_SIZE - 4));
    }
    g_free(fuzz_write_file(SSD_STORE_SLOT_FILE, slots, (size_t)capacity * stride));
    g_free(slots);
    g_free(fuzz_write_file(CACHE_META_FILE, file, len));

    CacheConfig cfg;
    cache_config_init(&cfg);
    CacheCoreOptions o;
    cache_core_options_from_config(&o, &cfg);
    cache_config_clear(&cfg);
    o.policy_settings = NULL; /* freed with cfg: every policy key at its default */
    o.counters = m->counts_mode < ACCESS_COUNTS_MODES ? (AccessCountsMode)m->counts_mode : ACCESS_COUNTS_EXACT;
    if (!cache_policy_lookup(m->policy, &o.policy) || o.policy == NULL)
        cache_policy_lookup("plc", &o.policy);
    ContainerSource backing = { .read = backing_read, .container_size = CSIZE };
    o.capacity = capacity;
    o.n_containers = NCONT;
    o.reference_count = NULL;
    o.container_size = CSIZE;
    o.mode = CACHE_MODE_REAL;
    o.directory = dir;
    o.backing = &backing;

    GError *err = NULL;
    CacheCore *c = cache_core_open(&o, &err);
    if (c == NULL) {
        g_clear_error(&err);
        return;
    }
    uint8_t *buf = g_malloc(CSIZE);
    for (uint32_t i = 0; i < 32; i++) {
        ContainerId id = (i * 7 + i / 5) % NCONT;
        if (!cache_access(c, id, buf, &err))
            abort(); /* the backing never fails: neither may the cache */
        for (size_t k = 0; k < CSIZE; k++)
            if (buf[k] != (uint8_t)id)
                abort(); /* the cache served wrong bytes */
    }
    g_free(buf);
    if (!cache_core_close(c, &err))
        g_clear_error(&err);
}

/* The header's size and the bytes of an access-count cell, by the version
 * and counts mode the file states (len >= the largest header). */
static size_t header_of(const uint8_t *file)
{
    uint32_t v = le32_get(file + 8);
    return v <= 1  ? CACHE_META_V1_HEADER_SIZE
           : v < 4 ? CACHE_META_V2_HEADER_SIZE
           : v < 5 ? CACHE_META_V4_HEADER_SIZE
           : v < 6 ? CACHE_META_V5_HEADER_SIZE
                   : CACHE_META_HEADER_SIZE;
}

/* The bytes of an entry, by the version the file states. */
static size_t entry_of(const uint8_t *file)
{
    return le32_get(file + 8) < 6 ? CACHE_META_V5_ENTRY_SIZE : CACHE_META_ENTRY_SIZE;
}

static size_t cell_of(const uint8_t *file)
{
    return le32_get(file + 8) >= 4 && le32_get(file + 36) != ACCESS_COUNTS_EXACT ? 2 : 4;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t mode;
    size_t len;
    uint8_t *file = fuzz_mode_input(data, size, 1, &mode, &len);
    if (file == NULL)
        return 0;
    size_t fixed = CACHE_META_HEADER_SIZE + 4;
    size_t header = len >= fixed ? header_of(file) : 0, cell = len >= fixed ? cell_of(file) : 4;
    size_t entry = len >= fixed ? entry_of(file) : CACHE_META_ENTRY_SIZE;
    if (len >= fixed)
        fixed = header + 4;
    if ((mode & 8) && len >= fixed)
        le64_put(file + 16, CSIZE);
    if ((mode & 2) && len >= fixed) {
        uint64_t entries = (uint64_t)le32_get(file + 28) * entry;
        if (entries <= len - fixed && (len - fixed - entries) % cell == 0)
            le32_put(file + 32, (uint32_t)((len - fixed - entries) / cell));
    }
    if ((mode & 16) && len >= fixed) {
        uint8_t *bytes = g_malloc(CSIZE);
        uint64_t n = le32_get(file + 28);
        for (uint64_t i = 0; i < n && fixed + (i + 1) * entry <= len; i++) {
            uint8_t *e = file + header + i * entry;
            container_bytes(bytes, le32_get(e));
            le64_put(e + 8, slot_check(bytes, CSIZE));
        }
        g_free(bytes);
    }
    if ((mode & 64) && len >= fixed && le32_get(file + 8) >= 3) {
        uint64_t head = header + (uint64_t)le32_get(file + 28) * entry +
                        (uint64_t)le32_get(file + 32) * cell;
        if (head + 16 <= len) {
            uint32_t state_len = (uint32_t)(len - head - 16);
            le32_put(file + head + 4, state_len);
            le32_put(file + head + 8 + state_len, fuzz_crc(file + head + 8, state_len));
        }
    }
    if ((mode & 128) && len >= fixed && le32_get(file + 8) >= 3) {
        char name[CACHE_META_POLICY_LEN + 1] = { 0 };
        memcpy(name, file + 48, CACHE_META_POLICY_LEN);
        const CachePolicyOps *ops = NULL;
        uint64_t head = header + (uint64_t)le32_get(file + 28) * entry +
                        (uint64_t)le32_get(file + 32) * cell;
        if (cache_policy_lookup(name, &ops) && ops != NULL && head + 16 <= len)
            le32_put(file + head, ops->state_version);
    }
    if ((mode & 32) && len >= fixed)
        memset(file + 64, 0, CACHE_META_STORE_ID_LEN);
    if ((mode & 1) && len >= 4)
        le32_put(file + len - 4, fuzz_crc(file, len - 4));

    char *path = fuzz_write_file("fuzz-cache.meta", file, len);
    CacheMeta m;
    gboolean found = FALSE;
    GError *err = NULL;
    gboolean ok = cache_meta_load(path, &m, &found, &err);
    if (ok != (err == NULL) || !found)
        abort();
    if (ok) {
        if (strlen(m.policy) > CACHE_META_POLICY_LEN)
            abort();
        volatile uint64_t sum = 0;
        for (uint32_t i = 0; i < m.n_entries; i++)
            sum += m.entries[i].id + m.entries[i].slot + m.entries[i].check + m.entries[i].word;
        for (uint32_t i = 0; i < m.n_counts; i++)
            sum += m.counts[i];
        for (uint32_t i = 0; i < m.state_len; i++)
            sum += m.state[i];
        (void)sum;
        if (mode & 4)
            open_cache(file, len, &m);
        cache_meta_clear(&m);
    }
    g_clear_error(&err);
    g_unlink(path);
    g_free(path);
    free(file);
    return 0;
}
