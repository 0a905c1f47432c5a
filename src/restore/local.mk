# src/restore: sources and unit tests of this module.
