/* SPDX-License-Identifier: GPL-3.0-or-later */
/* chunk_buckets.c: the bucketized chunk layout (chunk_buckets.h). */
#include "cache/layouts/buckets/chunk_buckets.h"
#include "cache/common/cache_dir.h"
#include "cache/layouts/chunk_layout.h"
#include "cache/layouts/buckets/chunk_buckets_place.h"
#include "cache/layouts/buckets/chunk_buckets_format.h"
#include "cache/layouts/buckets/chunk_buckets_index.h"
#include "cache/layouts/buckets/chunk_buckets_sketch.h"
#include "util/checksum.h"
#include "util/error.h"
#include "util/file_replace.h"
#include "util/fileio.h"
#include "util/le.h"
#include "util/thread_cpu.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

G_STATIC_ASSERT(CHUNK_BUCKETS_STORE_ID_LEN == CHUNK_BUCKETS_ID_LEN);

#define ALIGN CACHE_DIR_DIRECT_ALIGN

struct ChunkBuckets {
    ChunkBucketsOptions opt;
    char *dir;
    char *path;
    int lock_fd;
    int fd;
    uint32_t slots;     /* sub-slots per bucket */
    uint32_t subslot;   /* bytes of one */
    uint32_t n_buckets;
    uint32_t meta_size; /* bytes of a bucket's metadata area */
    uint64_t bucket_size;
    ChunkBucketsIndex x; /* prefixes and flag bits, nothing else */
    uint8_t *dirty;      /* bit per bucket: drops not yet written */
    ChunkBucketsSketch sketch;
    uint64_t next_seq;
    uint8_t *bucket_buf; /* one bucket (aligned) */
    uint8_t *raw_buf;    /* one chunk's stored bytes, with room for an aligned read's margins (aligned) */
    CacheCodec *codec;
    Fingerprinter *fpr;
    ChunkBucketsCounters c;
};

static gboolean bit(const uint8_t *a, uint64_t i)
{
    return (a[i / 8] >> (i % 8)) & 1;
}

static void set_bit(uint8_t *a, uint64_t i, gboolean v)
{
    if (v)
        a[i / 8] |= (uint8_t)(1u << (i % 8));
    else
        a[i / 8] &= (uint8_t)~(1u << (i % 8));
}

static off_t bucket_off(const ChunkBuckets *b, uint32_t bucket)
{
    return (off_t)((uint64_t)bucket * b->bucket_size);
}

uint32_t chunk_buckets_max_chunk(const ChunkBuckets *b)
{
    return chunk_buckets_largest_chunk(b->slots, b->subslot);
}

static uint32_t slots_for(const ChunkBuckets *b, uint32_t bytes)
{
    return (bytes + b->subslot - 1) / b->subslot;
}

uint32_t chunk_buckets_compress(CacheCodec *codec, uint32_t subslot, const uint8_t *buf, uint32_t len, uint8_t *out,
                                double *cpu_s)
{
    uint32_t raw_slots = (len + subslot - 1) / subslot;
    /* compressed only when that saves at least one sub-slot */
    if (raw_slots <= 1 || codec == NULL || cache_codec_kind(codec) == CACHE_CODEC_NONE)
        return len;
    double t0 = thread_cpu_seconds();
    size_t n = cache_codec_compress(codec, buf, len, out, (size_t)(raw_slots - 1) * subslot);
    *cpu_s += thread_cpu_seconds() - t0;
    return n > 0 ? (uint32_t)n : len;
}

gboolean chunk_buckets_maybe_contains(const ChunkBuckets *b, const Fingerprint *fp)
{
    return chunk_buckets_index_maybe(&b->x, fp);
}

/* ---- reading a bucket ---- */

static void forget_bucket(ChunkBuckets *b, uint32_t bucket)
{
    for (uint32_t s = 0; s < b->slots; s++)
        if (chunk_buckets_index_head(&b->x, bucket, s))
            chunk_buckets_index_unmark(&b->x, bucket, s);
    set_bit(b->dirty, bucket, FALSE);
}

