"""python -m kernelbook: list, run and check the site's experiments.

  list               each experiment's status per machine in results/: fresh, stale, missing, published
  run NAME... | --all  measure on this GPU, one subprocess per experiment (a hang, OOM or crash stays contained)
  check              exit 1 if any experiment lacks a fresh result for the primary machine, naming the fix
  notebooks          write each chapter as a notebook that measures on the reader's GPU
"""

from __future__ import annotations

import argparse
import math
import sys
import time

from kernelbook import paths, runner, store
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
    if not bad:
        print(f"kernelbook check: all {len(EXPERIMENTS)} experiments have fresh results on {machine}")
        return 0
    for line in bad:
        print(line)
    names = " ".join(line.split()[1].rstrip(":") for line in bad)
    print(f"\n{len(bad)} of {len(EXPERIMENTS)} need measuring on {machine}: python -m kernelbook run {names}")
    return 1


def cmd_run(args: argparse.Namespace) -> int:
    if args.all and args.names:
        return _err("name experiments or give --all, not both")
    try:
        exps = list(EXPERIMENTS) if args.all else [get(n) for n in dict.fromkeys(args.names)]
    except UnknownExperiment as e:
        return _err(str(e))
    if not exps:
        return _err("name at least one experiment, or --all (`python -m kernelbook list` shows them)")
    machine = paths.check_machine(args.machine, "--machine") if args.machine is not None else None
    slug = runner.gpu_slug()
    if slug is None:
        return _err("no CUDA GPU here: experiments measure a GPU; on a laptop, `mkdocs serve` replays stored results")
    machine = machine or slug
    failed = []
    for i, e in enumerate(exps, 1):
        print(f"[{i}/{len(exps)}] {e.name}: {e.title} ...", flush=True)
        t0 = time.perf_counter()
        ok, msg = runner.run_one(e.name, machine, args.timeout or e.timeout_s)
        status = "ok" if ok else "FAILED"
        print(f"[{i}/{len(exps)}] {e.name}: {status} in {time.perf_counter() - t0:.1f} s{'  ' + msg if msg else ''}",
              flush=True)
        if not ok:
            failed.append(e.name)
    if failed:
        print(f"kernelbook: {len(failed)} failed, earlier results kept: {' '.join(failed)}", file=sys.stderr)
        return 1
    return 0


def cmd_child(args: argparse.Namespace) -> int:
    return runner.child(args.name, args.out)


def cmd_notebooks(args: argparse.Namespace) -> int:
    from kernelbook import notebooks

    written = notebooks.write_all()
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
    s.set_defaults(func=cmd_run)
    s = sub.add_parser("check", help="fail on a missing, stale or corrupt result for the primary machine",
                       description="Exit 1 if any experiment lacks a fresh result on the primary machine "
                                   "(pyproject's [tool.kernelbook] primary-machine, or $KERNELBOOK_MACHINE).")
    s.add_argument("--machine", help="check this machine instead of the primary one")
    s.set_defaults(func=cmd_check)
    s = sub.add_parser("notebooks", help="write docs/notebooks/<chapter>.ipynb from the chapters",
                       description="Write one notebook per chapter (its executed snippets, in page order) for "
                                   "readers to run on their own GPU. Run after changing a chapter's includes.")
    s.set_defaults(func=cmd_notebooks)
    s = sub.add_parser("_child")  # internal: one experiment inside its own process
    s.add_argument("name")
    s.add_argument("out")
    s.set_defaults(func=cmd_child)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.cmd in ("list", "check", "run"):  # a bad setting is named before anything else happens
            paths.primary_machine()
            paths.results_dir()
        return args.func(args)
    except (UnknownExperiment, store.StoreError, paths.BadSetting) as e:
        return _err(str(e))
