# SPDX-License-Identifier: GPL-3.0-or-later
# tests/policy_ref/policy_ref.mk: the field's policies and the offline bounds
# held against their independent Python reference models, decision by
# decision (docs/CACHE.md); included from Makefile.am. policy_decisions
# lives outside tests/unit/, so the Valgrind pass (which runs the CUnit
# programs) leaves it alone.
check_PROGRAMS += tests/policy_ref/policy_decisions
tests_policy_ref_policy_decisions_SOURCES = tests/policy_ref/policy_decisions.c
tests_policy_ref_policy_decisions_LDADD = $(UNIT_LIBS)
EXTRA_DIST += \
	tests/policy_ref/run-reference-models.sh \
	tests/policy_ref/check_reference.py \
	tests/policy_ref/reference_models.py
# The chunk policies (ssd-cache-granularity chunk), the same way.
check_PROGRAMS += tests/policy_ref/chunk_decisions
tests_policy_ref_chunk_decisions_SOURCES = tests/policy_ref/chunk_decisions.c
tests_policy_ref_chunk_decisions_LDADD = $(UNIT_LIBS)
EXTRA_DIST += \
	tests/policy_ref/run-chunk-reference-models.sh \
	tests/policy_ref/check_chunk_reference.py \
	tests/policy_ref/chunk_reference_models.py \
	tests/policy_ref/chunk_log_reference.py
# The value-ranked admission rules (compete, learned) in front of lru, the
# same way; opt_plan is learned's oracle for its reference model.
check_PROGRAMS += tests/policy_ref/opt_plan
tests_policy_ref_opt_plan_SOURCES = tests/policy_ref/opt_plan.c
tests_policy_ref_opt_plan_LDADD = $(UNIT_LIBS)
EXTRA_DIST += \
	tests/policy_ref/run-admission-reference.sh \
	tests/policy_ref/admission_reference.py
