/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_file_digest.c: the whole-file digest (src/util/file_digest.c):
 * published vectors of XXH3-128 (in the canonical byte order xxh128sum
 * prints) and SHA-256, one hasher reused over files of every length
 * around XXH3's internal sizes, fed in uneven pieces, against the one-shot
 * digest; the zero-padded slot; names and parsing. */
#include "digest_reference.h"
#include "unit.h"
#include "util/file_digest.h"

#include <glib.h>
#include <string.h>

static void hex_of(FileDigestAlgorithm alg, const char *text, char out[2 * FILE_DIGEST_SLOT + 1])
{
    FileHasher *h = file_hasher_new(alg);
    uint8_t slot[FILE_DIGEST_SLOT];
    file_hasher_begin(h);
    file_hasher_add(h, text, strlen(text));
    file_hasher_end(h, slot);
    file_digest_hex(alg, slot, out);
    file_hasher_free(h);
}

static void test_published_vectors(void)
{
    char hex[2 * FILE_DIGEST_SLOT + 1];
    hex_of(FILE_DIGEST_XXH3, "", hex);
    CU_ASSERT_STRING_EQUAL(hex, "99aa06d3014798d86001c324468d497f");
    hex_of(FILE_DIGEST_XXH3, "abc", hex);
    CU_ASSERT_STRING_EQUAL(hex, "06b05ab6733a618578af5f94892f3950");
    hex_of(FILE_DIGEST_SHA256, "abc", hex);
    CU_ASSERT_STRING_EQUAL(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

/* One hasher, many files one after another, each added in pieces of
 * varying size: the same digest as the one-shot call, and the slot past
 * the digest zero (a record compares all 32 bytes). */
static void test_reused_hasher_in_pieces(void)
{
    enum { MAX = 70000 };
    uint8_t *data = g_malloc(MAX);
    GRand *r = g_rand_new_with_seed(11);
    for (size_t i = 0; i < MAX; i++)
        data[i] = (uint8_t)g_rand_int(r);
    const size_t lengths[] = { 0, 1, 3, 16, 17, 128, 129, 240, 241, 255, 256, 257, 1024, 1025, 4096, 65536, MAX };
    const FileDigestAlgorithm algs[] = { FILE_DIGEST_XXH3, FILE_DIGEST_SHA256 };
    size_t wrong = 0;
    for (size_t a = 0; a < G_N_ELEMENTS(algs); a++) {
        FileHasher *h = file_hasher_new(algs[a]);
        for (size_t i = 0; i < G_N_ELEMENTS(lengths); i++) {
            uint8_t got[FILE_DIGEST_SLOT], want[FILE_DIGEST_SLOT];
            memset(got, 0xee, sizeof got);
            file_hasher_begin(h);
            for (size_t pos = 0; pos < lengths[i];) {
                size_t piece = (size_t)g_rand_int_range(r, 1, 5000);
                size_t n = MIN(lengths[i] - pos, piece);
                file_hasher_add(h, data + pos, n);
                pos += n;
            }
            file_hasher_end(h, got);
            digest_reference(algs[a], data, lengths[i], want);
            wrong += memcmp(got, want, FILE_DIGEST_SLOT) != 0;
            for (size_t k = file_digest_length(algs[a]); k < FILE_DIGEST_SLOT; k++)
                wrong += got[k] != 0;
        }
        file_hasher_free(h);
    }
    CU_ASSERT_EQUAL(wrong, 0);
    g_rand_free(r);
    g_free(data);
}

static void test_names(void)
{
    FileDigestAlgorithm alg = FILE_DIGEST_NONE;
    CU_ASSERT_TRUE(file_digest_parse("xxh3", &alg) && alg == FILE_DIGEST_XXH3);
    CU_ASSERT_TRUE(file_digest_parse("XXH3-128", &alg) && alg == FILE_DIGEST_XXH3);
    CU_ASSERT_TRUE(file_digest_parse("sha256", &alg) && alg == FILE_DIGEST_SHA256);
    CU_ASSERT_TRUE(file_digest_parse("SHA-256", &alg) && alg == FILE_DIGEST_SHA256);
    CU_ASSERT_FALSE(file_digest_parse("xxh64", &alg));
    CU_ASSERT_FALSE(file_digest_parse("", &alg));
    CU_ASSERT_STRING_EQUAL(file_digest_name(FILE_DIGEST_XXH3), "xxh3-128");
    CU_ASSERT_STRING_EQUAL(file_digest_name(FILE_DIGEST_SHA256), "sha256");
    CU_ASSERT_PTR_NULL(file_digest_name(FILE_DIGEST_NONE));
    CU_ASSERT_PTR_NULL(file_digest_name((FileDigestAlgorithm)3));
    CU_ASSERT_EQUAL(file_digest_length(FILE_DIGEST_XXH3), 16);
    CU_ASSERT_EQUAL(file_digest_length(FILE_DIGEST_SHA256), 32);
}

static void add_suites(void)
{
    CU_pSuite s = CU_add_suite("file_digest", NULL, NULL);
    CU_add_test(s, "published vectors", test_published_vectors);
    CU_add_test(s, "one hasher reused, bytes in pieces", test_reused_hasher_in_pieces);
    CU_add_test(s, "names and parsing", test_names);
}

UNIT_MAIN(add_suites)
