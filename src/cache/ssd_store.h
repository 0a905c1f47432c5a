/* ssd_store.h: the bytes of a real-mode SSD cache: one slot file in the
 * cache directory (slot i at byte i * container_size, written in whole
 * container-sized writes, optionally O_DIRECT) and the directory lock.
 *
 * The lock is flock(LOCK_EX | LOCK_NB) on <dir>/LOCK, held while the store
 * is open: a second process (or a second open in this one) gets a
 * DESTOR_ERROR_LOCKED. The slot file only grows to the highest slot written
 * and is cut back to `capacity` slots on open, so the directory never holds
 * more than capacity containers (plus cache.meta and LOCK). */
#ifndef DESTOR_CACHE_SSD_STORE_H
#define DESTOR_CACHE_SSD_STORE_H

#include <glib.h>
#include <stddef.h>
#include <stdint.h>

#define SSD_STORE_SLOT_FILE "slots.dat"
#define SSD_STORE_LOCK_FILE "LOCK"
#define SSD_STORE_DIRECT_ALIGN 4096

typedef struct SsdStore SsdStore;

/* Create `dir` if needed, lock it, open the slot file. With o_direct the
 * container size must be a multiple of SSD_STORE_DIRECT_ALIGN and the file
 * system must support O_DIRECT. */
SsdStore *ssd_store_open(const char *dir, size_t container_size, uint32_t capacity,
                         gboolean o_direct, GError **err);
/* Release the lock and close. */
void ssd_store_close(SsdStore *s);

gboolean ssd_store_write(SsdStore *s, uint32_t slot, const uint8_t *buf, GError **err);
gboolean ssd_store_read(SsdStore *s, uint32_t slot, uint8_t *buf, GError **err);
gboolean ssd_store_sync(SsdStore *s, GError **err);

const char *ssd_store_dir(const SsdStore *s);

#endif
