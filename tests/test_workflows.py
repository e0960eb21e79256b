"""The GitHub workflows: valid against GitHub's schema, clean under zizmor, and the GPU one never runs on PRs."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
BIN = Path(sys.executable).parent


def tool(name: str) -> str:
    path = BIN / name if (BIN / name).exists() else shutil.which(name)
    if not path:
        pytest.fail(f"{name} is not installed (it comes with the test extra: pip install -e '.[test]')")
    return str(path)


def test_two_workflows():
    assert {p.name for p in WORKFLOWS} == {"ci.yml", "gpu.yml"}


def test_schema():
    out = subprocess.run([tool("check-jsonschema"), "--builtin-schema", "vendor.github-workflows",
                          *map(str, WORKFLOWS)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr


def test_zizmor_offline_has_no_findings():
    out = subprocess.run([tool("zizmor"), "--offline", "--no-progress", str(ROOT / ".github" / "workflows")],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "No findings" in out.stdout


def test_gpu_workflow_runs_only_on_push_to_main_and_dispatch():
    wf = yaml.safe_load((ROOT / ".github" / "workflows" / "gpu.yml").read_text())
    on = wf[True] if True in wf else wf["on"]  # YAML 1.1 reads a bare `on:` key as True
    assert set(on) == {"push", "workflow_dispatch"}
    assert on["push"]["branches"] == ["main"]
    assert wf["permissions"] == {}
    assert "self-hosted" in wf["jobs"]["measure"]["runs-on"]
    assert wf["jobs"]["measure"]["permissions"] == {"contents": "read"}
    assert "pull_request" not in GPU.read_text() and "pull_request_target" not in GPU.read_text()


# ---- the GPU workflow: a matrix of GPU models and shards, a merge job, least privilege -------------------------

GPU = ROOT / ".github" / "workflows" / "gpu.yml"


def gpu_workflow() -> dict:
    return yaml.safe_load(GPU.read_text())


def test_every_action_is_pinned_by_full_sha_and_every_job_has_its_own_permissions():
    for path in WORKFLOWS:
        wf = yaml.safe_load(path.read_text())
        for name, job in wf["jobs"].items():
            assert "permissions" in job, f"{path.name}: job {name} has no permissions of its own"
            assert "timeout-minutes" in job, f"{path.name}: job {name} has no time limit"
            for step in job.get("steps", []):
                if "uses" in step:
                    ref = step["uses"].split("@", 1)[1]
                    assert len(ref) == 40 and all(c in "0123456789abcdef" for c in ref), step["uses"]
                if step.get("uses", "").startswith("actions/checkout@"):
                    assert step["with"]["persist-credentials"] is False


def test_only_the_deploy_job_can_write():
    jobs = gpu_workflow()["jobs"]
    assert set(jobs) == {"plan", "measure", "publish", "deploy"}
    for name in ("plan", "measure", "publish"):
        assert jobs[name]["permissions"] == {"contents": "read"}, name
    assert jobs["deploy"]["permissions"] == {"pages": "write", "id-token": "write"}
    assert jobs["deploy"]["needs"] == "publish" and jobs["deploy"]["environment"]["name"] == "github-pages"


def test_measure_is_a_matrix_over_gpu_runners_sized_by_its_shard():
    wf = gpu_workflow()
    on = wf[True] if True in wf else wf["on"]
    inputs = on["workflow_dispatch"]["inputs"]
    assert inputs["shards"]["type"] == "number" and inputs["shards"]["default"] == 1
    assert inputs["gpus"]["default"] == "nvidia-h200"
    m = wf["jobs"]["measure"]
    assert m["needs"] == "plan" and m["strategy"]["fail-fast"] is False
    assert m["strategy"]["matrix"] == "${{ fromJSON(needs.plan.outputs.matrix) }}"
    assert m["runs-on"] == ["self-hosted", "linux", "gpu", "${{ matrix.gpu }}"]
    assert m["timeout-minutes"] == "${{ matrix.timeout_minutes }}"
    runs = " ".join(step.get("run", "") for step in m["steps"])
    assert 'kernelbook run --shard "$SHARD" --require-gpu "$GPU"' in runs
    upload = next(step for step in m["steps"] if step.get("uses", "").startswith("actions/upload-artifact@"))
    assert upload["with"]["name"] == "results-${{ matrix.gpu }}-${{ matrix.name }}"
    assert upload["with"]["path"] == "results/"


def _plan(tmp_path, gpus: str, shards: str) -> dict:
    """Run the plan job's script as GitHub would, on this machine; the matrix it writes to $GITHUB_OUTPUT."""
    step = next(s for s in gpu_workflow()["jobs"]["plan"]["steps"] if s.get("id") == "plan")
    out = tmp_path / "github_output"
    env = {**os.environ, "GPUS": gpus, "SHARDS": shards, "PYTHONPATH": str(ROOT / "src"), "GITHUB_OUTPUT": str(out)}
    script = step["run"].replace("python ", f"{sys.executable} ")
    done = subprocess.run(["bash", "-e", "-c", script], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = dict(line.split("=", 1) for line in out.read_text().splitlines())
    assert lines["gpus"] == gpus
    return json.loads(lines["matrix"])


@pytest.mark.parametrize("gpus, shards", [("nvidia-h200", "1"), ("nvidia-h200", "3"),
                                          ("nvidia-h200 nvidia-geforce-rtx-4090", "2")])
def test_the_plan_gives_each_shard_a_job_that_covers_its_timeouts(tmp_path, gpus, shards):
    from kernelbook import runner
    from kernelbook.registry import EXPERIMENTS

    include = _plan(tmp_path, gpus, shards)["include"]
    n = int(shards)
    assert len(include) == n * len(gpus.split())
    assert len({(e["gpu"], e["name"]) for e in include}) == len(include)  # artifact names are unique
    for gpu in gpus.split():
        mine = [e for e in include if e["gpu"] == gpu]
        assert [e["shard"] for e in mine] == [f"{k}/{n}" for k in range(1, n + 1)]
        for k, entry in enumerate(mine, 1):
            shard = runner.shards(n)[k - 1]
            assert entry["experiments"] == len(shard)
            assert entry["timeout_minutes"] * 60 >= sum(e.timeout_s for e in shard) + runner.SETUP_MIN * 60
    if n == 1:  # the whole registry in one job: today's timeouts add up to more than the old 90-minute limit
        assert include[0]["timeout_minutes"] * 60 > sum(e.timeout_s for e in EXPERIMENTS) > 90 * 60


def test_a_bad_plan_input_fails_the_plan_with_one_line(tmp_path):
    step = next(s for s in gpu_workflow()["jobs"]["plan"]["steps"] if s.get("id") == "plan")
    for gpus, shards, message in (("nvidia-h200", "0", "0 shards"), ("../etc", "1", "is not a machine slug")):
        env = {**os.environ, "GPUS": gpus, "SHARDS": shards, "PYTHONPATH": str(ROOT / "src"),
               "GITHUB_OUTPUT": str(tmp_path / "out")}
        done = subprocess.run(["bash", "-e", "-c", step["run"].replace("python ", f"{sys.executable} ")], cwd=ROOT,
                              env=env, capture_output=True, text=True, timeout=120)
        assert done.returncode != 0 and message in done.stderr


def test_publish_merges_checks_against_the_commit_builds_and_hands_the_site_to_deploy():
    p = gpu_workflow()["jobs"]["publish"]
    assert p["needs"] == ["plan", "measure"] and p["runs-on"] == "ubuntu-latest"
    steps = p["steps"]
    checkout = steps[0]
    assert checkout["with"]["fetch-depth"] == 0  # the provenance test reads each result's commit
    download = next(s for s in steps if s.get("uses", "").startswith("actions/download-artifact@"))
    assert download["with"] == {"pattern": "results-*", "path": "incoming/"}
    runs = [s.get("run", "") for s in steps]
    order = [next(i for i, r in enumerate(runs) if what in r) for what in (
        "kernelbook merge incoming/* --into results", 'kernelbook check --machine "$gpu" --commit "$COMMIT"',
        "tests/test_results_provenance.py", "mkdocs build --strict")]
    assert order == sorted(order)
    env = next(s for s in steps if "kernelbook check" in s.get("run", ""))["env"]
    assert env == {"GPUS": "${{ needs.plan.outputs.gpus }}", "COMMIT": "${{ github.sha }}"}
    assert any(s.get("uses", "").startswith("actions/upload-pages-artifact@") for s in steps)


def test_readme_says_what_the_gpu_workflow_does():
    readme = (ROOT / "README.md").read_text()
    assert "measures and commits" not in readme
    assert "It does not commit anything" in readme and "kernelbook merge" in readme and "--shard K/N" in readme


def test_the_publish_merge_step_as_written_merges_two_shards(tmp_path):
    """The merge step's own command, run in a folder laid out as the publish job's: results/ and one downloaded
    artifact per shard under incoming/."""
    from conftest import FIXTURES, run_file

    from kernelbook import store

    step = next(s for s in gpu_workflow()["jobs"]["publish"]["steps"] if "kernelbook merge" in s.get("run", ""))
    shutil.copytree(FIXTURES, tmp_path / "results")
    for k, name in enumerate(("machine.ceilings", "torch_compile.modes"), 1):
        art = tmp_path / "incoming" / f"results-nvidia-h200-{k}-of-2"
        shutil.copytree(FIXTURES, art)
        data = json.loads(run_file(FIXTURES, name).read_text())["data"]
        store.save(name, "nvidia-h200", data, {"started_utc": "2027-01-01T00:00:00+00:00",
                                              "source_hashes": {"src/kernelbook/timing.py": "x"}}, into=art)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    done = subprocess.run(["bash", "-e", "-c", step["run"].replace("python ", f"{sys.executable} ")], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "kernelbook merge: 2 new into results" in done.stdout
    for name in ("machine.ceilings", "torch_compile.modes"):
        assert (tmp_path / "results" / "nvidia-h200" / name / "20270101T000000Z.json").is_file()
