from kernelbook import across, page
from kernelbook.chapters.torch_compile.facts import LABELS, decode_compiles

r = page.result("torch_compile.compile_time")
cw = page.result("decode.compile_warm")  # the decode step compiled in two new processes sharing one cache dir
six = page.result("decode.six_ways")  # the decode chapter's own run: max-autotune's cold compile

runs = across.datas("torch_compile.compile_time")  # every run of the current code: each time is their median


def over_runs(case: str, when: str, key: str, digits: int, scale: float = 1.0) -> str:
    return across.value(across.of([{"median": d[case][when][key]} for d in runs]), digits, scale)


rows = []
for case in ("add_rmsnorm", "mlp_1token"):
    w = r.data[case]["warm"]
    hits = ", ".join(f"{k.split('.')[-1]} {v}" for k, v in sorted(w["cache"].items()) if "hit" in k) or "none"
    rows.append([LABELS[("compile", case)], over_runs(case, "cold", "first_call_s", 2),
                 over_runs(case, "warm", "first_call_s", 2), over_runs(case, "cold", "second_call_s", 2, 1e3), hits])
for d in decode_compiles(cw.data, six.data):
    label = f"decode step, {d['mode']}" + (" (decode chapter's run)" if d["own_run"] else "")
    warm = "not measured" if d["warm_s"] is None else page.num(d["warm_s"], 1)
    rows.append([label, page.num(d["cold_s"], 1), warm, page.num(d["later_ms"], 2), "—"])
print(page.table(["function", "first call, cold cache (s)", "first call, warm cache, new process (s)",
                  "a later call (ms)", "cache hits when warm"], rows))
print(page.provenance(r))
print(page.provenance(cw))
print(page.provenance(six))
