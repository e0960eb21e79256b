"""The Python model of the caching allocator: its rules, the article's fragmentation, and the H200 when stored."""

from __future__ import annotations

import pytest

from kernelbook import paths, store
from kernelbook.chapters.allocator import parse, scripts
from kernelbook.chapters.allocator.model import (
    CachingAllocatorModel,
    MiB,
    ModelOutOfMemory,
    allocation_size,
    format_size,
    round_size,
)


@pytest.mark.parametrize("n, rounded, segment", [
    (1, 512, 2 * MiB), (512, 512, 2 * MiB), (513, 1024, 2 * MiB), (3000, 3072, 2 * MiB), (MiB, MiB, 2 * MiB),
    (MiB + 1, MiB + 512, 20 * MiB), (5 * MiB, 5 * MiB, 20 * MiB), (10 * MiB - 1, 10 * MiB, 10 * MiB),
    (10 * MiB + 1, 10 * MiB + 512, 12 * MiB), (100 * MiB, 100 * MiB, 100 * MiB), (101 * MiB, 101 * MiB, 102 * MiB),
])
def test_rounding_and_segment_sizes(n, rounded, segment):
    assert round_size(n) == rounded
    assert allocation_size(round_size(n)) == segment


def test_format_size_matches_c10():
    assert format_size(1024) == "1024 bytes"
    assert format_size(1025) == "1.00 KiB"
    assert format_size(896 * MiB) == "896.00 MiB"
    assert format_size(2 << 30) == "2.00 GiB"


