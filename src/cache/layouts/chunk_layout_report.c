/* SPDX-License-Identifier: GPL-3.0-or-later */
/* chunk_layout_report.c: the report lines several layouts show
 * (chunk_layout_report.h). */
#include "cache/layouts/chunk_layout_report.h"

void chunk_layout_compression_line(const ChunkLayoutReport *r, GString *out, const char *label)
{
    g_string_append_printf(out, "  %-30s %s, ratio %.3f, %" G_GUINT64_FORMAT " chunks compressed\n", label,
                           r->compression, r->compression_ratio, r->counters.chunks_compressed);
}

void chunk_layout_compression_text(const void *p, GString *out)
{
    const ChunkLayoutReport *r = p;
    chunk_layout_compression_line(r, out, "  compression");
    g_string_append_printf(out, "  %-30s %.1f ms compress, %.1f ms decompress\n", "  compression CPU",
                           1e3 * r->counters.cpu_compress_s, 1e3 * r->counters.cpu_decompress_s);
}

void chunk_layout_faults_text(const void *p, GString *out)
{
    const ChunkLayoutReport *r = p;
    report_text_count(out, "damaged chunks (refetched)", r->damaged);
    report_text_count(out, "SSD write errors", r->ssd_write_errors);
    report_text_count(out, "puts refused: bytes not their fingerprint's", r->put_mismatched);
}
