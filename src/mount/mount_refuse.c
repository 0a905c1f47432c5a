/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mount_refuse.c: every change through the mount (write, create, mkdir,
 * unlink, rename, link, chmod, chown, truncate, utimes, setxattr,
 * fallocate) is EROFS. It is mounted "ro" too, so the kernel refuses most
 * before they get here. */
#include "mount/mount_fuse.h"

#include <errno.h>

static int refuse_path(const char *path)
{
    (void)path;
    return -EROFS;
}

static int refuse_mknod(const char *path, mode_t mode, dev_t dev)
{
    (void)dev;
    (void)mode;
    return refuse_path(path);
}

static int refuse_mode(const char *path, mode_t mode)
{
    (void)mode;
    return refuse_path(path);
}

static int refuse_two(const char *path, const char *other)
{
    (void)other;
    return refuse_path(path);
}

static int refuse_rename(const char *path, const char *to, unsigned int flags)
{
    (void)flags;
    return refuse_two(path, to);
}

static int refuse_chmod(const char *path, mode_t mode, struct fuse_file_info *fi)
{
    (void)fi;
    return refuse_mode(path, mode);
}

static int refuse_chown(const char *path, uid_t uid, gid_t gid, struct fuse_file_info *fi)
{
    (void)uid;
    (void)gid;
    (void)fi;
    return refuse_path(path);
}

static int refuse_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
    (void)size;
    (void)fi;
    return refuse_path(path);
}

static int refuse_write(const char *path, const char *buf, size_t size, off_t off, struct fuse_file_info *fi)
{
    (void)buf;
    (void)size;
    (void)off;
    (void)fi;
    return refuse_path(path);
}

static int refuse_create(const char *path, mode_t mode, struct fuse_file_info *fi)
{
    (void)fi;
    return refuse_mode(path, mode);
}

static int refuse_utimens(const char *path, const struct timespec tv[2], struct fuse_file_info *fi)
{
    (void)tv;
    (void)fi;
    return refuse_path(path);
}

static int refuse_setxattr(const char *path, const char *name, const char *value, size_t size, int flags)
{
    (void)name;
    (void)value;
    (void)size;
    (void)flags;
    return refuse_path(path);
}

static int refuse_fallocate(const char *path, int mode, off_t off, off_t len, struct fuse_file_info *fi)
{
    (void)mode;
    (void)off;
    (void)len;
    (void)fi;
    return refuse_path(path);
}

void mount_refuse_changes(struct fuse_operations *ops)
{
    ops->mknod = refuse_mknod;
    ops->mkdir = refuse_mode;
    ops->unlink = refuse_path;
    ops->rmdir = refuse_path;
    ops->symlink = refuse_two;
    ops->rename = refuse_rename;
    ops->link = refuse_two;
    ops->chmod = refuse_chmod;
    ops->chown = refuse_chown;
    ops->truncate = refuse_truncate;
    ops->write = refuse_write;
    ops->create = refuse_create;
    ops->utimens = refuse_utimens;
    ops->setxattr = refuse_setxattr;
    ops->removexattr = refuse_two;
    ops->fallocate = refuse_fallocate;
}
