# tests/e2e: end-to-end shell tests.
