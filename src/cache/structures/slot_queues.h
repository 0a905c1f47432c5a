/* SPDX-License-Identifier: GPL-3.0-or-later */
/* slot_queues.h: several FIFO/LRU queues over slot numbers that share one
 * pair of links per slot, for the policies that keep their cached containers
 * in more than one list (2Q's A1in and Am, ARC's T1 and T2, S3-FIFO's S and
 * M, the SLRU segments of TinyLFU, ...). Each slot is in at most one queue;
 * the queue it is in is recorded, and every queue knows its length. The
 * oldest entry is at a queue's head, the newest at its tail. O(1) append,
 * unlink and move; 9 bytes a slot. */
#ifndef DESTOR_CACHE_SLOT_QUEUES_H
#define DESTOR_CACHE_SLOT_QUEUES_H

#include "cache/policy/policy.h"
#include "util/le.h"

#include <glib.h>
#include <stdint.h>
#include <string.h>

#define SLOT_QUEUES_MAX 3
#define SLOT_QUEUE_NONE UINT8_MAX

typedef struct {
    uint32_t *prev, *next; /* per slot; CACHE_NO_SLOT ends a queue */
    uint8_t *queue;        /* per slot: its queue, or SLOT_QUEUE_NONE */
    uint32_t head[SLOT_QUEUES_MAX], tail[SLOT_QUEUES_MAX], len[SLOT_QUEUES_MAX];
} SlotQueues;

/* Per-slot bytes, for the memory report. */
#define SLOT_QUEUES_BYTES_PER_SLOT (2 * sizeof(uint32_t) + sizeof(uint8_t))

static inline void slot_queues_init(SlotQueues *q, uint32_t capacity)
{
    uint32_t n = capacity ? capacity : 1;
    q->prev = g_new(uint32_t, n);
    q->next = g_new(uint32_t, n);
    q->queue = g_new(uint8_t, n);
    memset(q->queue, SLOT_QUEUE_NONE, n);
    for (int i = 0; i < SLOT_QUEUES_MAX; i++) {
        q->head[i] = q->tail[i] = CACHE_NO_SLOT;
        q->len[i] = 0;
    }
}

static inline void slot_queues_free(SlotQueues *q)
{
    g_free(q->prev);
    g_free(q->next);
    g_free(q->queue);
}

static inline void slot_queues_append(SlotQueues *q, uint8_t k, uint32_t s)
{
    q->prev[s] = q->tail[k];
    q->next[s] = CACHE_NO_SLOT;
    if (q->tail[k] != CACHE_NO_SLOT)
        q->next[q->tail[k]] = s;
    else
        q->head[k] = s;
    q->tail[k] = s;
    q->queue[s] = k;
    q->len[k]++;
}

/* Take `s` out of whatever queue holds it (nothing if none). */
static inline void slot_queues_unlink(SlotQueues *q, uint32_t s)
{
    uint8_t k = q->queue[s];
    if (k == SLOT_QUEUE_NONE)
        return;
    if (q->prev[s] != CACHE_NO_SLOT)
        q->next[q->prev[s]] = q->next[s];
    else
        q->head[k] = q->next[s];
    if (q->next[s] != CACHE_NO_SLOT)
        q->prev[q->next[s]] = q->prev[s];
    else
        q->tail[k] = q->prev[s];
    q->queue[s] = SLOT_QUEUE_NONE;
    q->len[k]--;
}

/* Make `s` the newest entry of queue k (from wherever it was). */
static inline void slot_queues_move_to_tail(SlotQueues *q, uint8_t k, uint32_t s)
{
    if (q->queue[s] == k && q->tail[k] == s)
        return;
    slot_queues_unlink(q, s);
    slot_queues_append(q, k, s);
}

/* Total entries in all queues. */
static inline uint32_t slot_queues_total(const SlotQueues *q)
{
    uint32_t n = 0;
    for (int i = 0; i < SLOT_QUEUES_MAX; i++)
        n += q->len[i];
    return n;
}

/* Saved state (part of a policy's blob): for each of the first nq queues,
 * its length u32 and its slots u32, oldest first. */
static inline void slot_queues_save(const SlotQueues *q, int nq, GByteArray *out)
{
    for (int k = 0; k < nq; k++) {
        guint at = out->len;
        g_byte_array_set_size(out, at + 4 + 4 * (guint)q->len[k]);
        uint8_t *b = out->data + at;
        le32_put(b, q->len[k]);
        b += 4;
        for (uint32_t s = q->head[k]; s != CACHE_NO_SLOT; s = q->next[s], b += 4)
            le32_put(b, s);
    }
}

/* Read what slot_queues_save wrote at blob[*at]; slots the core did not
 * restore are skipped. FALSE if it does not fit (the caller refuses the
 * blob). */
static inline gboolean slot_queues_load(SlotQueues *q, int nq, const CachePolicyEnv *env,
                                        const uint8_t *blob, size_t len, size_t *at)
{
    for (int k = 0; k < nq; k++) {
        if (len - *at < 4)
            return FALSE;
        uint32_t n = le32_get(blob + *at);
        *at += 4;
        if (n > env->capacity || (len - *at) / 4 < n)
            return FALSE;
        for (uint32_t i = 0; i < n; i++, *at += 4) {
            uint32_t s = le32_get(blob + *at);
            if (s >= env->capacity || q->queue[s] != SLOT_QUEUE_NONE)
                return FALSE;
            if (cache_policy_env_occupied(env, s))
                slot_queues_append(q, (uint8_t)k, s);
        }
    }
    return TRUE;
}

/* After loading: any restored slot the blob did not place joins queue k,
 * as a fresh insertion would. */
static inline void slot_queues_adopt(SlotQueues *q, uint8_t k, const CachePolicyEnv *env)
{
    for (uint32_t s = 0; s < env->capacity; s++)
        if (q->queue[s] == SLOT_QUEUE_NONE && cache_policy_env_occupied(env, s))
            slot_queues_append(q, k, s);
}

#endif
