/* SPDX-License-Identifier: GPL-3.0-or-later */
/* report_table.h: a cache report as a table of rows (key, label, unit,
 * kind) that drives both its text and its JSON form, so each figure is
 * listed once: both caches' reports are such tables (cache_stats.c, the
 * container cache's; chunk_cache_report.c, the chunk cache's).
 *
 * A row reads one value of the report struct (kind: its C type, at an
 * offset) and shows it in its unit; a row with a key is a JSON member, a
 * row with a label a text line ("  %-30s value"), a row with both is
 * both. A text line shows only when the row's `text_if` says so (JSON
 * members always show). Lines that combine several figures, and members
 * built in a loop, are rows of unit REPORT_CUSTOM with functions of their
 * own. */
#ifndef DESTOR_CACHE_REPORT_TABLE_H
#define DESTOR_CACHE_REPORT_TABLE_H

#include "cache/policy/policy.h"

#include <glib.h>
#include <json-glib/json-glib.h>
#include <stddef.h>
#include <stdint.h>

typedef enum {
    REPORT_COUNT,   /* a whole number: text "N" */
    REPORT_BYTES,   /* bytes: text "N (4.0 MiB)" */
    REPORT_PERCENT, /* a fraction: text "12.34%", JSON the fraction */
    REPORT_RATIO,   /* a number: text "%.3f" */
    REPORT_MS,      /* seconds: JSON milliseconds (the key ends in _ms) */
    REPORT_MEAN_MS, /* seconds summed over the count at `per`: JSON ms per count (0 for none) */
    REPORT_MIB_S,   /* bytes per second: JSON MiB/s */
    REPORT_WORD,    /* a string */
    REPORT_FLAG,    /* yes or no: JSON a boolean */
    REPORT_POLICY,  /* a CacheReportPolicy: a text line a counter, JSON an object of them */
    REPORT_CUSTOM,  /* written by the row's text and json functions */
} ReportUnit;

/* A policy has at most this many counters (the registry test checks). */
#define CACHE_REPORT_MAX_POLICY_COUNTERS 32

/* The policy's own counters (policy.h) at the report's snapshot, in its order. */
typedef struct {
    const CachePolicyCounter *names;
    uint64_t values[CACHE_REPORT_MAX_POLICY_COUNTERS];
    size_t n;
} CacheReportPolicy;

/* Take the n counters `names` of a policy, their values from `values`. */
void report_policy_take(CacheReportPolicy *p, const CachePolicyCounter *names, size_t n, const uint64_t *values);

typedef enum { REPORT_U64, REPORT_U32, REPORT_SIZE, REPORT_INT, REPORT_DOUBLE, REPORT_STR, REPORT_BOOL } ReportKind;

typedef struct {
    const char *key;   /* JSON member, NULL: text only */
    const char *label; /* text label, NULL: JSON only */
    ReportUnit unit;
    ReportKind kind;   /* the C type at `at` */
    size_t at;         /* offset of the value in the report */
    size_t per;        /* REPORT_MEAN_MS: offset of the count (uint64_t) */
    gboolean (*text_if)(const void *r); /* NULL: the line always shows */
    void (*text)(const void *r, GString *out);     /* REPORT_CUSTOM (NULL: none) */
    void (*json)(const void *r, JsonBuilder *b);   /* REPORT_CUSTOM (NULL: none) */
} ReportRow;

/* A table: its rows and how many. */
typedef struct {
    const ReportRow *rows;
    size_t n;
} ReportTable;
#define REPORT_TABLE(rows) { rows, G_N_ELEMENTS(rows) }

/* Row constructors, `T` the report's type. */
#define REPORT_ROW(T, key, label, unit, kind, field) { key, label, unit, kind, offsetof(T, field), 0, NULL, NULL, NULL }
#define REPORT_ROW_IF(T, key, label, unit, kind, field, cond) \
    { key, label, unit, kind, offsetof(T, field), 0, cond, NULL, NULL }
#define REPORT_MEAN(T, key, field, count) \
    { key, NULL, REPORT_MEAN_MS, REPORT_DOUBLE, offsetof(T, field), offsetof(T, count), NULL, NULL, NULL }
#define REPORT_LINES(text_fn, json_fn, cond) { NULL, NULL, REPORT_CUSTOM, REPORT_U64, 0, 0, cond, text_fn, json_fn }

/* The rows' text lines appended to out. */
void report_table_text(const ReportRow *rows, size_t n, const void *r, GString *out);
/* The rows' JSON members at b's current object. */
void report_table_json(const ReportRow *rows, size_t n, const void *r, JsonBuilder *b);

/* Text lines of the house's form, for custom rows. */
void report_text_count(GString *out, const char *label, uint64_t v);
void report_text_bytes(GString *out, const char *label, uint64_t bytes);
/* The write budget's line: its rate (bytes per request, or DWPD when dwpd
 * > 0), its bytes over the run and the share of them written. */
void report_text_budget(GString *out, double per_request, double dwpd, double budget_bytes, uint64_t written);
/* num / den, 0 when den is 0. */
double report_ratio(double num, double den);

#endif
