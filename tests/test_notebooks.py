"""The chapter notebooks are in step with the chapters and hold exactly the snippets each chapter executes."""

from __future__ import annotations

import json

from kernelbook import notebooks


def test_committed_notebooks_are_up_to_date():
    for path, text in notebooks.render_all().items():
        assert path.is_file(), f"{path.name} missing: run `python -m kernelbook notebooks`"
        assert path.read_text() == text, f"{path.name} is out of date: run `python -m kernelbook notebooks`"


def test_machine_notebook_measures_then_runs_each_snippet():
    nb = json.loads(next(t for p, t in notebooks.render_all().items() if p.stem == "machine"))
    code = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]
    assert 'os.environ["KERNELBOOK_MODE"] = "auto"' in code[0]
    assert any('page.result("machine.ceilings")' in c for c in code[1:])
    compile("\n".join(code), "machine.ipynb", "exec")  # every cell is valid Python
