/* SPDX-License-Identifier: GPL-3.0-or-later */
/* bucket.c: admission `bucket`: ssd-cache-write-budget spent first come,
 * first served (write_credit.h): a miss goes to the policy only while the
 * credit covers its bytes, whatever its value. */
#include "cache/admission/write_credit.h"

static void *bucket_create(const AdmissionEnv *env)
{
    WriteCredit *w = g_new0(WriteCredit, 1);
    write_credit_init(w, env);
    return w;
}

static void bucket_request(void *st, uint64_t time_ns)
{
    write_credit_request(st, time_ns);
}

static gboolean bucket_admit(void *st, const AdmissionCandidate *c)
{
    return write_credit_covers(st, c->bytes);
}

static void bucket_written(void *st, uint64_t bytes)
{
    write_credit_pay(st, bytes);
}

static void bucket_rewritten(void *st, uint64_t bytes)
{
    write_credit_charge(st, bytes);
}

static size_t bucket_memory(const void *st)
{
    (void)st;
    return sizeof(WriteCredit);
}

const AdmissionOps admission_bucket = {
    .name = "bucket",
    .description = "the write budget, first come first served: a miss is admitted while credit covers it",
    .spends_budget = TRUE,
    .create = bucket_create,
    .destroy = g_free,
    .request = bucket_request,
    .admit = bucket_admit,
    .written = bucket_written,
    .rewritten = bucket_rewritten,
    .memory = bucket_memory,
};
