/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fault_shim.c: an LD_PRELOAD shim for the fault-injection tests (test code
 * only, never linked into destor). It interposes the libc calls destor and
 * the libraries it uses (glib, Berkeley DB) move data with, counts them
 * per kind, and makes the Nth call of a chosen kind fail with a chosen errno.
 *
 * Environment (all optional; with none set the shim only passes calls on):
 *   FAULT_CALL        write | read | fsync | rename | truncate | open | close | map | any
 *   FAULT_AT          N: the Nth counted call of that kind fails (1-based)
 *   FAULT_REPEAT      how many calls fail from the Nth on (default 1; 0 = all)
 *   FAULT_ERRNO       ENOSPC | EIO | EDQUOT | EROFS | EFBIG | a number (default EIO)
 *   FAULT_PATH        only count calls on files whose path contains this
 *   FAULT_EXCLUDE     never count calls on files whose path contains this
 *   FAULT_COUNT_FILE  at exit, write "KIND COUNT" lines (and what failed) here
 *   FAULT_ACTION      fail (default); stop: the chosen calls do not fail,
 *                     the process stops itself (SIGSTOP) before each and
 *                     makes it once continued, so a test can hold it at a
 *                     known point (e.g. between two steps of a rebuild);
 *                     grow: instead of failing a chosen call on a file
 *                     descriptor, append one byte to its file, then make the
 *                     call (a file that changes while destor reads it);
 *                     unreadable: a chosen mmap does not fail, it returns a
 *                     mapping of the length asked whose pages cannot be read
 *                     (an empty file's: touching one is SIGBUS, populating
 *                     it EFAULT), as after a disk's read error under a
 *                     mapped container
 *
 * Kinds: write = write, pwrite, pwrite64, writev, pwritev; read = read,
 * pread, pread64, readv, preadv (and the _FORTIFY_SOURCE __*_chk forms);
 * fsync = fsync, fdatasync, syncfs; rename = rename, renameat, renameat2;
 * truncate = ftruncate, ftruncate64; open = open, open64, openat,
 * openat64 and their __*_2 forms; close = close (the descriptor is closed,
 * then the error returned, as Linux does); map = mmap, mmap64 of a file
 * (a container read in place: fails with MAP_FAILED). Only calls on regular files are
 * counted (fsync also on directories, which destor syncs after a rename),
 * so standard output, pipes and /dev/null are never hit. A rename counts
 * when its source is a regular file, an open when its path names one or
 * O_CREAT is to create one.
 *
 * The wrappers only use atomics, fstat/fstatat/readlink and errno, so they
 * are safe from any thread and from signal handlers; the configuration is
 * read once by a constructor, the counts are written by a destructor. */
#define _GNU_SOURCE
#undef _FORTIFY_SOURCE /* the shim defines open() itself */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

enum { K_WRITE, K_READ, K_FSYNC, K_RENAME, K_TRUNCATE, K_OPEN, K_CLOSE, K_MAP, K_COUNT, K_ANY = K_COUNT, K_NONE };

static const char *const kind_name[K_COUNT] = { "write", "read", "fsync", "rename", "truncate", "open", "close", "map" };

static _Atomic unsigned long counts[K_COUNT];
static _Atomic unsigned long any_count;
static _Atomic unsigned long fired;
static int active;           /* counting at all (FAULT_CALL or FAULT_COUNT_FILE set) */
static int target = K_NONE;  /* kind that fails, K_ANY, or K_NONE */
static unsigned long fault_at, fault_repeat = 1;
static int fault_errno = EIO;
static int stop_instead; /* FAULT_ACTION=stop */
static int grow_instead; /* FAULT_ACTION=grow */
static int unreadable_instead; /* FAULT_ACTION=unreadable */
static char path_filter[512];
static char path_exclude[512];
static char count_file[4096];

/* What the first injected fault hit, for the count file. */
static char first_call[32];
static char first_path[512];
static unsigned long first_index;

/* ---- the real functions ---- */

