/* SPDX-License-Identifier: GPL-3.0-or-later */
/* check.h: sanity checks of a structure's invariants, in the manner of
 * SQLite's: a `*_check()` function per structure, called through
 * DESTOR_CHECK() after the steps that change it. Built with
 * --enable-checks (the sanitizer build's default) a failed check aborts;
 * otherwise the expression is compiled (so it keeps up with the code) but
 * never evaluated, and costs nothing. */
#ifndef DESTOR_CHECK_H
#define DESTOR_CHECK_H

#include <glib.h>

#ifdef DESTOR_CHECKS
#define DESTOR_CHECKING 1
#define DESTOR_CHECK(expr) g_assert(expr)
#else
#define DESTOR_CHECKING 0
#define DESTOR_CHECK(expr) ((void)sizeof((expr) ? 1 : 0))
#endif

#endif
