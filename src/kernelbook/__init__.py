"""kernelbook: a measured book chapter on why GPU code is fast or slow.

The engine (store, registry, runner, provenance, page API, CLI, notebooks, timing, paths) sits at the top of the
package; `kernels/` holds one kernel per module beside its reference, and `chapters/<chapter>/` each chapter's
experiments and facts. `python -m kernelbook --help` lists the commands.
"""

import os as _os

__version__ = "0.1.0"

if _os.environ.get("KERNELBOOK_IMPORTS_DIR"):  # a process the runner started: record what code it runs
    from kernelbook.runner import record_at_exit as _record

    _record()
