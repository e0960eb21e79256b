"""What torch.compile generates: Inductor's code, its kernels, compile times and recompiles (docs/torch-compile.md)."""
