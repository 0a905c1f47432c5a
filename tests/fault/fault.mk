# tests/fault: fault injection (LD_PRELOAD shim) and corruption sweeps.
