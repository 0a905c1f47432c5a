/* backup.h: `destor backup PATH`: run the pipeline (read -> chunk -> hash
 * -> dedup/store, one thread each, bounded queues between) into a new job,
 * commit it, and print Destor-style statistics. */
#ifndef DESTOR_BACKUP_H
#define DESTOR_BACKUP_H

#include "config.h"

#include <glib.h>

gboolean backup_run(const Config *cfg, const char *path, gboolean json, GError **err);

#endif
