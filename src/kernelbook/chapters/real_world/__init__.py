"""In the real world: what serving engines do with compilation and CUDA graphs (docs/real-world.md)."""
