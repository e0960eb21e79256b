"""Batch-1 decode of a Qwen2.5-1.5B-shaped model, six ways: the model, the harness, the variants, the experiments."""
