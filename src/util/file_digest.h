/* SPDX-License-Identifier: GPL-3.0-or-later */
/* file_digest.h: the whole-file digest a backup takes over the bytes as it
 * reads them, and verify --deep and read-file --verify check. It is there
 * to catch the store's own mistakes (a chunker or buffer bug that loses or
 * repeats bytes), not an adversary, so a store made now uses XXH3-128
 * (libxxhash, at memory speed); SHA-256 stays selectable (a digest to
 * compare with sha256sum) and is what every store before store.meta
 * version 4 holds. Chunk identity stays cryptographic (fingerprint.h).
 * A digest occupies a 32-byte slot; XXH3-128 uses the first 16 bytes (its
 * canonical, big-endian form, as xxh128sum prints it) and zero-fills the
 * rest. */
#ifndef DESTOR_FILE_DIGEST_H
#define DESTOR_FILE_DIGEST_H

#include <glib.h>
#include <stddef.h>
#include <stdint.h>

#define FILE_DIGEST_SLOT 32

/* The values are store.meta's (docs/FORMAT.md). */
typedef enum {
    FILE_DIGEST_NONE = 0, /* no digest: nothing to check; in a config, not set */
    FILE_DIGEST_SHA256 = 1,
    FILE_DIGEST_XXH3 = 2,
} FileDigestAlgorithm;

/* Is alg cheap enough that every whole file restore and read-file write
 * is checked against it without being asked (XXH3-128: about 0.2 s of CPU
 * a GiB, within the noise of a restore's time; SHA-256 costs several
 * times that and is checked with --verify): docs/PERFORMANCE.md, issue 35. */
gboolean file_digest_checked_by_default(FileDigestAlgorithm alg);

/* "xxh3" or "xxh3-128", "sha256" or "sha-256" (any case). */
gboolean file_digest_parse(const char *name, FileDigestAlgorithm *out);
/* "xxh3-128" or "sha256"; NULL for NONE or a value that names neither. */
const char *file_digest_name(FileDigestAlgorithm alg);
size_t file_digest_length(FileDigestAlgorithm alg);

/* One file's digest at a time, reused from file to file by one thread:
 * begin, add the bytes in order, end. */
typedef struct FileHasher FileHasher;
FileHasher *file_hasher_new(FileDigestAlgorithm alg);
void file_hasher_begin(FileHasher *h);
void file_hasher_add(FileHasher *h, const void *buf, size_t len);
/* The digest of the bytes added since begin, zero-padded to the slot. */
void file_hasher_end(FileHasher *h, uint8_t out[FILE_DIGEST_SLOT]);
void file_hasher_free(FileHasher *h);

/* Lowercase hex of alg's digest in `slot`: 2 * file_digest_length chars. */
void file_digest_hex(FileDigestAlgorithm alg, const uint8_t slot[FILE_DIGEST_SLOT], char out[2 * FILE_DIGEST_SLOT + 1]);

#endif
