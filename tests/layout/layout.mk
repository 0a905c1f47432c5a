# tests/layout: the structure of src/ held against its #include lines.
LAYOUT_TESTS = tests/layout/include_layers.py
TESTS += $(LAYOUT_TESTS)
EXTRA_DIST += $(LAYOUT_TESTS)
