# src/storage: sources and unit tests of this module.
