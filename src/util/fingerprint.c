/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fingerprint.c: EVP digests for chunks and the helpers that key hash tables
 * by fingerprint. */
#include "util/fingerprint.h"

#include <openssl/evp.h>
#include <string.h>

gboolean fingerprint_algorithm_parse(const char *name, FingerprintAlgorithm *out)
{
    if (g_ascii_strcasecmp(name, "sha1") == 0 || g_ascii_strcasecmp(name, "sha-1") == 0)
        *out = FP_SHA1;
    else if (g_ascii_strcasecmp(name, "sha256") == 0 || g_ascii_strcasecmp(name, "sha-256") == 0)
        *out = FP_SHA256;
    else
        return FALSE;
    return TRUE;
}

const char *fingerprint_algorithm_name(FingerprintAlgorithm alg)
{
    return alg == FP_SHA256 ? "sha256" : "sha1";
}

size_t fingerprint_length(FingerprintAlgorithm alg)
{
    return alg == FP_SHA256 ? 32 : 20;
}

void fingerprint_compute(FingerprintAlgorithm alg, const void *buf, size_t len, Fingerprint *out)
{
    memset(out, 0, sizeof *out);
    unsigned int n = 0;
    const EVP_MD *md = alg == FP_SHA256 ? EVP_sha256() : EVP_sha1();
    if (!EVP_Digest(buf, len, out->bytes, &n, md, NULL))
        g_error("EVP_Digest failed");
}

struct Fingerprinter {
    EVP_MD *md;
    EVP_MD_CTX *ctx;
};

Fingerprinter *fingerprinter_new(FingerprintAlgorithm alg)
{
    Fingerprinter *f = g_new(Fingerprinter, 1);
    f->md = EVP_MD_fetch(NULL, alg == FP_SHA256 ? "SHA256" : "SHA1", NULL);
    f->ctx = EVP_MD_CTX_new();
    if (f->md == NULL || f->ctx == NULL)
        g_error("OpenSSL has no %s digest", fingerprint_algorithm_name(alg));
    return f;
}

void fingerprinter_compute(Fingerprinter *f, const void *buf, size_t len, Fingerprint *out)
{
    memset(out, 0, sizeof *out);
    if (!EVP_DigestInit_ex2(f->ctx, f->md, NULL) || !EVP_DigestUpdate(f->ctx, buf, len) ||
        !EVP_DigestFinal_ex(f->ctx, out->bytes, NULL))
        g_error("EVP digest failed");
}

void fingerprinter_free(Fingerprinter *f)
{
    if (f == NULL)
        return;
    EVP_MD_CTX_free(f->ctx);
    EVP_MD_free(f->md);
    g_free(f);
}

void fingerprint_hex(const Fingerprint *fp, size_t len, char out[65])
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < len && i < FP_SLOT; i++) {
        out[2 * i] = digits[fp->bytes[i] >> 4];
        out[2 * i + 1] = digits[fp->bytes[i] & 15];
    }
    out[2 * (len < FP_SLOT ? len : FP_SLOT)] = '\0';
}

guint fingerprint_hash(gconstpointer fp)
{
    guint h;
    memcpy(&h, ((const Fingerprint *)fp)->bytes, sizeof h); /* already uniform */
    return h;
}

gboolean fingerprint_equal(gconstpointer a, gconstpointer b)
{
    return memcmp(a, b, sizeof(Fingerprint)) == 0;
}
