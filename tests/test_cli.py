"""The command line: help, errors that are one clear line, and nothing overwritten on failure."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest
from conftest import FIXTURES, run_file

from kernelbook import cli, paths, runner, store
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
    monkeypatch.setattr(runner, "gpu_slug", lambda: None)
    before = {p: p.read_bytes() for p in fixture_results.rglob("*.json")}
    assert cli.main(["run", "machine.ceilings"]) == 2
    assert "no CUDA GPU" in capsys.readouterr().err
    assert {p: p.read_bytes() for p in fixture_results.rglob("*.json")} == before


def test_run_without_jsonschema_fails_before_measuring(fixture_results, capsys, monkeypatch):
    """A run is checked against its schema only once measured: without jsonschema the command stops at once."""
    from kernelbook import schema

    def missing(name):
        raise ImportError("No module named 'jsonschema'", name="jsonschema")

    measured = []
    monkeypatch.setattr(runner, "gpu_slug", lambda: "nvidia-h200")
    monkeypatch.setattr(runner, "run_one", lambda *a, **k: measured.append(a) or (True, ""))
    monkeypatch.setattr(schema, "ready", missing)
    assert cli.main(["run", "machine.ceilings"]) == 2
    assert "jsonschema is not installed" in capsys.readouterr().err and not measured
    monkeypatch.undo()
    monkeypatch.setattr(runner, "gpu_slug", lambda: "nvidia-h200")
    monkeypatch.setattr(runner, "run_one", lambda *a, **k: measured.append(a) or (True, ""))
    assert cli.main(["run", "machine.ceilings"]) == 0 and len(measured) == 1  # with it, the run goes ahead


@pytest.mark.parametrize("args", [["run", "machine.ceilings", "--machine", "../../etc"], ["check", "--machine", "a/b"],
                                  ["list"]])
def test_a_machine_name_that_is_a_path_is_refused(fixture_results, capsys, monkeypatch, args):
    monkeypatch.setattr(runner, "gpu_slug", lambda: "nvidia-h200")
    if args == ["list"]:
        monkeypatch.setenv("KERNELBOOK_MACHINE", "../outside")
    assert cli.main(args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "is not a machine slug" in err[0]


def test_check_names_every_missing_or_stale_result(fixture_results, capsys):
    assert cli.main(["check"]) == 1
    out = capsys.readouterr().out
    for e in EXPERIMENTS:
        assert e.name in out
    assert "STALE    machine.ceilings" in out  # the fixture's hashes are not the code's
    assert "python -m kernelbook run" in out


def _fresh_runs(machine: str = "nvidia-h200") -> None:
    """A fresh run of every experiment, with the fixture's data (which its schema describes)."""
    for e in EXPERIMENTS:
        hashes = store.file_hashes(["src/kernelbook/timing.py", *e.declared])
        data = json.loads(run_file(FIXTURES, e.name).read_text())["data"]
        store.save(e.name, machine, data, {"started_utc": "2026-12-02T00:00:00+00:00", "source_hashes": hashes})


def test_check_passes_when_all_fresh(fixture_results, capsys):
    _fresh_runs()
    assert cli.main(["check"]) == 0
    assert "fresh results" in capsys.readouterr().out


def test_check_reports_a_corrupt_file(fixture_results, capsys):
    run_file(fixture_results, "machine.ceilings").write_text("{not json")
    assert cli.main(["check"]) == 1
    assert "CORRUPT  machine.ceilings" in capsys.readouterr().out


def test_check_refuses_published_figures_in_the_primary_machines_folder(fixture_results, capsys):
    _fresh_runs()
    src = fixture_results / "nvidia-geforce-rtx-4060-laptop-gpu" / "machine.ceilings" / "published.json"
    rec = json.loads(src.read_text())
    rec["machine"] = "nvidia-h200"  # published figures filed as the primary machine's, beside its runs
    (fixture_results / "nvidia-h200" / "machine.ceilings" / "published.json").write_text(json.dumps(rec))
    assert cli.main(["check"]) == 1
    out = capsys.readouterr().out
    assert "CORRUPT  machine.ceilings: " in out and "published figures (published.json) beside measured runs" in out
    for run in (fixture_results / "nvidia-h200" / "machine.ceilings").glob("2*.json"):
        run.unlink()  # published figures alone: no run measured there
    assert cli.main(["check"]) == 1
    assert "MISSING  machine.ceilings: " in capsys.readouterr().out


def test_list_shows_each_machine(fixture_results, capsys):
    assert cli.main(["list"]) == 0
    out = capsys.readouterr().out
    assert "nvidia-h200" in out and "nvidia-geforce-rtx-4060-laptop-gpu" in out and "published" in out


def test_editing_a_module_stales_exactly_the_experiments_that_imported_it(tmp_path, monkeypatch, capsys):
    """On a copy of the repository with the committed H200 results: editing a file stales the experiments whose
    runs recorded it, and only those, with the command that refreshes them."""
    root = paths.root()
    for d in ("src", "results", "snippets"):
        shutil.copytree(root / d, tmp_path / d)
    shutil.copy(root / "pyproject.toml", tmp_path / "pyproject.toml")
    monkeypatch.setenv("KERNELBOOK_ROOT", str(tmp_path))
    monkeypatch.delenv("KERNELBOOK_RESULTS", raising=False)
    monkeypatch.delenv("KERNELBOOK_MACHINE", raising=False)
    cli.main(["check"])
    before = {line.split()[1].rstrip(":") for line in capsys.readouterr().out.splitlines()
              if line.startswith(("STALE", "MISSING"))}
    target = "src/kernelbook/copy_ceiling.py"
    users = {e.name for e in EXPERIMENTS if target in store.load(e.name).provenance["source_hashes"]}
    assert users, "no stored run recorded the copy ceiling"
    with open(tmp_path / target, "a") as f:
        f.write("\nNEXT = 1  # an edit the stored runs did not see\n")
    assert cli.main(["check"]) == 1
    out = capsys.readouterr().out
    stale = {line.split()[1].rstrip(":") for line in out.splitlines() if line.startswith(("STALE", "MISSING"))}
    assert stale - before == users - before
    assert f"({target}" in out
