"""How far batch-1 decode goes: the fused step built one change at a time, each checked and timed
(docs/decode-far.md)."""
