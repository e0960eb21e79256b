"""A model of PyTorch's CUDA caching allocator in pure Python: what it reserves, what it splits, when it fails.

The rules are those of c10/cuda/CUDACachingAllocator.cpp (PyTorch 2.x), for one device and one stream:
  - every request rounds up to a multiple of 512 bytes (`round_size`, with roundup_power2_divisions off);
  - requests up to 1 MiB come from the small pool, larger ones from the large pool; the pools never mix;
  - a new segment (one cudaMalloc) is 2 MiB for a small request, 20 MiB for a request under 10 MiB, and the
    request rounded up to 2 MiB otherwise (`allocation_size`);
  - a request first takes the smallest cached free block of its pool that fits (best fit, lowest address on a
    tie); the block is split when the remainder is at least 512 bytes (small pool, expandable segments) or more
    than 1 MiB (large pool), and only for requests under max_split_size;
  - a freed block merges with free neighbours of its own segment, and stays cached;
  - when a new segment would exceed the cap (set_per_process_memory_fraction) or the device, the allocator frees
    every cached segment that is not split (nothing alive in it) and tries once more, then raises out of memory;
  - with expandable segments, each pool has one segment that grows by 2 MiB (small) or 20 MiB (large) pages.
Simplifications: one stream, no CUDA graph pools, no garbage-collection threshold; an expandable segment is
unmapped only from its free tail (the real allocator can also unmap free pages in the middle).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

KiB, MiB, GiB = 1 << 10, 1 << 20, 1 << 30
# --8<-- [start:rules]
MIN_BLOCK = 512  # kMinBlockSize: every size rounds up to a multiple of this
SMALL_SIZE = 1 * MiB  # kSmallSize: the largest small-pool request
SMALL_BUFFER = 2 * MiB  # kSmallBuffer: one small-pool segment
LARGE_BUFFER = 20 * MiB  # kLargeBuffer: one segment for a 1-10 MiB request
MIN_LARGE_ALLOC = 10 * MiB  # kMinLargeAlloc: from here on a request gets its own segment
ROUND_LARGE = 2 * MiB  # kRoundLarge: such a segment rounds up to 2 MiB
NO_LIMIT = 1 << 62


class ModelOutOfMemory(RuntimeError):
    """The model's out-of-memory error; its message carries the same figures as PyTorch's."""

    def __init__(self, message: str, alloc_size: int, allocated: int, reserved: int):
        super().__init__(message)
        self.alloc_size, self.allocated, self.reserved = alloc_size, allocated, reserved


def round_size(nbytes: int) -> int:
    """Bytes a request occupies: at least 512, in multiples of 512."""
    return MIN_BLOCK if nbytes < MIN_BLOCK else MIN_BLOCK * -(-nbytes // MIN_BLOCK)


def pool_of(size: int) -> str:
    return "small" if size <= SMALL_SIZE else "large"


def allocation_size(size: int) -> int:
    """Bytes of a new segment for a rounded request of `size` bytes (get_allocation_size)."""
    if size <= SMALL_SIZE:
        return SMALL_BUFFER
    if size < MIN_LARGE_ALLOC:
        return LARGE_BUFFER
    return ROUND_LARGE * -(-size // ROUND_LARGE)
# --8<-- [end:rules]


def format_size(nbytes: int) -> str:
    """c10's format_size: the way the out-of-memory message prints a byte count."""
    if nbytes <= 1024:
        return f"{nbytes} bytes"
    if nbytes <= MiB:
        return f"{nbytes / KiB:.2f} KiB"
    if nbytes <= GiB:
        return f"{nbytes / MiB:.2f} MiB"
    return f"{nbytes / GiB:.2f} GiB"


@dataclass(eq=False)
class Block:
    addr: int
    size: int
    allocated: bool = False
    requested: int = 0


@dataclass(eq=False)
class Segment:
    pool: str  # "small" | "large"
    addr: int
    blocks: list[Block] = field(default_factory=list)  # contiguous, in address order
    expandable: bool = False

    @property
    def size(self) -> int:
        return sum(b.size for b in self.blocks)


