/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cache_reader.h: one reader of the SSD container cache among several
 * serving requests at once (the mount's threads). A reader is a
 * ContainerSource over the cache with a request bracket of its own: its
 * reads are cache_access() and cache_reread() calls, under the cache's
 * lock as every call is, counted in the reader's open request instead of
 * the cache's one (cache_core_request_begin). The requests of several
 * readers may then overlap, and each still counts as one request with
 * its own modelled latency: what its own accesses advanced the device
 * model's clock (queueing behind the others' SSD writes included), and a
 * hit request when all its accesses were hits. The cache's counters and
 * decisions are the same as for the same accesses made one at a time. */
#ifndef DESTOR_CACHE_READER_H
#define DESTOR_CACHE_READER_H

#include "cache/container/cache_core.h"

typedef struct CacheReader CacheReader;

/* Free it before the cache closes. */
CacheReader *cache_reader_new(CacheCore *c);
void cache_reader_free(CacheReader *r);
/* The reader as a source of containers (read, reread). */
ContainerSource *cache_reader_source(CacheReader *r);
/* Bracket one request of the reader's, as cache_core_request_begin and
 * _end do for the cache's own: _end returns its modelled seconds. */
void cache_reader_request_begin(CacheReader *r);
double cache_reader_request_end(CacheReader *r);

#endif
