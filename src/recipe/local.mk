# src/recipe: sources and unit tests of this module.
