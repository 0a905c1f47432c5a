/* SPDX-License-Identifier: GPL-3.0-or-later */
/* job_meta.c: buffered writer and checked reader of job_meta_data. */
#include "recipe/job_meta.h"
#include "util/checksum.h"
#include "util/error.h"
#include "util/file_replace.h"
#include "util/fileio.h"
#include "util/le.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define WRITE_BUFFER (1u << 20)

struct JobMetaWriter {
    int dir_fd;        /* the job's directory */
    FileReplace file;  /* the new file, renamed over path at finish */
    char *path;
    uint64_t offset; /* of the next record */
    GByteArray *buf;
};

struct JobMetaReader {
    int fd;
    char *path;
    uint32_t job_id;
    uint64_t size;
    uint64_t next; /* offset of the next record for sequential reads */
};

static void encode_header(uint8_t h[JOB_META_HEADER_SIZE], uint32_t job_id)
{
    memset(h, 0, JOB_META_HEADER_SIZE);
    memcpy(h, JOB_META_MAGIC, 8);
    le32_put(h + 8, JOB_META_VERSION);
    le32_put(h + 12, job_id);
    le32_put(h + 28, checksum_crc32(CHECKSUM_CRC32_START, h, 28));
}

JobMetaWriter *job_meta_writer_create(const char *path, uint32_t job_id, GError **err)
{
    char *dir = g_path_get_dirname(path);
    char *base = g_path_get_basename(path);
    FileReplace file;
    int dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    gboolean ok = dir_fd >= 0;
    if (!ok)
        destor_set_errno(err, errno, "open directory %s", dir);
    else if (!(ok = file_replace_begin(&file, dir_fd, base, path, 0644, err)))
        close(dir_fd);
    g_free(base);
    g_free(dir);
    if (!ok)
        return NULL;
    JobMetaWriter *w = g_new0(JobMetaWriter, 1);
    w->dir_fd = dir_fd;
    w->file = file;
    w->path = g_strdup(path);
    w->buf = g_byte_array_sized_new(WRITE_BUFFER + 4096);
    g_byte_array_set_size(w->buf, JOB_META_HEADER_SIZE);
    encode_header(w->buf->data, job_id);
    w->offset = JOB_META_HEADER_SIZE;
    return w;
}

static gboolean flush(JobMetaWriter *w, GError **err)
{
    if (w->buf->len == 0)
        return TRUE;
    gboolean ok = file_write_all(w->file.fd, w->buf->data, w->buf->len, w->path, err);
    g_byte_array_set_size(w->buf, 0);
    return ok;
}

gboolean job_meta_writer_append(JobMetaWriter *w, const FileRecord *r, uint64_t *offset, uint32_t *length, GError **err)
{
    guint before = w->buf->len;
    file_record_encode(r, w->buf);
    *offset = w->offset;
    *length = w->buf->len - before;
    w->offset += *length;
    return w->buf->len < WRITE_BUFFER || flush(w, err);
}

static void writer_free(JobMetaWriter *w)
{
    if (w->file.fd >= 0)
        file_replace_abort(&w->file);
    close(w->dir_fd);
    g_free(w->path);
    g_byte_array_unref(w->buf);
    g_free(w);
}

gboolean job_meta_writer_finish(JobMetaWriter *w, uint64_t *size, GError **err)
{
    gboolean ok = flush(w, err) && file_replace_commit(&w->file, TRUE, err);
    *size = w->offset;
    writer_free(w);
    return ok;
}

void job_meta_writer_abort(JobMetaWriter *w)
{
    if (w != NULL)
        writer_free(w);
}

JobMetaReader *job_meta_reader_open(const char *path, uint32_t job_id, GError **err)
{
    int fd = file_open_read(path);
    if (fd < 0) {
        file_open_read_error(err, errno, "open", path);
        return NULL;
    }
    struct stat st;
    uint8_t h[JOB_META_HEADER_SIZE], want[JOB_META_HEADER_SIZE];
    if (fstat(fd, &st) != 0) {
        destor_set_errno(err, errno, "stat %s", path);
        close(fd);
        return NULL;
    }
    if (!file_pread_all(fd, h, sizeof h, 0, path, err)) {
        close(fd);
        return NULL;
    }
    encode_header(want, job_id);
    if (memcmp(h, want, sizeof h) != 0) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_INTEGRITY,
                    "%s is damaged: header is not job %u's job_meta_data", path, job_id);
        close(fd);
        return NULL;
    }
    JobMetaReader *r = g_new0(JobMetaReader, 1);
    r->fd = fd;
    r->path = g_strdup(path);
    r->job_id = job_id;
    r->size = (uint64_t)st.st_size;
    r->next = JOB_META_HEADER_SIZE;
    return r;
}

