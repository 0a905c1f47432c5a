/* SPDX-License-Identifier: GPL-3.0-or-later */
/* size_parse.c: parse and print byte sizes with binary suffixes. */
#include "util/size_parse.h"

#include <errno.h>
#include <stdlib.h>

gboolean size_parse(const char *text, uint64_t *out)
{
    if (text == NULL || !g_ascii_isdigit(text[0]))
        return FALSE;
    errno = 0;
    char *end = NULL;
    guint64 v = g_ascii_strtoull(text, &end, 10);
    if (errno != 0)
        return FALSE;
    unsigned shift = 0;
    switch (g_ascii_toupper(*end)) {
    case 'K': shift = 10; end++; break;
    case 'M': shift = 20; end++; break;
    case 'G': shift = 30; end++; break;
    case 'T': shift = 40; end++; break;
    default: break;
    }
    if (shift > 0 && (*end == 'i' || *end == 'I'))
        end++;
    if (*end == 'B' || *end == 'b')
        end++;
    if (*end != '\0' || (shift > 0 && v > (UINT64_MAX >> shift)))
        return FALSE;
    *out = v << shift;
    return TRUE;
}

const char *size_format(uint64_t bytes, char *buf, size_t buflen)
{
    static const char *units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
    double v = (double)bytes;
    int u = 0;
    while (v >= 1024.0 && u < 4) {
        v /= 1024.0;
        u++;
    }
    g_snprintf(buf, buflen, u == 0 ? "%.0f %s" : "%.2f %s", v, units[u]);
    return buf;
}
