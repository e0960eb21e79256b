"""The writer's cache (kernelbook.buildcache) serves nothing stale: its key moves with every result, every line of
code and every setting, and not with a page's prose."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from kernelbook import buildcache, contentcache

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def tree(tmp_path, tmp_path_factory, monkeypatch):
    """A copy of what the digest reads (package, snippets, pyproject, results), as the root."""
    for part in ("src/kernelbook", "snippets", "results/nvidia-h200/machine.ceilings"):
        shutil.copytree(ROOT / part, tmp_path / part, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    shutil.copy(ROOT / "mkdocs.yml", tmp_path / "mkdocs.yml")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "machine.md").write_text("A sentence.\n")
    monkeypatch.setenv("KERNELBOOK_ROOT", str(tmp_path))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("user-cache")))
    monkeypatch.delenv("KERNELBOOK_RESULTS", raising=False)
    yield tmp_path
    buildcache.enable(False)


def _digest() -> str:
    buildcache.enable()
    return buildcache.digest()


def test_the_key_moves_with_results_code_snippets_and_settings_not_with_prose(tree, monkeypatch):
    first = _digest()
    (tree / "docs" / "machine.md").write_text("Another sentence.\n")
    assert _digest() == first  # a prose edit keeps every cached value
    run = sorted((tree / "results/nvidia-h200/machine.ceilings").glob("*.json"))[-1]
    run.write_text(run.read_text().replace('"gbps"', '"gbps" ', 1))
    moved = _digest()
    assert moved != first  # a result changed
    (tree / "snippets" / "machine" / "launch.py").write_text("print(1)\n")
    assert _digest() != moved  # a snippet changed
    again = _digest()
    (tree / "src/kernelbook/chapters/machine/facts.py").write_text("# changed\n")
    assert _digest() != again  # the code changed
    code = _digest()
    (tree / "mkdocs.yml").write_text((tree / "mkdocs.yml").read_text() + "\n# another setting\n")
    assert _digest() != code  # the Markdown settings changed (they shape each block's HTML)
    code = _digest()
    monkeypatch.setenv("KERNELBOOK_MACHINE", "nvidia-h100")
    assert _digest() != code  # another machine's numbers


def test_a_value_is_computed_once_per_inputs_and_again_when_they_change(tree):
    calls = []
    compute = lambda: calls.append(1) or len(calls)  # noqa: E731
    buildcache.enable()
    assert buildcache.cached("t", "k", compute) == 1 and buildcache.cached("t", "k", compute) == 1
    buildcache.enable()  # the next build, nothing changed
    assert buildcache.cached("t", "k", compute) == 1 and len(calls) == 1
    run = sorted((tree / "results/nvidia-h200/machine.ceilings").glob("*.json"))[-1]
    run.write_text(run.read_text() + " ")
    buildcache.enable()  # the next build, after a result changed
    assert buildcache.cached("t", "k", compute) == 2
    buildcache.enable(False)  # the tests and the CLI never read it
    assert buildcache.cached("t", "k", compute) == 3


def test_while_the_code_differs_from_the_code_the_process_started_with_nothing_is_kept(tree):
    """`mkdocs serve` keeps its modules: after an edit under src/kernelbook/ a value would be computed by the old code
    and kept under the new code's key. The cache is off until the code is as it was (hooks.on_config warns)."""
    buildcache.enable()
    assert buildcache.enabled() and not buildcache.code_moved()
    module = tree / "src" / "kernelbook" / "stats.py"
    before = module.read_text()
    module.write_text(before + "\n# edited while serving\n")
    buildcache.enable()
    assert buildcache.code_moved() and not buildcache.enabled()
    module.write_text(before)
    buildcache.enable()
    assert buildcache.enabled() and not buildcache.code_moved()


def test_kernelbook_cache_0_turns_it_off(tree, monkeypatch):
    monkeypatch.setenv("KERNELBOOK_CACHE", "0")
    buildcache.enable()
    assert not buildcache.enabled()
    calls = []
    assert buildcache.cached("t", "k", lambda: calls.append(1) or 1) == 1
    assert contentcache.kept("t", "k", lambda: calls.append(1) or "v") == "v"
    assert len(calls) == 2 and not buildcache.folder().exists() and not contentcache.folder().exists()


def test_the_cache_lives_outside_the_working_tree(tree):
    """A pull request can add any file to the tree (even one .gitignore lists): nothing there is ever unpickled."""
    buildcache.enable()
    buildcache.cached("t", "k", lambda: 1)
    contentcache.kept("t", "k", lambda: "v")
    for d in (buildcache.folder(), contentcache.folder()):
        assert d.is_dir() and not d.resolve().is_relative_to(tree.resolve())
    assert not (tree / ".cache").exists()


