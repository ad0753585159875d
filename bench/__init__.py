"""Benchmarks: synthetic kubectl-shaped clusters (bench.generate) and the timing harness (bench.run)."""
