"""One site, built strictly under MkDocs and under Zensical side by side, from results no one should have to trust: the
committed runs with the runs of one experiment gone stale, a reader's GPU in a folder of its own, a second reader's
folder with a broken file, and markup in every stored string. Each test reads one property off the two sites.

Four whole-site builds of their own (a stale result, a reader's GPU with markup, a reader's corrupt folder, the
stale result again under Zensical) became this one pair: the slow step's longest part."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, run_file
from test_bad_input import READER as CORRUPT_READER
from test_bad_input import reader_folder
from test_trust import edit, mark_stored_strings, reader_gpu

from kernelbook import registry, store

pytestmark = pytest.mark.slow  # a pair of whole-site builds (.ci/run runs them)
ZENSICAL = shutil.which("zensical", path=str(Path(sys.executable).parent)) or shutil.which("zensical")
STALE = "fusing_by_hand.exactness"  # shown by its chapter's table and facts, and by the claims ledger
PAGES = sorted(p.stem for p in (ROOT / "docs").glob("*.md"))
LEFT_OFF = f"kernelbook: {CORRUPT_READER} left off the site, a result cannot be read: "


def make_results(results: Path) -> None:
    shutil.copytree(ROOT / "results", results)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("KERNELBOOK_RESULTS", str(results))
        mp.setenv("KERNELBOOK_MODE", "replay")
        mp.delenv("KERNELBOOK_MACHINE", raising=False)
        reader_gpu(results)  # a copy of the newest fresh H200 runs, filed as READER's
    for path in results.glob(f"nvidia-h200/{STALE}/2*.json"):  # STALE's runs, as if its code had changed since
        edit(path, lambda rec: rec["provenance"]["source_hashes"].update(
            {next(iter(rec["provenance"]["source_hashes"])): "0" * 16}))
    for path in results.glob("*/*/*.json"):
        edit(path, mark_stored_strings)
    reader_folder(results, CORRUPT_READER)
    run_file(results, "machine.ceilings", CORRUPT_READER).write_text('{"schema": 1, "data": ')


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """{"mkdocs": (site, stderr), "zensical": (site, stderr)}: the two builds, run at once."""
    if not ZENSICAL:
        pytest.skip("zensical is not installed (.ci/run installs it)")
    tmp = tmp_path_factory.mktemp("stranger")
    results = tmp / "results"
    make_results(results)
    env = {k: v for k, v in os.environ.items() if not k.startswith("KERNELBOOK_")}
    env.update(KERNELBOOK_RESULTS=str(results), KERNELBOOK_MODE="replay", NO_MKDOCS_2_WARNING="1")
    work = tmp / "z"  # Zensical builds into the config's site_dir, inside the project: a copy of the project
    shutil.copytree(ROOT, work, ignore=shutil.ignore_patterns(".venv", ".git", ".cache", "site", "artifacts",
                                                               "__pycache__"))
    runs = {
        "mkdocs": (tmp / "mk", subprocess.Popen(
            [sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(tmp / "mk")], cwd=ROOT, env=env,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)),
        "zensical": (work / "site", subprocess.Popen(
            [ZENSICAL, "build", "-f", "mkdocs.yml", "--clean", "--strict"], cwd=work,
            env={**env, "PYTHONPATH": str(work / "src")}, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)),
    }
    out = {}
    for name, (site, proc) in runs.items():
        stdout, stderr = proc.communicate(timeout=900)
        assert proc.returncode == 0, f"{name}: {(stdout + stderr)[-3000:]}"
        out[name] = (site, stdout + stderr)
    return out


def html_of(site: Path, stem: str) -> str:
    return (site / ("index.html" if stem == "index" else f"{stem}/index.html")).read_text()


def warned(site: Path) -> set[str]:
    """The pages whose stale-result warning names STALE."""
    return {stem for stem in PAGES if f"<code>{STALE}</code>" in html_of(site, stem)}


def test_the_pages_that_show_the_stale_result_say_so(built):
    assert {"fusing-by-hand", "claims"} <= warned(built["mkdocs"][0])


def test_pages_that_do_not_show_it_carry_no_warning(built):
    site = built["mkdocs"][0]
    with pytest.MonkeyPatch.context() as mp:  # a checkout whose code has moved on has other stale runs: none here
        mp.setenv("KERNELBOOK_RESULTS", str(site.parent / "results"))
        stale = [e.name for e in registry.EXPERIMENTS if store.status(e.name, "nvidia-h200") == store.STALE]
    for stem in ("machine", "allocator", "decode-far"):
        html = html_of(site, stem)
        assert f"<code>{STALE}</code>" not in html, stem
        if stale == [STALE]:
            assert "kb-stale" not in html, stem


def test_a_stale_result_warns_on_the_same_pages_under_both(built):
    assert warned(built["zensical"][0]) == warned(built["mkdocs"][0])


@pytest.mark.parametrize("build", ["mkdocs", "zensical"])
def test_a_readers_gpu_has_a_column_labelled_by_its_folder(built, build):
    """The machines page's table and the claims ledger: the fixture's column beside the H200's."""
    for stem in ("machines", "claims"):
        html = html_of(built[build][0], stem)
        assert re.search(r"<th[^>]*>\s*H200\s*</th>", html) and re.search(r"<th[^>]*>\s*H200 Fixture\s*</th>", html), \
            stem


@pytest.mark.parametrize("build", ["mkdocs", "zensical"])
def test_no_stored_string_reaches_the_html_as_markup(built, build):
    """The provenance's strings everywhere, and every string of the reader's data (test_trust.mark_data_strings: a
    tag, a code span and a fence line each; only its provenance was marked before issue 58, so a Dynamo reason in
    the claims ledger went raw): no tag of theirs in any page, and the reader's shown as text on the ledger."""
    shown = 0
    for f in built[build][0].rglob("*.html"):
        text = f.read_text(errors="replace")
        assert "Traceback (most recent call last)" not in text, f"{f}: an exec block failed"
        for raw in ("<script>alert", "<img src=x", "<b>x</b>", "<kbx"):
            assert raw not in text, f"{f}: {text[text.index(raw) - 300:][:600]}" if raw in text else ""
        shown += text.count("&lt;script&gt;alert")
    assert shown, "the stored strings are shown, as text"
    assert "&lt;kbx onerror=" in html_of(built[build][0], "claims"), "the reader's data, as text"


@pytest.mark.parametrize("build", ["mkdocs", "zensical"])
def test_a_readers_corrupt_folder_is_left_off_and_named(built, build):
    site, log = built[build]
    assert LEFT_OFF in log and f"check --machine {CORRUPT_READER}" in log, log[-3000:]
    if build == "mkdocs":
        assert log.count(LEFT_OFF) == 1, log[-3000:]
    assert "RTX 4090" not in html_of(site, "machines")


@pytest.mark.parametrize("build", ["mkdocs", "zensical"])
def test_code_carries_no_span_around_names_and_spaces(built, build):
    """Pygments' name and space spans weigh a fifth of a page of kernels and change no colour: both builds drop
    them, and the code keeps its other tokens' colours."""
    html = html_of(built[build][0], "fusing-by-hand")
    assert '<span class="n">' not in html and '<span class="w">' not in html
    assert '<span class="k">' in html  # keywords keep theirs
