/* SPDX-License-Identifier: GPL-3.0-or-later */
/* edit_distance.h: how many typing mistakes apart two words are, for "did
 * you mean" on a mistyped command or config key. */
#ifndef DESTOR_EDIT_DISTANCE_H
#define DESTOR_EDIT_DISTANCE_H

#include <stddef.h>

/* Insertions, deletions, substitutions and adjacent transpositions between
 * a and b; any value above limit is returned as limit + 1. */
size_t edit_distance(const char *a, const char *b, size_t limit);

#endif
