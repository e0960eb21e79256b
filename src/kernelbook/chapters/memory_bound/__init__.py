"""Elementwise work is memory-bound: what eager add + RMSNorm and SwiGLU move, kernel by kernel
(docs/memory-bound.md)."""
