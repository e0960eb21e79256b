"""The machine chapter: the ceilings every other page divides by (docs/machine.md)."""
