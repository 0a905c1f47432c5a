/* SPDX-License-Identifier: GPL-3.0-or-later */
/* ssd_store.h: the bytes of a real-mode SSD cache: one slot file in the
 * cache directory and the directory lock. Slot i starts at byte
 * i * (SSD_SLOT_HEADER_SIZE + container_size): a header saying which store
 * and which container the slot holds and how it is stored (docs/FORMAT.md),
 * then the copy, written in one write (optionally O_DIRECT): the container
 * as it is (container_size bytes), or compressed (ssd-cache-compression),
 * zero-padded to whole SSD pages of CACHE_DIR_DIRECT_ALIGN bytes. A
 * compressed copy is kept only when it saves at least one page
 * (ssd_store_compress_cap()); the slot keeps its full size either way, so
 * compression saves bytes written, not slots.
 *
 * Opening claims the directory for the container cache (cache_dir.h: its
 * lock, held while the store is open, so a second process or a second
 * open in this one gets a DESTOR_ERROR_LOCKED; another format's files
 * removed). The slot file only grows to the highest slot written and is
 * cut back to `capacity` slots on open, so the directory never holds more
 * than capacity containers (plus cache.meta and LOCK). */
#ifndef DESTOR_CACHE_SSD_STORE_H
#define DESTOR_CACHE_SSD_STORE_H

#include "cache/common/cache_dir.h"

#include <glib.h>
#include <stddef.h>
#include <stdint.h>

#define SSD_STORE_SLOT_FILE "slots.dat"
/* One O_DIRECT block: the container after it stays aligned. */
#define SSD_SLOT_HEADER_SIZE 4096
#define SSD_SLOT_MAGIC "DPLCSLT1"
#define SSD_SLOT_VERSION 3 /* 1: no codec and length (always a raw copy); 2: no stored_check */
#define SSD_STORE_ID_LEN 16

/* What a slot's header says about the container after it. */
typedef struct {
    gboolean valid;                   /* read back: magic, version and CRC are right */
    uint32_t id;                      /* container id in its store */
    uint8_t store_id[SSD_STORE_ID_LEN]; /* the store's identity (store.meta) */
    uint64_t check;                   /* cache_copy_check() of the container bytes */
    uint32_t codec;                   /* CacheCodecKind of the copy (0: as it is) */
    uint32_t stored_len;              /* bytes of the copy before padding: container_size
                                         for a raw copy, the compressed length otherwise */
    uint64_t stored_check;            /* a compressed copy: cache_copy_check() of its
                                         stored_len bytes, taken after they were seen to
                                         decode to the container (version 3) */
    gboolean has_stored_check;        /* read back: a compressed copy of version 3 */
} SsdSlotHeader;

/* The most a compressed copy of a container_size object may take to be
 * kept: one SSD page less than the raw copy once padded to pages (0: the
 * object is one page or less, compression cannot save a page). */
size_t ssd_store_compress_cap(size_t container_size);
/* The bytes written for a copy of stored_len bytes: container_size for a
 * raw copy, stored_len rounded up to whole pages for a compressed one. */
size_t ssd_store_written_bytes(size_t container_size, size_t stored_len);

typedef struct SsdStore SsdStore;

/* Claim `dir` (cache_dir_claim), open the slot file. With o_direct the
 * container size must be a multiple of CACHE_DIR_DIRECT_ALIGN and the file
 * system must support O_DIRECT. */
SsdStore *ssd_store_open(const char *dir, size_t container_size, uint32_t capacity,
                         gboolean o_direct, GError **err);
/* Release the lock and close. */
void ssd_store_close(SsdStore *s);

/* Write the copy (hdr->stored_len bytes of buf: the container, or its
 * compressed form under hdr->codec), padded, then its header (a crash
 * between the two leaves a header that does not match the bytes, which a
 * reader drops). */
gboolean ssd_store_write(SsdStore *s, uint32_t slot, const SsdSlotHeader *hdr, const uint8_t *buf,
                         GError **err);
/* Read a slot's header, then its copy: a raw one into raw_buf, a compressed
 * one into packed_buf (hdr->stored_len bytes of it are the copy); both
 * container_size bytes. `expect` is the stored length the caller's record
 * gives (container_size for a raw copy; 0: unknown): header and copy are
 * then read in one I/O (when the buffer takes O_DIRECT as it is), and
 * read again as the header says when it says otherwise. FALSE only on an
 * I/O error; a header that is damaged, was never written, or gives a
 * length past the slot comes back with valid FALSE (the copy not to be
 * used). */
gboolean ssd_store_read(SsdStore *s, uint32_t slot, uint32_t expect, SsdSlotHeader *hdr, uint8_t *raw_buf,
                        uint8_t *packed_buf, GError **err);
gboolean ssd_store_sync(SsdStore *s, GError **err);

const char *ssd_store_dir(const SsdStore *s);

#endif
