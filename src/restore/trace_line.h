/* trace_line.h: one line of a read-file trace, "JOB<TAB>PATH" (the path is
 * everything after the first tab, raw bytes up to the end of the line). */
#ifndef DESTOR_TRACE_LINE_H
#define DESTOR_TRACE_LINE_H

#include <glib.h>
#include <stdint.h>

/* Parse `line` (NUL-terminated, without its newline) in place: the first
 * tab is overwritten and *path points into `line` just past it. FALSE with a
 * USAGE error "TRACE:LINENO: ..." when the line is not JOB<TAB>PATH. */
gboolean trace_line_parse(char *line, const char *trace, int lineno, uint32_t *job, char **path, GError **err);

#endif
