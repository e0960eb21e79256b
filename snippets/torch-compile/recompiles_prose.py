from kernelbook import page

r = page.result("torch_compile.recompiles")
laptop = page.result("torch_compile.recompiles", "nvidia-geforce-rtx-4060-laptop-gpu").data
calls = {c["tokens"]: c for c in r.data["calls"]}
second = calls[2]
later = [c for t, c in calls.items() if t > 2]
quiet = all(c["graphs_compiled"] == 0 for c in later)
print("The 2-token call failed the guard and compiled again; the call took "
      f"**{page.num(second['seconds'], 2)} s** (the "
      f"article's laptop: {laptop['recompile_s']} s). " + (
          f"The {' and '.join(str(c['tokens']) for c in later)}-token calls compiled nothing and took "
          f"{' and '.join(page.num(c['seconds'] * 1e3, 1) + ' ms' for c in later)}: the second graph already has "
          "the token count as a symbol." if quiet else
          f"The later calls compiled {sum(c['graphs_compiled'] for c in later)} more graph(s), so the second compile "
          "did not make the token count symbolic here."))
