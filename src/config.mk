# src/config: the destor.config parser's unit test.
check_PROGRAMS += tests/unit/test_config
tests_unit_test_config_SOURCES = tests/unit/test_config.c tests/unit/unit.h
tests_unit_test_config_LDADD = $(UNIT_LIBS)
TESTS += tests/unit/test_config

# Upstream Destor's keys that load with a warning (src/upstream_keys.h).
libdestor_a_SOURCES += src/upstream_keys.c src/upstream_keys.h
