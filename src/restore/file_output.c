/* file_output.c: chunk copying from containers to an output descriptor. */
#include "restore/file_output.h"
#include "storage/container.h"
#include "util/error.h"
#include "util/fileio.h"

#include <openssl/evp.h>
#include <string.h>

#define OUT_BUFFER (1u << 20)

static gboolean damaged(GError **err, const FileRecord *r, uint32_t job_id, const char *what)
{
    char *path = file_record_path_display(r);
    g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_INTEGRITY, "%s in job %u: %s", path, job_id, what);
    g_free(path);
    return FALSE;
}

gboolean file_output_touch(ContainerLru *lru, const FileRecord *r, GError **err)
{
    for (guint i = 0; i < r->chunks->len; i++)
        if (!container_lru_touch(lru, g_array_index(r->chunks, ChunkRef, i).container, err))
            return FALSE;
    return TRUE;
}

gboolean file_output_write(ContainerLru *lru, const FileRecord *r, uint32_t job_id,
                           int fd, const char *out_name, gboolean verify, GError **err)
{
    size_t csize = container_lru_container_size(lru);
    uint8_t *out = g_malloc(OUT_BUFFER);
    size_t used = 0;
    EVP_MD_CTX *sha = NULL;
    if (verify) {
        sha = EVP_MD_CTX_new();
        EVP_DigestInit_ex(sha, EVP_sha256(), NULL);
    }
    gboolean ok = TRUE;
    for (guint i = 0; i < r->chunks->len && ok; i++) {
        const ChunkRef *c = &g_array_index(r->chunks, ChunkRef, i);
        if (c->offset < CONTAINER_HEADER_SIZE || (uint64_t)c->offset + c->length > csize) {
            ok = damaged(err, r, job_id, "recipe names a chunk outside its container");
            break;
        }
        const uint8_t *cont = container_lru_get(lru, c->container, err);
        if (cont == NULL) {
            ok = FALSE;
            break;
        }
        GError *mismatch = NULL;
        if (!container_check_chunk(cont, csize, c->container, &c->fp, c->offset, c->length, &mismatch)) {
            ok = damaged(err, r, job_id, mismatch->message);
            g_error_free(mismatch);
            break;
        }
        const uint8_t *data = cont + c->offset;
        if (sha)
            EVP_DigestUpdate(sha, data, c->length);
        if (used + c->length > OUT_BUFFER) {
            ok = file_write_all(fd, out, used, out_name, err);
            used = 0;
        }
        if (c->length > OUT_BUFFER) {
            ok = ok && file_write_all(fd, data, c->length, out_name, err);
        } else {
            memcpy(out + used, data, c->length);
            used += c->length;
        }
    }
    if (ok && used > 0)
        ok = file_write_all(fd, out, used, out_name, err);
    if (ok && sha) {
        uint8_t digest[32];
        EVP_DigestFinal_ex(sha, digest, NULL);
        if (memcmp(digest, r->sha256, 32) != 0)
            ok = damaged(err, r, job_id, "content does not match its stored SHA-256");
    }
    EVP_MD_CTX_free(sha);
    g_free(out);
    return ok;
}
