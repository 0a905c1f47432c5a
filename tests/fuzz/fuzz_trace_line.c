/* fuzz_trace_line.c: read-file trace files, trace_line_parse().
 *
 * The input is a trace file, read line by line as read_file_trace() does
 * (getline, trailing '\n' and '\r' stripped, empty and '#' lines skipped),
 * each line handed to trace_line_parse(). Unlike read-file it does not stop
 * at the first bad line. A parsed line must give a path inside the line, and
 * an error must name the trace and line. */
#include "fuzz_util.h"

#include "restore/trace_line.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_quiet();
    if (size == 0)
        return 0;
    FILE *f = fmemopen((void *)data, size, "r");
    if (f == NULL)
        abort();
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    int lineno = 0;
    while ((n = getline(&line, &cap, f)) >= 0) {
        lineno++;
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
            line[--n] = '\0';
        if (n == 0 || line[0] == '#')
            continue;
        size_t text_len = strlen(line);
        uint32_t job = 0;
        char *path = NULL;
        GError *err = NULL;
        gboolean ok = trace_line_parse(line, "fuzz.trace", lineno, &job, &path, &err);
        if (ok != (err == NULL))
            abort();
        if (ok) {
            if (path < line || path >= line + text_len || path[0] == '\0')
                abort();
        } else {
            char *want = g_strdup_printf("fuzz.trace:%d: ", lineno);
            if (!g_str_has_prefix(err->message, want))
                abort();
            g_free(want);
        }
        g_clear_error(&err);
    }
    free(line);
    fclose(f);
    return 0;
}
