/* SPDX-License-Identifier: GPL-3.0-or-later */
/* container_files.h: the `files` kind of container store (container_store.h):
 * one file per container under containers/ in the working directory,
 * container i at containers/SSSSSS/NNNNNNNN, where NNNNNNNN is i and
 * SSSSSS is i >> 8, both lowercase hex. 256 consecutive containers share a
 * directory, so a backup's sync fsyncs few directories and no directory
 * holds more than 256 files; containers/ gains one entry per 256
 * containers (65536 for 16 Mi containers, 32 TiB of 2 MiB ones). A freed
 * container's file is unlinked (the newest one's is emptied instead, which
 * keeps the count). */
#ifndef DESTOR_CONTAINER_FILES_H
#define DESTOR_CONTAINER_FILES_H

#include "storage/container_store.h"

#define CONTAINER_FILES_DIR "containers"

ContainerStore *container_files_open(const char *dir, size_t container_size, gboolean writable, GError **err);

#endif
