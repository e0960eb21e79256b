from kernelbook import page

r = page.result("sol.add_rmsnorm")
RIVALS = ["torch.compile", "F.rms_norm", "Liger-Kernel"]
big = [s for s in r.data["shapes"] if s["bytes"] >= 64 << 20]
best = [s["versions"]["multi-row Triton (best)"] for s in big]
share = [b["share_of_copy"] for b in best]
one_row = [s["versions"]["one-row Triton"]["share_of_copy"] for s in big]
at_98 = sum(x >= 0.98 for x in share)
ahead = sum(all(b["ms"] < s["versions"][o]["ms"] for o in RIVALS if "ms" in s["versions"].get(o, {}))
            for b, s in zip(best, big, strict=True))
both = sum(x >= 0.98 and all(b["ms"] < s["versions"][o]["ms"] for o in RIVALS if "ms" in s["versions"].get(o, {}))
           for x, b, s in zip(share, best, big, strict=True))
gap = max(abs(a - b) for a, b in zip(share, one_row, strict=True)) * 100
points = f"{gap:.0f} point{'' if round(gap) == 1 else 's'}"
small = [s for s in r.data["shapes"] if s["small"]]
small_share = [s["versions"]["multi-row Triton (best)"]["share_of_copy"] for s in small]
small_tile = [s["versions"]["same-bytes copy, kernel-sized programs"]["share_of_copy"] for s in small]
small_gap = [t - x for t, x in zip(small_tile, small_share, strict=True)]

# the same copy cut into programs of the kernel's tile, timed in the same rounds: program size without arithmetic
tile = [s["versions"]["same-bytes copy, kernel-sized programs"]["share_of_copy"] for s in big]
lead, at = min(((b - t, s) for b, t, s in zip(share, tile, big, strict=True)), key=lambda p: p[0])
tile_text = (f" A copy cut into programs as large as the kernel's tile, timed in the same rounds, reached "
             f"{min(tile) * 100:.0f}% to {max(tile) * 100:.0f}% of the best copy, ")
if lead > -0.005:
    tile_text += ("and it was never half a point ahead of the kernel: a copy with programs that large loses at least "
                  "as much, so the gap is the price of the program size, not of the kernel's arithmetic or its "
                  "reduction.")
else:
    tile_text += (f"and at {at['rows']:,} × {at['hidden']:,} it was {-lead * 100:.1f} points ahead of the kernel, so "
                  "the size of the programs does not explain all of the gap.")
missed = [s for s, x in zip(big, share, strict=True) if x < 0.98]


def kib(elements: int) -> str:
    return f"{elements * 2 / 1024:g} KiB"


if missed:
    copy_sizes = sorted({kib(s["copy_config"][0]) for s in missed})
    under = "; ".join(f"{s['rows']:,} × {s['hidden']:,} at {page.pct_down(x, 2)} "
                      f"({kib(s['best_config'][0] * s['hidden'])} of each tensor per program)"
                      for s, x in zip(big, share, strict=True) if x < 0.98)
    tile_text += (f" The shape{'s' if len(missed) > 1 else ''} under 98%: {under}. The fastest copy there moved "
                  + " and ".join(copy_sizes) + " of each tensor per program. A row's sum of squares needs the whole "
                  "row in one program, so the kernel cannot be cut that fine without programs exchanging partial sums "
                  "([the split row below](#three-other-designs) tries that).")
behind = {f"{s['rows']:,} × {s['hidden']:,}": [o for o in RIVALS if s["versions"].get(o, {}).get("ms", 1e9) <= b["ms"]]
          for b, s in zip(best, big, strict=True)}
behind_text = "; ".join(f"{' and '.join(o)} at {k}" for k, o in behind.items() if o)

own_work = (f"the rest, up to {max(small_gap) * 100:.0f} points, is the kernel's own work on each row"
            if max(small_gap) > 0.005 else "the kernel's own work adds nothing to it")
small_text = (f" The decode-sized shapes ({min(s['rows'] for s in small)} to {max(s['rows'] for s in small)} rows) "
              f"are another matter: replayed from a graph, the best kernel reached only {min(small_share) * 100:.0f}% "
              f"to {max(small_share) * 100:.0f}% of the copy. A copy cut into programs of the kernel's size reached "
              f"{min(small_tile) * 100:.0f}% to {max(small_tile) * 100:.0f}% there: part of the loss is that so few "
              f"programs cannot fill the GPU, and {own_work}.")

print(
    f"Over the {len(big)} shapes that move at least 64 MiB, the multi-row kernel's best configuration reached "
    f"{page.pct_down(min(share))} to {page.pct_down(max(share))} of a copy that moves the same bytes (rounded "
    "down, here and in the table). It reached 98% at "
    f"{at_98} of them and beat torch.compile, Liger-Kernel and F.rms_norm at {ahead}"
    f"{f' (ahead of it: {behind_text})' if behind_text else ''}; both at {both} of "
    f"{len(big)}, so the goal is {'met' if both == len(big) else 'not met'}. The fusion chapter's one-row kernel "
    f"ranged from {min(one_row) * 100:.0f}% to {max(one_row) * 100:.0f}%, never more than {points} from it: at "
    "large shapes one row per program is already close to the copy.\n"
)
print(tile_text.strip() + "\n")
print(f"{small_text.strip()} For scale, a plain 1 GiB device copy in the same process ran at "
      f"{page.num(r.data['large_copy']['gbps'], 0)} GB/s.")
