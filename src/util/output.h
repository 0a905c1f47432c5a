/* SPDX-License-Identifier: GPL-3.0-or-later */
/* output.h: standard output as a checked channel.
 *
 * stdio hides write errors until the buffer is flushed, so a command that
 * prints into a full disk or a closed pipe would exit 0 with its output
 * lost. Long-running printers ask output_failed() between records to stop
 * early; main() ends every command with output_finish(), which flushes and
 * closes stdout and turns any write error into a DESTOR_ERROR_IO. */
#ifndef DESTOR_OUTPUT_H
#define DESTOR_OUTPUT_H

#include <glib.h>

/* TRUE once a write to stdout has failed (err set, naming the error). */
gboolean output_failed(GError **err);

/* Flush and close stdout; FALSE with err set if anything written was lost. */
gboolean output_finish(GError **err);

#endif
