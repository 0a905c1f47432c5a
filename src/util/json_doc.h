/* SPDX-License-Identifier: GPL-3.0-or-later */
/* json_doc.h: every JSON document destor prints, built with json-glib.
 *
 * A document is one object on one line. It opens with "kind" (what it
 * describes, e.g. "destor.stat") and "version" (bumped when a key changes
 * meaning or goes away), so a consumer can check what it reads. The helpers
 * below add members to the builder's current object; docs/FORMAT.md lists
 * the documents and the conventions:
 *  - a path (file name bytes) is "KEY": "text" when its bytes are valid
 *    UTF-8, else "KEY_b64": the base64 of the raw bytes (lossless);
 *  - free text (messages) is made valid UTF-8 by destor_message_clean();
 *  - a number that is not finite (an infinite lifetime, a rate that does
 *    not apply) is null;
 *  - time is in milliseconds, in keys ending in _ms. */
#ifndef DESTOR_JSON_DOC_H
#define DESTOR_JSON_DOC_H

#include <json-glib/json-glib.h>
#include <stdint.h>
#include <stdio.h>

/* A builder with an open object holding "kind" and "version". */
JsonBuilder *json_doc_new(const char *kind, int version);

void json_doc_uint(JsonBuilder *b, const char *key, uint64_t v);
void json_doc_int(JsonBuilder *b, const char *key, int64_t v);
void json_doc_double(JsonBuilder *b, const char *key, double v);
void json_doc_bool(JsonBuilder *b, const char *key, gboolean v);
/* A UTF-8 string (NULL gives null). */
void json_doc_string(JsonBuilder *b, const char *key, const char *v);
/* Free text of unknown encoding (messages): cleaned to printable UTF-8. */
void json_doc_text(JsonBuilder *b, const char *key, const char *v);
/* Raw path bytes: "key" or "key_b64" as above. */
void json_doc_path(JsonBuilder *b, const char *key, const void *bytes, size_t len);

/* Close the document's object, print it and a newline to fp, free b. */
void json_doc_print(JsonBuilder *b, FILE *fp);

/* A document whose last member is an array too large to hold (list --json
 * of a job of many files) is printed as it is made, in the same bytes:
 * json_doc_stream_begin prints b's members and then "KEY":[ (and frees
 * b); each element is then a builder of json_doc_item_new, filled and
 * printed by json_doc_stream_item (which frees it); json_doc_stream_end
 * closes the array and the document. A document never ended is left
 * unterminated: no parser takes it for a whole one. */
void json_doc_stream_begin(JsonBuilder *b, const char *key, FILE *fp);
JsonBuilder *json_doc_item_new(void);
void json_doc_stream_item(JsonBuilder *item, gboolean first, FILE *fp);
void json_doc_stream_end(FILE *fp);

#endif
