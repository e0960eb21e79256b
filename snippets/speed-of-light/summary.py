from kernelbook import page
from kernelbook.chapters.speed_of_light import report as sol_report

r = page.result("speed_of_light.add_rmsnorm")
big = [s for s in r.data["shapes"] if sol_report.big(s)]
best = [s["versions"]["ours"] for s in big]
share = [b["share_of_copy"] for b in best]
one_row = [s["versions"]["one_row"]["share_of_copy"] for s in big]
at_goal = sum(sol_report.at_share(s, r.experiment) for s in big)
ahead = sum(not sol_report.behind(s, r.experiment) for s in big)
both = sum(sol_report.met(s, r.experiment) for s in big)
goal = page.pct(sol_report.GOAL_SHARE)
gap = max(abs(a - b) for a, b in zip(share, one_row, strict=True)) * 100
points = f"{gap:.0f} point{'' if round(gap) == 1 else 's'}"
small = [s for s in r.data["shapes"] if s["small"]]
small_share = [s["versions"]["ours"]["share_of_copy"] for s in small]
small_tile = [s["versions"]["copy_tiled"]["share_of_copy"] for s in small]
small_gap = [t - x for t, x in zip(small_tile, small_share, strict=True)]

# the same copy cut into programs of the kernel's tile, timed in the same rounds: program size without arithmetic
tile = [s["versions"]["copy_tiled"]["share_of_copy"] for s in big]
lead, at = min(((b - t, s) for b, t, s in zip(share, tile, big, strict=True)), key=lambda p: p[0])
tile_text = (f" A copy cut into programs as large as the kernel's tile, timed in the same rounds, reached "
             f"{min(tile) * 100:.0f}% to {max(tile) * 100:.0f}% of the best copy, ")
if lead > -0.005:
    tile_text += ("and it was never half a point ahead of the kernel: a copy with programs that large loses at least "
                  "as much, so the gap is the price of the program size, not of the kernel's arithmetic or its "
                  "reduction.")
else:
    tile_text += (f"and at {sol_report.shape_text(at)} it was {-lead * 100:.1f} points ahead of the kernel, so "
                  "the size of the programs does not explain all of the gap.")
missed = [s for s in big if not sol_report.at_share(s, r.experiment)]


def kib(elements: int) -> str:
    return f"{elements * 2 / 1024:g} KiB"


if missed:
    copy_sizes = sorted({kib(s["copy_config"][0]) for s in missed})
    under = "; ".join(f"{sol_report.shape_text(s)} at {page.pct_down(x, 2)} "
                      f"({kib(s['best_config'][0] * s['hidden'])} of each tensor per program)"
                      for s, x in zip(big, share, strict=True) if s in missed)
    tile_text += (f" The shape{'s' if len(missed) > 1 else ''} under {goal}: {under}. The fastest copy there moved "
                  + " and ".join(copy_sizes) + " of each tensor per program. A row's sum of squares needs the whole "
                  "row in one program, so the kernel cannot be cut that fine without programs exchanging partial sums "
                  "([the split row below](#three-other-designs) tries that).")
behind_text = "; ".join(f"{' and '.join(o)} at {sol_report.shape_text(s)}" for s in big
                       if (o := sol_report.behind(s, r.experiment)))

own_work = (f"the rest, up to {max(small_gap) * 100:.0f} points, is the kernel's own work on each row"
            if max(small_gap) > 0.005 else "the kernel's own work adds nothing to it")
small_text = (f" The decode-sized shapes ({min(s['rows'] for s in small)} to {max(s['rows'] for s in small)} rows) "
              f"are another matter: replayed from a graph, the best kernel reached only {min(small_share) * 100:.0f}% "
              f"to {max(small_share) * 100:.0f}% of the copy. A copy cut into programs of the kernel's size reached "
              f"{min(small_tile) * 100:.0f}% to {max(small_tile) * 100:.0f}% there: part of the loss is that so few "
              f"programs cannot fill the GPU, and {own_work}.")

print(
    f"Over the {len(big)} shapes that move at least {sol_report.BIG_TEXT}, the multi-row kernel's best configuration "
    "reached "
    f"{page.pct_down(min(share))} to {page.pct_down(max(share))} of a copy that moves the same bytes (rounded "
    f"down, here and in the table). It reached {goal} at "
    f"{at_goal} of them and beat {sol_report.rivals_text(r.experiment)} at {ahead}"
    f"{f' (ahead of it: {behind_text})' if behind_text else ''}; both at {both} of "
    f"{len(big)}, so the goal is {'met' if both == len(big) else 'not met'}. The fusion chapter's one-row kernel "
    f"ranged from {min(one_row) * 100:.0f}% to {max(one_row) * 100:.0f}%, never more than {points} from it: at "
    "large shapes one row per program is already close to the copy.\n"
)
print(tile_text.strip() + "\n")
print(f"{small_text.strip()} For scale, a plain 1 GiB device copy in the same process ran at "
      f"{page.num(r.data['large_copy']['gbps'], 0)} GB/s.")
