"""PyTorch's CUDA caching allocator: demos that run it on the GPU, and a Python model of its rules.

model: the rules as a small simulator. scripts: allocation scripts run on both. demos: the GPU side, one
process per allocator setting. experiments: the registered experiments. parse: summary, message and snapshot.
"""
