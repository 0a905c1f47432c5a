/* SPDX-License-Identifier: GPL-3.0-or-later */
/* file_digest.c: the whole-file digest, XXH3-128 (libxxhash) or SHA-256
 * (OpenSSL EVP), behind one small interface (file_digest.h). */
#include "util/file_digest.h"
#include "util/fingerprint.h"

#include <openssl/evp.h>
#include <string.h>
#include <xxhash.h>

gboolean file_digest_parse(const char *name, FileDigestAlgorithm *out)
{
    if (g_ascii_strcasecmp(name, "xxh3") == 0 || g_ascii_strcasecmp(name, "xxh3-128") == 0)
        *out = FILE_DIGEST_XXH3;
    else if (g_ascii_strcasecmp(name, "sha256") == 0 || g_ascii_strcasecmp(name, "sha-256") == 0)
        *out = FILE_DIGEST_SHA256;
    else
        return FALSE;
    return TRUE;
}

gboolean file_digest_checked_by_default(FileDigestAlgorithm alg)
{
    return alg == FILE_DIGEST_XXH3;
}

const char *file_digest_name(FileDigestAlgorithm alg)
{
    switch (alg) {
    case FILE_DIGEST_SHA256:
        return "sha256";
    case FILE_DIGEST_XXH3:
        return "xxh3-128";
    case FILE_DIGEST_NONE:
        break;
    }
    return NULL;
}

size_t file_digest_length(FileDigestAlgorithm alg)
{
    g_assert(file_digest_name(alg) != NULL);
    return alg == FILE_DIGEST_XXH3 ? sizeof(XXH128_canonical_t) : 32;
}

struct FileHasher {
    FileDigestAlgorithm alg;
    EVP_MD *sha256;  /* SHA-256: fetched once */
    EVP_MD_CTX *sha;
    XXH3_state_t *xxh;
};

FileHasher *file_hasher_new(FileDigestAlgorithm alg)
{
    FileHasher *h = g_new0(FileHasher, 1);
    h->alg = alg;
    if (alg == FILE_DIGEST_XXH3) {
        h->xxh = XXH3_createState();
        if (h->xxh == NULL)
            g_error("cannot allocate an XXH3 state");
    } else {
        g_assert(alg == FILE_DIGEST_SHA256);
        h->sha256 = EVP_MD_fetch(NULL, "SHA256", NULL);
        h->sha = EVP_MD_CTX_new();
        if (h->sha256 == NULL || h->sha == NULL)
            g_error("OpenSSL has no SHA-256 digest");
    }
    return h;
}

void file_hasher_begin(FileHasher *h)
{
    if (h->xxh != NULL) {
        if (XXH3_128bits_reset(h->xxh) != XXH_OK)
            g_error("XXH3 reset failed");
    } else if (!EVP_DigestInit_ex2(h->sha, h->sha256, NULL)) {
        g_error("OpenSSL cannot start a SHA-256 digest");
    }
}

void file_hasher_add(FileHasher *h, const void *buf, size_t len)
{
    if (h->xxh != NULL) {
        if (XXH3_128bits_update(h->xxh, buf, len) != XXH_OK)
            g_error("XXH3 update failed");
    } else if (!EVP_DigestUpdate(h->sha, buf, len)) {
        g_error("SHA-256 update failed");
    }
}

void file_hasher_end(FileHasher *h, uint8_t out[FILE_DIGEST_SLOT])
{
    memset(out, 0, FILE_DIGEST_SLOT);
    if (h->xxh != NULL) {
        XXH128_canonical_t c;
        XXH128_canonicalFromHash(&c, XXH3_128bits_digest(h->xxh));
        memcpy(out, c.digest, sizeof c.digest);
    } else if (!EVP_DigestFinal_ex(h->sha, out, NULL)) {
        g_error("SHA-256 final failed");
    }
}

void file_hasher_free(FileHasher *h)
{
    if (h == NULL)
        return;
    XXH3_freeState(h->xxh);
    EVP_MD_CTX_free(h->sha);
    EVP_MD_free(h->sha256);
    g_free(h);
}

void file_digest_hex(FileDigestAlgorithm alg, const uint8_t slot[FILE_DIGEST_SLOT], char out[2 * FILE_DIGEST_SLOT + 1])
{
    G_STATIC_ASSERT(FILE_DIGEST_SLOT == FP_SLOT);
    Fingerprint bytes;
    memcpy(bytes.bytes, slot, FILE_DIGEST_SLOT);
    fingerprint_hex(&bytes, file_digest_length(alg), out);
}
