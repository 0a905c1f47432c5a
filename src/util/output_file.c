/* output_file.c: write beside OUT and rename, or write into OUT. */
#include "util/output_file.h"
#include "util/error.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

gboolean output_file_open(OutputFile *o, const char *path, GError **err)
{
    *o = (OutputFile){ .fd = STDOUT_FILENO, .name = "standard output" };
    if (path == NULL)
        return TRUE;
    o->path = o->name = path;
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        o->fd = open(path, O_WRONLY | O_CLOEXEC);
        if (o->fd < 0)
            destor_set_errno(err, errno, "open %s", path);
        return o->fd >= 0;
    }
    o->tmp = g_strdup_printf("%s.destor-tmp", path);
    o->fd = open(o->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (o->fd < 0) {
        destor_set_errno(err, errno, "create %s", o->tmp);
        g_clear_pointer(&o->tmp, g_free);
    }
    return o->fd >= 0;
}

gboolean output_file_finish(OutputFile *o, gboolean ok, GError **err)
{
    if (o->path == NULL || o->fd < 0)
        return ok;
    if (close(o->fd) != 0 && ok) {
        destor_set_errno(err, errno, "close %s", o->tmp ? o->tmp : o->path);
        ok = FALSE;
    }
    o->fd = -1;
    if (o->tmp != NULL) {
        if (ok && rename(o->tmp, o->path) != 0) {
            destor_set_errno(err, errno, "rename %s to %s", o->tmp, o->path);
            ok = FALSE;
        }
        if (!ok)
            unlink(o->tmp);
        g_clear_pointer(&o->tmp, g_free);
    }
    return ok;
}
