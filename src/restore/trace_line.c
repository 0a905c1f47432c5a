/* trace_line.c: the parser of one read-file trace line. */
#include "restore/trace_line.h"
#include "restore/job.h"
#include "util/error.h"

#include <string.h>

gboolean trace_line_parse(char *line, const char *trace, int lineno, uint32_t *job, char **path, GError **err)
{
    char *tab = strchr(line, '\t');
    GError *local = NULL;
    if (tab == NULL || tab[1] == '\0') {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_USAGE, "%s:%d: expected 'JOB<TAB>PATH'", trace, lineno);
        return FALSE;
    }
    *tab = '\0';
    if (!job_id_parse(line, job, &local)) {
        g_set_error(err, DESTOR_ERROR, DESTOR_ERROR_USAGE, "%s:%d: %s", trace, lineno, local->message);
        g_error_free(local);
        return FALSE;
    }
    *path = tab + 1;
    return TRUE;
}
