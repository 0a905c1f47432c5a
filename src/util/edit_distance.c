/* SPDX-License-Identifier: GPL-3.0-or-later */
/* edit_distance.c: see edit_distance.h. */
#include "util/edit_distance.h"

#include <glib.h>
#include <string.h>

size_t edit_distance(const char *a, const char *b, size_t limit)
{
    size_t n = strlen(a), m = strlen(b);
    if (n > m + limit || m > n + limit)
        return limit + 1;
    size_t *d = g_new(size_t, (n + 1) * (m + 1));
#define D(i, j) d[(i) * (m + 1) + (j)]
    for (size_t i = 0; i <= n; i++)
        D(i, 0) = i;
    for (size_t j = 0; j <= m; j++)
        D(0, j) = j;
    for (size_t i = 1; i <= n; i++)
        for (size_t j = 1; j <= m; j++) {
            size_t cost = a[i - 1] != b[j - 1];
            size_t v = MIN(MIN(D(i - 1, j) + 1, D(i, j - 1) + 1), D(i - 1, j - 1) + cost);
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
                v = MIN(v, D(i - 2, j - 2) + 1);
            D(i, j) = v;
        }
    size_t result = D(n, m);
#undef D
    g_free(d);
    return result > limit ? limit + 1 : result;
}
