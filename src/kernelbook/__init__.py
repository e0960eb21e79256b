"""kernelbook: a measured book chapter on why GPU code is fast or slow.

The package holds the kernels, the decode harness, the allocator demos, the result store and the page API that
the site's markdown-exec blocks call. `python -m kernelbook --help` lists the commands.
"""

__version__ = "0.1.0"
