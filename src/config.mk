# src/config: the destor.config parser's unit test.
check_PROGRAMS += tests/unit/test_config
tests_unit_test_config_SOURCES = tests/unit/test_config.c tests/unit/unit.h
tests_unit_test_config_LDADD = $(UNIT_LIBS)
TESTS += tests/unit/test_config
