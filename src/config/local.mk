# SPDX-License-Identifier: GPL-3.0-or-later
# src/config: destor.config (Destor's format), the keys of upstream Destor
# that load with a warning, and the parser's unit test.
libdestor_a_SOURCES += \
	src/config/config.c src/config/config.h \
	src/config/config_keys.c src/config/config_keys.h \
	src/config/upstream_keys.c src/config/upstream_keys.h \
	src/config/rewrite_config.c src/config/rewrite_config.h

check_PROGRAMS += tests/unit/test_config
tests_unit_test_config_SOURCES = tests/unit/test_config.c tests/unit/unit.h
tests_unit_test_config_LDADD = $(UNIT_LIBS)