def test_article_fragmentation_default():
    cps = scripts.predict_fragmentation()["checkpoints"]
    mib = [(c["allocated"] // MiB, c["reserved"] // MiB, c["inactive_split"] // MiB) for c in cps]
    assert mib[:3] == [(1920, 1922, 0), (0, 1922, 0), (1024, 1922, 896)]
    err = cps[3]["error"]
    assert err is not None and err["alloc_size"] == 200 * MiB
    # the retry released the empty 2 MiB small-pool segment of the first tensor, which is why the message says 896
    assert (err["allocated"], err["reserved"]) == (1024 * MiB, 1920 * MiB)
    assert err["num_alloc_retries"] == 1 and err["num_ooms"] == 1
    parsed = parse.parse_oom(err["message"])
    assert parsed["allocated"] == 1024 * MiB and parsed["unallocated"] == 896 * MiB and parsed["allowed"] == 2 << 30
    assert sum(1 for s in cps[3]["segments"] if [b[0] for b in s["blocks"]] == [64 * MiB, 56 * MiB]) == 16


def test_article_fragmentation_expandable_succeeds():
    cps = scripts.predict_fragmentation(expandable=True)["checkpoints"]
    assert [c["error"] for c in cps] == [None] * 4
    assert (cps[-1]["allocated"] // MiB, cps[-1]["reserved"] // MiB) == (1224, 1922)
    large = [s for s in cps[-1]["segments"] if s["pool"] == "large"]
    assert len(large) == 1 and large[0]["expandable"] and large[0]["size"] == 1920 * MiB


def test_split_thresholds():
    m = CachingAllocatorModel()
    a = m.malloc(100 * MiB)
    m.free(a)
    m.malloc(int(99.5 * MiB))  # leftover 0.5 MiB <= 1 MiB: the large pool hands out the whole block
    assert m.state()["segments"][0]["blocks"] == [[100 * MiB, "alloc"]]
    m = CachingAllocatorModel()
    m.free(m.malloc(2 * MiB))  # a large request under 10 MiB: a 20 MiB segment
    m.malloc(MiB + 1)
    assert [b[0] for b in m.state()["segments"][0]["blocks"]] == [MiB + 512, 19 * MiB - 512]


def test_best_fit_prefers_the_smallest_block():
    m = CachingAllocatorModel()
    big, small = m.malloc(200 * MiB), m.malloc(50 * MiB)
    m.free(big)
    m.free(small)
    m.malloc(40 * MiB)
    sizes = {s["size"]: [b[1] for b in s["blocks"]] for s in m.state()["segments"]}
    assert sizes[50 * MiB] == ["alloc", "free"] and sizes[200 * MiB] == ["free"]


def test_free_merges_neighbours_and_empty_cache_releases_whole_segments():
    m = CachingAllocatorModel()
    hs = [m.malloc(6 * MiB) for _ in range(3)]
    m.free(hs[0])
    m.free(hs[2])
    assert [b[0] for b in m.state()["segments"][0]["blocks"]] == [6 * MiB, 6 * MiB, 8 * MiB]
    m.empty_cache()
    assert m.reserved == 20 * MiB  # split: a live tensor pins the segment
    m.free(hs[1])
    assert m.state()["segments"][0]["blocks"] == [[20 * MiB, "free"]]
    m.empty_cache()
    assert m.reserved == 0 and m.trace[-1]["action"] == "segment_free"


def test_max_split_size_keeps_oversize_blocks_whole():
    m = CachingAllocatorModel(max_split_size=100 * MiB)
    m.free(m.malloc(200 * MiB))
    m.malloc(50 * MiB)  # an oversize cached block is not handed to a small request: a new segment instead
    assert sorted(s["size"] for s in m.state()["segments"]) == [50 * MiB, 200 * MiB]


def test_expandable_grows_in_pages_and_unmaps_its_tail():
    m = CachingAllocatorModel(expandable=True)
    a = m.malloc(5 * MiB)
    assert m.reserved == 20 * MiB
    b = m.malloc(30 * MiB)  # 15 MiB free at the end: one more 20 MiB page
    assert m.reserved == 40 * MiB and len(m.segments) == 1
    m.free(a)
    m.free(b)
    m.empty_cache()
    assert m.reserved == 0


def test_cap_raises_out_of_memory():
    m = CachingAllocatorModel(cap=100 * MiB)
    m.malloc(90 * MiB)
    with pytest.raises(ModelOutOfMemory, match="Tried to allocate 20.00 MiB"):
        m.malloc(5 * MiB)  # a 5 MiB request asks for a whole 20 MiB segment


def test_vllm_capture_sizes():
    sizes = scripts.vllm_capture_sizes(512)
    assert len(sizes) == 51 and sizes[:4] == [1, 2, 4, 8] and sizes[-1] == 512 and len(set(sizes)) == 51


def _stored(name: str):
    try:
        res = store.load(name, paths.primary_machine())
    except FileNotFoundError:
        pytest.skip(f"no stored H200 result for {name}")
    return res


def test_model_matches_stored_h200_segments(monkeypatch):
    monkeypatch.delenv("KERNELBOOK_RESULTS", raising=False)
    res = _stored("allocator.segments")
    predicted = scripts.predict_cases()
    for case in res.data["cases"]:
        for m, p in zip(case["measured"], predicted[case["label"]], strict=True):
            assert all(parse.compare(m, p).values()), f"{case['label']} / {m['label']}: model differs from the H200"


def test_model_matches_stored_h200_fragmentation(monkeypatch):
    monkeypatch.delenv("KERNELBOOK_RESULTS", raising=False)
    res = _stored("allocator.fragmentation")
    for key in ("default", "expandable"):
        run = res.data[key]
        predicted = scripts.predict_fragmentation(cap=run["cap_bytes"], expandable=key == "expandable")
        for m, p in zip(run["checkpoints"], predicted["checkpoints"], strict=True):
            assert all(parse.compare(m, p).values()), f"{key} / {m['label']}: model differs from the H200"
            assert (m["error"] is None) == (p["error"] is None), f"{key} / {m['label']}: out of memory differs"


@pytest.mark.gpu
@pytest.mark.skipif(not __import__("torch").cuda.is_available(), reason="needs a CUDA GPU")
def test_model_matches_this_gpu():
    from kernelbook.chapters.allocator.experiments import measure_fragmentation, measure_segments

    for case in measure_segments()["cases"]:
        for ok, m in zip(case["match"], case["measured"], strict=True):
            assert all(ok.values()), f"{case['label']} / {m['label']}: {ok}"
    frag = measure_fragmentation()
    assert all(all(ok.values()) for k in ("default", "expandable") for ok in frag[k]["match"])
