"""python -m kernelbook: list, run and check the site's experiments.

  list                 each experiment's status per machine in results/: fresh, stale, missing, published, corrupt
  run NAME... | --all  measure on this GPU, one subprocess per experiment (a hang, OOM or crash stays contained)
  run --shard K/N      measure the K-th of N shards of the registry (split by timeout; --dry-run prints it)
  run ... --into DIR   store the new runs in the results folder DIR, not results/ (the GPU workflow's artifact)
  shards N             the N shards and the time limit a job needs for each (--json: a GitHub Actions matrix)
  merge DIR... --into results
                       copy the runs of other results folders in, each checked; nothing copied on a conflict
  check                exit 1 if any experiment lacks a fresh result for the primary machine, naming the fix, or
                       if a guard a page names does not hold on it (kernelbook.guards)
  notebooks            write each chapter as a notebook that measures on the reader's GPU
  schemas [--keep]     name the schema versions src/kernelbook/schemas/history.json lacks (--keep: add them)
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import sys
import time
from pathlib import Path

from kernelbook import page, paths, runner, schema, store
from kernelbook.registry import EXPERIMENTS, UnknownExperiment, get


def _err(msg: str) -> int:
    print(f"kernelbook: error: {msg}", file=sys.stderr)
    return 2


class Parser(argparse.ArgumentParser):
    """argparse with its errors on one line: what is wrong and where the help is, without the usage block."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"kernelbook: error: {message} (`{self.prog} --help` shows the options)\n")


