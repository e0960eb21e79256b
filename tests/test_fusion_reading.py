"""The fusion chapter's exactness sentence, from a stored result: SwiGLU's steps from eager, either way."""

from __future__ import annotations

import json
import runpy
from pathlib import Path

from conftest import run_file

SNIPPET = Path(__file__).parents[1] / "snippets" / "fusing-by-hand" / "exactness_reading.py"


def _run(capsys) -> str:
    runpy.run_path(str(SNIPPET), run_name="__main__")
    return capsys.readouterr().out


def test_swiglu_reads_as_steps_or_as_bit_for_bit(fixture_results, capsys):
    out = _run(capsys)  # the fixture has SwiGLU a step from eager at three shapes
    assert "SwiGLU was at most 1 step from eager." in out and "SwiGLU matched" not in out
    path = run_file(fixture_results, "fusing_by_hand.exactness")
    rec = json.loads(path.read_text())
    for case in rec["data"]["triton"]:
        case["swiglu"].update(max_steps=0, differ=0, bit_identical=True)
    path.write_text(json.dumps(rec))
    out = _run(capsys)
    assert "SwiGLU matched eager bit for bit at every shape." in out and "at most 0" not in out
