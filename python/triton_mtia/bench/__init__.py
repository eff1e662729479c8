"""Benchmarks of the Python face (see bench/README.md at the repository root)."""
