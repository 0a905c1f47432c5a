/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cache_persist.c: a real-mode cache across restarts. At open, entries of
 * cache.meta are taken back (after a clean shutdown as they are; after an
 * unclean one only those whose slot bytes still match their check; after
 * the store's history was rolled back only those the store still holds),
 * the policy state is restored, and cache.meta is republished marked "in
 * progress". At a clean close it is saved marked clean.
 *
 * The rollback: a store put back from a copy and written again reuses
 * container ids for new data. Ids are only ever appended, so that rewrites
 * a suffix of them; cache.meta's anchor (the highest cached id and its
 * container_stamp() when cached) is in that suffix whenever any entry is.
 * One stamp read from the store at open tells; only then is every entry's
 * stamp held against the store's. */
#include "cache/container/cache_core_internal.h"
#include "cache/container/cache_meta.h"
#include "util/check.h"
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

/* The store's stamp of `id`; FALSE when it cannot be read. */
static gboolean store_stamp(CacheCore *c, ContainerId id, uint32_t *stamp)
{
    GError *local = NULL;
    if (c->backing->stamp(c->backing, id, stamp, &local))
        return TRUE;
    g_clear_error(&local);
    return FALSE;
}

/* Does the store still hold the history m's entries were cached from? Yes
 * when the anchor's container is there with the same stamp, or when
 * nothing can tell (no anchor before version 5; a source that cannot
 * stamp): then a stale copy is caught at its hit (cache_reread). */
static gboolean same_history(CacheCore *c, const CacheMeta *m)
{
    if (!m->has_anchor || m->anchor_id == CACHE_NO_CONTAINER || c->backing->stamp == NULL ||
        cache_core_freed(c, m->anchor_id)) /* gc freed it: nothing to tell by */
        return TRUE;
    uint32_t now;
    return m->anchor_id < c->n && store_stamp(c, m->anchor_id, &now) && now == m->anchor_stamp;
}

/* An entry's stored length: a raw copy before version 6. A length that
 * cannot be a copy's is damage: the entry is not usable. */
static uint32_t stored_of(const CacheCore *c, const CacheMetaEntry *e)
{
    return e->stored_len == 0 ? (uint32_t)c->opt.container_size : e->stored_len;
}

static gboolean stored_sound(const CacheCore *c, const CacheMetaEntry *e)
{
    uint32_t n = stored_of(c, e);
    return n == c->opt.container_size || n <= ssd_store_compress_cap(c->opt.container_size);
}

/* Is entry e usable: in range, not a duplicate, and (after an unclean
 * shutdown, or a rollback) are the slot's bytes still the ones it
 * describes, and (after a rollback) still the store's? */
