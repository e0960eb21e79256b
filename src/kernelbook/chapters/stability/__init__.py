"""How firm are these numbers: each headline figure across the stored runs (docs/stability.md)."""