/* Read the metadata area (or the whole bucket) into bucket_buf and check
 * it. A bucket that holds chunks in memory but whose area fails its check
 * is damaged: its chunks are forgotten. FALSE then, or on a read error. */
static gboolean read_bucket(ChunkBuckets *b, uint32_t bucket, gboolean whole)
{
    GError *local = NULL;
    size_t len = whole ? (size_t)b->bucket_size : b->meta_size;
    if (!file_pread_all(b->fd, b->bucket_buf, len, bucket_off(b, bucket), b->path, &local)) {
        /* past the end of the file (never written) or unreadable: the
         * zeroes below are an empty bucket, or a damaged one when memory
         * says it holds chunks */
        g_clear_error(&local);
        memset(b->bucket_buf, 0, len);
    }
    ChunkBucketsHeader h;
    ChunkBucketsMetaState st = chunk_buckets_unseal(b->bucket_buf, b->slots, &h);
    if (st == CHUNK_BUCKETS_META_OK && h.bucket == bucket)
        return TRUE;
    gboolean held = FALSE;
    for (uint32_t s = 0; s < b->slots && !held; s++)
        held = chunk_buckets_index_used(&b->x, bucket, s);
    if (held) {
        b->c.damaged_buckets++;
        b->c.damaged_reads++;
        forget_bucket(b, bucket);
    }
    memset(b->bucket_buf, 0, len);
    return !held;
}

/* The head sub-slot of fp in the bucket read into bucket_buf, or -1;
 * prefix matches of other fingerprints are counted. */
static int find_in_meta(ChunkBuckets *b, uint32_t bucket, const Fingerprint *fp, ChunkBucketsEntry *out)
{
    uint16_t p = chunk_buckets_prefix_of(fp);
    gboolean collided = FALSE;
    for (int s = chunk_buckets_index_find(&b->x, bucket, p, 0); s >= 0;
         s = chunk_buckets_index_find(&b->x, bucket, p, (uint32_t)s + 1)) {
        ChunkBucketsEntry e;
        chunk_buckets_entry_get(b->bucket_buf, (uint32_t)s, &e);
        if (memcmp(e.fp.bytes, fp->bytes, FP_SLOT) == 0) {
            *out = e;
            return s;
        }
        collided = TRUE;
    }
    if (collided)
        b->c.prefix_collisions++;
    return -1;
}

gboolean chunk_buckets_contains(ChunkBuckets *b, const Fingerprint *fp, uint32_t *length)
{
    if (!chunk_buckets_maybe_contains(b, fp))
        return FALSE;
    uint32_t bucket = chunk_buckets_bucket_of(&b->x, fp);
    ChunkBucketsEntry e;
    if (!read_bucket(b, bucket, FALSE) || find_in_meta(b, bucket, fp, &e) < 0)
        return FALSE;
    if (length)
        *length = e.raw_len;
    return TRUE;
}


static void drop_damaged(ChunkBuckets *b, uint32_t bucket, uint32_t s)
{
    chunk_buckets_index_unmark(&b->x, bucket, s);
    set_bit(b->dirty, bucket, TRUE);
    b->c.damaged_reads++;
}