static gboolean entry_usable(CacheCore *c, const CacheMeta *m, const CacheMetaEntry *e, gboolean rolled_back)
{
    if (e->id >= c->n || e->slot >= c->capacity || !stored_sound(c, e))
        return FALSE;
    if (cache_core_contains(c, e->id))
        return FALSE;
    if (m->clean && !rolled_back)
        return TRUE;
    GError *local = NULL;
    if (cache_core_load_copy(c, e->slot, e->id, e->check, stored_of(c, e), c->scratch, &local) != CACHE_COPY_OK) {
        g_clear_error(&local);
        return FALSE;
    }
    uint32_t now;
    return (!rolled_back || (store_stamp(c, e->id, &now) &&
                             now == container_stamp(c->scratch, c->opt.container_size)));
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
    if (found && m.compression != (uint32_t)c->opt.compression) {
        destor_warning("SSD cache %s was written with ssd-cache-compression %s, opened with %s; starting empty",
                       c->directory, m.compression < CACHE_CODEC_KINDS ? cache_codec_name(m.compression) : "unknown",
                       cache_codec_name(c->opt.compression));
        cache_meta_clear(&m);
        found = FALSE;
    }

    Restored *restored = g_new(Restored, found && m.n_entries ? m.n_entries : 1);
    uint32_t n_restored = 0;
    gboolean rolled_back = found && !same_history(c, &m);
    if (found) {
        if (!access_counts_import(&c->counts, m.counts_mode, m.counts, m.n_counts, m.counts_since_aging))
            destor_warning("SSD cache metadata %s: access counts unusable; counting from 0", path);
        for (uint32_t i = 0; i < m.n_entries; i++) {
            const CacheMetaEntry *e = &m.entries[i];
            if (e->id < c->n && cache_core_freed(c, e->id)) { /* never asked for again */
                access_counts_reset(&c->counts, e->id);
                c->counters.ssd_freed_dropped++;
                continue;
            }
            if (cache_policy_env_occupied(&c->env, e->slot) || !entry_usable(c, &m, e, rolled_back)) {
                if (rolled_back && e->id < c->n) { /* its count was another container's */
                    access_counts_reset(&c->counts, e->id);
                    c->counters.ssd_stale_dropped++;
                }
                continue;
            }
            cache_core_bind(c, e->slot, e->id, e->check, stored_of(c, e));
            restored[n_restored].slot = e->slot;
            restored[n_restored].word = e->word;
            n_restored++;
        }
        if (!rolled_back && m.has_anchor) {
            c->anchor_id = m.anchor_id;
            c->anchor_stamp = m.anchor_stamp;
        }
    }
    DESTOR_CHECK(slot_map_check(&c->slot_of));
    if (rolled_back)
        destor_warning("SSD cache %s was filled before this store was rolled back (put back from a copy?): %u of "
                       "its %u cached containers differ from the store's now and were dropped",
                       c->directory, m.n_entries - n_restored, m.n_entries);

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

/* Make the anchor the highest cached id and the stamp of its cached copy
 * (read back from the SSD when the highest id changed); unknown when the
 * copy cannot be read back sound, which the next open treats as a version
 * 4 file (nothing to tell at open). */
static void update_anchor(CacheCore *c)
{
    ContainerId top = CACHE_NO_CONTAINER;
    CacheSlot at = 0;
    for (CacheSlot s = 0; s < c->capacity; s++)
        if (c->slot_id[s] != CACHE_NO_CONTAINER && (top == CACHE_NO_CONTAINER || c->slot_id[s] > top)) {
            top = c->slot_id[s];
            at = s;
        }
    if (top == c->anchor_id)
        return;
    c->anchor_id = CACHE_NO_CONTAINER;
    GError *local = NULL;
    if (top == CACHE_NO_CONTAINER)
        return;
    if (cache_core_load_copy(c, at, top, c->slot_check[at], c->slot_stored[at], c->scratch, &local) !=
        CACHE_COPY_OK) {
        g_clear_error(&local);
        return;
    }
    c->anchor_id = top;
    c->anchor_stamp = container_stamp(c->scratch, c->opt.container_size);
}

gboolean cache_persist_save(CacheCore *c, gboolean clean, GError **err)
{
    CacheMeta m;
    memset(&m, 0, sizeof m);
    m.clean = clean;
    m.has_store_id = TRUE;
    memcpy(m.store_id, c->opt.store_id, SSD_STORE_ID_LEN);
    m.container_size = c->opt.container_size;
    m.compression = (uint32_t)c->opt.compression;
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
        e->stored_len = c->slot_stored[s];
    }
    m.counts_mode = c->counts.mode;
    m.n_counts = (uint32_t)access_counts_cells(&c->counts);
    m.counts = g_new(uint32_t, m.n_counts ? m.n_counts : 1);
    access_counts_export(&c->counts, m.counts);
    m.counts_since_aging = c->counts.since_aging;
    update_anchor(c);
    m.anchor_id = c->anchor_id;
    m.anchor_stamp = c->anchor_stamp;
    char *path = meta_path(c);
    gboolean ok = cache_meta_save(path, &m, err);
    g_free(path);
    g_free(words);
    cache_meta_clear(&m);
    return ok;
}
