from kernelbook import across, page
from kernelbook.chapters.decode_far import report as far_report

r = page.result("decode_far.ladder")
runs = across.datas("decode_far.ladder") or [r.data]  # every fresh run of the current code
HEADS = ["decode step", "model", "timed as", "µs a step (ours: median; published: mean)", "TB/s of weights",
         "rounds' TB/s, every run"]


def tbps_range(x):  # a published step is one figure, with no rounds behind it
    return "— (published)" if x["tbps_low"] is None else f"{page.num(x['tbps_low'], 2)}–{page.num(x['tbps_high'], 2)}"


def shown(x: dict) -> list:
    return [x["who"], x["model"], x["kind"], page.num(x["step_us"], 1), page.num(x["tbps"], 2), tbps_range(x)]


rows = far_report.median_anchor_rows(runs)
table = page.table(HEADS, [shown(x) for x in rows], align="lllrrr", name="decode-far-anchors")
print(table.split('\n<p class="kb-downloads">')[0])  # the download below holds every column, not only these
print(page.downloads([*HEADS, "weights, GB", "of the copy"],
                     [[*shown(x), page.num(x["weight_gb"], 3), page.pct(x["copy_share"], 1)] for x in rows],
                     "decode-far-anchors"))
print(page.provenance(r))
