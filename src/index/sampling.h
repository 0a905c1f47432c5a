/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sampling.h: which chunks of a container the sampled index keeps in
 * memory (Destor's sampling methods, applied to a container's chunks in
 * their order in the container). */
#ifndef DESTOR_SAMPLING_H
#define DESTOR_SAMPLING_H

#include "index/fp_index_params.h"
#include "util/fingerprint.h"

#include <glib.h>

/* is_sample[i] for each of the n fingerprints (n >= 1: at least one). */
void sampling_select(SamplingMethod m, unsigned ratio, const Fingerprint *fps, guint n, size_t fp_len,
                     gboolean *is_sample);

/* The fingerprint's trailing eight bytes as a number (its leading bytes
 * are the locality cache's and sample table's probe hash): random's test,
 * and content-defined segmenting's. */
uint64_t sampling_fp_value(const Fingerprint *fp, size_t fp_len);

#endif
