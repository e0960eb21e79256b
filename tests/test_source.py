"""kernelbook.source reads the constants a page needs from modules that import torch: the same values as importing
them, and a refusal for what cannot be read without running the module."""

from __future__ import annotations

import sys

import pytest

from kernelbook import source


@pytest.mark.parametrize("module, names", [
    ("kernelbook.decode.model", ("QWEN25_15B", "INIT_STD")),
    ("kernelbook.decode.rounds", ("WARM_STEPS",)),
    ("kernelbook.chapters.allocator.demos", ("CACHING_SIZES", "CAP_S")),  # arithmetic on names another module gives
])
def test_every_constant_a_page_reads_is_the_imported_one(module, names):
    imported = __import__(module, fromlist=list(names))
    assert source.constants(module, *names) == [getattr(imported, n) for n in names]


def test_what_only_running_the_module_gives_is_refused():
    with pytest.raises(source.NotConstant, match=r"\*\*QWEN25_15B"):  # a dict built from another
        source.constants("kernelbook.decode.model", "TINY")
    with pytest.raises(source.NotConstant, match="OOM_TYPE"):  # a call
        source.constants("kernelbook.chapters.allocator.demos", "OOM_TYPE")
    with pytest.raises(source.NotConstant, match="gives NOT_THERE no value"):
        source.constants("kernelbook.decode.model", "NOT_THERE")


def test_the_facts_modules_import_no_torch_for_them():
    """The reason for reading the text: importing the chapters' facts that need these numbers leaves torch out."""
    import subprocess

    code = ("import sys; import kernelbook.chapters.decode.facts, kernelbook.chapters.allocator.facts; "
            "print('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "False"
