# scripts: tests of the Python tools.
