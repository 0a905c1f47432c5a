/* stages.c: the chunking and fingerprinting threads of backup. */
#include "backup/stages.h"
#include "backup/backup_msg.h"

#include <string.h>

/* Cut chunks from buf[0..len) while at least max_chunk bytes remain (or all
 * of them at the end of the file); returns the bytes consumed. */
static size_t cut_chunks(ChunkStage *s, const uint8_t *buf, size_t len, gboolean at_end)
{
    size_t pos = 0;
    while (pos < len && (at_end || len - pos >= s->max_chunk)) {
        gint64 t = g_get_monotonic_time();
        size_t n = chunker_next(s->chunker, buf + pos, len - pos);
        BackupMsg *m = backup_msg_new(MSG_CHUNK);
        m->data = g_memdup2(buf + pos, n);
        m->len = n;
        s->busy_usec += g_get_monotonic_time() - t;
        bounded_queue_push(s->out, m);
        pos += n;
    }
    return pos;
}

gpointer chunk_stage_run(gpointer stage)
{
    ChunkStage *s = stage;
    GByteArray *carry = g_byte_array_new();
    for (;;) {
        BackupMsg *m = bounded_queue_pop(s->in);
        BackupMsgKind kind = m->kind;
        if (kind == MSG_DATA) {
            g_byte_array_append(carry, m->data, (guint)m->len);
            backup_msg_free(m);
            size_t used = cut_chunks(s, carry->data, carry->len, FALSE);
            g_byte_array_remove_range(carry, 0, (guint)used);
        } else {
            if (kind == MSG_FILE_END)
                cut_chunks(s, carry->data, carry->len, TRUE);
            g_byte_array_set_size(carry, 0);
            bounded_queue_push(s->out, m);
        }
        if (kind == MSG_STREAM_END)
            break;
    }
    g_byte_array_unref(carry);
    return NULL;
}

gpointer hash_stage_run(gpointer stage)
{
    HashStage *s = stage;
    for (;;) {
        BackupMsg *m = bounded_queue_pop(s->in);
        BackupMsgKind kind = m->kind;
        if (kind == MSG_CHUNK) {
            gint64 t = g_get_monotonic_time();
            fingerprint_compute(s->alg, m->data, m->len, &m->fp);
            s->busy_usec += g_get_monotonic_time() - t;
        }
        bounded_queue_push(s->out, m);
        if (kind == MSG_STREAM_END)
            break;
    }
    return NULL;
}
