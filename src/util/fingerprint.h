/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fingerprint.h: chunk fingerprints (SHA-1 by default, SHA-256 selectable)
 * computed through OpenSSL's EVP interface. A fingerprint always occupies a
 * 32-byte slot; SHA-1 uses the first 20 bytes and zero-fills the rest. */
#ifndef DESTOR_FINGERPRINT_H
#define DESTOR_FINGERPRINT_H

#include <glib.h>
#include <stddef.h>
#include <stdint.h>

#define FP_SLOT 32

typedef struct {
    uint8_t bytes[FP_SLOT];
} Fingerprint;

typedef enum {
    FP_SHA1 = 1,
    FP_SHA256 = 2,
} FingerprintAlgorithm;

gboolean fingerprint_algorithm_parse(const char *name, FingerprintAlgorithm *out);
const char *fingerprint_algorithm_name(FingerprintAlgorithm alg);
size_t fingerprint_length(FingerprintAlgorithm alg);

/* One-shot digest of buf into out (zero-padded to FP_SLOT). */
void fingerprint_compute(FingerprintAlgorithm alg, const void *buf, size_t len, Fingerprint *out);

/* The same digest for a thread that computes many: the algorithm is fetched
 * from OpenSSL once and one context is reused, where the one-shot call
 * looks the algorithm up and allocates a context per call. One thread at a
 * time. */
typedef struct Fingerprinter Fingerprinter;
Fingerprinter *fingerprinter_new(FingerprintAlgorithm alg);
void fingerprinter_compute(Fingerprinter *f, const void *buf, size_t len, Fingerprint *out);
void fingerprinter_free(Fingerprinter *f);

/* Hex of the first `len` bytes into a static-size buffer of 65 chars. */
void fingerprint_hex(const Fingerprint *fp, size_t len, char out[65]);

guint fingerprint_hash(gconstpointer fp);
gboolean fingerprint_equal(gconstpointer a, gconstpointer b);

#endif