def test_a_content_verdict_is_computed_once_per_key_and_again_when_torn(tree):
    """The schema verdicts are kept for every process: by a key that names their inputs' hashes."""
    calls = []
    compute = lambda: calls.append(1) or f"v{len(calls)}"  # noqa: E731
    buildcache.enable(False)  # not a site build: still kept
    assert contentcache.kept("valid", "a", compute) == "v1" and contentcache.kept("valid", "a", compute) == "v1"
    assert contentcache.kept("valid", "b", compute) == "v2"  # another key: computed
    for p in (contentcache.folder() / "valid").glob("*.json"):
        p.write_text('{"key": "a", "val')  # torn
    assert contentcache.kept("valid", "a", compute) == "v3" and contentcache.kept("valid", "b", compute) == "v4"
    for p in (contentcache.folder() / "valid").glob("*.json"):
        p.write_text(json.dumps({"key": "another key", "value": None}))  # an entry of another key under its name
    assert contentcache.kept("valid", "a", compute) == "v5"


def test_a_results_file_changed_by_one_byte_is_checked_again(tree, monkeypatch):
    """The verdict is keyed by the file's bytes: an edit that keeps the file JSON but breaks its schema is found
    however recently the unchanged file passed."""
    from kernelbook import store

    monkeypatch.setattr(store, "_valid", {})
    run = sorted((tree / "results/nvidia-h200/machine.ceilings").glob("*.json"))[-1]
    assert store.runs("machine.ceilings", "nvidia-h200")
    rec = json.loads(run.read_text())
    rec["data"]["matmul"]["tflops"] = "fast"
    run.write_text(json.dumps(rec, indent=1))
    monkeypatch.setattr(store, "_valid", {})  # a fresh process: only the disk cache remains
    with pytest.raises(store.StoreError, match=r"\$\.data\.matmul\.tflops"):
        store.runs("machine.ceilings", "nvidia-h200")


def _machine_site(results: Path, out: Path) -> tuple[Path, dict[str, str]]:
    """A config that builds the machine page alone, with the site's plugins and hooks (cache on), from `results`;
    and the environment to build it in."""
    loader = type("Loader", (yaml.SafeLoader,), {})
    loader.add_constructor("!ENV", lambda lo, node: lo.construct_sequence(node)[-1])  # its default
    cfg = yaml.load((ROOT / "mkdocs.yml").read_text(), Loader=loader)  # noqa: S506 - a SafeLoader
    docs = out / "docs"
    docs.mkdir(parents=True, exist_ok=True)
    shutil.copy(ROOT / "docs" / "machine.md", docs / "machine.md")
    if not (docs / "assets").exists():
        os.symlink(ROOT / "docs" / "assets", docs / "assets")
    cfg.update(docs_dir=str(docs), site_dir=str(out / "site"), strict=False,
               hooks=[str(ROOT / h) for h in cfg.get("hooks", [])], watch=[str(ROOT / w) for w in cfg.get("watch", [])])
    cfg.pop("nav", None)
    cfg["plugins"] = [p for p in cfg["plugins"] if not (isinstance(p, dict) and "mkdocs-jupyter" in p)]
    cfg["validation"] = {"links": {"not_found": "ignore", "anchors": "ignore", "unrecognized_links": "ignore"}}
    (out / "mkdocs.yml").write_text(yaml.safe_dump(cfg))
    env = dict(os.environ, KERNELBOOK_MODE="replay", KERNELBOOK_RESULTS=str(results), NO_MKDOCS_2_WARNING="1")
    env.pop("KERNELBOOK_GUARDS", None)
    env["KERNELBOOK_GUARDS"] = "flag"  # the doctored copy rate may turn a guard: flag it, do not stop
    return out / "mkdocs.yml", env


def _build_machine_page(results: Path, out: Path) -> str:
    config, env = _machine_site(results, out)
    subprocess.run([sys.executable, "-m", "mkdocs", "build", "-q", "-f", str(config)], cwd=ROOT, env=env, check=True,
                   capture_output=True)
    return (out / "site" / "machine" / "index.html").read_text()


def _double_the_copy_rate(results: Path) -> None:
    for run in (results / "nvidia-h200" / "machine.ceilings").glob("2*.json"):
        rec = json.loads(run.read_text())
        rec["data"]["bandwidth"]["copy"]["gbps"] *= 2  # every run copies twice as fast
        run.write_text(json.dumps(rec))


def _copy_rate(html: str) -> float:
    return float(re.search(r'data-fact="machine.copy_tbps"[^>]*>([^<]+)<', html)[1])


