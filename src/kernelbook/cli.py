"""python -m kernelbook: list, run and check the site's experiments.

  list               each experiment's status per machine in results/: fresh, stale, missing, published
  run NAME... | --all  measure on this GPU, one subprocess per experiment (a hang, OOM or crash stays contained)
  check              exit 1 if any experiment lacks a fresh result for the primary machine, naming the fix
  notebooks          write each chapter as a notebook that measures on the reader's GPU
"""

from __future__ import annotations

import argparse
import sys
import time

from kernelbook import paths, runner, store
from kernelbook.registry import EXPERIMENTS, UnknownExperiment, get


def _err(msg: str) -> int:
    print(f"kernelbook: error: {msg}", file=sys.stderr)
    return 2


def cmd_list(args: argparse.Namespace) -> int:
    machines = store.machines()
    primary = paths.primary_machine()
    if primary not in machines:
        machines.insert(0, primary)
    width = max(len(e.name) for e in EXPERIMENTS)
    print(f"{'experiment':<{width}}  " + "  ".join(f"{m:<14}" for m in machines))
    for e in EXPERIMENTS:
        row = [store.status(e.name, m) for m in machines]
        print(f"{e.name:<{width}}  " + "  ".join(f"{s:<14}" for s in row))
    print(f"\nprimary machine: {primary}  (results in {paths.results_dir()})")
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    machine = paths.check_machine(args.machine, "--machine") if args.machine else paths.primary_machine()
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
    try:
        exps = list(EXPERIMENTS) if args.all else [get(n) for n in args.names]
    except UnknownExperiment as e:
        return _err(str(e))
    if not exps:
        return _err("name at least one experiment, or --all")
    machine = paths.check_machine(args.machine, "--machine") if args.machine else None
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
    p = argparse.ArgumentParser(prog="python -m kernelbook", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
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
    s.add_argument("--timeout", type=float, help="seconds per experiment (default: each experiment's own)")
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
        return args.func(args)
    except (UnknownExperiment, store.StoreError, paths.BadMachineName) as e:
        return _err(str(e))
