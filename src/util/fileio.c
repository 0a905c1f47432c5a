/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fileio.c: retrying read/write loops and fsync helpers. */
#include "util/fileio.h"
#include "util/error.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

/* Write all of buf at `off`, or at the file position when off < 0. */
static gboolean write_all_at(int fd, const void *buf, size_t len, off_t off, const char *path, GError **err)
{
    const uint8_t *p = buf;
    while (len > 0) {
        ssize_t n = off < 0 ? write(fd, p, len) : pwrite(fd, p, len, off);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            destor_set_errno(err, errno, "write %s", path);
            return FALSE;
        }
        p += n;
        len -= (size_t)n;
        if (off >= 0)
            off += n;
    }
    return TRUE;
}

gboolean file_pwrite_all(int fd, const void *buf, size_t len, off_t off, const char *path, GError **err)
{
    return write_all_at(fd, buf, len, off, path, err);
}

gboolean file_write_all(int fd, const void *buf, size_t len, const char *path, GError **err)
{
    return write_all_at(fd, buf, len, -1, path, err);
}

/* A read of `left` bytes at off gave n: TRUE when it read some, or was
 * interrupted (*again: read again); FALSE with err on an error or at end
 * of file (an INTEGRITY error: the file is truncated). */
static gboolean read_went(ssize_t n, size_t left, off_t off, const char *path, gboolean *again, GError **err)
{
    *again = n < 0 && errno == EINTR;
    if (n > 0 || *again)
        return TRUE;
    if (n < 0)
        destor_set_errno(err, errno, "read %s", path);
    else
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_INTEGRITY, "%s is truncated: %zu bytes missing at offset %lld",
                    path, left, (long long)off);
    return FALSE;
}

gboolean file_pread_all(int fd, void *buf, size_t len, off_t off, const char *path, GError **err)
{
    uint8_t *p = buf;
    while (len > 0) {
        ssize_t n = pread(fd, p, len, off);
        gboolean again;
        if (!read_went(n, len, off, path, &again, err))
            return FALSE;
        if (again)
            continue;
        p += n;
        len -= (size_t)n;
        off += n;
    }
    return TRUE;
}

gboolean file_pread2_all(int fd, void *a, size_t a_len, void *b, size_t b_len, off_t off, const char *path,
                         GError **err)
{
    struct iovec v[2] = { { a, a_len }, { b, b_len } };
    struct iovec *iov = v;
    int cnt = 2;
    size_t left = a_len + b_len;
    while (left > 0) {
        ssize_t n = preadv(fd, iov, cnt, off);
        gboolean again;
        if (!read_went(n, left, off, path, &again, err))
            return FALSE;
        if (again)
            continue;
        left -= (size_t)n;
        off += n;
        while (n > 0 && (size_t)n >= iov->iov_len) { /* past whole buffers */
            n -= (ssize_t)iov->iov_len;
            iov++;
            cnt--;
        }
        if (n > 0) {
            iov->iov_base = (uint8_t *)iov->iov_base + n;
            iov->iov_len -= (size_t)n;
        }
    }
    return TRUE;
}

const uint8_t *file_map_read(int fd, size_t len, off_t off, const char *path, GError **err)
{
    g_assert(len > 0 && off >= 0 && off % sysconf(_SC_PAGESIZE) == 0);
    struct stat st;
    if (fstat(fd, &st) != 0) {
        destor_set_errno(err, errno, "stat %s", path);
        return NULL;
    }
    if (st.st_size < off + (off_t)len) {
        off_t have = MAX(st.st_size, off);
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_INTEGRITY, "%s is truncated: %zu bytes missing at offset %lld",
                    path, len - (size_t)(have - off), (long long)have);
        return NULL;
    }
    void *m = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, off);
    if (m == MAP_FAILED) {
        destor_set_errno(err, errno, "read %s", path);
        return NULL;
    }
    /* The pages read in one call, not faulted in one by one as they are
     * first touched; and a page that cannot be read (a disk's read error,
     * the file cut short since the size was checked) is an error here
     * instead of SIGBUS when touched. A kernel before 5.14 knows no such
     * advice (EINVAL): its pages are read as they are touched. */
    if (madvise(m, len, MADV_POPULATE_READ) != 0 && errno != EINVAL) {
        int e = errno == EFAULT || errno == EHWPOISON ? EIO : errno;
        munmap(m, len);
        destor_set_errno(err, e, "read %s at offset %lld", path, (long long)off);
        return NULL;
    }
    return m;
}

void file_unmap(const uint8_t *p, size_t len)
{
    if (p != NULL && munmap((void *)p, len) != 0)
        g_error("munmap: %s", g_strerror(errno)); /* only a wrong address or length: a defect */
}

gboolean file_fsync(int fd, const char *path, GError **err)
{
    if (fsync(fd) != 0) {
        destor_set_errno(err, errno, "fsync %s", path);
        return FALSE;
    }
    return TRUE;
}

gboolean dir_fsync(const char *dir, GError **err)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        destor_set_errno(err, errno, "open directory %s", dir);
        return FALSE;
    }
    gboolean ok = file_fsync(fd, dir, err);
    close(fd);
    return ok;
}

int fd_kept(int fd, int e)
{
    if (e == 0)
        return fd;
    close(fd);
    errno = e;
    return -1;
}

int file_open_read(const char *path)
{
    /* O_NONBLOCK: the open of a FIFO would wait for a writer */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return -1;
    struct stat st;
    int e = 0;
    if (fstat(fd, &st) != 0)
        e = errno;
    else if (!S_ISREG(st.st_mode))
        e = ENXIO;
    else if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0)
        e = errno;
    return fd_kept(fd, e);
}

void file_open_read_error(GError **err, int errnum, const char *what, const char *path)
{
    if (errnum == ENXIO)
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_PLANTED, "%s %s: it is not a regular file (remove it)", what,
                    path);
    else
        destor_set_errno(err, errnum, "%s %s", what, path);
}

gboolean file_read_whole(const char *path, uint8_t **data, size_t *len, GError **err)
{
    int fd = file_open_read(path);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        file_open_read_error(err, errno, "read", path);
        if (fd >= 0)
            close(fd);
        return FALSE;
    }
    GByteArray *buf = g_byte_array_sized_new((guint)MIN((uint64_t)st.st_size + 1, 1u << 20));
    uint8_t chunk[65536];
    gboolean ok = TRUE;
    for (;;) {
        ssize_t n = read(fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            destor_set_errno(err, errno, "read %s", path);
            ok = FALSE;
        }
        if (n <= 0)
            break;
        g_byte_array_append(buf, chunk, (guint)n);
    }
    close(fd);
    *len = buf->len;
    g_byte_array_append(buf, (const uint8_t *)"", 1); /* NUL-terminated, as g_file_get_contents */
    *data = g_byte_array_free(buf, !ok);
    if (!ok)
        *data = NULL, *len = 0;
    return ok;
}
