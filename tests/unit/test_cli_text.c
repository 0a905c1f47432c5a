/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_cli_text.c: the text the command line shows: messages cleaned and
 * cut (util/error), JSON paths kept losslessly (util/json_doc), and the
 * command lookup behind "did you mean" (commands.c). */
#include "cli/commands.h"
#include "unit.h"
#include "util/error.h"
#include "util/json_doc.h"

#include <math.h>
#include <string.h>

static void test_clean_escapes(void)
{
    char *s = destor_message_clean("a\tb\nc\\d \x01\x7f \xff caf\xc3\xa9 \xe2\x82");
    CU_ASSERT_STRING_EQUAL(s, "a\\x09b\\x0ac\\\\d \\x01\\x7f \\xff caf\xc3\xa9 \\xe2\\x82");
    CU_ASSERT_TRUE(g_utf8_validate(s, -1, NULL));
    g_free(s);
}

static void test_clean_cuts_long(void)
{
    GString *in = g_string_new("head:");
    for (int i = 0; i < 100000; i++)
        g_string_append(in, "\xc3\xa9\x01");
    g_string_append(in, ":tail");
    char *s = destor_message_clean(in->str);
    CU_ASSERT(strlen(s) < 2 * DESTOR_MESSAGE_MAX);
    CU_ASSERT_TRUE(g_str_has_prefix(s, "head:"));
    CU_ASSERT_TRUE(g_str_has_suffix(s, ":tail"));
    CU_ASSERT_PTR_NOT_NULL(strstr(s, "bytes cut"));
    CU_ASSERT_TRUE(g_utf8_validate(s, -1, NULL)); /* never cut inside a character */
    g_free(s);
    /* short messages are kept whole */
    s = destor_message_clean("job 3: 'x' is not in job 3");
    CU_ASSERT_STRING_EQUAL(s, "job 3: 'x' is not in job 3");
    g_free(s);
    g_string_free(in, TRUE);
}

/* The printed document, parsed back. */
static JsonObject *print_and_parse(JsonBuilder *b)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    json_doc_print(b, fp);
    fclose(fp);
    CU_ASSERT(len > 0 && buf[len - 1] == '\n' && memchr(buf, '\n', len) == buf + len - 1);
    for (size_t i = 0; i + 1 < len; i++)
        CU_ASSERT((unsigned char)buf[i] >= 0x20); /* no raw control byte, U+001F included */
    JsonParser *p = json_parser_new();
    JsonObject *o = NULL;
    if (json_parser_load_from_data(p, buf, (gssize)len, NULL))
        o = json_object_ref(json_node_get_object(json_parser_get_root(p)));
    g_object_unref(p);
    free(buf);
    return o;
}

static void test_json_paths(void)
{
    static const char text[] = "q\"b\\c\x01\x1f\x7f\nz";
    static const char bytes[] = "bad\xff\xfe\0nul";
    JsonBuilder *b = json_doc_new("destor.test", 7);
    json_doc_path(b, "text", text, sizeof text - 1);
    json_doc_path(b, "raw", bytes, sizeof bytes - 1);
    json_doc_double(b, "inf", 1.0 / 0.0);
    JsonObject *o = print_and_parse(b);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    CU_ASSERT_STRING_EQUAL(json_object_get_string_member(o, "kind"), "destor.test");
    CU_ASSERT_EQUAL(json_object_get_int_member(o, "version"), 7);
    CU_ASSERT_STRING_EQUAL(json_object_get_string_member(o, "text"), text);
    CU_ASSERT_FALSE(json_object_has_member(o, "raw"));
    gsize n = 0;
    guchar *raw = g_base64_decode(json_object_get_string_member(o, "raw_b64"), &n);
    CU_ASSERT_EQUAL(n, sizeof bytes - 1);
    CU_ASSERT_EQUAL(memcmp(raw, bytes, n), 0);
    CU_ASSERT_TRUE(json_object_get_null_member(o, "inf"));
    g_free(raw);
    json_object_unref(o);
}

/* Whole numbers of 10^17 and more, which json-glib prints without a point
 * and once gave ".0" after their exponent ("4e+19.0", no JSON): each
 * printed as a JSON number (every byte of it one a number may hold, no
 * ".0" after an exponent) and read back as the value, or one unit in the
 * last place nearer zero past int64. */
static void test_json_large_doubles(void)
{
    static const double values[] = { 4e19, 1e17, 2.5e17, 9e18, 1e300, -3e20, 0.5, 123456.75 };
    JsonBuilder *b = json_doc_new("destor.test", 1);
    for (size_t i = 0; i < G_N_ELEMENTS(values); i++) {
        char key[8];
        g_snprintf(key, sizeof key, "v%zu", i);
        json_doc_double(b, key, values[i]);
    }
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    json_doc_print(b, fp);
    fclose(fp);
    for (size_t i = 0; i < G_N_ELEMENTS(values); i++) {
        char key[12];
        g_snprintf(key, sizeof key, "\"v%zu\":", i);
        const char *at = strstr(buf, key);
        CU_ASSERT_PTR_NOT_NULL_FATAL(at);
        at += strlen(key);
        size_t n = strspn(at, "-0123456789.e+");
        CU_ASSERT(at[n] == ',' || at[n] == '}');
        const char *e = memchr(at, 'e', n);
        CU_ASSERT(e == NULL || memchr(e, '.', n - (size_t)(e - at)) == NULL);
        double got = g_ascii_strtod(at, NULL);
        CU_ASSERT(got == values[i] || got == nextafter(values[i], 0.0));
    }
    free(buf);
}

static void test_command_near(void)
{
    CU_ASSERT_STRING_EQUAL(command_near("stats")->name, "stat");
    CU_ASSERT_STRING_EQUAL(command_near("lsit")->name, "list");   /* transposition */
    CU_ASSERT_STRING_EQUAL(command_near("restor")->name, "restore");
    CU_ASSERT_STRING_EQUAL(command_near("readfile")->name, "read-file");
    CU_ASSERT_STRING_EQUAL(command_near("verify")->name, "verify");
    CU_ASSERT_PTR_NULL(command_near("photos"));
    CU_ASSERT_PTR_NULL(command_near("/data/tree"));
    CU_ASSERT_PTR_NULL(command_near("backups-2024"));
    CU_ASSERT_PTR_NULL(command_find("stats"));
    CU_ASSERT_EQUAL(command_option_bit("--json"), OPT_JSON);
    CU_ASSERT_EQUAL(command_option_bit("--jsn"), 0);
    CU_ASSERT_FALSE(command_find("stat")->options & OPT_DEEP);
}

static void add_suites(void)
{
    CU_pSuite s = CU_add_suite("cli text", NULL, NULL);
    CU_add_test(s, "messages escaped", test_clean_escapes);
    CU_add_test(s, "long messages cut", test_clean_cuts_long);
    CU_add_test(s, "JSON paths lossless", test_json_paths);
    CU_add_test(s, "JSON large doubles", test_json_large_doubles);
    CU_add_test(s, "command near miss", test_command_near);
}

UNIT_MAIN(add_suites)
