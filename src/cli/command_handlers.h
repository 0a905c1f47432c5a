/* SPDX-License-Identifier: GPL-3.0-or-later */
/* command_handlers.h: what the command table (commands.c) runs for each
 * command: the checks of its operands and option combinations, then the
 * command itself (src/commands, src/trace). */
#ifndef DESTOR_COMMAND_HANDLERS_H
#define DESTOR_COMMAND_HANDLERS_H

#include "cli/command_args.h"
#include "config/config.h"

gboolean command_backup(const Config *cfg, const SubArgs *sa, GError **err);
gboolean command_restore(const Config *cfg, const SubArgs *sa, GError **err);
gboolean command_read_file(const Config *cfg, const SubArgs *sa, GError **err);
gboolean command_trace(const Config *cfg, const SubArgs *sa, GError **err);
gboolean command_stat(const Config *cfg, const SubArgs *sa, GError **err);
gboolean command_list(const Config *cfg, const SubArgs *sa, GError **err);
gboolean command_verify(const Config *cfg, const SubArgs *sa, GError **err);
gboolean command_repair(const Config *cfg, const SubArgs *sa, GError **err);
gboolean command_rados_migrate(const Config *cfg, const SubArgs *sa, GError **err);
gboolean command_delete(const Config *cfg, const SubArgs *sa, GError **err);
gboolean command_mount(const Config *cfg, const SubArgs *sa, GError **err);
gboolean command_gc(const Config *cfg, const SubArgs *sa, GError **err);
gboolean command_policies(const Config *cfg, const SubArgs *sa, GError **err);

#endif
