/* backup_msg.h: what flows through the backup pipeline's queues.
 *
 * Per entry the reader sends FILE_BEGIN, then (regular files) DATA blocks,
 * then FILE_END, or FILE_ABORT if the file could not be read to the end.
 * The chunker turns DATA into CHUNKs, the hasher fills in their
 * fingerprints, and the store stage consumes everything. The FileRecord
 * travels by pointer: the reader fills size and SHA-256 before FILE_END, and
 * the queue hand-off orders those writes before the store stage reads them. */
#ifndef DESTOR_BACKUP_MSG_H
#define DESTOR_BACKUP_MSG_H

#include "recipe/file_record.h"
#include "util/fingerprint.h"

#include <stddef.h>
#include <stdint.h>

typedef enum {
    MSG_FILE_BEGIN,
    MSG_DATA,
    MSG_CHUNK,
    MSG_FILE_END,
    MSG_FILE_ABORT,
    MSG_STREAM_END, /* no more entries */
} BackupMsgKind;

typedef struct {
    BackupMsgKind kind;
    FileRecord *file; /* BEGIN, END, ABORT */
    uint8_t *data;    /* DATA, CHUNK: owned by the message */
    size_t len;
    Fingerprint fp;   /* CHUNK, once hashed */
} BackupMsg;

static inline BackupMsg *backup_msg_new(BackupMsgKind kind)
{
    BackupMsg *m = g_new0(BackupMsg, 1);
    m->kind = kind;
    return m;
}

static inline void backup_msg_free(BackupMsg *m)
{
    g_free(m->data);
    g_free(m);
}

#endif