ChunkBucketsGet chunk_buckets_get(ChunkBuckets *b, const Fingerprint *fp, void *buf, uint32_t *len)
{
    if (!chunk_buckets_maybe_contains(b, fp))
        return CHUNK_BUCKETS_ABSENT;
    uint32_t bucket = chunk_buckets_bucket_of(&b->x, fp);
    if (!read_bucket(b, bucket, FALSE))
        return CHUNK_BUCKETS_DAMAGED;
    ChunkBucketsEntry e;
    int s = find_in_meta(b, bucket, fp, &e);
    if (s < 0)
        return CHUNK_BUCKETS_ABSENT;
    b->c.gets++;
    uint32_t n = chunk_buckets_index_run(&b->x, bucket, (uint32_t)s);
    gboolean sane = e.head == 1 && e.n_slots == n && e.raw_len >= 1 && e.raw_len <= chunk_buckets_max_chunk(b) &&
                    e.stored_len >= 1 && e.stored_len <= n * b->subslot && e.codec < CACHE_CODEC_KINDS &&
                    (e.codec != CACHE_CODEC_NONE || e.stored_len == e.raw_len);
    if (!sane) {
        drop_damaged(b, bucket, (uint32_t)s);
        return CHUNK_BUCKETS_DAMAGED;
    }
    /* the stored bytes into raw_buf: exactly, or with O_DIRECT the
     * aligned span around them (inside the bucket: it is aligned) */
    off_t off = bucket_off(b, bucket) + b->meta_size + (off_t)s * b->subslot;
    off_t start = b->opt.o_direct ? off - off % ALIGN : off;
    size_t span = (size_t)(off - start) + e.stored_len;
    if (b->opt.o_direct)
        span = (span + ALIGN - 1) / ALIGN * ALIGN;
    g_assert(span <= (size_t)chunk_buckets_max_chunk(b) + 2 * ALIGN);
    GError *local = NULL;
    gboolean ok = file_pread_all(b->fd, b->raw_buf, span, start, b->path, &local);
    g_clear_error(&local);
    const uint8_t *stored = b->raw_buf + (off - start);
    if (ok && e.codec == CACHE_CODEC_NONE)
        memcpy(buf, stored, e.raw_len);
    else if (ok) {
        double t0 = thread_cpu_seconds();
        ok = cache_codec_decompress(b->codec, (CacheCodecKind)e.codec, stored, e.stored_len, buf, e.raw_len);
        b->c.cpu_decompress_s += thread_cpu_seconds() - t0;
    }
    /* the CRC-32 taken at the put, from bytes matched against fp then */
    if (!ok || checksum_crc32(CHECKSUM_CRC32_START, buf, e.raw_len) != e.check) {
        drop_damaged(b, bucket, (uint32_t)s);
        return CHUNK_BUCKETS_DAMAGED;
    }
    chunk_buckets_sketch_add(&b->sketch, fp);
    *len = e.raw_len;
    b->c.bytes_served += e.raw_len;
    return CHUNK_BUCKETS_HIT;
}

/* ---- writing ---- */

/* Clear the table entries of bucket_buf's chunks that memory no longer
 * holds (dropped, evicted), seal the metadata area and write sub-slots
 * data_start .. data_start + data_n - 1 (none when data_n is 0; with
 * O_DIRECT the aligned span around them, its other bytes as read), then
 * the metadata area: never the whole bucket. On a write error the
 * bucket's chunks are forgotten and told to `dropped`. */
static gboolean write_bucket(ChunkBuckets *b, uint32_t bucket, uint32_t data_start, uint32_t data_n, GError **err)
{
    for (uint32_t s = 0; s < b->slots; s++)
        if (!chunk_buckets_index_head(&b->x, bucket, s))
            chunk_buckets_entry_clear(b->bucket_buf, s);
    ChunkBucketsHeader h;
    memset(&h, 0, sizeof h);
    memcpy(h.store_id, b->opt.store_id, CHUNK_BUCKETS_ID_LEN);
    h.subslot_size = b->subslot;
    h.slots = b->slots;
    h.fp_alg = (uint32_t)b->opt.fp_alg;
    h.codec = (uint32_t)b->opt.compression;
    h.bucket = bucket;
    h.seq = b->next_seq;
    chunk_buckets_seal(b->bucket_buf, &h);
    size_t from = b->meta_size + (size_t)data_start * b->subslot, to = from + (size_t)data_n * b->subslot;
    if (b->opt.o_direct) {
        from -= from % ALIGN;
        to = (to + ALIGN - 1) / ALIGN * ALIGN;
    }
    g_assert(data_n == 0 || to <= b->bucket_size);
    gboolean ok = data_n == 0 || file_pwrite_all(b->fd, b->bucket_buf + from, to - from,
                                                 bucket_off(b, bucket) + (off_t)from, b->path, err);
    if (data_n > 0 && ok)
        b->c.device_bytes_written += to - from;
    ok = ok && file_pwrite_all(b->fd, b->bucket_buf, b->meta_size, bucket_off(b, bucket), b->path, err);
    if (!ok) {
        for (uint32_t s = 0; s < b->slots; s++) {
            if (!chunk_buckets_index_head(&b->x, bucket, s))
                continue;
            ChunkBucketsEntry e;
            chunk_buckets_entry_get(b->bucket_buf, s, &e);
            chunk_buckets_index_unmark(&b->x, bucket, s);
            b->c.chunks_dropped_by_layout++;
            if (b->opt.dropped)
                b->opt.dropped(b->opt.dropped_ctx, &e.fp, e.raw_len);
        }
        set_bit(b->dirty, bucket, FALSE);
        return FALSE;
    }
    b->next_seq++;
    b->c.buckets_written++;
    b->c.device_bytes_written += b->meta_size;
    set_bit(b->dirty, bucket, FALSE);
    return TRUE;
}

