"""Speed of light: fused kernels held to a copy that moves exactly their bytes (docs/speed-of-light.md)."""
