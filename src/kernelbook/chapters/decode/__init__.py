"""The decode step six ways: the numbers and verdicts of docs/decode.md (its experiments are still in decode/)."""