/* The full fingerprint of the chunk whose head is s, from bucket_buf. */
static void fp_in_buf(void *ctx, uint32_t s, Fingerprint *out)
{
    ChunkBuckets *b = ctx;
    ChunkBucketsEntry e;
    chunk_buckets_entry_get(b->bucket_buf, s, &e);
    *out = e.fp;
}

typedef struct {
    ChunkBuckets *b;
    uint32_t bucket;
} EvictCtx;

static void evict_head(void *ctx, uint32_t s)
{
    EvictCtx *v = ctx;
    ChunkBuckets *b = v->b;
    ChunkBucketsEntry e;
    chunk_buckets_entry_get(b->bucket_buf, s, &e);
    chunk_buckets_index_unmark(&b->x, v->bucket, s);
    b->c.chunks_dropped_by_layout++;
    if (b->opt.dropped)
        b->opt.dropped(b->opt.dropped_ctx, &e.fp, e.raw_len);
}

gboolean chunk_buckets_put(ChunkBuckets *b, const Fingerprint *fp, const void *buf, uint32_t len, GError **err)
{
    if (len == 0 || len > chunk_buckets_max_chunk(b)) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_CONFIG,
                    "a chunk of %u bytes does not fit in a cache bucket (at most %u bytes)", len,
                    chunk_buckets_max_chunk(b));
        return FALSE;
    }
    uint32_t bucket = chunk_buckets_bucket_of(&b->x, fp);
    read_bucket(b, bucket, TRUE); /* a damaged bucket is forgotten and rewritten */
    ChunkBucketsEntry e;
    if (chunk_buckets_maybe_contains(b, fp) && find_in_meta(b, bucket, fp, &e) >= 0)
        return TRUE;
    uint32_t check;
    if (!chunk_layout_check_put(b->fpr, fp, buf, len, "cache buckets", &check, err))
        return FALSE;
    uint32_t stored_len = chunk_buckets_compress(b->codec, b->subslot, buf, len, b->raw_buf, &b->c.cpu_compress_s);
    size_t clen = stored_len < len ? stored_len : 0;
    const uint8_t *stored = clen > 0 ? b->raw_buf : buf;
    uint32_t n = slots_for(b, stored_len);
    g_assert(n >= 1 && n <= MIN(b->slots, CHUNK_BUCKETS_MAX_SLOTS));
    uint32_t start = chunk_buckets_choose_run(&b->x, &b->sketch, bucket, n, fp_in_buf, b);
    EvictCtx v = { b, bucket };
    uint64_t dropped_before = b->c.chunks_dropped_by_layout;
    chunk_buckets_run_heads(&b->x, bucket, start, n, evict_head, &v);
    /* The sub-slots may still be named on the SSD by chunks evicted now or
     * dropped since the bucket was last written: first write the metadata
     * area without them, so a kill before the new chunk's metadata is
     * written leaves no entry over its bytes (never a damaged read). */
    if ((b->c.chunks_dropped_by_layout != dropped_before || bit(b->dirty, bucket)) &&
        !write_bucket(b, bucket, 0, 0, err))
        return FALSE;
    uint8_t *data = b->bucket_buf + b->meta_size + (size_t)start * b->subslot;
    memset(data, 0, (size_t)n * b->subslot);
    memcpy(data, stored, stored_len);
    e = (ChunkBucketsEntry){ .fp = *fp, .raw_len = len, .stored_len = stored_len,
                             .codec = (uint8_t)(clen > 0 ? b->opt.compression : CACHE_CODEC_NONE),
                             .n_slots = (uint8_t)n, .head = 1,
                             .check = check };
    for (uint32_t k = 1; k < n; k++)
        chunk_buckets_entry_clear(b->bucket_buf, start + k);
    chunk_buckets_entry_put(b->bucket_buf, start, &e);
    chunk_buckets_index_mark(&b->x, bucket, start, n, chunk_buckets_prefix_of(fp));
    if (!write_bucket(b, bucket, start, n, err))
        return FALSE;
    chunk_buckets_sketch_add(&b->sketch, fp);
    b->c.user_bytes_written += len;
    b->c.stored_bytes_written += (uint64_t)n * b->subslot;
    if (clen > 0)
        b->c.chunks_compressed++;
    return TRUE;
}

