/* SPDX-License-Identifier: GPL-3.0-or-later */
/* chunk_layout_report.h: what the layouts' report rows share. A layout's
 * part of the chunk cache's report is a table of rows over a
 * ChunkLayoutReport (chunk_layout.h) that its ops hand up: these are the
 * rows' constructors and the lines more than one layout shows. */
#ifndef DESTOR_CACHE_CHUNK_LAYOUT_REPORT_H
#define DESTOR_CACHE_CHUNK_LAYOUT_REPORT_H

#include "cache/common/report_table.h"
#include "cache/layouts/chunk_layout.h"

#define CHUNK_LAYOUT_ROW(...) REPORT_ROW(ChunkLayoutReport, __VA_ARGS__)
#define CHUNK_LAYOUT_ROW_IF(...) REPORT_ROW_IF(ChunkLayoutReport, __VA_ARGS__)

/* The line "<label> <codec>, ratio R, N chunks compressed". */
void chunk_layout_compression_line(const ChunkLayoutReport *r, GString *out, const char *label);
/* Lines of a REPORT_LINES row: the compression line and its CPU time. */
void chunk_layout_compression_text(const void *r, GString *out);
/* Lines of a REPORT_LINES row: the chunks found damaged, the SSD's write
 * errors and the puts refused (the bytes not their fingerprint's). */
void chunk_layout_faults_text(const void *r, GString *out);

#endif
