"""Benchmarks of the hot paths (fan-out, Redis relay, codec), each against a baseline measured in the same run."""