void job_meta_reader_close(JobMetaReader *r)
{
    if (r == NULL)
        return;
    close(r->fd);
    g_free(r->path);
    g_free(r);
}

uint64_t job_meta_reader_offset(const JobMetaReader *r)
{
    return r->next;
}

void job_meta_reader_rewind(JobMetaReader *r)
{
    r->next = JOB_META_HEADER_SIZE;
}

/* Decode the record at offset from buf; the place is named only when it
 * is damaged (a listing decodes hundreds of thousands). */
static FileRecord *decode_at(const JobMetaReader *r, const uint8_t *buf, uint64_t offset, uint32_t length,
                             GError **err)
{
    GError *bad = NULL;
    FileRecord *rec = file_record_decode(buf, length, "a record", &bad);
    if (rec == NULL) {
        g_set_error(err, bad->domain, bad->code, "job %u, offset %llu of %s: %s", r->job_id,
                    (unsigned long long)offset, r->path, bad->message);
        g_error_free(bad);
    }
    return rec;
}

/* offset and length come from the recipe index: compared so that no sum wraps */
static gboolean in_range(const JobMetaReader *r, uint64_t offset, uint32_t length, GError **err)
{
    if (offset >= JOB_META_HEADER_SIZE && offset <= r->size && length <= r->size - offset &&
        length >= RECORD_HEADER_SIZE)
        return TRUE;
    g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_INTEGRITY,
                "job %u record at offset %llu of %s is damaged: offset or length out of range", r->job_id,
                (unsigned long long)offset, r->path);
    return FALSE;
}

FileRecord *job_meta_reader_at(JobMetaReader *r, uint64_t offset, uint32_t length, GError **err)
{
    if (!in_range(r, offset, length, err))
        return NULL;
    FileRecord *rec = NULL;
    uint8_t *buf = g_malloc(length);
    if (file_pread_all(r->fd, buf, length, (off_t)offset, r->path, err))
        rec = decode_at(r, buf, offset, length, err);
    g_free(buf);
    return rec;
}

FileRecord *job_meta_reader_at_window(JobMetaReader *r, JobMetaWindow *w, uint64_t offset, uint32_t length,
                                      GError **err)
{
    if (!in_range(r, offset, length, err))
        return NULL;
    if (length > JOB_META_WINDOW) /* a file of very many chunks: on its own */
        return job_meta_reader_at(r, offset, length, err);
    if (offset < w->start || offset - w->start + length > w->len) {
        if (w->bytes == NULL)
            w->bytes = g_malloc(JOB_META_WINDOW);
        size_t len = (size_t)MIN((uint64_t)JOB_META_WINDOW, r->size - offset);
        w->len = 0;
        if (!file_pread_all(r->fd, w->bytes, len, (off_t)offset, r->path, err))
            return NULL;
        w->start = offset;
        w->len = len;
    }
    g_assert(offset >= w->start && offset - w->start + length <= w->len);
    return decode_at(r, w->bytes + (offset - w->start), offset, length, err);
}

/* The length of the record at r->next, its header read through w when w
 * holds it (w may be NULL); 0 (err set) when there is none there. */
static uint32_t next_length(JobMetaReader *r, const JobMetaWindow *w, GError **err)
{
    uint8_t head[8];
    if (w != NULL && w->bytes != NULL && r->next >= w->start && r->next - w->start + sizeof head <= w->len) {
        memcpy(head, w->bytes + (r->next - w->start), sizeof head);
    } else if (r->next + sizeof head > r->size ||
               !file_pread_all(r->fd, head, sizeof head, (off_t)r->next, r->path, err)) {
        if (err == NULL || *err == NULL)
            g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_INTEGRITY, "%s is damaged: truncated record at offset %llu",
                        r->path, (unsigned long long)r->next);
        return 0;
    }
    uint32_t len = file_record_length(head);
    if (len == 0)
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_INTEGRITY, "%s is damaged: no record header at offset %llu",
                    r->path, (unsigned long long)r->next);
    return len;
}

FileRecord *job_meta_reader_next(JobMetaReader *r, GError **err)
{
    return job_meta_reader_next_window(r, NULL, err);
}

FileRecord *job_meta_reader_next_window(JobMetaReader *r, JobMetaWindow *w, GError **err)
{
    if (r->next == r->size)
        return NULL;
    uint32_t len = next_length(r, w, err);
    if (len == 0)
        return NULL;
    FileRecord *rec = w != NULL ? job_meta_reader_at_window(r, w, r->next, len, err)
                                : job_meta_reader_at(r, r->next, len, err);
    if (rec != NULL)
        r->next += len;
    return rec;
}

void job_meta_window_clear(JobMetaWindow *w)
{
    g_free(w->bytes);
    *w = (JobMetaWindow){ 0 };
}

