"""The measuring process the runner starts: `python -m kernelbook.child NAME OUT` measures experiment NAME into the
file OUT (runner.child). It imports only the runner's layer, so that the files hashed as the run's code are the
experiment's own, never the CLI's or the pages' (tests/test_runner.py holds it)."""

import sys

from kernelbook.runner import child

if __name__ == "__main__":
    raise SystemExit(child(sys.argv[1], sys.argv[2]))
