"""The GitHub workflows: valid against GitHub's schema, clean under zizmor, and the GPU one never runs on PRs."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from datetime import UTC, datetime, timedelta
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
    assert 'kernelbook run --shard "$SHARD" --require-gpu "$GPU"' in runs and "--into measured" in runs
    upload = next(step for step in m["steps"] if step.get("uses", "").startswith("actions/upload-artifact@"))
    assert upload["with"]["name"] == "results-${{ matrix.gpu }}-${{ matrix.name }}"
    assert upload["with"]["path"] == "measured/"  # only the runs this job made (README: the artifact)


def test_every_artifact_can_be_uploaded_again_by_a_re_run():
    """upload-artifact v4 refuses a name already uploaded in the run (409): without `overwrite`, "Re-run failed
    jobs" fails a shard that failed once at its upload, and only a whole new run can publish (issue 58)."""
    uploads = {(job, step["with"]["name"]): step["with"] for job, spec in gpu_workflow()["jobs"].items()
               for step in spec.get("steps", []) if step.get("uses", "").startswith("actions/upload-artifact@")}
    assert {job for job, _ in uploads} == {"measure", "publish"}
    assert all(w.get("overwrite") is True for w in uploads.values()), uploads


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
        store.save(name, "nvidia-h200", data, {"started_utc": "2026-12-02T00:00:00+00:00",
                                              "source_hashes": {"src/kernelbook/timing.py": "x"}}, into=art)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    done = subprocess.run(["bash", "-e", "-c", step["run"].replace("python ", f"{sys.executable} ")], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "kernelbook merge: 2 new into results" in done.stdout
    for name in ("machine.ceilings", "torch_compile.modes"):
        assert (tmp_path / "results" / "nvidia-h200" / name / "20261202T000000Z.json").is_file()


# ---- the measure job's install, the deploy job's branch ---------------------------------------------------------

def test_measure_installs_into_a_fresh_virtual_environment_with_the_constraints_file():
    """Nothing installed into the self-hosted runner's own Python: one run's packages are never the next run's."""
    steps = gpu_workflow()["jobs"]["measure"]["steps"]
    install = next(s for s in steps if "pip install" in s.get("run", ""))["run"]
    assert 'python3 -m venv --clear --system-site-packages "$RUNNER_TEMP/kernelbook-venv"' in install
    assert "-c \"$RUNNER_TEMP/constraints-gpu.txt\"" in install and ".ci/constraints.txt" in install
    assert '"$RUNNER_TEMP/kernelbook-venv/bin/python" -m pip install' in install
    assert "python3 -m pip" not in install
    measure = next(s for s in steps if "kernelbook run" in s.get("run", ""))["run"]
    assert measure.lstrip().startswith('"$RUNNER_TEMP/kernelbook-venv/bin/python" -m kernelbook run')


def test_the_gpu_constraints_pin_everything_but_the_runner_s_own_torch_stack():
    """The measure job's filter of .ci/constraints.txt, run here: the CPU pins of torch, triton and transformers go
    (the runner's CUDA builds stay), every other pin stays."""
    step = next(s for s in gpu_workflow()["jobs"]["measure"]["steps"] if "pip install" in s.get("run", ""))
    grep = next(line for line in step["run"].splitlines() if line.strip().startswith("grep"))
    out = subprocess.run(["bash", "-c", grep.split(">")[0]], cwd=ROOT, capture_output=True, text=True, timeout=60)
    kept = {line.split("==")[0] for line in out.stdout.splitlines() if "==" in line}
    pinned = {line.split("==")[0] for line in (ROOT / ".ci" / "constraints.txt").read_text().splitlines()
              if "==" in line}
    assert kept == pinned - {"torch", "triton", "transformers"} and "jsonschema" in kept


def test_deploy_runs_only_from_main():
    deploy = gpu_workflow()["jobs"]["deploy"]
    assert deploy["if"] == "github.ref == 'refs/heads/main'"


# ---- the data path, end to end on the committed results ---------------------------------------------------------

def _head() -> tuple[str, datetime]:
    out = subprocess.run(["git", "-C", str(ROOT), "show", "-s", "--format=%H %cI", "HEAD"], capture_output=True,
                         text=True, timeout=60)
    if out.returncode or shutil.which("git") is None:
        pytest.skip("needs git and a clone of the repository")
    commit, when = out.stdout.split()
    return commit, datetime.fromisoformat(when)


def _measured_at(results: Path, artifact: Path, commit: str, made: datetime) -> list[Path]:
    """What the measure job (`run --shard 1/1 --require-gpu nvidia-h200 --into measured`) uploads: one run of every
    experiment, measured at `commit`, stored as the runner stores it (store.save). Without a GPU each is the newest
    fresh committed run of that experiment, started again at that commit; that run is taken out of `results`, which
    is then the folder as it was before the measurement (so the build reads the same data)."""
    from kernelbook import store
    from kernelbook.registry import EXPERIMENTS

    start = max(made + timedelta(minutes=1), datetime.now(UTC) - timedelta(hours=1))
    saved = []
    old = os.environ.get("KERNELBOOK_RESULTS")
    os.environ["KERNELBOOK_RESULTS"] = str(results)
    try:
        for i, e in enumerate(EXPERIMENTS):
            newest = store.load(e.name, "nvidia-h200")
            assert newest.status == store.FRESH, f"{e.name}: no fresh run to stand for a new one"
            prov = {k: v for k, v in newest.provenance.items() if k != "schema_hashes"}
            prov.update(started_utc=(start + timedelta(seconds=i)).isoformat(timespec="seconds"),
                        git={"commit": commit, "dirty": False})
            saved.append(store.save(e.name, "nvidia-h200", newest.data, prov, into=artifact))
            newest.path.unlink()
    finally:
        if old is None:
            os.environ.pop("KERNELBOOK_RESULTS")
        else:
            os.environ["KERNELBOOK_RESULTS"] = old
    return saved


def _step(job: str, what: str) -> dict:
    return next(s for s in gpu_workflow()["jobs"][job]["steps"] if what in s.get("run", ""))


def _run_step(step: dict, cwd: Path, **env: str) -> subprocess.CompletedProcess:
    """A workflow step's script, run by bash as GitHub runs it, with this interpreter for `python`."""
    script = step["run"].replace("python -m", f"{sys.executable} -m")
    return subprocess.run(["bash", "-e", "-c", script], cwd=cwd, capture_output=True, text=True, timeout=1800,
                          env={**{k: v for k, v in os.environ.items() if not k.startswith("KERNELBOOK_")},
                               "PYTHONPATH": str(ROOT / "src"), **step.get("env", {}), **env})


@pytest.fixture
def published(tmp_path):
    """The publish job's folder after its merge step: results/ (the committed results as they were before the
    measurement) merged with incoming/results-nvidia-h200-1-of-1/ (the measure job's artifact), by the step itself."""
    commit, made = _head()
    results = tmp_path / "results"
    shutil.copytree(ROOT / "results", results)
    artifact = tmp_path / "incoming" / "results-nvidia-h200-1-of-1"
    measure = gpu_workflow()["jobs"]["measure"]["steps"]
    upload = next(s for s in measure if s.get("uses", "").startswith("actions/upload-artifact@"))["with"]["path"]
    into = re.search(r"--into (\S+)", " ".join(s.get("run", "") for s in measure))
    assert upload.rstrip("/") == (into[1] if into else "results"), "the job uploads the folder it measured into"
    if upload.rstrip("/") == "results":  # the whole folder: the job's checkout of results/, then its new runs
        shutil.copytree(ROOT / "results", artifact)
    new = _measured_at(results, artifact, commit, made)
    done = _run_step(_step("publish", "kernelbook merge"), tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"kernelbook merge: {len(new)} new into results" in done.stdout
    return results, commit


@pytest.mark.slow  # the check step as written: `kernelbook check` and a pytest run, each in a fresh process
def test_the_publish_job_merges_and_checks_a_measure_job_s_artifact(published):
    """The measure job's artifact merged into today's committed results (29 runs of older code among them, which
    today's schemas refuse), then the check step as written: `check --machine nvidia-h200 --commit <this commit>`
    and tests/test_results_provenance.py over the merged folder."""
    results, commit = published
    done = _run_step(_step("publish", "kernelbook check"), ROOT, KERNELBOOK_RESULTS=str(results), GPUS="nvidia-h200",
                     COMMIT=commit)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "all 22 experiments have fresh results on nvidia-h200" in done.stdout
    assert re.search(r"\d+ passed", done.stdout) and " failed" not in done.stdout


@pytest.mark.slow
def test_the_publish_job_builds_the_site_from_the_merged_results(published, tmp_path):
    results, _ = published
    step = _step("publish", "mkdocs build")
    step = {**step, "run": step["run"].replace("-d site", f"-d {tmp_path / 'site'}")}
    done = _run_step(step, ROOT, KERNELBOOK_RESULTS=str(results))
    assert done.returncode == 0, done.stderr[-3000:]
    assert (tmp_path / "site" / "machines" / "index.html").is_file()
