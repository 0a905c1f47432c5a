/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mount_attr.c: struct stat of the mount's entries. */
#include "mount/mount_attr.h"

#include <string.h>
#include <unistd.h>

#define MOUNT_BLOCK 512 /* st_blocks' unit */

/* The user who mounted, asked once (a listing of a large directory fills
 * a stat per entry). */
static uid_t owner_uid;
static gid_t owner_gid;

static void owner(uid_t *uid, gid_t *gid)
{
    static gsize asked = 0;
    if (g_once_init_enter(&asked)) {
        owner_uid = getuid();
        owner_gid = getgid();
        g_once_init_leave(&asked, 1);
    }
    *uid = owner_uid;
    *gid = owner_gid;
}

static void common(struct stat *st, mode_t mode, uint64_t size, int64_t sec, uint32_t nsec)
{
    memset(st, 0, sizeof *st);
    st->st_mode = mode;
    st->st_nlink = S_ISDIR(mode) ? 2 : 1;
    owner(&st->st_uid, &st->st_gid);
    st->st_size = (off_t)size;
    st->st_blocks = (blkcnt_t)((size + MOUNT_BLOCK - 1) / MOUNT_BLOCK);
    st->st_atim = st->st_mtim = st->st_ctim = (struct timespec){ .tv_sec = sec, .tv_nsec = nsec };
}

void mount_attr_record(const FileRecord *r, struct stat *st)
{
    switch (r->type) {
    case ENTRY_FILE:
        common(st, S_IFREG | (r->mode & 07777), r->size, r->mtime_sec, r->mtime_nsec);
        break;
    case ENTRY_DIR:
        common(st, S_IFDIR | (r->mode & 07777), 0, r->mtime_sec, r->mtime_nsec);
        break;
    case ENTRY_SYMLINK:
        common(st, S_IFLNK | 0777, r->link->len, r->mtime_sec, r->mtime_nsec);
        break;
    default:
        g_assert_not_reached();
    }
}

void mount_attr_dir(int64_t mtime_sec, struct stat *st)
{
    common(st, S_IFDIR | 0755, 0, mtime_sec, 0);
}

void mount_attr_file(uint64_t size, int64_t mtime_sec, struct stat *st)
{
    common(st, S_IFREG | 0444, size, mtime_sec, 0);
}

void mount_attr_link(size_t target_len, int64_t mtime_sec, struct stat *st)
{
    common(st, S_IFLNK | 0777, target_len, mtime_sec, 0);
}
