/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fp_exact.c: the exact physical index (Destor's "exact physical", DDFS
 * without its Bloom filter): the job's new chunks in a memory table, every
 * earlier chunk in the Berkeley DB, read on each lookup the table misses. */
#include "index/fp_design.h"
#include "index/fp_table.h"
#include "util/error.h"

#include <errno.h>
#include <unistd.h>

struct FpDesign {
    FpIndex *idx;
    FpTable *job_chunks; /* this job's new chunks */
    uint64_t db_reads;
};

static FpDesign *exact_open(FpIndex *idx, const FpIndexParams *p, GError **err)
{
    (void)p;
    (void)err;
    FpDesign *d = g_new0(FpDesign, 1);
    d->idx = idx;
    d->job_chunks = fp_table_new();
    return d;
}

static gboolean exact_lookup(FpDesign *d, const Fingerprint *fp, ChunkLocation *loc, gboolean *found, GError **err)
{
    const ChunkLocation *mine = fp_table_get(d->job_chunks, fp);
    if (mine != NULL) {
        *loc = *mine;
        *found = TRUE;
        return TRUE;
    }
    /* The first job of a store: everything the DB holds is this job's own,
     * in the table too, so the DB cannot find anything (a fifth of the store
     * stage's CPU on a first backup went to such misses). */
    if (!fp_index_prior_chunks(d->idx)) {
        *found = FALSE;
        return TRUE;
    }
    d->db_reads++;
    return fp_index_db_get(d->idx, fp, loc, found, err);
}

static void exact_add(FpDesign *d, const Fingerprint *fp, const ChunkLocation *loc)
{
    fp_table_put(d->job_chunks, fp, loc);
}

static void exact_persisted(FpDesign *d, const uint8_t *container, size_t size)
{
    (void)d;
    (void)container;
    (void)size;
}

/* What the near-exact designs keep beside the DB no longer matches it. */
static gboolean exact_commit(FpDesign *d, GError **err)
{
    gboolean ok = TRUE;
    for (guint i = 0; i < 2 && ok; i++) {
        char *path = g_build_filename(fp_index_dir(d->idx), i ? FP_SEGMENTS_FILE : FP_SAMPLES_FILE, NULL);
        ok = unlink(path) == 0 || errno == ENOENT;
        if (!ok)
            destor_set_errno(err, errno, "remove %s", path);
        g_free(path);
    }
    return ok;
}

static void exact_stats(FpDesign *d, FpIndexStats *st)
{
    st->table_bytes = fp_table_bytes(d->job_chunks);
    st->db_reads = d->db_reads;
}

static void exact_close(FpDesign *d)
{
    fp_table_free(d->job_chunks);
    g_free(d);
}

const FpDesignOps fp_design_exact = {
    .open = exact_open,
    .lookup = exact_lookup,
    .add = exact_add,
    .persisted = exact_persisted,
    .commit = exact_commit,
    .stats = exact_stats,
    .close = exact_close,
};
