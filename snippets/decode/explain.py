from kernelbook import page

ex = page.result("decode.constraints").data["explain"]
lap = page.result("decode.constraints", "nvidia-geforce-rtx-4060-laptop-gpu").data["explain"]
breaks = ex["graph_break_count"]
print(
    f"`torch._dynamo.explain` on the same static-cache step finds {ex['graph_count']} "
    f"graph{'s' if ex['graph_count'] != 1 else ''} and {breaks} graph break{'s' if breaks != 1 else ''}"
    + (f" ({'; '.join(ex['break_reasons'][:2])})" if breaks else "")
    + f", {page.num(ex['op_count'], 0)} operations in all (the article: {lap['graph_count']} graph, "
    f"{lap['graph_break_count']} breaks, {page.num(lap['op_count'], 0)} operations). "
    + ("One graph with no breaks is what lets reduce-overhead capture the whole step as one CUDA graph."
       if ex["graph_count"] == 1 and breaks == 0 else
       "With more than one graph, reduce-overhead captures each piece separately and runs the gaps eagerly.")
)