gboolean chunk_buckets_drop(ChunkBuckets *b, const Fingerprint *fp)
{
    if (!chunk_buckets_maybe_contains(b, fp))
        return FALSE;
    uint32_t bucket = chunk_buckets_bucket_of(&b->x, fp);
    ChunkBucketsEntry e;
    if (!read_bucket(b, bucket, FALSE))
        return FALSE;
    int s = find_in_meta(b, bucket, fp, &e);
    if (s < 0)
        return FALSE;
    chunk_buckets_index_unmark(&b->x, bucket, (uint32_t)s);
    set_bit(b->dirty, bucket, TRUE);
    return TRUE;
}

void chunk_buckets_foreach(ChunkBuckets *b, void (*fn)(void *ctx, const Fingerprint *fp, uint32_t length),
                           void *ctx)
{
    for (uint32_t bucket = 0; bucket < b->n_buckets; bucket++) {
        gboolean any = FALSE;
        for (uint32_t s = 0; s < b->slots && !any; s++)
            any = chunk_buckets_index_head(&b->x, bucket, s);
        if (!any || !read_bucket(b, bucket, FALSE))
            continue;
        for (uint32_t s = 0; s < b->slots; s++) {
            if (!chunk_buckets_index_head(&b->x, bucket, s))
                continue;
            ChunkBucketsEntry e;
            chunk_buckets_entry_get(b->bucket_buf, s, &e);
            fn(ctx, &e.fp, e.raw_len);
        }
    }
}

gboolean chunk_buckets_sync(ChunkBuckets *b, GError **err)
{
    gboolean ok = TRUE;
    for (uint32_t bucket = 0; bucket < b->n_buckets; bucket++) {
        if (!bit(b->dirty, bucket))
            continue;
        read_bucket(b, bucket, FALSE); /* drops change the metadata area only */
        if (!write_bucket(b, bucket, 0, 0, ok ? err : NULL))
            ok = FALSE;
    }
    return ok && file_fsync(b->fd, b->path, err);
}

/* ---- open and close ---- */

static gboolean check_options(const ChunkBucketsOptions *o, uint32_t slots, uint32_t subslot, GError **err)
{
    const char *why = NULL;
    if (subslot < CHUNK_BUCKETS_MIN_SUBSLOT || subslot % 512 != 0 || subslot > (1u << 24))
        why = "the sub-slot size must be a multiple of 512 of at least 512 bytes";
    else if (slots < 1 || slots > 65535)
        why = "a bucket has 1..65535 sub-slots";
    else if (o->o_direct && chunk_buckets_bucket_size(slots, subslot) % ALIGN != 0)
        why = "with ssd-cache-o-direct a bucket must be a multiple of 4 KiB";
    else if (o->capacity_bytes < chunk_buckets_bucket_size(slots, subslot))
        why = "ssd-cache-size is smaller than one bucket";
    else if (o->capacity_bytes / chunk_buckets_bucket_size(slots, subslot) > UINT32_MAX / 2)
        why = "ssd-cache-size makes too many buckets";
    if (why == NULL)
        return TRUE;
    g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_CONFIG, "chunk buckets: %s", why);
    return FALSE;
}

static const char *const buckets_files[] = {CHUNK_BUCKETS_FILE, NULL};

