/* stages.c: the chunking and fingerprinting threads of backup. */
#include "backup/stages.h"
#include "backup/backup_msg.h"

#include <string.h>

static void emit_chunk(ChunkStage *s, const uint8_t *data, size_t n)
{
    BackupMsg *m = backup_msg_new(MSG_CHUNK);
    m->data = g_memdup2(data, n);
    m->len = n;
    bounded_queue_push(s->out, m);
}

/* Cut chunks from buf[0..len) while a whole window of max_chunk bytes is
 * there to decide on (or to the end, at the end of the file), stopping once
 * `stop_after` bytes are consumed. Returns the bytes consumed. */
static size_t cut_chunks(ChunkStage *s, const uint8_t *buf, size_t len, gboolean at_end, size_t stop_after)
{
    size_t pos = 0;
    while (pos < len && pos < stop_after && (at_end || len - pos >= s->max_chunk)) {
        size_t n = chunker_next(s->chunker, buf + pos, len - pos);
        emit_chunk(s, buf + pos, n);
        pos += n;
    }
    return pos;
}

/* A new block arrives while `carry` holds the undecided tail of the last
 * one. Chunks that start in the tail are cut from the tail plus the first
 * max_chunk bytes of the block; the rest is cut in place, and only the new
 * undecided tail is copied. Chunk boundaries are the same as if the whole
 * file were one buffer. */
static void take_block(ChunkStage *s, GByteArray *carry, const uint8_t *block, size_t len)
{
    size_t offset = 0; /* first byte of block not yet consumed */
    if (carry->len > 0) {
        size_t tail = carry->len;
        size_t take = MIN(len, s->max_chunk);
        g_byte_array_append(carry, block, (guint)take);
        size_t used = cut_chunks(s, carry->data, carry->len, FALSE, tail);
        if (used < tail) { /* too little data yet to decide: keep it all */
            g_byte_array_remove_range(carry, 0, (guint)used);
            g_byte_array_append(carry, block + take, (guint)(len - take));
            return;
        }
        offset = used - tail;
        g_byte_array_set_size(carry, 0);
    }
    offset += cut_chunks(s, block + offset, len - offset, FALSE, SIZE_MAX);
    g_byte_array_append(carry, block + offset, (guint)(len - offset));
}

gpointer chunk_stage_run(gpointer stage)
{
    ChunkStage *s = stage;
    GByteArray *carry = g_byte_array_new();
    for (;;) {
        BackupMsg *m = bounded_queue_pop(s->in);
        BackupMsgKind kind = m->kind;
        if (kind == MSG_DATA) {
            take_block(s, carry, m->data, m->len);
            bounded_queue_push(s->free_blocks, m->data);
            m->data = NULL;
            backup_msg_free(m);
        } else {
            if (kind == MSG_FILE_END)
                cut_chunks(s, carry->data, carry->len, TRUE, SIZE_MAX);
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
        if (kind == MSG_CHUNK)
            fingerprint_compute(s->alg, m->data, m->len, &m->fp);
        bounded_queue_push(s->out, m);
        if (kind == MSG_STREAM_END)
            break;
    }
    return NULL;
}
