from kernelbook import across, page
from kernelbook.chapters.decode_far import report as far_report
from kernelbook.chapters.decode_far.facts import LABELS

r = page.result("decode_far.ladder")
runs = across.datas("decode_far.ladder") or [r.data]  # every fresh run of the current code
d = r.data
what = dict(LABELS)
if "attention" in d["tuning"]:
    splits = d["tuning"]["attention"]["best"][1]
    what["attention"] += f", split {splits} ways + merge" if splits > 1 else ", one program per head"
rows = far_report.median_tuning_rows(runs)
HEADS = ["site", "MiB / launch", "best config", "µs / launch", "GB/s", "of copy"]


def shown(t: dict) -> list:
    mib = "—" if t["bytes"] is None else page.num(t["bytes"] / 2**20, 2 if t["bytes"] < 2**20 else 1)
    return [page.code(t['site']), mib,
            " × ".join(str(x) for x in t["best"]), page.num(t["us"], 2), page.num(t["gbps"], 0),
            page.pct(t["share_of_copy"])]


table = page.table(HEADS, [shown(t) for t in rows], align="lrlrrr", name="decode-far-tuning")
print(table.split('\n<p class="kb-downloads">')[0])  # the download below holds every column, not only these
print(page.downloads([*HEADS, "computes", "slowest config tried, µs", "configs tried"],
                     [[*shown(t), what.get(t["site"], "—"), page.num(t["slowest_us"], 2), t["candidates"]]
                      for t in rows], "decode-far-tuning"))
print(page.provenance(r))
