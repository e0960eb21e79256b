"""The runner on the CPU, with a toy child in place of an experiment: what ran is recorded (child and grandchild
imports), a timeout or a failure ends the whole process group and says what it ended, and nothing is stored then."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kernelbook import paths, registry, runner, store
from kernelbook.registry import Experiment

TOY = Experiment("toy.exp", "unused:unused", "a toy", 30, declared=("README.md",))


@pytest.fixture
def toy(tmp_path, monkeypatch, toy_schema):
    monkeypatch.setenv("KERNELBOOK_RESULTS", str(tmp_path / "results"))
    monkeypatch.setitem(registry.BY_NAME, TOY.name, TOY)
    return tmp_path


def _child(monkeypatch, code: str) -> None:
    """Make the runner start `python -c code` (with {out} filled in) as the experiment's child."""
    monkeypatch.setattr(runner, "child_command", lambda name, out: [sys.executable, "-c", code.format(out=out)])


RESULT = 'import json; open(r"{out}", "w").write(json.dumps({{"data": {{"x": 1}}, "provenance": ' \
         '{{"started_utc": "2026-12-01T00:00:00+00:00"}}}}))'


def test_the_run_records_what_the_child_and_its_children_imported(toy, monkeypatch):
    grandchild = "import kernelbook.bytecount"  # a process the experiment starts, importing more of the package
    _child(monkeypatch, "import subprocess, sys, kernelbook.timing; "
                        f"subprocess.run([sys.executable, '-c', {grandchild!r}], check=True); "
                        # and one that runs a module of the package as __main__
                        "subprocess.run([sys.executable, '-m', 'kernelbook.copy_ceiling'], check=True); " + RESULT)
    ok, msg = runner.run_one("toy.exp", "gpu-x", 60)
    assert ok, msg
    res = store.load("toy.exp", "gpu-x")
    recorded = res.provenance["source_hashes"]
    assert {"src/kernelbook/timing.py", "src/kernelbook/bytecount.py", "src/kernelbook/copy_ceiling.py",
            "README.md"} <= set(recorded)
    assert not {"src/kernelbook/runner.py", "src/kernelbook/store.py", "src/kernelbook/__init__.py"} & set(recorded)
    assert recorded["src/kernelbook/timing.py"] == store.file_hash(paths.root() / "src/kernelbook/timing.py")
    assert res.status == store.FRESH and res.data == {"x": 1}


def test_a_file_edited_during_the_run_refuses_the_run(toy, monkeypatch, tmp_path):
    root = tmp_path / "root"
    (root / "src" / "kernelbook").mkdir(parents=True)
    folder = tmp_path / "imports"
    folder.mkdir()
    (folder / "1.json").write_text(json.dumps({"src/kernelbook/x.py": "aaaa"}))
    (folder / "2.json").write_text(json.dumps({"src/kernelbook/x.py": "bbbb"}))
    with pytest.raises(store.StoreError, match="x.py changed while the experiment ran"):
        runner.recorded(folder)


def test_a_child_that_imports_nothing_of_the_package_is_refused(toy, monkeypatch):
    _child(monkeypatch, RESULT)
    ok, msg = runner.run_one("toy.exp", "gpu-x", 60)
    assert not ok and "no imports were recorded" in msg
    assert not (toy / "results").exists() or not any((toy / "results").rglob("*.json"))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    return not (stat.exists() and stat.read_text().rsplit(")", 1)[1].split()[0] == "Z")


def test_a_timeout_ends_the_whole_group_and_says_so(toy, monkeypatch):
    pidfile = toy / "grandchild.pid"
    _child(monkeypatch, "import subprocess, sys, time, kernelbook.timing; "
                        "p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)']); "
                        f"open(r'{pidfile}', 'w').write(str(p.pid)); time.sleep(600)")
    t0 = time.monotonic()
    ok, msg = runner.run_one("toy.exp", "gpu-x", 3)
    assert not ok and "timed out after 3 s" in msg and "ended 2 processes" in msg and "time.sleep(600)" in msg
    assert time.monotonic() - t0 < 30
    grandchild = int(pidfile.read_text())
    deadline = time.monotonic() + 5
    while _alive(grandchild) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(grandchild), "the experiment's own child outlived the timeout"


def test_processes_left_running_by_a_finished_child_are_ended(toy, monkeypatch):
    pidfile = toy / "orphan.pid"
    _child(monkeypatch, "import subprocess, sys, kernelbook.timing; "
                        "p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)']); "
                        f"open(r'{pidfile}', 'w').write(str(p.pid)); " + RESULT)
    ok, msg = runner.run_one("toy.exp", "gpu-x", 60)
    assert ok and "ended 1 process:" in msg
    orphan = int(pidfile.read_text())
    deadline = time.monotonic() + 5
    while _alive(orphan) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(orphan)


def test_a_failing_child_stores_nothing_and_names_its_exit_status(toy, monkeypatch):
    _child(monkeypatch, "import sys, kernelbook.timing; sys.exit(3)")
    ok, msg = runner.run_one("toy.exp", "gpu-x", 60)
    assert not ok and "exit status 3" in msg
    assert not (toy / "results").exists() or not any((toy / "results").rglob("*.json"))


def test_the_real_child_loads_no_code_but_the_experiments(tmp_path):
    """The command the runner starts, asked of a name no experiment has: it fails at the registry, and the code it
    had loaded by then, hashed as every run's code would be, is none (the CLI's page layer once was)."""
    folder = tmp_path / "imports"
    folder.mkdir()
    cmd = runner.child_command("no.such.experiment", tmp_path / "out.json")
    env = {**os.environ, runner.IMPORTS_ENV: str(folder)}
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0 and "no.such.experiment" in proc.stderr
    assert runner.recorded(folder) == {}, "the child process hashes code no experiment ran"
    assert len(list(folder.glob("*.json"))) == 1  # it did record: an empty list, not a missing one
