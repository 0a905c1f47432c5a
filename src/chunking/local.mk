# src/chunking: sources and unit tests of this module.
