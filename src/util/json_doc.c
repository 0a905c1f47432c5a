/* SPDX-License-Identifier: GPL-3.0-or-later */
/* json_doc.c: the JSON document conventions of destor (see json_doc.h). */
#include "util/json_doc.h"
#include "util/error.h"

#include <math.h>
#include <string.h>

JsonBuilder *json_doc_new(const char *kind, int version)
{
    JsonBuilder *b = json_builder_new();
    json_builder_begin_object(b);
    json_doc_string(b, "kind", kind);
    json_doc_int(b, "version", version);
    return b;
}

void json_doc_uint(JsonBuilder *b, const char *key, uint64_t v)
{
    json_builder_set_member_name(b, key);
    json_builder_add_int_value(b, v > INT64_MAX ? INT64_MAX : (gint64)v);
}

void json_doc_int(JsonBuilder *b, const char *key, int64_t v)
{
    json_builder_set_member_name(b, key);
    json_builder_add_int_value(b, v);
}

void json_doc_double(JsonBuilder *b, const char *key, double v)
{
    json_builder_set_member_name(b, key);
    if (!isfinite(v)) {
        json_builder_add_null_value(b);
        return;
    }
    /* json-glib appends ".0" to a number printed without a point, and so
     * wrote 4e+19 as 4e+19.0, which is no JSON: such a number (a whole
     * one, 10^17 or more) goes as an integer where int64 holds it, else
     * one unit in the last place nearer zero (printed with a point) */
    char buf[G_ASCII_DTOSTR_BUF_SIZE];
    g_ascii_dtostr(buf, sizeof buf, v);
    if (strchr(buf, '.') == NULL && strpbrk(buf, "eE") != NULL) {
        if (fabs(v) < 9.2e18) {
            json_builder_add_int_value(b, (gint64)v);
            return;
        }
        v = nextafter(v, 0.0);
    }
    json_builder_add_double_value(b, v);
}

void json_doc_bool(JsonBuilder *b, const char *key, gboolean v)
{
    json_builder_set_member_name(b, key);
    json_builder_add_boolean_value(b, v);
}

void json_doc_string(JsonBuilder *b, const char *key, const char *v)
{
    json_builder_set_member_name(b, key);
    if (v == NULL)
        json_builder_add_null_value(b);
    else if (g_utf8_validate(v, -1, NULL))
        json_builder_add_string_value(b, v);
    else
        json_doc_text(b, NULL, v);
}

void json_doc_text(JsonBuilder *b, const char *key, const char *v)
{
    if (key != NULL)
        json_builder_set_member_name(b, key);
    if (v == NULL) {
        json_builder_add_null_value(b);
        return;
    }
    char *clean = destor_message_clean(v);
    json_builder_add_string_value(b, clean);
    g_free(clean);
}

void json_doc_path(JsonBuilder *b, const char *key, const void *bytes, size_t len)
{
    if (g_utf8_validate(bytes, (gssize)len, NULL)) {
        char *s = g_strndup(bytes, len); /* valid UTF-8 holds no NUL */
        json_builder_set_member_name(b, key);
        json_builder_add_string_value(b, s);
        g_free(s);
    } else {
        char *name = g_strconcat(key, "_b64", NULL);
        char *s = g_base64_encode(bytes, len);
        json_builder_set_member_name(b, name);
        json_builder_add_string_value(b, s);
        g_free(s);
        g_free(name);
    }
}

/* The compact text of b's closed root, written to fp but for its last
 * `drop` bytes; frees b. */
static void print_root(JsonBuilder *b, gsize drop, FILE *fp)
{
    JsonNode *root = json_builder_get_root(b);
    JsonGenerator *g = json_generator_new();
    json_generator_set_root(g, root);
    gsize len = 0;
    char *text = json_generator_to_data(g, &len);
    len = len > drop ? len - drop : 0;
    /* json-glib 1.6 leaves U+001F unescaped inside strings, which strict
     * parsers refuse. The compact text has no whitespace outside strings,
     * so any control byte is inside one: escape it there. */
    gsize run = 0; /* start of the bytes not yet written */
    for (gsize i = 0; i < len; i++) {
        if ((unsigned char)text[i] < 0x20) {
            fwrite(text + run, 1, i - run, fp);
            fprintf(fp, "\\u%04x", (unsigned char)text[i]);
            run = i + 1;
        }
    }
    fwrite(text + run, 1, len - run, fp);
    g_free(text);
    g_object_unref(g);
    json_node_unref(root);
    g_object_unref(b);
}

void json_doc_print(JsonBuilder *b, FILE *fp)
{
    json_builder_end_object(b);
    print_root(b, 0, fp);
    fputc('\n', fp);
}

void json_doc_stream_begin(JsonBuilder *b, const char *key, FILE *fp)
{
    json_builder_set_member_name(b, key);
    json_builder_begin_array(b);
    json_builder_end_array(b);
    json_builder_end_object(b);
    print_root(b, 2, fp); /* the text ends in "[]}": up to the "[" */
}

JsonBuilder *json_doc_item_new(void)
{
    JsonBuilder *b = json_builder_new();
    json_builder_begin_object(b);
    return b;
}

void json_doc_stream_item(JsonBuilder *item, gboolean first, FILE *fp)
{
    if (!first)
        fputc(',', fp);
    json_builder_end_object(item);
    print_root(item, 0, fp);
}

void json_doc_stream_end(FILE *fp)
{
    fputs("]}\n", fp);
}