@pytest.mark.slow
def test_a_changed_result_changes_the_page_a_warm_cache_builds(tmp_path):
    results = tmp_path / "results"
    shutil.copytree(ROOT / "results", results)
    before = _build_machine_page(results, tmp_path / "a")
    assert _build_machine_page(results, tmp_path / "b") == before.replace("/a/", "/b/")  # warm: the same page
    _double_the_copy_rate(results)
    after = _build_machine_page(results, tmp_path / "c")
    assert _copy_rate(after) == pytest.approx(2 * _copy_rate(before), rel=0.01)


SERVE_DIRTY = """
import json, sys
from pathlib import Path
from mkdocs.commands.build import build
from mkdocs.config import load_config

config, page = sys.argv[1], Path(sys.argv[2])
load_config(config).plugins.on_startup(command="serve", dirty=True)
for line in sys.stdin:  # as `mkdocs serve --dirty` does after each save: the config read again, a dirty build
    build(load_config(config), dirty=True)
    print(json.dumps({"html": page.read_text(), "mtime": page.stat().st_mtime_ns}), flush=True)
"""


@pytest.mark.slow
def test_a_dirty_rebuild_shows_a_prose_edit_and_a_changed_result(tmp_path):
    """`mkdocs serve --dirty` in one process: a build with nothing changed leaves the page as it was; a prose edit
    rebuilds it from the cache; a changed result, its Markdown untouched, rebuilds it with the new number."""
    results = tmp_path / "results"
    shutil.copytree(ROOT / "results", results)
    config, env = _machine_site(results, tmp_path / "serve")
    page = tmp_path / "serve" / "site" / "machine" / "index.html"
    serve = subprocess.Popen([sys.executable, "-c", SERVE_DIRTY, str(config), str(page)], cwd=ROOT, env=env,
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def save() -> dict:
        serve.stdin.write("saved\n")
        serve.stdin.flush()
        return json.loads(serve.stdout.readline())

    try:
        first = save()
        assert save()["mtime"] == first["mtime"]  # nothing changed: not built again
        prose = tmp_path / "serve" / "docs" / "machine.md"
        prose.write_text(prose.read_text().replace("\n\n", "\n\nA writer's new sentence.\n\n", 1))
        edited = save()
        assert "A writer&rsquo;s new sentence." in edited["html"] or "A writer's new sentence." in edited["html"]
        assert _copy_rate(edited["html"]) == _copy_rate(first["html"])
        _double_the_copy_rate(results)
        moved = save()
        assert _copy_rate(moved["html"]) == pytest.approx(2 * _copy_rate(first["html"]), rel=0.01)
    finally:
        serve.stdin.close()
        serve.wait(timeout=120)


@pytest.mark.parametrize("dirty", [True, False])
def test_a_dirty_build_keeps_the_notebooks_it_did_not_render_in_mkdocs_jupyters_cache(tree, tmp_path, monkeypatch,
                                                                                       dirty):
    """mkdocs-jupyter drops from its cache every notebook a build did not render; a dirty build renders none it has not
    changed, so the hook marks them used first. A full build renders every notebook: nothing to add."""
    from kernelbook import hooks

    cache = tmp_path / "jupyter"
    cache.mkdir()
    (cache / "rendered.json").write_text("{}")
    jupyter = type("Jupyter", (), {"config": {"cache_dir": str(cache)}, "_used_cache_paths": set()})()
    config = {"plugins": {"mkdocs-jupyter": jupyter}, "site_dir": str(tmp_path / "site"),
              "docs_dir": str(tree / "docs")}
    monkeypatch.setattr(hooks, "_dirty", [dirty])
    hooks.on_post_build(config)
    assert jupyter._used_cache_paths == ({cache / "rendered.json"} if dirty else set())


def test_block_ids_moves_markdown_execs_own_counter():
    """The one place that reaches into markdown-exec (buildcache.block_ids): its count is the N of the exec-N-- ids it
    gives the next block, and setting it renumbers them. Fails when markdown-exec renames or drops the counter."""
    import markdown
    from markdown_exec import formatter, validator

    md = markdown.Markdown(extensions=["pymdownx.superfences", "toc"], extension_configs={"pymdownx.superfences": {
        "custom_fences": [{"name": "python", "class": "python", "validator": validator, "format": formatter}]}})
    block = '```python exec="1"\nprint("## Heading\\n\\ntext")\n```\n'
    buildcache.block_ids(0)
    assert 'id="exec-1--heading"' in md.convert(block) and buildcache.block_ids() == 1
    assert 'id="exec-2--heading"' in md.convert(block) and buildcache.block_ids() == 2
    buildcache.restart_ids()
    assert 'id="exec-1--heading"' in md.convert(block)
    buildcache.block_ids(0)
