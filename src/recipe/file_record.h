/* SPDX-License-Identifier: GPL-3.0-or-later */
/* file_record.h: one entry of a job's job_meta_data: a file, directory or
 * symlink with its attributes, whole-file digest and recipe (the ordered
 * list of chunk references). Encoded as one self-delimiting, checksummed
 * record (docs/FORMAT.md, "job_meta_data"), so it can be read alone from
 * the offset the recipe index gives. */
#ifndef DESTOR_FILE_RECORD_H
#define DESTOR_FILE_RECORD_H

#include "storage/container_source.h"
#include "util/file_digest.h"
#include "util/fingerprint.h"

#include <glib.h>
#include <stdint.h>

#define RECORD_MAGIC 0x31434552u /* "REC1" */
#define RECORD_HEADER_SIZE 88
#define CHUNK_REF_SIZE 44

typedef enum {
    ENTRY_FILE = 1,
    ENTRY_DIR = 2,
    ENTRY_SYMLINK = 3,
} EntryType;

typedef struct {
    Fingerprint fp;
    ContainerId container;
    uint32_t offset; /* of the chunk inside its container */
    uint32_t length;
} ChunkRef;

typedef struct {
    EntryType type;
    uint32_t mode;
    int64_t mtime_sec;
    uint32_t mtime_nsec;
    uint64_t size;
    uint8_t digest[FILE_DIGEST_SLOT]; /* the store's file digest (file_digest.h) */
    GByteArray *path; /* relative, '/'-separated, raw bytes, no NUL */
    GByteArray *link; /* symlink target, empty otherwise */
    GArray *chunks;   /* of ChunkRef */
} FileRecord;

FileRecord *file_record_new(EntryType type, const char *path, size_t path_len);
void file_record_free(FileRecord *r);
/* A record that shares r's fields (a reference to each array: a chunk list
 * filled in later shows in both); freed with file_record_free. */
FileRecord *file_record_share(const FileRecord *r);

/* Append the encoded record to out. */
void file_record_encode(const FileRecord *r, GByteArray *out);

/* Total length of the record that starts with these 8 bytes, or 0 if they
 * are not a record header. */
uint32_t file_record_length(const uint8_t head[8]);

/* Decode one whole record (checksum, bounds, field sanity). `where` names it
 * in errors (e.g. "job 3 record at offset 4096"). */
FileRecord *file_record_decode(const uint8_t *buf, size_t len, const char *where, GError **err);

/* The path as a printable, escaped string (for messages). */
char *file_record_path_display(const FileRecord *r);

#endif
