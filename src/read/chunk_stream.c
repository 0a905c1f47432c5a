/* SPDX-License-Identifier: GPL-3.0-or-later */
/* chunk_stream.c: chunk streams over one record and over a job's records. */
#include "read/chunk_stream.h"
#include "read/safe_path.h"
#include "recipe/job_catalog.h"

typedef struct {
    ChunkStream stream;
    const FileRecord *r;
    guint next;
} FileStream;

static gboolean file_next(ChunkStream *self, ChunkRef *ref, GError **err)
{
    (void)err;
    FileStream *f = (FileStream *)self;
    if (f->next >= f->r->chunks->len)
        return FALSE;
    *ref = g_array_index(f->r->chunks, ChunkRef, f->next++);
    return TRUE;
}

static void file_free(ChunkStream *self)
{
    g_free(self);
}

ChunkStream *chunk_stream_file(const FileRecord *r)
{
    FileStream *f = g_new0(FileStream, 1);
    f->stream = (ChunkStream){ .next = file_next, .free = file_free };
    f->r = r;
    return &f->stream;
}

typedef struct {
    ChunkStream stream;
    JobMetaReader *records;
    FileRecord *r; /* the record being streamed, NULL before the first */
    guint next;
} RestoreStream;

/* Whether restore reads the chunks of r. */
static gboolean restores(const FileRecord *r)
{
    return r->type == ENTRY_FILE && safe_path_is_plain((const char *)r->path->data, r->path->len);
}

static gboolean restore_next(ChunkStream *self, ChunkRef *ref, GError **err)
{
    RestoreStream *s = (RestoreStream *)self;
    while (s->r == NULL || s->next >= s->r->chunks->len) {
        file_record_free(s->r);
        s->next = 0;
        if ((s->r = job_meta_reader_next(s->records, err)) == NULL)
            return FALSE;
        if (!restores(s->r))
            s->next = s->r->chunks->len;
    }
    *ref = g_array_index(s->r->chunks, ChunkRef, s->next++);
    return TRUE;
}

static void restore_free(ChunkStream *self)
{
    RestoreStream *s = (RestoreStream *)self;
    file_record_free(s->r);
    job_meta_reader_close(s->records);
    g_free(s);
}

ChunkStream *chunk_stream_restore(const Store *store, uint32_t job_id, GError **err)
{
    JobMetaReader *records = job_catalog_open_records(store->dir, job_id, err);
    if (records == NULL)
        return NULL;
    RestoreStream *s = g_new0(RestoreStream, 1);
    s->stream = (ChunkStream){ .next = restore_next, .free = restore_free };
    s->records = records;
    return &s->stream;
}
