# SPDX-License-Identifier: GPL-3.0-or-later
# src/cli: the command line: global options, the command table (name,
# options, help and handler of each command) and main.
libdestor_a_SOURCES += \
	src/cli/commands.c src/cli/commands.h \
	src/cli/command_args.c src/cli/command_args.h \
	src/cli/command_handlers.c src/cli/command_handlers.h
destor_SOURCES = src/cli/destor.c
destor_LDADD = $(DESTOR_LIBS)
