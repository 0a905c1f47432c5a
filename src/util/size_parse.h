/* SPDX-License-Identifier: GPL-3.0-or-later */
/* size_parse.h: sizes written by people: "8192", "8K", "2M", "4G", "1T"
 * (binary multiples; a trailing "B" or "iB" is accepted). */
#ifndef DESTOR_SIZE_PARSE_H
#define DESTOR_SIZE_PARSE_H

#include <glib.h>
#include <stdint.h>

gboolean size_parse(const char *text, uint64_t *out);

/* "2.0 MiB" style, into buf. */
const char *size_format(uint64_t bytes, char *buf, size_t buflen);

#endif