#define REAL(name) real_##name
#define DECLARE_REAL(ret, name, ...)                                                                   \
    typedef ret (*name##_fn)(__VA_ARGS__);                                                             \
    static _Atomic(name##_fn) real_##name##_ptr;                                                      \
    static name##_fn REAL(name)(void)                                                                  \
    {                                                                                                  \
        name##_fn f = atomic_load_explicit(&real_##name##_ptr, memory_order_acquire);                  \
        if (f == NULL) {                                                                               \
            f = (name##_fn)dlsym(RTLD_NEXT, #name);                                                    \
            atomic_store_explicit(&real_##name##_ptr, f, memory_order_release);                        \
        }                                                                                              \
        return f;                                                                                      \
    }

DECLARE_REAL(ssize_t, write, int, const void *, size_t)
DECLARE_REAL(ssize_t, pwrite, int, const void *, size_t, off_t)
DECLARE_REAL(ssize_t, pwrite64, int, const void *, size_t, off64_t)
DECLARE_REAL(ssize_t, writev, int, const struct iovec *, int)
DECLARE_REAL(ssize_t, pwritev, int, const struct iovec *, int, off_t)
DECLARE_REAL(ssize_t, read, int, void *, size_t)
DECLARE_REAL(ssize_t, pread, int, void *, size_t, off_t)
DECLARE_REAL(ssize_t, pread64, int, void *, size_t, off64_t)
DECLARE_REAL(ssize_t, readv, int, const struct iovec *, int)
DECLARE_REAL(ssize_t, preadv, int, const struct iovec *, int, off_t)
DECLARE_REAL(ssize_t, __read_chk, int, void *, size_t, size_t)
DECLARE_REAL(ssize_t, __pread_chk, int, void *, size_t, off_t, size_t)
DECLARE_REAL(ssize_t, __pread64_chk, int, void *, size_t, off64_t, size_t)
DECLARE_REAL(int, fsync, int)
DECLARE_REAL(int, fdatasync, int)
DECLARE_REAL(int, syncfs, int)
DECLARE_REAL(int, rename, const char *, const char *)
DECLARE_REAL(int, renameat, int, const char *, int, const char *)
DECLARE_REAL(int, renameat2, int, const char *, int, const char *, unsigned int)
DECLARE_REAL(int, ftruncate, int, off_t)
DECLARE_REAL(int, ftruncate64, int, off64_t)
DECLARE_REAL(int, open, const char *, int, ...)
DECLARE_REAL(int, open64, const char *, int, ...)
DECLARE_REAL(int, openat, int, const char *, int, ...)
DECLARE_REAL(int, openat64, int, const char *, int, ...)
DECLARE_REAL(int, __open_2, const char *, int)
DECLARE_REAL(int, __open64_2, const char *, int)
DECLARE_REAL(int, __openat_2, int, const char *, int)
DECLARE_REAL(int, __openat64_2, int, const char *, int)
DECLARE_REAL(int, close, int)
DECLARE_REAL(void *, mmap, void *, size_t, int, int, int, off_t)
DECLARE_REAL(void *, mmap64, void *, size_t, int, int, int, off64_t)

/* ---- configuration ---- */

static int parse_errno(const char *s)
{
    static const struct { const char *name; int value; } names[] = {
        { "ENOSPC", ENOSPC }, { "EIO", EIO }, { "EDQUOT", EDQUOT }, { "EROFS", EROFS },
        { "EFBIG", EFBIG }, { "EINTR", EINTR }, { "EAGAIN", EAGAIN }, { "EBADF", EBADF },
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(s, names[i].name) == 0)
            return names[i].value;
    char *end;
    long v = strtol(s, &end, 10);
    return *s && !*end && v > 0 ? (int)v : -1;
}

static void die(const char *msg, size_t len)
{
    /* A typo must not turn a sweep into a run of passing no-ops. */
    ssize_t ignored = REAL(write)()(2, msg, len);
    (void)ignored;
    _exit(125);
}

__attribute__((constructor)) static void shim_init(void)
{
    const char *call = getenv("FAULT_CALL"), *at = getenv("FAULT_AT"), *rep = getenv("FAULT_REPEAT");
    const char *en = getenv("FAULT_ERRNO"), *path = getenv("FAULT_PATH"), *cf = getenv("FAULT_COUNT_FILE");
    if (call != NULL && *call) {
        if (strcmp(call, "any") == 0)
            target = K_ANY;
        for (int k = 0; k < K_COUNT; k++)
            if (strcmp(call, kind_name[k]) == 0)
                target = k;
        if (target == K_NONE) {
            static const char msg[] = "fault_shim: unknown FAULT_CALL\n";
            die(msg, sizeof msg - 1);
        }
        fault_at = at ? strtoul(at, NULL, 10) : 1;
        if (rep != NULL)
            fault_repeat = strtoul(rep, NULL, 10);
        if (en != NULL && (fault_errno = parse_errno(en)) < 0) {
            static const char msg[] = "fault_shim: unknown FAULT_ERRNO\n";
            die(msg, sizeof msg - 1);
        }
        const char *action = getenv("FAULT_ACTION");
        if (action != NULL && strcmp(action, "stop") == 0) {
            stop_instead = 1;
        } else if (action != NULL && strcmp(action, "grow") == 0) {
            grow_instead = 1;
        } else if (action != NULL && strcmp(action, "unreadable") == 0) {
            unreadable_instead = 1;
        } else if (action != NULL && strcmp(action, "fail") != 0) {
            static const char msg[] = "fault_shim: unknown FAULT_ACTION\n";
            die(msg, sizeof msg - 1);
        }
        active = 1;
    }
    if (path != NULL)
        snprintf(path_filter, sizeof path_filter, "%s", path);
    const char *ex = getenv("FAULT_EXCLUDE");
    if (ex != NULL)
        snprintf(path_exclude, sizeof path_exclude, "%s", ex);
    if (cf != NULL && *cf) {
        snprintf(count_file, sizeof count_file, "%s", cf);
        active = 1;
    }
    /* Resolve everything now, before any thread exists. */
    REAL(write)(); REAL(pwrite)(); REAL(pwrite64)(); REAL(writev)(); REAL(pwritev)();
    REAL(read)(); REAL(pread)(); REAL(pread64)(); REAL(readv)(); REAL(preadv)();
    REAL(__read_chk)(); REAL(__pread_chk)(); REAL(__pread64_chk)();
    REAL(fsync)(); REAL(fdatasync)(); REAL(syncfs)(); REAL(rename)(); REAL(renameat)(); REAL(renameat2)();
    REAL(ftruncate)(); REAL(ftruncate64)();
    REAL(open)(); REAL(open64)(); REAL(openat)(); REAL(openat64)();
    REAL(__open_2)(); REAL(__open64_2)(); REAL(__openat_2)(); REAL(__openat64_2)(); REAL(close)();
}

static void put_str(int fd, const char *s)
{
    size_t n = strlen(s);
    while (n > 0) {
        ssize_t w = REAL(write)()(fd, s, n);
        if (w <= 0)
            return;
        s += w;
        n -= (size_t)w;
    }
}

static void put_ulong(int fd, unsigned long v)
{
    char buf[24];
    int i = sizeof buf;
    buf[--i] = '\0';
    do {
        buf[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v > 0);
    put_str(fd, buf + i);
}

__attribute__((destructor)) static void shim_fini(void)
{
    if (count_file[0] == '\0')
        return;
    int fd = REAL(open)()(count_file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return;
    for (int k = 0; k < K_COUNT; k++) {
        put_str(fd, kind_name[k]);
        put_str(fd, " ");
        put_ulong(fd, atomic_load(&counts[k]));
        put_str(fd, "\n");
    }
    put_str(fd, "any ");
    put_ulong(fd, atomic_load(&any_count));
    put_str(fd, "\nfired ");
    put_ulong(fd, atomic_load(&fired));
    put_str(fd, "\n");
    if (atomic_load(&fired) > 0) {
        put_str(fd, "first ");
        put_str(fd, first_call);
        put_str(fd, " ");
        put_ulong(fd, first_index);
        put_str(fd, " ");
        put_str(fd, first_path);
        put_str(fd, "\n");
    }
    REAL(close)()(fd);
}

/* ---- deciding ---- */

/* The path behind fd, without snprintf (not async-signal-safe). */
static int fd_path(int fd, char *out, size_t size)
{
    char link[40] = "/proc/self/fd/";
    char digits[16];
    int n = 0;
    unsigned v = (unsigned)fd;
    do {
        digits[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v > 0);
    size_t len = strlen(link);
    while (n > 0)
        link[len++] = digits[--n];
    link[len] = '\0';
    ssize_t r = readlink(link, out, size - 1);
    if (r < 0)
        r = 0;
    out[r] = '\0';
    return (int)r;
}

static void copy_str(char *dst, size_t size, const char *src)
{
    size_t i = 0;
    for (; src[i] && i + 1 < size; i++)
        dst[i] = src[i];
    dst[i] = '\0';
}

/* Count a call of kind k on `where` and say whether it is to fail. Sets
 * errno when it is; leaves it alone otherwise. */
static int decide(int k, const char *fn, const char *where)
{
    if (path_filter[0] != '\0' && strstr(where, path_filter) == NULL)
        return 0;
    if (path_exclude[0] != '\0' && strstr(where, path_exclude) != NULL)
        return 0;
    unsigned long n = atomic_fetch_add(&counts[k], 1) + 1;
    unsigned long a = atomic_fetch_add(&any_count, 1) + 1;
    unsigned long idx = target == K_ANY ? a : target == k ? n : 0;
    if (idx == 0 || idx < fault_at || (fault_repeat != 0 && idx - fault_at >= fault_repeat))
        return 0;
    if (atomic_fetch_add(&fired, 1) == 0) {
        copy_str(first_call, sizeof first_call, fn);
        copy_str(first_path, sizeof first_path, where);
        first_index = idx;
    }
    if (stop_instead) {
        kill(getpid(), SIGSTOP); /* async-signal-safe; the call goes on after SIGCONT */
        return 0;
    }
    errno = fault_errno;
    return 1;
}

/* A call of kind k on descriptor fd (a regular file; fsync: or directory). */
static int should_fail(int k, const char *fn, int fd)
{
    if (!active)
        return 0;
    int saved = errno;
    struct stat st;
    char where[512];
    where[0] = '\0';
    if (fstat(fd, &st) != 0 || !(S_ISREG(st.st_mode) || (k == K_FSYNC && S_ISDIR(st.st_mode))))
        goto pass;
    if (path_filter[0] != '\0' || path_exclude[0] != '\0' || target != K_NONE)
        fd_path(fd, where, sizeof where);
    if (decide(k, fn, where)) {
        if (!grow_instead)
            return 1;
        int wfd = REAL(open)()(where, O_WRONLY | O_APPEND | O_CLOEXEC);
        if (wfd >= 0) {
            ssize_t ignored = REAL(write)()(wfd, "+", 1);
            (void)ignored;
            REAL(close)()(wfd);
        }
    }
pass:
    errno = saved;
    return 0;
}

/* A call of kind k on a path, relative to dirfd: counted when the path names
 * a regular file, or (creating) would name one. */
static int should_fail_path(int k, const char *fn, int dirfd, const char *path, int flags)
{
    if (!active)
        return 0;
    int saved = errno;
    struct stat st;
    int follow = k == K_OPEN && !(flags & O_NOFOLLOW) ? 0 : AT_SYMLINK_NOFOLLOW;
    if (fstatat(dirfd, path, &st, follow) == 0) {
        if (!S_ISREG(st.st_mode) || (flags & O_DIRECTORY))
            goto pass;
    } else if (k != K_OPEN || !(flags & O_CREAT)) {
        goto pass;
    }
    if (decide(k, fn, path))
        return 1;
pass:
    errno = saved;
    return 0;
}

/* ---- the interposed calls ---- */

ssize_t write(int fd, const void *buf, size_t n)
{
    return should_fail(K_WRITE, "write", fd) ? -1 : REAL(write)()(fd, buf, n);
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
    return should_fail(K_WRITE, "pwrite", fd) ? -1 : REAL(pwrite)()(fd, buf, n, off);
}

ssize_t pwrite64(int fd, const void *buf, size_t n, off64_t off)
{
    return should_fail(K_WRITE, "pwrite64", fd) ? -1 : REAL(pwrite64)()(fd, buf, n, off);
}

ssize_t writev(int fd, const struct iovec *iov, int cnt)
{
    return should_fail(K_WRITE, "writev", fd) ? -1 : REAL(writev)()(fd, iov, cnt);
}

ssize_t pwritev(int fd, const struct iovec *iov, int cnt, off_t off)
{
    return should_fail(K_WRITE, "pwritev", fd) ? -1 : REAL(pwritev)()(fd, iov, cnt, off);
}

/* The mapping a chosen mmap gives: MAP_FAILED, or with FAULT_ACTION
 * unreadable pages of an empty file's (then the call succeeds). */
static void *failed_map(size_t len, int prot, int flags)
{
    if (!unreadable_instead)
        return MAP_FAILED;
    int saved = errno;
    int efd = (int)syscall(SYS_memfd_create, "fault_shim_unreadable", 0);
    void *m = efd < 0 ? MAP_FAILED : REAL(mmap)()(NULL, len, prot, flags & ~MAP_POPULATE, efd, 0);
    if (efd >= 0)
        REAL(close)()(efd);
    errno = saved;
    return m;
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    return fd >= 0 && should_fail(K_MAP, "mmap", fd) ? failed_map(len, prot, flags)
                                                     : REAL(mmap)()(addr, len, prot, flags, fd, off);
}

void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off64_t off)
{
    return fd >= 0 && should_fail(K_MAP, "mmap64", fd) ? failed_map(len, prot, flags)
                                                         : REAL(mmap64)()(addr, len, prot, flags, fd, off);
}

ssize_t read(int fd, void *buf, size_t n)
{
    return should_fail(K_READ, "read", fd) ? -1 : REAL(read)()(fd, buf, n);
}

ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
    return should_fail(K_READ, "pread", fd) ? -1 : REAL(pread)()(fd, buf, n, off);
}

ssize_t pread64(int fd, void *buf, size_t n, off64_t off)
{
    return should_fail(K_READ, "pread64", fd) ? -1 : REAL(pread64)()(fd, buf, n, off);
}

ssize_t readv(int fd, const struct iovec *iov, int cnt)
{
    return should_fail(K_READ, "readv", fd) ? -1 : REAL(readv)()(fd, iov, cnt);
}

ssize_t preadv(int fd, const struct iovec *iov, int cnt, off_t off)
{
    return should_fail(K_READ, "preadv", fd) ? -1 : REAL(preadv)()(fd, iov, cnt, off);
}

ssize_t __read_chk(int fd, void *buf, size_t n, size_t buflen)
{
    return should_fail(K_READ, "__read_chk", fd) ? -1 : REAL(__read_chk)()(fd, buf, n, buflen);
}

ssize_t __pread_chk(int fd, void *buf, size_t n, off_t off, size_t buflen)
{
    return should_fail(K_READ, "__pread_chk", fd) ? -1 : REAL(__pread_chk)()(fd, buf, n, off, buflen);
}

ssize_t __pread64_chk(int fd, void *buf, size_t n, off64_t off, size_t buflen)
{
    return should_fail(K_READ, "__pread64_chk", fd) ? -1
                                                          : REAL(__pread64_chk)()(fd, buf, n, off, buflen);
}

int fsync(int fd)
{
    return should_fail(K_FSYNC, "fsync", fd) ? -1 : REAL(fsync)()(fd);
}

int fdatasync(int fd)
{
    return should_fail(K_FSYNC, "fdatasync", fd) ? -1 : REAL(fdatasync)()(fd);
}

int syncfs(int fd)
{
    return should_fail(K_FSYNC, "syncfs", fd) ? -1 : REAL(syncfs)()(fd);
}

int rename(const char *from, const char *to)
{
    return should_fail_path(K_RENAME, "rename", AT_FDCWD, from, 0) ? -1 : REAL(rename)()(from, to);
}

int renameat(int fromdir, const char *from, int todir, const char *to)
{
    if (should_fail_path(K_RENAME, "renameat", fromdir, from, 0))
        return -1;
    return REAL(renameat)()(fromdir, from, todir, to);
}

int renameat2(int fromdir, const char *from, int todir, const char *to, unsigned int flags)
{
    if (should_fail_path(K_RENAME, "renameat2", fromdir, from, 0))
        return -1;
    return REAL(renameat2)()(fromdir, from, todir, to, flags);
}

int ftruncate(int fd, off_t len)
{
    return should_fail(K_TRUNCATE, "ftruncate", fd) ? -1 : REAL(ftruncate)()(fd, len);
}

int ftruncate64(int fd, off64_t len)
{
    return should_fail(K_TRUNCATE, "ftruncate64", fd) ? -1 : REAL(ftruncate64)()(fd, len);
}

/* open: the mode argument exists only with O_CREAT or O_TMPFILE. */
#define OPEN_MODE(flags, last)                                                                         \
    mode_t mode = 0;                                                                                   \
    if ((flags) & (O_CREAT | O_TMPFILE)) {                                                             \
        va_list ap;                                                                                    \
        va_start(ap, last);                                                                            \
        mode = (mode_t)va_arg(ap, int);                                                                \
        va_end(ap);                                                                                    \
    }

int open(const char *path, int flags, ...)
{
    OPEN_MODE(flags, flags)
    return should_fail_path(K_OPEN, "open", AT_FDCWD, path, flags) ? -1 : REAL(open)()(path, flags, mode);
}

int open64(const char *path, int flags, ...)
{
    OPEN_MODE(flags, flags)
    return should_fail_path(K_OPEN, "open64", AT_FDCWD, path, flags) ? -1 : REAL(open64)()(path, flags, mode);
}

int openat(int dirfd, const char *path, int flags, ...)
{
    OPEN_MODE(flags, flags)
    return should_fail_path(K_OPEN, "openat", dirfd, path, flags) ? -1 : REAL(openat)()(dirfd, path, flags, mode);
}

int openat64(int dirfd, const char *path, int flags, ...)
{
    OPEN_MODE(flags, flags)
    return should_fail_path(K_OPEN, "openat64", dirfd, path, flags) ? -1
                                                                    : REAL(openat64)()(dirfd, path, flags, mode);
}

int __open_2(const char *path, int flags)
{
    return should_fail_path(K_OPEN, "__open_2", AT_FDCWD, path, flags) ? -1 : REAL(__open_2)()(path, flags);
}

int __open64_2(const char *path, int flags)
{
    return should_fail_path(K_OPEN, "__open64_2", AT_FDCWD, path, flags) ? -1 : REAL(__open64_2)()(path, flags);
}

int __openat_2(int dirfd, const char *path, int flags)
{
    return should_fail_path(K_OPEN, "__openat_2", dirfd, path, flags) ? -1 : REAL(__openat_2)()(dirfd, path, flags);
}

int __openat64_2(int dirfd, const char *path, int flags)
{
    return should_fail_path(K_OPEN, "__openat64_2", dirfd, path, flags) ? -1
                                                                        : REAL(__openat64_2)()(dirfd, path, flags);
}

int close(int fd)
{
    /* Linux closes the descriptor even when close reports an error. */
    int fail = should_fail(K_CLOSE, "close", fd);
    int e = errno;
    int r = REAL(close)()(fd);
    if (fail) {
        errno = e;
        return -1;
    }
    return r;
}
