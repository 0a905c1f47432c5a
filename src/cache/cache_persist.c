/* cache_persist.c: a real-mode cache across restarts. At open, entries of
 * cache.meta are taken back (after a clean shutdown as they are; after an
 * unclean one only those whose slot bytes still match their check), the
 * policy state is restored, and cache.meta is republished marked "in
 * progress". At a clean close it is saved marked clean. */
#include "cache/cache_core_internal.h"
#include "cache/cache_meta.h"
#include "util/error.h"

#include <stdlib.h>
#include <string.h>

static char *meta_path(const CacheCore *c)
{
    return g_build_filename(c->directory, CACHE_META_FILE, NULL);
}

typedef struct {
    CacheSlot slot;
    uint64_t word;
} Restored;

static int by_word(const void *a, const void *b)
{
    const Restored *x = a, *y = b;
    if (x->word != y->word)
        return x->word < y->word ? -1 : 1;
    return x->slot < y->slot ? -1 : x->slot > y->slot;
}

/* Is entry e usable: in range, not a duplicate, and (after an unclean
 * shutdown) are the slot's bytes still the ones it describes? */
static gboolean entry_usable(CacheCore *c, const CacheMeta *m, const CacheMetaEntry *e)
{
    if (e->id >= c->n || e->slot >= c->capacity)
        return FALSE;
    if (cache_core_contains(c, e->id))
        return FALSE;
    if (m->clean)
        return TRUE;
    GError *local = NULL;
    SsdSlotHeader h;
    if (!ssd_store_read(c->ssd, e->slot, &h, c->scratch, &local)) {
        g_clear_error(&local);
        return FALSE;
    }
    return cache_core_header_matches(c, &h, e->id, e->check) &&
           cache_copy_check(c->scratch, c->opt.container_size) == e->check;
}

gboolean cache_persist_restore(CacheCore *c, GError **err)
{
    char *path = meta_path(c);
    CacheMeta m;
    gboolean found = FALSE;
    GError *local = NULL;
    if (!cache_meta_load(path, &m, &found, &local)) {
        if (local->domain == DESTOR_ERROR && local->code == DESTOR_ERROR_INTEGRITY) {
            destor_warning("%s; starting with an empty cache", local->message);
            g_clear_error(&local);
            found = FALSE;
        } else {
            g_propagate_error(err, local);
            g_free(path);
            return FALSE;
        }
    }
    if (found && (!m.has_store_id || memcmp(m.store_id, c->opt.store_id, SSD_STORE_ID_LEN) != 0)) {
        /* Another store's cache (or one without an identity, made before
         * identities existed): nothing in it, not even its access counts,
         * describes this store. */
        cache_core_foreign_dropped(c, MAX(m.n_entries, 1));
        cache_meta_clear(&m);
        found = FALSE;
    }
    if (found && m.container_size != c->opt.container_size) {
        destor_warning("SSD cache %s holds containers of another size; starting empty", c->directory);
        cache_meta_clear(&m);
        found = FALSE;
    }

    Restored *restored = g_new(Restored, found && m.n_entries ? m.n_entries : 1);
    uint32_t n_restored = 0;
    if (found) {
        if (!access_counts_import(&c->counts, m.counts_mode, m.counts, m.n_counts, m.counts_since_aging))
            destor_warning("SSD cache metadata %s: access counts unusable; counting from 0", path);
        for (uint32_t i = 0; i < m.n_entries; i++) {
            const CacheMetaEntry *e = &m.entries[i];
            if (cache_policy_env_occupied(&c->env, e->slot) || !entry_usable(c, &m, e))
                continue;
            cache_core_bind(c, e->slot, e->id, e->check);
            restored[n_restored].slot = e->slot;
            restored[n_restored].word = e->word;
            n_restored++;
        }
    }

    gboolean same_policy = found && strcmp(m.policy, c->ops->name) == 0;
    if (same_policy && c->ops->load_slot != NULL) {
        qsort(restored, n_restored, sizeof *restored, by_word);
        for (uint32_t i = 0; i < n_restored; i++)
            c->ops->load_slot(c->pst, restored[i].slot, restored[i].word);
        if (c->ops->load_done)
            c->ops->load_done(c->pst, m.policy_word);
    } else if (!(same_policy && c->ops->load_state != NULL && m.state != NULL &&
                 m.state_version == c->ops->state_version && c->ops->load_state(c->pst, m.state, m.state_len))) {
        /* another policy, no usable state: the policy sees the cached set
         * as if it had just been filled. A load_state that failed may have
         * taken part of the blob first: start the policy afresh, so no slot
         * is in its structures twice. */
        c->ops->destroy(c->pst);
        c->pst = c->ops->create(&c->env);
        for (CacheSlot s = 0; s < c->capacity; s++)
            if (cache_policy_env_occupied(&c->env, s))
                c->ops->inserted(c->pst, s);
    }
    for (uint32_t s = c->capacity; s-- > 0;)
        if (!cache_policy_env_occupied(&c->env, s))
            cache_core_push_free(c, s);

    g_free(restored);
    if (found)
        cache_meta_clear(&m);
    g_free(path);
    /* From here on the slots may change: a crash must not trust this list. */
    return cache_persist_save(c, FALSE, err);
}

gboolean cache_persist_save(CacheCore *c, gboolean clean, GError **err)
{
    CacheMeta m;
    memset(&m, 0, sizeof m);
    m.clean = clean;
    m.has_store_id = TRUE;
    memcpy(m.store_id, c->opt.store_id, SSD_STORE_ID_LEN);
    m.container_size = c->opt.container_size;
    m.capacity = c->capacity;
    g_strlcpy(m.policy, c->ops->name, sizeof m.policy);
    uint64_t *words = g_new0(uint64_t, c->capacity ? c->capacity : 1);
    m.policy_word = c->ops->save ? c->ops->save(c->pst, words) : 0;
    GByteArray *state = g_byte_array_new();
    if (c->ops->save_state)
        c->ops->save_state(c->pst, state);
    m.state_version = c->ops->state_version;
    m.state_len = state->len;
    m.state = g_byte_array_free(state, FALSE);
    m.entries = g_new(CacheMetaEntry, c->used ? c->used : 1);
    for (CacheSlot s = 0; s < c->capacity; s++) {
        ContainerId id = c->slot_id[s];
        if (id == CACHE_NO_CONTAINER)
            continue;
        CacheMetaEntry *e = &m.entries[m.n_entries++];
        e->id = id;
        e->slot = s;
        e->check = c->slot_check[s];
        e->word = words[s];
    }
    m.counts_mode = c->counts.mode;
    m.n_counts = (uint32_t)access_counts_cells(&c->counts);
    m.counts = g_new(uint32_t, m.n_counts ? m.n_counts : 1);
    access_counts_export(&c->counts, m.counts);
    m.counts_since_aging = c->counts.since_aging;
    char *path = meta_path(c);
    gboolean ok = cache_meta_save(path, &m, err);
    g_free(path);
    g_free(words);
    cache_meta_clear(&m);
    return ok;
}
