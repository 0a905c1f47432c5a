/* stages.h: the middle stages of the backup pipeline, each a thread that
 * pops from one bounded queue and pushes to the next: chunk (DATA -> CHUNK)
 * and hash (fingerprints CHUNKs). Other messages pass through in order. */
#ifndef DESTOR_STAGES_H
#define DESTOR_STAGES_H

#include "chunking/chunker.h"
#include "util/bounded_queue.h"
#include "util/fingerprint.h"

#include <glib.h>

typedef struct {
    BoundedQueue *in, *out;
    BoundedQueue *free_blocks; /* where DATA buffers go back to the reader */
    const Chunker *chunker;
    size_t max_chunk;
} ChunkStage;

typedef struct {
    BoundedQueue *in, *out;
    FingerprintAlgorithm alg;
} HashStage;

gpointer chunk_stage_run(gpointer stage);
gpointer hash_stage_run(gpointer stage);

#endif
