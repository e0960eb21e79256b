"""Hand-written Triton kernels, one per module, each beside its plain-PyTorch reference and a thin wrapper."""

from kernelbook.kernels.add_rmsnorm import add_rmsnorm_ref, add_rmsnorm_triton
from kernelbook.kernels.swiglu import swiglu_ref, swiglu_triton

__all__ = ["add_rmsnorm_ref", "add_rmsnorm_triton", "swiglu_ref", "swiglu_triton"]