def seconds(text: str) -> float:
    """A --timeout value: a number of seconds above zero."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds above zero")
    return value


def shard_spec(text: str) -> tuple[int, int]:
    """A --shard value: 'K/N', the K-th of N shards, 1 <= K <= N."""
    m = re.fullmatch(r"(\d+)/(\d+)", text.strip())
    if not m or not 1 <= int(m[1]) <= int(m[2]):
        raise argparse.ArgumentTypeError(f"{text!r} is not K/N with 1 <= K <= N (e.g. 2/3: the second of three)")
    return int(m[1]), int(m[2])


def commit_spec(text: str) -> str:
    if not re.fullmatch(r"[0-9a-f]{7,40}", text):
        raise argparse.ArgumentTypeError(f"{text!r} is not a git commit hash (7 to 40 hex digits)")
    return text


def _shard_line(k: int, n: int, exps: list) -> str:
    total = sum(e.timeout_s for e in exps)
    return (f"shard {k}/{n}: {len(exps)} experiment{'s' if len(exps) != 1 else ''}, timeouts adding up to {total} s "
            f"({total / 60:.0f} min); a job needs {runner.job_minutes(exps)} min: {' '.join(e.name for e in exps)}")


def cmd_list(args: argparse.Namespace) -> int:
    machines = store.machine_folders()
    primary = paths.primary_machine()
    if primary not in machines:
        machines.insert(0, primary)
    width = max(len(e.name) for e in EXPERIMENTS)
    print(f"{'experiment':<{width}}  " + "  ".join(f"{m:<14}" for m in machines))
    corrupt = []
    for e in EXPERIMENTS:
        row = []
        for m in machines:
            try:
                row.append(store.load(e.name, m).status)
            except FileNotFoundError:
                row.append(store.MISSING)
            except store.StoreError as err:
                row.append(store.CORRUPT)
                corrupt.append(str(err))
        print(f"{e.name:<{width}}  " + "  ".join(f"{s:<14}" for s in row))
    for line in corrupt:
        print(f"corrupt: {line}")
    for line in dict.fromkeys(line for m in machines for line in store.strays(m)):  # a results folder's top: once
        print(f"stray: {line}")
    print(f"\nprimary machine: {primary}  (results in {', '.join(map(str, paths.results_dirs()))})")
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    machine = paths.check_machine(args.machine, "--machine") if args.machine is not None else paths.primary_machine()
    if machine not in store.machine_folders():
        known = ", ".join(store.machine_folders()) or "none"
        print(f"kernelbook check: no results of {machine} in {', '.join(map(str, paths.results_dirs()))} (machines "
              f"with results: {known}); measure it on that GPU with `python -m kernelbook run --all`")
        return 1
    bad = []
    for e in EXPERIMENTS:
        try:
            res = store.load(e.name, machine)
        except FileNotFoundError:
            bad.append(f"MISSING  {e.name}: no result on {machine}")
            continue
        except store.StoreError as err:
            bad.append(f"CORRUPT  {e.name}: {err}")
            continue
        if res.published:
            bad.append(f"MISSING  {e.name}: {paths.display(res.path)} holds published figures, not a run measured on "
                       f"{machine}")
        elif res.stale:
            bad.append(f"STALE    {e.name}: code changed since it was measured ({', '.join(res.changed)})")
        elif args.commit and not _at_commit(res, args.commit):
            git = res.provenance.get("git") or {}
            at = str(git.get("commit") or "an unknown commit")[:12] + (" (dirty)" if git.get("dirty") else "")
            bad.append(f"OTHER    {e.name}: {paths.display(res.path)} was measured at {at}, not at "
                       f"{args.commit[:12]}")
    bad += [f"STRAY    {line}" for line in store.strays(machine)]
    from kernelbook import guards

    strict = guards.strict(machine)  # the pages are written for this machine's data: their guards must hold
    if not bad and strict:
        bad += [f"GUARD    {line}" for line in guards.check_pages(machine=machine)]
    if not bad:
        for line in guards.unsettled_pages(machine=machine) if strict else []:  # a note, not a failure (yet)
            print(f"NOTE     {line}: true of the medians shown, not of every run's verdicts")
        flagged = [] if strict else guards.check_pages(machine=machine)  # flagged on its pages, not a failure
        for line in flagged:
            print(f"FLAG     {line}")
        print(f"kernelbook check: all {len(EXPERIMENTS)} experiments have fresh results on {machine}"
              + (" and every guard the pages name holds" if strict else
                 f"; {len(flagged)} guard{'s' if len(flagged) != 1 else ''} the pages name "
                 f"do{'es' if len(flagged) == 1 else ''} not hold there (flagged ⚑ on its build of the site)"
                 if flagged else "; every guard the pages name holds there too"))
        return 0
    for line in bad:
        print(line)
    runs = [line for line in bad if not line.startswith(("STRAY", "GUARD"))  # a run of older code: not re-measured
            and "a run of older code is history" not in line]
    if any(line.startswith("GUARD") for line in bad):
        print("\nA page's words are no longer true of the data: rewrite the paragraph for what was measured, and "
              "its guard in the chapter's facts.py")
    if runs:
        names = " ".join(line.split()[1].rstrip(":") for line in runs)
        print(f"\n{len(runs)} of {len(EXPERIMENTS)} need measuring on {machine}: python -m kernelbook run {names}")
    return 1


def _at_commit(res: store.Result, commit: str) -> bool:
    """The run names that commit (a hash of 7 hex digits or more, either one a prefix of the other) and a clean tree."""
    git = res.provenance.get("git") or {}
    at = git.get("commit")
    if not isinstance(at, str) or not re.fullmatch(r"[0-9a-f]{7,40}", at) or git.get("dirty") is not False:
        return False
    return at.startswith(commit) or commit.startswith(at)


def cmd_run(args: argparse.Namespace) -> int:
    if args.all and args.names:
        return _err("name experiments or give --all, not both")
    if args.shard and args.names:
        return _err("--shard splits the whole registry: give it without names")
    try:
        exps = list(EXPERIMENTS) if args.all else [get(n) for n in dict.fromkeys(args.names)]
    except UnknownExperiment as e:
        return _err(str(e))
    if args.shard:
        k, n = args.shard
        exps = runner.shards(n)[k - 1]
        print(_shard_line(k, n, exps), flush=True)
    if not exps:
        return _err("name at least one experiment, --all or --shard K/N (`python -m kernelbook list` shows them)")
    machine = paths.check_machine(args.machine, "--machine") if args.machine is not None else None
    if args.into and Path(args.into).exists() and (Path(args.into).is_symlink() or not Path(args.into).is_dir()):
        return _err(f"--into {args.into}: not a folder; name a results folder for the new runs (it is created if "
                    f"missing)")
    if args.require_gpu is not None:
        paths.check_machine(args.require_gpu, "--require-gpu")
    if args.dry_run:
        for e in exps:
            print(f"would run {e.name} (timeout {args.timeout or e.timeout_s:.0f} s)")
        return 0
    try:  # a run is checked against its schema before it is stored: fail now, not after minutes of measuring
        for e in exps:
            schema.ready(e.name)
    except ImportError as e:
        return _err(f"{e.name or 'jsonschema'} is not installed: every run is checked against its schema before it "
                    f"is stored, so install it (pip install jsonschema) before measuring")
    slug = runner.gpu_slug()
    if slug is None:
        return _err("no CUDA GPU here: experiments measure a GPU; on a laptop, `mkdocs serve` replays stored results")
    if args.require_gpu is not None and slug != args.require_gpu:
        return _err(f"this machine's GPU is {slug}, not {args.require_gpu} (--require-gpu): is the runner labelled "
                    f"with the wrong GPU?")
    machine = machine or slug
    failed = []
    into = {"into": Path(args.into)} if args.into else {}  # the runs this command makes, and nothing else
    for i, e in enumerate(exps, 1):
        print(f"[{i}/{len(exps)}] {e.name}: {e.title} ...", flush=True)
        t0 = time.perf_counter()
        ok, msg = runner.run_one(e.name, machine, args.timeout or e.timeout_s, **into)
        status = "ok" if ok else "FAILED"
        print(f"[{i}/{len(exps)}] {e.name}: {status} in {time.perf_counter() - t0:.1f} s{'  ' + msg if msg else ''}",
              flush=True)
        if not ok:
            failed.append(e.name)
    if failed:
        print(f"kernelbook: {len(failed)} failed, earlier results kept: {' '.join(failed)}", file=sys.stderr)
        return 1
    return 0


def cmd_shards(args: argparse.Namespace) -> int:
    gpus = [paths.check_machine(g, "--gpu") for g in dict.fromkeys(args.gpu or [])]
    split = runner.shards(args.count)
    if args.json:
        include = [{"gpu": g, "shard": f"{k}/{args.count}", "name": f"{k}-of-{args.count}",
                    "timeout_minutes": runner.job_minutes(exps), "experiments": len(exps)}
                   for g in gpus or [paths.primary_machine()] for k, exps in enumerate(split, 1)]
        print(json.dumps({"include": include}, separators=(",", ":")))
        return 0
    for k, exps in enumerate(split, 1):
        print(_shard_line(k, args.count, exps))
    return 0


def cmd_merge(args: argparse.Namespace) -> int:
    plan = store.plan_merge([Path(d) for d in args.dirs], Path(args.into))
    if plan.problems:
        for line in plan.problems:
            print(f"kernelbook merge: {line}", file=sys.stderr)
        print(f"kernelbook merge: {len(plan.problems)} problem{'s' if len(plan.problems) != 1 else ''}; nothing "
              f"merged into {args.into}", file=sys.stderr)
        return 1
    store.merge(plan)
    for _, dst in plan.copy:
        print(f"+ {paths.display(dst)}")
    print(f"kernelbook merge: {len(plan.copy)} new into {args.into}, {len(plan.same)} already there")
    return 0


def cmd_schemas(args: argparse.Namespace) -> int:
    from kernelbook import schema

    if args.keep:
        added = schema.keep()
        for line in added:
            print(f"+ {line}")
        print(f"kernelbook schemas: {len(added)} version{'s' if len(added) != 1 else ''} added to "
              f"{paths.display(schema.history_path())}")
        return 0
    missing = schema.missing_versions()
    for line in missing:
        print(f"NOT KEPT {line}")
    if missing:
        print(f"\n{paths.display(schema.history_path())} lacks today's version of {len(missing)} schema"
              f"{'s' if len(missing) != 1 else ''}: runs stored under it could not be checked once their code is "
              f"older; `python -m kernelbook schemas --keep` adds them")
        return 1
    print(f"kernelbook schemas: every schema's version is kept in {paths.display(schema.history_path())}")
    return 0


def cmd_notebooks(args: argparse.Namespace) -> int:
    from kernelbook import notebooks

    try:
        written = notebooks.write_all()
    except notebooks.NotebookError as e:
        return _err(str(e))
    for p in written:
        print(f"wrote {paths.display(p)}")
    print(f"{len(notebooks.render_all())} notebooks, {len(written)} changed")
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = Parser(prog="python -m kernelbook", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", metavar="COMMAND")
    sub.required = True
    s = sub.add_parser("list", help="status of every experiment on every machine in results/")
    s.set_defaults(func=cmd_list)
    s = sub.add_parser("run", help="measure experiments on this GPU and store the results",
                       description="Measure on this GPU. Each experiment runs in its own subprocess with a timeout; "
                                   "a result is stored (atomically) only when its run succeeds.")
    s.add_argument("names", nargs="*", metavar="NAME", help="experiments to run (see `list`)")
    s.add_argument("--all", action="store_true", help="run every experiment")
    s.add_argument("--machine", help="store under this machine name instead of the GPU's own slug")
    s.add_argument("--timeout", type=seconds, help="seconds per experiment (default: each experiment's own)")
    s.add_argument("--shard", type=shard_spec, metavar="K/N",
                   help="run the K-th of N shards of the registry, split so that their timeouts add up alike")
    s.add_argument("--require-gpu", metavar="SLUG", help="refuse to run unless this machine's GPU is SLUG")
    s.add_argument("--dry-run", action="store_true", help="print what would run, and run nothing")
    s.add_argument("--into", metavar="DIR", help="store the new runs in this results folder (created if missing) "
                                                 "instead of results/: only what this command measured")
    s.set_defaults(func=cmd_run)
    s = sub.add_parser("shards", help="split the registry into N shards balanced by timeout",
                       description="Print the N shards `run --shard K/N` measures, with the time limit a job needs "
                                   "for each; --json prints a GitHub Actions matrix, one entry per GPU and shard.")
    s.add_argument("count", type=int, metavar="N", help="how many shards (1 to the number of experiments)")
    s.add_argument("--gpu", action="append", metavar="SLUG", help="a GPU model to measure on (repeat for more; "
                                                                  "default: the primary machine)")
    s.add_argument("--json", action="store_true", help="a matrix for `strategy.matrix` in a workflow")
    s.set_defaults(func=cmd_shards)
    s = sub.add_parser("merge", help="copy the runs of other results folders into results/, each checked",
                       description="Copy every results file of each DIR (a results folder: <machine>/<experiment>/"
                                   "<file>.json) into --into. Each is checked as the store checks it (JSON, schema, "
                                   "machine, experiment); a file already there with other bytes is a conflict. On "
                                   "any problem nothing is copied.")
    s.add_argument("dirs", nargs="+", metavar="DIR", help="results folders to merge in")
    s.add_argument("--into", required=True, metavar="RESULTS", help="the results folder to merge into")
    s.set_defaults(func=cmd_merge)
    s = sub.add_parser("check", help="fail on a missing, stale or corrupt result for the primary machine",
                       description="Exit 1 if any experiment lacks a fresh result on the primary machine "
                                   "(pyproject's [tool.kernelbook] primary-machine, or $KERNELBOOK_MACHINE).")
    s.add_argument("--machine", help="check this machine instead of the primary one")
    s.add_argument("--commit", type=commit_spec, metavar="SHA",
                   help="also fail on a result not measured at this commit from a clean tree (the GPU workflow)")
    s.set_defaults(func=cmd_check)
    s = sub.add_parser("notebooks", help="write docs/notebooks/<chapter>.ipynb from the chapters",
                       description="Write one notebook per chapter (its executed snippets, in page order) for "
                                   "readers to run on their own GPU. Run after changing a chapter's includes.")
    s.set_defaults(func=cmd_notebooks)
    s = sub.add_parser("schemas", help="check that history.json keeps every schema version runs are stored under",
                       description="Exit 1 if src/kernelbook/schemas/history.json lacks today's version of a "
                                   "schema: a run stored under it could not be checked once its code is older. "
                                   "--keep adds them (run it after editing a schema).")
    s.add_argument("--keep", action="store_true", help="add today's versions to history.json")
    s.set_defaults(func=cmd_schemas)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        page.check_settings(results=args.cmd in ("list", "check", "run"))  # a bad setting named before anything
        code = args.func(args)
        sys.stdout.flush()  # here, where a closed pipe can be answered, not at the interpreter's exit
        return code
    except (UnknownExperiment, store.StoreError, paths.BadSetting) as e:
        return _err(str(e))
    except BrokenPipeError:  # `python -m kernelbook list | head -1`: the reader stopped reading, nothing is wrong
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # the exit's flush has nowhere to fail
        except (OSError, ValueError):
            pass
        return 141  # as a tool ended by SIGPIPE: 128 + 13
