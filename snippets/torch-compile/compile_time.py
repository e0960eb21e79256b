from kernelbook import across, page
from kernelbook.chapters.torch_compile.facts import DECODE_FIELDS, LABELS
from kernelbook.chapters.torch_compile.figures import decode_compiles

r = page.result("torch_compile.compile_time")
cw = page.result("decode.compile_warm")  # the decode step compiled in two new processes sharing one cache dir
six = page.result("decode.six_ways")  # the decode chapter's own run: max-autotune's cold compile

runs = across.datas("torch_compile.compile_time")  # every run of the current code: each time is their median
cws, sixes = across.datas("decode.compile_warm"), across.datas("decode.six_ways")
FACTS = {("add_rmsnorm", "cold"): "norm_cold_s", ("add_rmsnorm", "warm"): "norm_warm_s"}  # quoted in the prose


def over_runs(case: str, when: str, key: str, digits: int, scale: float = 1.0) -> str:
    a = across.of([{"median": d[case][when][key]} for d in runs])
    text = page.fact("torch_compile", FACTS[case, when]) if key == "first_call_s" and (case, when) in FACTS \
        else page.num(a.median * scale, digits)
    return text + across.runs_note(a, digits, scale)


def decode_over_runs(row: dict, key: str) -> across.Across:
    """One figure of the decode step's compile in a row's mode over the runs of the experiment it comes from."""
    pairs = [(cw.data, s) for s in sixes] if row["own_run"] else [(c, six.data) for c in cws]
    return across.of([{"median": next(d[key] for d in decode_compiles(*p) if d["mode"] == row["mode"])}
                      for p in pairs])


rows = []
for case in ("add_rmsnorm", "mlp_1token"):
    w = r.data[case]["warm"]
    hits = ", ".join(f"{k.split('.')[-1]} {v}" for k, v in sorted(w["cache"].items()) if "hit" in k) or "none"
    rows.append([LABELS[("compile", case)], over_runs(case, "cold", "first_call_s", 2),
                 over_runs(case, "warm", "first_call_s", 2), over_runs(case, "cold", "second_call_s", 2, 1e3), hits])
for d in decode_compiles(cw.data, six.data):  # the compile times: the page's facts, each the median over runs
    label = f"decode step, {d['mode']}" + (" (decode chapter's runs)" if d["own_run"] else "")
    field = DECODE_FIELDS[d["mode"]]
    warm = "not measured" if d["warm_s"] is None else (page.fact("torch_compile", field + "_warm_s")
                                                       + across.runs_note(decode_over_runs(d, "warm_s"), 1))
    cold = page.fact("torch_compile", field + "_cold_s") + across.runs_note(decode_over_runs(d, "cold_s"), 1)
    rows.append([label, cold, warm, across.value(decode_over_runs(d, "later_ms"), 2), "—"])
print(page.table(["function", "first call, cold cache (s)", "first call, warm cache, new process (s)",
                  "one later call, timed alone (ms)", "cache hits when warm"], rows))
print(page.provenance(r))
print(page.provenance(cw))
print(page.provenance(six))
