/* SPDX-License-Identifier: GPL-3.0-or-later */
/* report_table.c: a report table's text and JSON (report_table.h). */
#include "cache/common/report_table.h"
#include "util/json_doc.h"
#include "util/size_parse.h"

#include <string.h>

#define MIB (1024.0 * 1024.0)

double report_ratio(double num, double den)
{
    return den > 0 ? num / den : 0.0;
}

void report_text_count(GString *out, const char *label, uint64_t v)
{
    g_string_append_printf(out, "  %-30s %" G_GUINT64_FORMAT "\n", label, v);
}

void report_text_bytes(GString *out, const char *label, uint64_t bytes)
{
    char buf[32];
    g_string_append_printf(out, "  %-30s %" G_GUINT64_FORMAT " (%s)\n", label, bytes,
                           size_format(bytes, buf, sizeof buf));
}

void report_text_budget(GString *out, double per_request, double dwpd, double budget_bytes, uint64_t written)
{
    char buf[32];
    char rate[96];
    /* a budget of 2^64 bytes or more (1e18 a request, 40 requests) in
     * bytes as a number, not cast to a 64-bit count (undefined: it said 0 B) */
    if (budget_bytes < 18446744073709551616.0)
        size_format((uint64_t)budget_bytes, buf, sizeof buf);
    else
        g_snprintf(buf, sizeof buf, "%.4g B", budget_bytes);
    if (dwpd > 0)
        g_snprintf(rate, sizeof rate, "%g DWPD, %s over the trace's time", dwpd, buf);
    else
        g_snprintf(rate, sizeof rate, "%.0f B per request, %s over the requests", per_request, buf);
    if (budget_bytes > 0) {
        g_string_append_printf(out, "  %-30s %s (+ one cache fill); written %.3f of it\n", "write budget", rate,
                               report_ratio((double)written, budget_bytes));
    } else { /* no share of a budget of 0 B: the bytes themselves */
        char w[32];
        g_string_append_printf(out, "  %-30s %s (+ one cache fill); written %s, no budget to compare it to\n",
                               "write budget", rate, size_format(written, w, sizeof w));
    }
}

void report_policy_take(CacheReportPolicy *p, const CachePolicyCounter *names, size_t n, const uint64_t *values)
{
    p->names = names;
    p->n = MIN(n, CACHE_REPORT_MAX_POLICY_COUNTERS);
    memcpy(p->values, values, p->n * sizeof *values);
}

static const void *field(const void *r, size_t at)
{
    return (const char *)r + at;
}

/* A numeric row's value, whatever its C type. */
static uint64_t whole(const ReportRow *row, const void *r)
{
    const void *v = field(r, row->at);
    switch (row->kind) {
    case REPORT_U64:
        return *(const uint64_t *)v;
    case REPORT_U32:
        return *(const uint32_t *)v;
    case REPORT_SIZE:
        return *(const size_t *)v;
    case REPORT_INT:
        return (uint64_t)*(const int *)v;
    default:
        g_assert_not_reached();
    }
}

static double number(const ReportRow *row, const void *r)
{
    g_assert(row->kind == REPORT_DOUBLE);
    return *(const double *)field(r, row->at);
}

void report_table_text(const ReportRow *rows, size_t n, const void *r, GString *out)
{
    for (size_t i = 0; i < n; i++) {
        const ReportRow *row = &rows[i];
        if ((row->label == NULL && row->unit != REPORT_CUSTOM && row->unit != REPORT_POLICY) ||
            (row->text_if && !row->text_if(r)))
            continue;
        switch (row->unit) {
        case REPORT_COUNT:
            report_text_count(out, row->label, whole(row, r));
            break;
        case REPORT_BYTES:
            report_text_bytes(out, row->label, whole(row, r));
            break;
        case REPORT_PERCENT:
            g_string_append_printf(out, "  %-30s %.2f%%\n", row->label, 100.0 * number(row, r));
            break;
        case REPORT_RATIO:
            g_string_append_printf(out, "  %-30s %.3f\n", row->label, number(row, r));
            break;
        case REPORT_POLICY: {
            const CacheReportPolicy *p = field(r, row->at);
            for (size_t k = 0; k < p->n; k++)
                report_text_count(out, p->names[k].label, p->values[k]);
            break;
        }
        case REPORT_CUSTOM:
            if (row->text)
                row->text(r, out);
            break;
        default: /* a unit for JSON only */
            g_assert_not_reached();
        }
    }
}

void report_table_json(const ReportRow *rows, size_t n, const void *r, JsonBuilder *b)
{
    for (size_t i = 0; i < n; i++) {
        const ReportRow *row = &rows[i];
        if (row->key == NULL && row->unit != REPORT_CUSTOM)
            continue;
        switch (row->unit) {
        case REPORT_COUNT:
        case REPORT_BYTES:
            json_doc_uint(b, row->key, whole(row, r));
            break;
        case REPORT_PERCENT:
        case REPORT_RATIO:
            json_doc_double(b, row->key, number(row, r));
            break;
        case REPORT_MS:
            json_doc_double(b, row->key, 1e3 * number(row, r));
            break;
        case REPORT_MEAN_MS:
            json_doc_double(b, row->key, 1e3 * report_ratio(number(row, r), (double)*(const uint64_t *)field(r, row->per)));
            break;
        case REPORT_MIB_S:
            json_doc_double(b, row->key, number(row, r) / MIB);
            break;
        case REPORT_WORD:
            g_assert(row->kind == REPORT_STR);
            json_doc_string(b, row->key, *(const char *const *)field(r, row->at));
            break;
        case REPORT_FLAG:
            g_assert(row->kind == REPORT_BOOL);
            json_doc_bool(b, row->key, *(const gboolean *)field(r, row->at));
            break;
        case REPORT_POLICY: {
            const CacheReportPolicy *p = field(r, row->at);
            json_builder_set_member_name(b, row->key);
            json_builder_begin_object(b);
            for (size_t k = 0; k < p->n; k++)
                json_doc_uint(b, p->names[k].name, p->values[k]);
            json_builder_end_object(b);
            break;
        }
        case REPORT_CUSTOM:
            if (row->json)
                row->json(r, b);
            break;
        }
    }
}
