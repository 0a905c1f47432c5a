/* SPDX-License-Identifier: GPL-3.0-or-later */
/* policy_list.c: `destor policies [--json]`, read from the registry, so a
 * new policy is listed by being registered. The JSON form is what the
 * scripts read to know the policies: a destor.policies document ("kind"
 * and "version" first, as every --json document), "policies" the
 * container-granularity ones (as before the chunk cache),
 * "chunk_policies" those serving ssd-cache-granularity chunk; each entry
 * names its granularity; "admission" the ssd-cache-admission rules. */
#include "cache/admission/admission.h"
#include "cache/policies/policy_list.h"
#include "cache/policy/chunk_policy.h"
#include "cache/policy/policy.h"
#include "util/error.h"
#include "util/json_doc.h"

#include <errno.h>
#include <json-glib/json-glib.h>

static void key_json(JsonBuilder *b, const CachePolicyKey *k)
{
    static const char *const types[] = { "uint", "real", "word" };
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "name");
    json_builder_add_string_value(b, k->name);
    json_builder_set_member_name(b, "type");
    json_builder_add_string_value(b, types[k->type]);
    json_builder_set_member_name(b, "default");
    json_builder_add_string_value(b, k->default_value);
    if (k->type != CACHE_KEY_WORD) {
        json_builder_set_member_name(b, "min");
        json_builder_add_double_value(b, k->min);
        json_builder_set_member_name(b, "max");
        json_builder_add_double_value(b, k->max);
    }
    json_builder_set_member_name(b, "words");
    json_builder_begin_array(b);
    for (size_t i = 0; k->words && k->words[i]; i++)
        json_builder_add_string_value(b, k->words[i]);
    json_builder_end_array(b);
    json_builder_set_member_name(b, "doc");
    json_builder_add_string_value(b, k->doc);
    json_builder_end_object(b);
}

static void chunk_json(JsonBuilder *b, const ChunkPolicyOps *ops)
{
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "name");
    json_builder_add_string_value(b, ops->name);
    json_builder_set_member_name(b, "description");
    json_builder_add_string_value(b, ops->description);
    json_builder_set_member_name(b, "citation");
    json_builder_add_string_value(b, ops->citation);
    json_builder_set_member_name(b, "granularity");
    json_builder_add_string_value(b, "chunk");
    json_builder_set_member_name(b, "offline");
    json_builder_add_boolean_value(b, FALSE);
    json_builder_set_member_name(b, "keys");
    json_builder_begin_array(b);
    for (size_t k = 0; k < ops->n_keys; k++)
        key_json(b, &ops->keys[k]);
    json_builder_end_array(b);
    json_builder_set_member_name(b, "counters");
    json_builder_begin_array(b);
    for (size_t k = 0; k < ops->n_counters; k++)
        json_builder_add_string_value(b, ops->counters[k].name);
    json_builder_end_array(b);
    json_builder_end_object(b);
}

static char *as_json(void)
{
    JsonBuilder *b = json_doc_new("destor.policies", 1); /* kind and version first, as every document */
    json_builder_set_member_name(b, "policies");
    json_builder_begin_array(b);
    for (size_t i = 0; i < cache_policy_count(); i++) {
        const CachePolicyOps *ops = cache_policy_at(i);
        json_builder_begin_object(b);
        json_builder_set_member_name(b, "name");
        json_builder_add_string_value(b, ops->name);
        json_builder_set_member_name(b, "description");
        json_builder_add_string_value(b, ops->description);
        json_builder_set_member_name(b, "citation");
        json_builder_add_string_value(b, ops->citation);
        json_builder_set_member_name(b, "granularity");
        json_builder_add_string_value(b, "container");
        json_builder_set_member_name(b, "offline");
        json_builder_add_boolean_value(b, ops->offline);
        json_builder_set_member_name(b, "keys");
        json_builder_begin_array(b);
        for (size_t k = 0; k < ops->n_keys; k++)
            key_json(b, &ops->keys[k]);
        json_builder_end_array(b);
        json_builder_set_member_name(b, "counters");
        json_builder_begin_array(b);
        for (size_t k = 0; k < ops->n_counters; k++)
            json_builder_add_string_value(b, ops->counters[k].name);
        json_builder_end_array(b);
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
    json_builder_set_member_name(b, "chunk_policies");
    json_builder_begin_array(b);
    for (size_t i = 0; i < chunk_policy_count(); i++)
        chunk_json(b, chunk_policy_at(i));
    json_builder_end_array(b);
    json_builder_set_member_name(b, "admission");
    json_builder_begin_array(b);
    for (size_t i = 0; i < admission_count(); i++) {
        const AdmissionOps *a = admission_at(i);
        json_builder_begin_object(b);
        json_builder_set_member_name(b, "name");
        json_builder_add_string_value(b, a->name);
        json_builder_set_member_name(b, "description");
        json_builder_add_string_value(b, a->description);
        json_builder_set_member_name(b, "spends_write_budget");
        json_builder_add_boolean_value(b, a->spends_budget);
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
    json_builder_end_object(b);
    JsonGenerator *g = json_generator_new();
    json_generator_set_pretty(g, TRUE);
    JsonNode *root = json_builder_get_root(b);
    json_generator_set_root(g, root);
    char *text = json_generator_to_data(g, NULL);
    json_node_unref(root);
    g_object_unref(g);
    g_object_unref(b);
    return text;
}

static char *as_text(void)
{
    GString *out = g_string_new("ssd-cache-granularity container:\n");
    for (size_t i = 0; i < cache_policy_count(); i++) {
        const CachePolicyOps *ops = cache_policy_at(i);
        g_string_append_printf(out, "%s (%s)\n  %s\n  %s\n", ops->name, ops->offline ? "offline" : "online",
                               ops->description, ops->citation);
        for (size_t k = 0; k < ops->n_keys; k++)
            g_string_append_printf(out, "  %s %s\n      %s\n", ops->keys[k].name, ops->keys[k].default_value,
                                   ops->keys[k].doc);
    }
    g_string_append(out, "ssd-cache-granularity chunk:\n");
    for (size_t i = 0; i < chunk_policy_count(); i++) {
        const ChunkPolicyOps *ops = chunk_policy_at(i);
        g_string_append_printf(out, "%s (online, chunk)\n  %s\n  %s\n", ops->name, ops->description, ops->citation);
        for (size_t k = 0; k < ops->n_keys; k++)
            g_string_append_printf(out, "  %s %s\n      %s\n", ops->keys[k].name, ops->keys[k].default_value,
                                   ops->keys[k].doc);
    }
    g_string_append(out, "ssd-cache-admission (auto: all, or compete with a write budget):\n");
    for (size_t i = 0; i < admission_count(); i++)
        g_string_append_printf(out, "%s%s\n  %s\n", admission_at(i)->name,
                               admission_at(i)->spends_budget ? " (spends ssd-cache-write-budget)" : "",
                               admission_at(i)->description);
    return g_string_free(out, FALSE);
}

gboolean cache_policies_print(gboolean json, FILE *fp, GError **err)
{
    char *text = json ? as_json() : as_text();
    gboolean ok = fputs(text, fp) >= 0 && (!json || fputc('\n', fp) != EOF) && fflush(fp) == 0;
    g_free(text);
    if (!ok)
        destor_set_errno(err, errno, "write the policy list");
    return ok;
}
