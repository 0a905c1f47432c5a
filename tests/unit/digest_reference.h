/* SPDX-License-Identifier: GPL-3.0-or-later */
/* digest_reference.h: the whole-file digest of a buffer taken by the
 * libraries' one-shot calls (XXH3_128bits, EVP_Digest), not through
 * file_digest.c's streaming interface: the tests' independent answer for
 * what backup must store (src/util/file_digest.h). */
#ifndef DESTOR_DIGEST_REFERENCE_H
#define DESTOR_DIGEST_REFERENCE_H

#include "util/file_digest.h"

#include <openssl/evp.h>
#include <string.h>
#include <xxhash.h>

static inline void digest_reference(FileDigestAlgorithm alg, const void *buf, size_t len,
                                    uint8_t out[FILE_DIGEST_SLOT])
{
    memset(out, 0, FILE_DIGEST_SLOT);
    if (alg == FILE_DIGEST_XXH3) {
        XXH128_canonical_t c;
        XXH128_canonicalFromHash(&c, XXH3_128bits(buf, len));
        memcpy(out, c.digest, sizeof c.digest);
    } else {
        EVP_Digest(buf, len, out, NULL, EVP_sha256(), NULL);
    }
}

#endif
