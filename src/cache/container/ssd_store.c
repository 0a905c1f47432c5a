/* SPDX-License-Identifier: GPL-3.0-or-later */
/* ssd_store.c: slot file I/O, and the container cache's claim on its
 * directory (cache_dir.h). */
#include "cache/container/ssd_store.h"
#include "cache/common/cache_dir.h"
#include "cache/container/cache_meta.h"
#include "util/error.h"
#include "util/fileio.h"
#include "util/checksum.h"
#include "util/le.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

struct SsdStore {
    char *dir;
    char *slot_path;
    int lock_fd;
    int fd;
    size_t container_size;
    gboolean o_direct;
    uint8_t *bounce; /* aligned, container_size: O_DIRECT with unaligned callers,
                        and the padding of a compressed copy */
    uint8_t *header; /* aligned, SSD_SLOT_HEADER_SIZE */
};

size_t ssd_store_compress_cap(size_t container_size)
{
    size_t pages = (container_size + CACHE_DIR_DIRECT_ALIGN - 1) / CACHE_DIR_DIRECT_ALIGN;
    return pages > 0 ? (pages - 1) * CACHE_DIR_DIRECT_ALIGN : 0;
}

size_t ssd_store_written_bytes(size_t container_size, size_t stored_len)
{
    if (stored_len == container_size)
        return container_size;
    g_assert(stored_len <= ssd_store_compress_cap(container_size));
    return (stored_len + CACHE_DIR_DIRECT_ALIGN - 1) / CACHE_DIR_DIRECT_ALIGN * CACHE_DIR_DIRECT_ALIGN;
}

static off_t slot_offset(const SsdStore *s, uint32_t slot)
{
    return (off_t)slot * (off_t)(SSD_SLOT_HEADER_SIZE + s->container_size);
}

const char *ssd_store_dir(const SsdStore *s)
{
    return s->dir;
}

static const char *const container_files[] = {SSD_STORE_SLOT_FILE, CACHE_META_FILE, NULL};

const CacheDirFormat ssd_store_dir_format = {
    .held = "a container cache (ssd-cache-granularity container)",
    .becomes = "a container cache",
    .files = container_files,
};

SsdStore *ssd_store_open(const char *dir, size_t container_size, uint32_t capacity,
                         gboolean o_direct, GError **err)
{
    if (o_direct && container_size % CACHE_DIR_DIRECT_ALIGN != 0) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_CONFIG,
                    "ssd-cache-o-direct needs a container size that is a multiple of %d (it is %zu)",
                    CACHE_DIR_DIRECT_ALIGN, container_size);
        return NULL;
    }
    SsdStore *s = g_new0(SsdStore, 1);
    s->dir = g_strdup(dir);
    s->slot_path = g_build_filename(dir, SSD_STORE_SLOT_FILE, NULL);
    s->fd = -1;
    s->container_size = container_size;
    s->o_direct = o_direct;
    s->lock_fd = cache_dir_claim(dir, &ssd_store_dir_format, err);
    if (s->lock_fd < 0)
        goto fail;
    s->fd = cache_dir_open_file(s->slot_path, o_direct, err);
    if (s->fd < 0)
        goto fail;
    if (!cache_dir_size_file(s->fd, s->slot_path, slot_offset(s, capacity), FALSE, err))
        goto fail;
    if (posix_memalign((void **)&s->bounce, CACHE_DIR_DIRECT_ALIGN, container_size) != 0 ||
        posix_memalign((void **)&s->header, CACHE_DIR_DIRECT_ALIGN, SSD_SLOT_HEADER_SIZE) != 0) {
        destor_set_errno(err, ENOMEM, "allocate an SSD cache buffer");
        goto fail;
    }
    return s;
fail:
    ssd_store_close(s);
    return NULL;
}

void ssd_store_close(SsdStore *s)
{
    if (s == NULL)
        return;
    if (s->fd >= 0)
        close(s->fd);
    if (s->lock_fd >= 0)
        close(s->lock_fd); /* releases the flock */
    free(s->bounce);
    free(s->header);
    g_free(s->slot_path);
    g_free(s->dir);
    g_free(s);
}

static gboolean needs_bounce(const SsdStore *s, const void *buf)
{
    return s->o_direct && ((uintptr_t)buf % CACHE_DIR_DIRECT_ALIGN) != 0;
}

/* Header layout (docs/FORMAT.md): magic, version, container id, store
 * identity, check, zero, and the CRC-32 of all before it in the last 4
 * bytes (so no byte of the header can change unnoticed). */
static void header_encode(uint8_t *p, const SsdSlotHeader *h)
{
    memset(p, 0, SSD_SLOT_HEADER_SIZE);
    memcpy(p, SSD_SLOT_MAGIC, 8);
    le32_put(p + 8, SSD_SLOT_VERSION);
    le32_put(p + 12, h->id);
    memcpy(p + 16, h->store_id, SSD_STORE_ID_LEN);
    le64_put(p + 32, h->check);
    le32_put(p + 40, h->codec);
    le32_put(p + 44, h->stored_len);
    le64_put(p + 48, h->codec == 0 ? 0 : h->stored_check);
    le32_put(p + SSD_SLOT_HEADER_SIZE - 4, checksum_crc32(CHECKSUM_CRC32_START, p, SSD_SLOT_HEADER_SIZE - 4));
}

