"""run_child, the allocator chapter's way into a fresh process: the child sees exactly the allocator settings it is
given, its JSON comes back, and a child that fails or prints no result raises with its output."""

from __future__ import annotations

import pytest

from kernelbook.chapters.allocator import child
from kernelbook.chapters.allocator.scripts import MARK

PROBE = f"""
import json, os, sys
if sys.argv[1:] == ["fail"]:
    print("something went wrong", file=sys.stderr)
    sys.exit(3)
if sys.argv[1:] == ["silent"]:
    sys.exit(0)
print("noise before the result")
print({MARK!r} + json.dumps({{"args": sys.argv[1:], "conf": {{k: os.environ.get(k) for k in {child.CONF_VARS!r}}}}}))
"""


@pytest.fixture
def probe(tmp_path, monkeypatch):
    (tmp_path / "kb_child_probe.py").write_text(PROBE)
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    monkeypatch.setenv("PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True")  # this process's, not the child's
    monkeypatch.setenv("PYTORCH_NO_CUDA_MEMORY_CACHING", "1")
    return "kb_child_probe"


def test_the_child_gets_only_its_own_settings(probe):
    got = child.run_child(probe, ["a", "b"])
    assert got == {"args": ["a", "b"], "conf": dict.fromkeys(child.CONF_VARS)}
    got = child.run_child(probe, ["c"], {"PYTORCH_ALLOC_CONF": "expandable_segments:True"})
    assert got["conf"] == {**dict.fromkeys(child.CONF_VARS), "PYTORCH_ALLOC_CONF": "expandable_segments:True"}


@pytest.mark.parametrize("case", ["fail", "silent"])
def test_a_child_without_a_result_raises_with_its_output(probe, case):
    with pytest.raises(RuntimeError, match="kb_child_probe " + case) as err:
        child.run_child(probe, [case])
    assert ("something went wrong" in str(err.value)) == (case == "fail")
