/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cache_dir.h: an SSD cache directory and the formats that may hold it.
 *
 * A directory holds one format at a time: the container cache (slots and
 * cache.meta), or the chunk cache in one of its layouts (the log, the
 * buckets). Each format describes its own files in a CacheDirFormat
 * beside its code; CACHE_DIR_FORMATS below lists them, one registry line
 * each (a layout's line is also its place in the layouts' registry,
 * layouts/chunk_layout.h), so a format never names another's files.
 * Opening a format claims the
 * directory: it is created if missing, locked (flock on LOCK, held while
 * the descriptor stays open: a second open anywhere gets a
 * DESTOR_ERROR_LOCKED), and the files any other registered format left
 * there are removed, with one line on stderr for each such format. */
#ifndef DESTOR_CACHE_DIR_H
#define DESTOR_CACHE_DIR_H

#include <glib.h>
#include <sys/types.h>

/* The directory lock, shared by every format. */
#define CACHE_DIR_LOCK_FILE "LOCK"
/* The unit of an O_DIRECT read or write of a cache file (one SSD page):
 * buffers, offsets and lengths of such I/O are multiples of it. */
#define CACHE_DIR_DIRECT_ALIGN 4096

typedef struct {
    const char *held;          /* what a note says the directory holds, e.g. "a container cache
                                  (ssd-cache-granularity container)" */
    const char *becomes;       /* what a note says it is rebuilt as */
    const char *const *files;  /* its files in the directory, NULL-terminated (not LOCK) */
} CacheDirFormat;

/* The registry: the container cache's format (ssd_store_dir_format,
 * container/ssd_store.c), then one CHUNK_LAYOUT(KIND, name) line per chunk
 * layout, in ssd-cache-layout's order (the first the default): its
 * CacheDirFormat chunk_<name>_dir_format and its ChunkLayoutOps
 * chunk_layout_<name>_ops (chunk_layout.h), beside its code. */
#define CACHE_DIR_CHUNK_LAYOUTS(CHUNK_LAYOUT) \
    CHUNK_LAYOUT(LOG, log)                    \
    CHUNK_LAYOUT(BUCKETS, buckets)            \
    /* a new layout's line above this one */

extern const CacheDirFormat ssd_store_dir_format;
#define CACHE_DIR_DECLARE_LAYOUT(kind, name) extern const CacheDirFormat chunk_##name##_dir_format;
CACHE_DIR_CHUNK_LAYOUTS(CACHE_DIR_DECLARE_LAYOUT)
#undef CACHE_DIR_DECLARE_LAYOUT

/* Claim `dir` for `mine`: create it, lock it, remove every other format's
 * files (said on stderr). The lock's descriptor (close it to release the
 * lock), or -1 with err: the directory cannot be made, the lock is held
 * (DESTOR_ERROR_LOCKED) or a file cannot be removed. */
int cache_dir_claim(const char *dir, const CacheDirFormat *mine, GError **err);

/* Remove format f's files from dir. TRUE when there was one; FALSE with
 * err unset when there was none, with err set when one cannot be removed. */
gboolean cache_dir_remove(const char *dir, const CacheDirFormat *f, GError **err);

/* Open (creating, mode 0644) one of a format's files for reading and
 * writing, with O_DIRECT when asked: the descriptor, or -1 with err (a
 * file system without O_DIRECT is said as such). */
int cache_dir_open_file(const char *path, gboolean o_direct, GError **err);

/* Make the file `path`, open as fd, `size` bytes long: cut when longer,
 * and when `grow`, extended (sparse) when shorter. FALSE with err. */
gboolean cache_dir_size_file(int fd, const char *path, off_t size, gboolean grow, GError **err);

#endif
