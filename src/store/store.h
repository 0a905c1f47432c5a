/* SPDX-License-Identifier: GPL-3.0-or-later */
/* store.h: an open store (the working directory) and what every command
 * shares: its fixed parameters (store.meta), its containers (a ContainerStore
 * of the kind store.meta records), the writer lock, and the committed jobs.
 *
 * Layout (docs/FORMAT.md): store.meta, LOCK, containers.pool or containers/,
 * index/, jobs/NNNNNNNN/. Readers never take the lock and see only jobs whose
 * manifest is published. */
#ifndef DESTOR_STORE_H
#define DESTOR_STORE_H

#include "config/config.h"
#include "storage/container_store.h"
#include "util/file_digest.h"
#include "util/fingerprint.h"

#include <glib.h>
#include <stdint.h>

#define STORE_META_MAGIC "DPLCSTO1"
#define STORE_META_VERSION 4
#define STORE_ID_LEN 16

/* The store's identity: a random UUID made when the store is created (or,
 * for a store made before identities existed, at its next backup). The SSD
 * cache records it and never serves a cached container of another store or
 * of an older incarnation of this one. */
typedef struct {
    uint8_t bytes[STORE_ID_LEN];
} StoreId;

typedef struct {
    char *dir;
    size_t container_size;          /* fixed when the store was created */
    FingerprintAlgorithm fingerprint;
    StoreId id;
    gboolean has_id; /* FALSE: a version-1 store.meta no backup has upgraded yet */
    ContainerStoreKind kind; /* fixed when the store was created; pool before version 3 */
    FileDigestAlgorithm file_digest; /* fixed when the store was created; SHA-256 before version 4 */
    ContainerStore *containers;
    int lock_fd; /* >= 0 for a writer */
} Store;

/* Open an existing store for reading. A directory without store.meta is a
 * NO_STORE error. Every open refuses (a CONFIG error) a config whose
 * container-store is not the store's kind. */
Store *store_open_read(const Config *cfg, GError **err);
/* Open for backup: create the store if needed (with a new identity and the
 * config's file-digest, XXH3-128 unless it says otherwise), take the writer
 * lock, give a version-1 store an identity (rewriting store.meta as version
 * 4, SHA-256 kept), and check the config agrees with the store's fixed
 * parameters (a file-digest the config does not set is the store's own). */
Store *store_open_write(const Config *cfg, GError **err);
/* Open an existing store (NO_STORE error otherwise) for repair: take the
 * writer lock; the store's own parameters rule, whatever the config says,
 * except its kind of container store (which must match). */
Store *store_open_repair(const Config *cfg, GError **err);
void store_close(Store *s);

/* The id the next new container gets (writer only): the container count
 * (container_store.h), which is at least the newest committed job's container
 * count; ids are never reused. A store holding fewer containers than the
 * newest manifest that reads back says were committed has lost data: an
 * INTEGRITY error (writing would give the lost ids new contents). */
gboolean store_next_container(Store *s, ContainerId *next, GError **err);

/* The directories what a command writes must stay out of: the working
 * directory and the SSD cache's (NULL when unset). */
#define STORE_DIRS 2
void store_dirs(const Config *cfg, const char *dirs[STORE_DIRS]);

#endif