/* A version 1 header (before compression) describes a raw copy; a
 * version 2 one has no check of a compressed copy's stored bytes. A length
 * that does not fit the slot makes the header invalid. */
static void header_decode(const uint8_t *p, size_t container_size, SsdSlotHeader *h)
{
    memset(h, 0, sizeof *h);
    uint32_t version = le32_get(p + 8);
    h->valid = memcmp(p, SSD_SLOT_MAGIC, 8) == 0 && version >= 1 && version <= SSD_SLOT_VERSION &&
               le32_get(p + SSD_SLOT_HEADER_SIZE - 4) ==
                   checksum_crc32(CHECKSUM_CRC32_START, p, SSD_SLOT_HEADER_SIZE - 4);
    if (!h->valid)
        return;
    h->id = le32_get(p + 12);
    memcpy(h->store_id, p + 16, SSD_STORE_ID_LEN);
    h->check = le64_get(p + 32);
    h->codec = version == 1 ? 0 : le32_get(p + 40);
    h->stored_len = version == 1 ? (uint32_t)container_size : le32_get(p + 44);
    gboolean raw = h->codec == 0;
    h->has_stored_check = !raw && version >= 3;
    h->stored_check = h->has_stored_check ? le64_get(p + 48) : 0;
    h->valid = raw ? h->stored_len == container_size
                   : h->stored_len > 0 && h->stored_len <= ssd_store_compress_cap(container_size);
}

gboolean ssd_store_write(SsdStore *s, uint32_t slot, const SsdSlotHeader *hdr, const uint8_t *buf,
                         GError **err)
{
    size_t len = ssd_store_written_bytes(s->container_size, hdr->stored_len);
    g_assert((hdr->codec == 0) == (hdr->stored_len == s->container_size));
    const uint8_t *src = buf;
    if (len != hdr->stored_len || needs_bounce(s, buf)) {
        memcpy(s->bounce, buf, hdr->stored_len);
        memset(s->bounce + hdr->stored_len, 0, len - hdr->stored_len);
        src = s->bounce;
    }
    off_t off = slot_offset(s, slot);
    if (!file_pwrite_all(s->fd, src, len, off + SSD_SLOT_HEADER_SIZE, s->slot_path, err))
        return FALSE;
    header_encode(s->header, hdr);
    return file_pwrite_all(s->fd, s->header, SSD_SLOT_HEADER_SIZE, off, s->slot_path, err);
}

/* The header and the `expect` stored bytes the caller's record gives, in
 * one read into the buffer they go to, when that buffer takes the read as
 * it is. FALSE (nothing assumed read) when it does not, or the slot file
 * ends first (the header alone then says what there is); an error only
 * when the read failed otherwise. */
static gboolean read_together(SsdStore *s, off_t off, uint32_t expect, uint8_t *raw_buf, uint8_t *packed_buf,
                              gboolean *failed, GError **err)
{
    *failed = FALSE;
    uint8_t *buf = expect == s->container_size ? raw_buf : packed_buf;
    if (expect == 0 || (expect != s->container_size && expect > ssd_store_compress_cap(s->container_size)) ||
        needs_bounce(s, buf))
        return FALSE;
    GError *local = NULL;
    if (file_pread2_all(s->fd, s->header, SSD_SLOT_HEADER_SIZE, buf, ssd_store_written_bytes(s->container_size, expect),
                        off, s->slot_path, &local))
        return TRUE;
    if (g_error_matches(local, DESTOR_ERROR, DESTOR_ERROR_INTEGRITY)) { /* truncated */
        g_error_free(local);
        return FALSE;
    }
    g_propagate_error(err, local);
    *failed = TRUE;
    return FALSE;
}

gboolean ssd_store_read(SsdStore *s, uint32_t slot, uint32_t expect, SsdSlotHeader *hdr, uint8_t *raw_buf,
                        uint8_t *packed_buf, GError **err)
{
    off_t off = slot_offset(s, slot);
    gboolean failed;
    gboolean together = read_together(s, off, expect, raw_buf, packed_buf, &failed, err);
    if (failed)
        return FALSE;
    if (!together && !file_pread_all(s->fd, s->header, SSD_SLOT_HEADER_SIZE, off, s->slot_path, err))
        return FALSE;
    header_decode(s->header, s->container_size, hdr);
    if (!hdr->valid)
        return TRUE;
    uint8_t *buf = hdr->codec == 0 ? raw_buf : packed_buf;
    if (together && hdr->stored_len == expect && (buf == raw_buf) == (expect == s->container_size))
        return TRUE; /* the copy came with its header */
    size_t len = ssd_store_written_bytes(s->container_size, hdr->stored_len);
    uint8_t *dst = needs_bounce(s, buf) ? s->bounce : buf;
    if (!file_pread_all(s->fd, dst, len, off + SSD_SLOT_HEADER_SIZE, s->slot_path, err))
        return FALSE;
    if (dst != buf)
        memcpy(buf, dst, hdr->stored_len);
    return TRUE;
}

gboolean ssd_store_sync(SsdStore *s, GError **err)
{
    return file_fsync(s->fd, s->slot_path, err);
}