const CacheDirFormat chunk_buckets_dir_format = {
    .held = "a chunk cache in buckets (ssd-cache-granularity chunk, ssd-cache-layout buckets)",
    .becomes = "a chunk cache in buckets (ssd-cache-layout buckets)",
    .files = buckets_files,
};

/* Take a bucket's chunks into memory; FALSE when its table does not make
 * sense (then it holds nothing). */
static gboolean load_table(ChunkBuckets *b, uint32_t bucket)
{
    uint32_t s = 0;
    while (s < b->slots) {
        ChunkBucketsEntry e;
        chunk_buckets_entry_get(b->bucket_buf, s, &e);
        if (!e.head) {
            s++;
            continue;
        }
        gboolean sane = e.n_slots >= 1 && s + e.n_slots <= b->slots && e.raw_len >= 1 &&
                        e.raw_len <= chunk_buckets_max_chunk(b) && e.stored_len >= 1 &&
                        e.stored_len <= (uint32_t)e.n_slots * b->subslot && e.codec < CACHE_CODEC_KINDS &&
                        chunk_buckets_bucket_of(&b->x, &e.fp) == bucket;
        if (!sane) {
            forget_bucket(b, bucket);
            return FALSE;
        }
        chunk_buckets_index_mark(&b->x, bucket, s, e.n_slots, chunk_buckets_prefix_of(&e.fp));
        s += e.n_slots;
    }
    return TRUE;
}

static gboolean load(ChunkBuckets *b, GError **err)
{
    GError *local = NULL;
    for (uint32_t bucket = 0; bucket < b->n_buckets; bucket++) {
        if (!file_pread_all(b->fd, b->bucket_buf, b->meta_size, bucket_off(b, bucket), b->path, &local)) {
            g_clear_error(&local); /* past the end of the file: the rest was never written */
            break;
        }
        ChunkBucketsHeader h;
        ChunkBucketsMetaState st = chunk_buckets_unseal(b->bucket_buf, b->slots, &h);
        if (st == CHUNK_BUCKETS_META_EMPTY)
            continue;
        if (st == CHUNK_BUCKETS_META_DAMAGED) {
            b->c.damaged_buckets++;
            continue;
        }
        const char *why = NULL;
        if (st == CHUNK_BUCKETS_META_OLD)
            why = "buckets of an older format (no CRC-32 per chunk)";
        else if (memcmp(h.store_id, b->opt.store_id, CHUNK_BUCKETS_ID_LEN) != 0)
            why = "another store's chunks";
        else if (h.fp_alg != (uint32_t)b->opt.fp_alg)
            why = "chunks of another fingerprint function";
        else if (h.codec != (uint32_t)b->opt.compression)
            why = "chunks written with another ssd-cache-compression";
        else if (h.subslot_size != b->subslot || h.slots != b->slots)
            why = "buckets of another sub-slot size or bucket size";
        if (why != NULL) {
            destor_warning("SSD cache %s holds %s; starting it empty", b->dir, why);
            for (uint32_t k = 0; k < b->n_buckets; k++)
                forget_bucket(b, k);
            b->c.damaged_buckets = 0;
            if (ftruncate(b->fd, 0) != 0) {
                destor_set_errno(err, errno, "truncate %s", b->path);
                return FALSE;
            }
            return TRUE;
        }
        if (h.bucket != bucket || !load_table(b, bucket)) {
            b->c.damaged_buckets++;
            continue;
        }
        if (h.seq >= b->next_seq)
            b->next_seq = h.seq + 1;
    }
    return TRUE;
}

