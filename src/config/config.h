/* SPDX-License-Identifier: GPL-3.0-or-later */
/* config.h: destor.config, in Destor's format: one "key value..." per line,
 * a value with blanks in double quotes, '#' starts a comment. `-p"key value"`
 * on the command line applies one more line after the file. The result is
 * read once and then treated as read-only. */
#ifndef DESTOR_CONFIG_H
#define DESTOR_CONFIG_H

#include "cache/config/cache_config.h"
#include "chunking/chunker.h"
#include "config/rewrite_config.h"
#include "index/fp_index_params.h"
#include "storage/container_store.h"
#include "util/file_digest.h"
#include "util/fingerprint.h"

#include <glib.h>
#include <stddef.h>

/* restore-cache's kinds (Destor's names): the container LRU, Belady's
 * optimal container cache over the recipe's known future, and the forward
 * assembly area (src/read/restore_cache.h). */
typedef enum { RESTORE_CACHE_LRU, RESTORE_CACHE_OPT, RESTORE_CACHE_ASM } RestoreCacheKind;

typedef struct {
    RestoreCacheKind kind;
    unsigned containers;  /* memory: this many container-sized buffers */
    unsigned opt_window;  /* restore-opt-window-size: chunks opt looks ahead */
    gboolean set;         /* a restore-cache line was given: read-file uses it too */
} RestoreCacheConfig;

typedef struct {
    char *working_directory;
    ChunkAlgorithm chunk_algorithm;
    ChunkSizes chunk_sizes;
    size_t container_size;
    FingerprintAlgorithm fingerprint;
    ContainerStoreKind container_store; /* pool (default), files or rados */
    char *rados_conf;                /* container-store rados: rados-conf, rados-pool, */
    char *rados_pool;                /* rados-namespace ("" unless set), rados-timeout */
    char *rados_namespace;           /* and rados-lock-duration (seconds) */
    unsigned rados_timeout;
    unsigned rados_lock_duration;
    FileDigestAlgorithm file_digest; /* NONE: not set (a new store's is xxh3, an old store keeps its own) */
    gboolean simulate;               /* simulation-level other than "no" */
    RestoreCacheConfig restore_cache; /* restore-cache, restore-opt-window-size */
    int backup_retention;            /* backup-retention-time: live jobs kept after
                                        a backup; negative: every one */
    unsigned backup_workers;           /* chunk workers of backup; 0: one per CPU */
    int backup_files_cache;          /* backup-files-cache: 1 yes, 0 no, -1 not set (on
                                        where it applies: backup/files_cache.h) */
    gboolean store_read_uncached;    /* every container read reaches the disk */
    double gc_live_threshold;        /* gc copies the live chunks out of containers
                                        with less than this fraction live */
    gboolean verbose;                /* log-level debug or verbose */
    FpIndexParams fp_index;          /* fingerprint-index, -sampling-method, -cache-size */
    CacheConfig cache;               /* ssd-cache-*, plc-*, model-*, ssd-tbw */
    RewriteConfig rewrite;           /* rewrite-* (rewrite_config.h) */
} Config;

/* "lru", "opt" or "asm". */
const char *restore_cache_kind_name(RestoreCacheKind kind);

void config_init(Config *cfg);
void config_clear(Config *cfg);

/* Apply every line of `path`. Errors name the file, line, key and value. */
gboolean config_load_file(Config *cfg, const char *path, GError **err);
/* Apply one line; `origin` and `lineno` (0: none, as for a -p override)
 * name it in messages. A line is a key and exactly the values that key
 * takes; anything else, and an unknown key, is a DESTOR_ERROR_CONFIG. Keys
 * of the SSD cache are handed to cache_config_set(); upstream Destor's keys
 * this store does not implement (upstream_keys.h) are accepted with a
 * warning. config_load_file() warns once for the whole file. */
gboolean config_apply_line(Config *cfg, const char *line, const char *origin, int lineno, GError **err);
/* Cross-key checks after all lines are applied. */
gboolean config_validate(const Config *cfg, GError **err);

#endif