class CachingAllocatorModel:
    """Predicts allocated, reserved and inactive-split bytes, the segments, and out-of-memory errors."""

    def __init__(self, cap: int | None = None, device_free: int | None = None, expandable: bool = False,
                 max_split_size: int | None = None):
        self.cap = cap  # bytes allowed by set_per_process_memory_fraction, or None
        self.device_free = NO_LIMIT if device_free is None else device_free  # what cudaMalloc can still give
        self.expandable = expandable
        self.max_split = NO_LIMIT if max_split_size is None else max_split_size
        self.segments: list[Segment] = []
        self.handles: dict[int, Block] = {}
        self.num_ooms = 0
        self.num_alloc_retries = 0
        self._next_handle = 0
        self._next_addr = 1 << 40
        self._seg_ids: dict[int, int] = {}  # id(segment) -> creation order
        self.trace: list[dict[str, Any]] = []  # the events a memory snapshot's trace would show

    def _event(self, action: str, size: int, seg: Segment | None = None) -> None:
        sid = None if seg is None else self._seg_ids.setdefault(id(seg), len(self._seg_ids))
        self.trace.append({"i": len(self.trace), "action": action, "size": size, "segment": sid})

    # ---- the public operations -------------------------------------------------------------------------------

    def malloc(self, nbytes: int) -> int:
        """Allocate `nbytes`; returns a handle for `free`. Raises ModelOutOfMemory like the real allocator."""
        size = round_size(nbytes)
        pool = pool_of(size)
        alloc_size = allocation_size(size)
        found = self._free_block(pool, size)
        if found is None:
            found = self._new_block(pool, size, alloc_size)
        if found is None:
            self._release_available(pool, size)
            found = self._new_block(pool, size, alloc_size)
        if found is None:
            self.release_cached()
            self.num_alloc_retries += 1
            found = self._new_block(pool, size, alloc_size)
        if found is None:
            self.num_ooms += 1
            self._event("oom", size)
            raise self._oom(alloc_size)
        seg, block = found
        if self._should_split(seg, block, size):
            rest = Block(block.addr + size, block.size - size)
            block.size = size
            seg.blocks.insert(seg.blocks.index(block) + 1, rest)
        block.allocated, block.requested = True, nbytes
        self._event("alloc", nbytes, seg)
        self._next_handle += 1
        self.handles[self._next_handle] = block
        return self._next_handle

    def free(self, handle: int) -> None:
        block = self.handles.pop(handle)
        seg = self._segment_of(block)
        self._event("free_completed", block.requested, seg)
        block.allocated, block.requested = False, 0
        i = seg.blocks.index(block)
        if i + 1 < len(seg.blocks) and not seg.blocks[i + 1].allocated:
            block.size += seg.blocks.pop(i + 1).size
        if i > 0 and not seg.blocks[i - 1].allocated:
            prev = seg.blocks[i - 1]
            prev.size += seg.blocks.pop(i).size

    def empty_cache(self) -> None:
        self.release_cached()

    def release_cached(self) -> None:
        """release_cached_blocks: cudaFree every segment with nothing alive; unmap free expandable pages."""
        keep = []
        for seg in self.segments:
            if seg.expandable:
                self._unmap_tail(seg)
                if seg.blocks:
                    keep.append(seg)
            elif len(seg.blocks) == 1 and not seg.blocks[0].allocated:
                self.device_free += seg.size
                self._event("segment_free", seg.size, seg)
            else:
                keep.append(seg)
        self.segments = keep

    # ---- what the model predicts ---------------------------------------------------------------------------

    @property
    def allocated(self) -> int:
        return sum(b.size for s in self.segments for b in s.blocks if b.allocated)

    @property
    def reserved(self) -> int:
        return sum(s.size for s in self.segments)

    @property
    def inactive_split(self) -> int:
        """Free bytes in split segments: cached, yet not releasable (expandable segments are not counted)."""
        return sum(b.size for s in self.segments if not s.expandable and len(s.blocks) > 1
                   for b in s.blocks if not b.allocated)

    def state(self) -> dict[str, Any]:
        """Same shape as the measured state (kernelbook.chapters.allocator.scripts): bytes and segments by address."""
        segs = [{"pool": s.pool, "size": s.size, "expandable": s.expandable,
                 "blocks": [[b.size, "alloc" if b.allocated else "free"] for b in s.blocks]}
                for s in sorted(self.segments, key=lambda s: s.addr)]
        return {"allocated": self.allocated, "reserved": self.reserved, "inactive_split": self.inactive_split,
                "segments": segs}

    # ---- the rules -------------------------------------------------------------------------------------------

    def _segment_of(self, block: Block) -> Segment:
        for seg in self.segments:
            if any(b is block for b in seg.blocks):
                return seg
        raise KeyError("block in no segment")

    def _free_block(self, pool: str, size: int) -> tuple[Segment, Block] | None:
        """get_free_block: the smallest free block of the pool that fits, lowest address on a tie."""
        best: tuple[Segment, Block] | None = None
        for seg in self.segments:
            if seg.pool != pool or seg.expandable != self.expandable:
                continue
            for b in seg.blocks:
                if not b.allocated and b.size >= size and (
                        best is None or (b.size, b.addr) < (best[1].size, best[1].addr)):
                    best = (seg, b)
        if best is None:
            return None
        b = best[1]
        if size < self.max_split <= b.size:  # an oversize block is not handed to a small request
            return None
        if size >= self.max_split and b.size >= size + LARGE_BUFFER:  # nor to one it overshoots by 20 MiB
            return None
        return best

    # --8<-- [start:split]
    def _should_split(self, seg: Segment, block: Block, size: int) -> bool:
        remaining = block.size - size
        if seg.pool == "small" or seg.expandable:
            return remaining >= MIN_BLOCK
        return size < self.max_split and remaining > SMALL_SIZE
    # --8<-- [end:split]

    def _fits(self, alloc_size: int, new_bytes: int) -> bool:
        if self.cap is not None and self.reserved + alloc_size > self.cap:
            return False
        return new_bytes <= self.device_free

    def _new_block(self, pool: str, size: int, alloc_size: int) -> tuple[Segment, Block] | None:
        """alloc_block: a new segment from cudaMalloc, or new pages mapped onto an expandable segment."""
        if self.expandable:
            return self._expand(pool, size, alloc_size)
        if not self._fits(alloc_size, alloc_size):
            return None
        self.device_free -= alloc_size
        seg = Segment(pool, self._next_addr, [Block(self._next_addr, alloc_size)])
        self._next_addr += alloc_size + ROUND_LARGE
        self.segments.append(seg)
        self._event("segment_alloc", alloc_size, seg)
        return seg, seg.blocks[0]

    def _expand(self, pool: str, size: int, alloc_size: int) -> tuple[Segment, Block] | None:
        page = SMALL_BUFFER if pool == "small" else LARGE_BUFFER
        seg = next((s for s in self.segments if s.expandable and s.pool == pool), None)
        tail = seg.blocks[-1] if seg is not None and not seg.blocks[-1].allocated else None
        need = size - (tail.size if tail else 0)
        mapped = page * -(-need // page)
        # the cap is checked against a whole new segment's size, as for cudaMalloc, whatever is mapped
        if not self._fits(alloc_size, mapped):
            return None
        self.device_free -= mapped
        if seg is None:
            seg = Segment(pool, self._next_addr, [], expandable=True)
            self._next_addr += 1 << 38  # an expandable segment reserves a large address range
            self.segments.append(seg)
        self._event("segment_map", mapped, seg)
        if tail is not None:
            tail.size += mapped
            return seg, tail
        block = Block(seg.addr + seg.size, mapped)
        seg.blocks.append(block)
        return seg, block

    def _unmap_tail(self, seg: Segment) -> None:
        page = SMALL_BUFFER if seg.pool == "small" else LARGE_BUFFER
        if not seg.blocks or seg.blocks[-1].allocated:
            return
        tail = seg.blocks[-1]
        start = seg.addr + page * -(-(tail.addr - seg.addr) // page)  # first whole free page
        end = tail.addr + tail.size
        if end - start < page:
            return
        freed = end - start
        self.device_free += freed
        self._event("segment_unmap", freed, seg)
        tail.size -= freed
        if tail.size == 0:
            seg.blocks.pop()

    def _release_available(self, pool: str, size: int) -> None:
        """release_available_cached_blocks: only with max_split_size set; frees oversize unsplit blocks."""
        if self.max_split == NO_LIMIT:
            return
        key = max(size, self.max_split)
        free = sorted((s for s in self.segments if s.pool == pool and not s.expandable and len(s.blocks) == 1
                       and not s.blocks[0].allocated and s.size >= self.max_split), key=lambda s: (s.size, s.addr))
        fit = [s for s in free if s.size >= key]
        victims = fit[:1] if fit else []
        if not fit:
            total = 0
            for s in reversed(free):  # largest first, even when they do not add up to the request
                if total >= key:
                    break
                victims.append(s)
                total += s.size
        for s in victims:
            self.segments.remove(s)
            self.device_free += s.size
            self._event("segment_free", s.size, s)

    def _oom(self, alloc_size: int) -> ModelOutOfMemory:
        allowed = f"{format_size(self.cap)} allowed; " if self.cap is not None else ""
        unallocated = format_size(self.reserved - self.allocated)
        msg = (f"CUDA out of memory. Tried to allocate {format_size(alloc_size)}. {allowed}Of the allocated memory "
               f"{format_size(self.allocated)} is allocated by PyTorch, and {unallocated} is reserved by PyTorch but "
               "unallocated.")
        return ModelOutOfMemory(msg, alloc_size, self.allocated, self.reserved)
