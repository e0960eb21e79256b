"""kernelbook: a measured book chapter on why GPU code is fast or slow.

The engine sits at the top of the package, in layers that import only downwards (tests/test_layers.py):

    site      macros, hooks, mdext (MkDocs, Zensical), buildcache, prefill, notebooks, cli
    page      page: what a snippet calls to show a stored result
    facts     factbook (the one rule), factview, guards, across; each chapter's facts.py, guards.py, figures.py
    read      read: a stored result as a page or a facts module reads it
    results   store, provenance, runner, child
    base      paths, registry, schema, contentcache, timing, bench, stats, fmt, ...

`kernels/` holds one kernel per module beside its reference, `decode/` the decode model and its harness, and
`chapters/<chapter>/` each chapter's experiments, facts, guards and figures. `python -m kernelbook --help` lists the
commands.
"""

import os as _os

__version__ = "0.1.0"

if _os.environ.get("KERNELBOOK_IMPORTS_DIR"):  # a process the runner started: record what code it runs
    from kernelbook.runner import record_at_exit as _record

    _record()
