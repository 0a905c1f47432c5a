# tests/fuzz: fuzz targets of the parsers and their regression runs.
