"""Fusing by hand in Triton: the kernels checked against eager, and every version timed (docs/fusing-by-hand.md)."""
