from kernelbook import page

r = page.result("decode.constraints")
dyn, st = r.data["dynamic_cache"], r.data["static_cache"]
base_d, base_s = dyn[0]["data_ptr"], st[0]["data_ptr"]


def shape(s: list) -> str:
    return " × ".join(str(x) for x in s)


print(page.table(
    ["layer 0 keys", "default cache: shape", "default cache: address vs prefill", "StaticCache: shape",
     "StaticCache: address vs prefill"],
    [[a["after"], shape(a["shape"]), f"{a['data_ptr'] - base_d:+,} B", shape(b["shape"]),
      f"{b['data_ptr'] - base_s:+,} B"] for a, b in zip(dyn, st, strict=True)],
    align="lrrrr"))
print(page.provenance(r))
