/* SPDX-License-Identifier: GPL-3.0-or-later */
/* opt_window.h: what Belady's optimal replacement needs to know of the
 * future: the next `size` chunk reads of a restore (restore-opt-window-size,
 * Destor's key), pulled from a ChunkStream as reads happen, and for each
 * container the position of its next read in that window. The opt restore
 * cache (container_chunks_new_opt) evicts the container whose next read is
 * farthest, or that has none in the window. */
#ifndef DESTOR_OPT_WINDOW_H
#define DESTOR_OPT_WINDOW_H

#include "read/chunk_stream.h"

#include <glib.h>
#include <stdint.h>

#define OPT_NEVER G_MAXUINT64

typedef struct OptWindow OptWindow;

/* Takes ownership of `future`. */
OptWindow *opt_window_new(ChunkStream *future, guint size);
void opt_window_free(OptWindow *w);

/* The read of chunk (id, offset) happens now: it leaves the window, with
 * every planned read before it (reads the reader skipped); a read the
 * window does not hold changes nothing. Then the window is filled again.
 * FALSE with *err set when the stream fails. */
gboolean opt_window_advance(OptWindow *w, ContainerId id, uint32_t offset, GError **err);
/* The position of the next planned read of container `id` (positions
 * count the stream's chunks from 1), OPT_NEVER when the window has none. */
uint64_t opt_window_next_use(const OptWindow *w, ContainerId id);

#endif
