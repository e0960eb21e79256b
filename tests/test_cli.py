"""The command line: help, errors that are one clear line, and nothing overwritten on failure."""

from __future__ import annotations

import subprocess
import sys

import pytest

from kernelbook import cli, store
from kernelbook.registry import EXPERIMENTS


def kb(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "kernelbook", *args], capture_output=True, text=True, env=env,
                          timeout=120)


@pytest.mark.parametrize("sub", [[], ["list"], ["run"], ["check"]])
def test_help_is_useful(sub):
    out = kb(*sub, "--help")
    assert out.returncode == 0
    assert "usage: python -m kernelbook" in out.stdout
    if sub == ["run"]:
        assert "--all" in out.stdout and "subprocess" in out.stdout


def test_unknown_experiment_is_one_line(capsys):
    assert cli.main(["run", "no.such.thing"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["kernelbook: error: unknown experiment 'no.such.thing'; `python -m kernelbook list` shows the "
                   "known ones"]


def test_run_without_gpu_stores_nothing(fixture_results, capsys, monkeypatch):
    monkeypatch.setattr(cli, "_gpu_slug", lambda: None)
    before = {p: p.read_bytes() for p in fixture_results.rglob("*.json")}
    assert cli.main(["run", "machine"]) == 2
    assert "no CUDA GPU" in capsys.readouterr().err
    assert {p: p.read_bytes() for p in fixture_results.rglob("*.json")} == before


def test_check_names_every_missing_or_stale_result(fixture_results, capsys):
    assert cli.main(["check"]) == 1
    out = capsys.readouterr().out
    for e in EXPERIMENTS:
        assert e.name in out
    assert "STALE    machine" in out  # the fixture's code hash is not the code's
    assert "python -m kernelbook run" in out


def test_check_passes_when_all_fresh(fixture_results, capsys, monkeypatch):
    for e in EXPERIMENTS:
        h, files = store.code_hash(e)
        store.save(e.name, "nvidia-h200", {}, {"code_hash": h, "source_hashes": files})
    assert cli.main(["check"]) == 0
    assert "fresh results" in capsys.readouterr().out


def test_check_reports_a_corrupt_file(fixture_results, capsys):
    (fixture_results / "nvidia-h200" / "machine.json").write_text("{not json")
    assert cli.main(["check"]) == 1
    assert "CORRUPT  machine" in capsys.readouterr().out


def test_list_shows_each_machine(fixture_results, capsys):
    assert cli.main(["list"]) == 0
    out = capsys.readouterr().out
    assert "nvidia-h200" in out and "nvidia-geforce-rtx-4060-laptop-gpu" in out and "published" in out


def test_editing_the_machine_experiment_makes_check_fail_until_remeasured(tmp_path, monkeypatch, capsys):
    """On a copy of the repository with the committed H200 results: all fresh; edit machine.py and `check` names
    exactly that experiment as stale, with the command that refreshes it."""
    import shutil

    from kernelbook import paths

    root = paths.root()
    for d in ("src", "results", "snippets"):
        shutil.copytree(root / d, tmp_path / d)
    shutil.copy(root / "pyproject.toml", tmp_path / "pyproject.toml")
    monkeypatch.setenv("KERNELBOOK_ROOT", str(tmp_path))
    monkeypatch.delenv("KERNELBOOK_RESULTS", raising=False)
    monkeypatch.delenv("KERNELBOOK_MACHINE", raising=False)
    assert cli.main(["check"]) == 0, capsys.readouterr().out
    capsys.readouterr()
    with open(tmp_path / "src" / "kernelbook" / "machine.py", "a") as f:
        f.write("\nMATMUL_N_NEXT = 16384  # an edit the stored result did not see\n")
    assert cli.main(["check"]) == 1
    out = capsys.readouterr().out
    assert "STALE    machine: code changed since it was measured (src/kernelbook/machine.py" in out
    assert "python -m kernelbook run machine" in out
    stale = [line for line in out.splitlines() if line.startswith("STALE")]
    assert all(line.split()[1].rstrip(":") in ("machine", "fusion.eager_bytes", "fusion.exactness",
                                               "fusion.versions", "sol.add_rmsnorm", "sol.swiglu", "sol.designs")
               for line in stale), stale  # only the experiments that declare machine.py
