# src/cache: sources and unit tests of this module.
