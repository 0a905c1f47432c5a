/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mount_readers.h: the mount's readers: as many as libfuse has worker
 * threads, each a reader of the session's of its own
 * (read_session_reader_new), so that reads of different files go on at
 * once.
 *
 * What a read shares with the others, and what protects it:
 * - the reader's chunk source: its container buffers (the few containers
 *   a file is being read from, kept between its reads) and the bytes it
 *   hands out, valid until its next read; or with the SSD chunk cache its
 *   chunk buffer and the position of its next access. A reader serves one
 *   read at a time: taken and given back here, under the pool's lock;
 * - the open file's record and chunk offsets (MountHandle): read only;
 * - the store's containers: preads on descriptors opened once, safe from
 *   any thread (container_source.h);
 * - the SSD cache, either granularity: its index, policy, counters, device
 *   model, codec and its buffers, files and the containers' copies, under
 *   the cache's own mutex (every call of cache_core.h, cache_reader.h and
 *   chunk_cache.h). The container cache is reached through a cache reader
 *   of the reader's own, whose request bracket is its own: reads through
 *   it go on together between the cache's accesses (the chunks' checks
 *   and copies, the containers a reader holds). The chunk cache counts
 *   one request at a time: its requests take turns under the read
 *   session's request lock (read_session_copy). The cache's state is
 *   saved when the session closes, after the last read;
 * - the read figures: their own lock (mount_stats.h);
 * - the job table and Berkeley DB's handles: the mount's lock, which reads
 *   do not take (mount_fuse.h).
 * Every chunk is still checked against its fingerprint below the reader
 * (container_chunks.c; the chunk cache's layout checks its own): damage is
 * EIO, never other bytes.
 *
 * A reader keeps the containers of the file it read for last: that file's
 * next read takes it again (waiting while it serves an earlier read of the
 * same file, as when the kernel reads one file ahead with several
 * requests); another file takes the free reader given back longest ago.
 * A reader idle for a while gives its containers up (mount_readers_trim). */
#ifndef DESTOR_MOUNT_READERS_H
#define DESTOR_MOUNT_READERS_H

#include "read/read_session.h"

#include <glib.h>

typedef struct MountReaders MountReaders;

/* n readers over session s, each keeping `containers` containers. */
MountReaders *mount_readers_new(ReadSession *s, guint n, guint containers);
/* After the last read; before the session closes. */
void mount_readers_free(MountReaders *p);

/* A reader for one read of the open file `file` (its handle: any pointer
 * that stays the file's until mount_readers_forget), all the caller's
 * until it gives it back. Waits while none can serve the file. */
ReadSessionReader *mount_readers_take(MountReaders *p, const void *file);
void mount_readers_give(MountReaders *p, ReadSessionReader *reader);
/* `file` is closed: the containers its reader holds are no one's. */
void mount_readers_forget(MountReaders *p, const void *file);
/* Readers given back more than idle_us ago give up the containers they
 * keep (the memory of a mount nobody reads from), and their memory goes
 * back to the system. */
void mount_readers_trim(MountReaders *p, gint64 idle_us);

#endif
