# src/index: sources and unit tests of this module.