ChunkBuckets *chunk_buckets_open(const ChunkBucketsOptions *opt, GError **err)
{
    uint32_t slots = opt->slots ? opt->slots : CHUNK_BUCKETS_DEFAULT_SLOTS;
    uint32_t subslot = opt->subslot_size ? opt->subslot_size : CHUNK_BUCKETS_DEFAULT_SUBSLOT;
    if (!check_options(opt, slots, subslot, err))
        return NULL;
    ChunkBuckets *b = g_new0(ChunkBuckets, 1);
    b->opt = *opt;
    b->dir = g_strdup(opt->directory);
    b->opt.directory = b->dir;
    b->path = g_build_filename(b->dir, CHUNK_BUCKETS_FILE, NULL);
    b->lock_fd = b->fd = -1;
    b->slots = slots;
    b->subslot = subslot;
    b->meta_size = chunk_buckets_meta_size(slots);
    b->bucket_size = chunk_buckets_bucket_size(slots, subslot);
    b->n_buckets = (uint32_t)(opt->capacity_bytes / b->bucket_size);
    uint64_t n_slots = (uint64_t)b->n_buckets * slots;
    chunk_buckets_index_init(&b->x, b->n_buckets, slots);
    b->dirty = g_malloc0((b->n_buckets + 7) / 8);
    chunk_buckets_sketch_init(&b->sketch, n_slots);
    b->next_seq = 1;
    /* raw_buf: a compressed chunk may take all of max_chunk, and an
     * aligned read adds at most an ALIGN on each side */
    if (posix_memalign((void **)&b->bucket_buf, ALIGN, b->bucket_size) != 0 ||
        posix_memalign((void **)&b->raw_buf, ALIGN, (size_t)chunk_buckets_max_chunk(b) + 2 * ALIGN) != 0) {
        destor_set_errno(err, ENOMEM, "allocate the chunk buckets' buffers");
        goto fail;
    }
    memset(b->bucket_buf, 0, b->bucket_size);
    b->codec = cache_codec_new(opt->compression, opt->compression_level);
    b->fpr = fingerprinter_new(opt->fp_alg);

    b->lock_fd = cache_dir_claim(b->dir, &chunk_buckets_dir_format, err);
    if (b->lock_fd < 0)
        goto fail;
    b->fd = cache_dir_open_file(b->path, opt->o_direct, err);
    if (b->fd < 0)
        goto fail;
    if (!load(b, err))
        goto fail;
    /* every bucket's bytes exist (sparse where never written): puts write
     * only parts of a bucket, and read it whole first */
    if (!cache_dir_size_file(b->fd, b->path, bucket_off(b, b->n_buckets), TRUE, err))
        goto fail;
    return b;
fail:
    if (b->fd >= 0)
        close(b->fd);
    b->fd = -1;
    chunk_buckets_close(b, NULL);
    return NULL;
}

gboolean chunk_buckets_close(ChunkBuckets *b, GError **err)
{
    if (b == NULL)
        return TRUE;
    gboolean ok = TRUE;
    if (b->fd >= 0) {
        ok = chunk_buckets_sync(b, err);
        close(b->fd);
    }
    if (b->lock_fd >= 0)
        close(b->lock_fd);
    if (b->codec)
        cache_codec_free(b->codec);
    if (b->fpr)
        fingerprinter_free(b->fpr);
    chunk_buckets_sketch_clear(&b->sketch);
    chunk_buckets_index_clear(&b->x);
    g_free(b->dirty);
    free(b->bucket_buf);
    free(b->raw_buf);
    g_free(b->path);
    g_free(b->dir);
    g_free(b);
    return ok;
}

uint64_t chunk_buckets_chunks(const ChunkBuckets *b)
{
    return b->x.chunks;
}

uint64_t chunk_buckets_used_slots(const ChunkBuckets *b)
{
    return b->x.used_slots;
}

uint32_t chunk_buckets_count(const ChunkBuckets *b)
{
    return b->n_buckets;
}

uint32_t chunk_buckets_subslot_size(const ChunkBuckets *b)
{
    return b->subslot;
}

const ChunkBucketsCounters *chunk_buckets_counters(const ChunkBuckets *b)
{
    return &b->c;
}

size_t chunk_buckets_index_bytes(const ChunkBuckets *b)
{
    return chunk_buckets_index_bytes_of(&b->x) + (b->n_buckets + 7) / 8 + chunk_buckets_sketch_bytes(&b->sketch);
}

size_t chunk_buckets_fixed_bytes(const ChunkBuckets *b)
{
    return sizeof *b + (size_t)b->bucket_size + chunk_buckets_max_chunk(b) + 2 * ALIGN;
}
