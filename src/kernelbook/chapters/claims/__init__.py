"""The claims, checked: every claim of the source article against the stored results (docs/claims.md)."""
