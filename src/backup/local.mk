# src/backup: sources and unit tests of this module.
