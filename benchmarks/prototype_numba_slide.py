"""Issue 19's measurement before choosing: the slide generator of one orientation in numba,
against the engine's own (compiled core and pure Python), timed as Python callers use them.

numba is not a dependency: ``pip install numba`` in a scratch environment with tabletris
installed, then ``python benchmarks/prototype_numba_slide.py``. Results are in docs/speed.md.
"""
import random
import time

import numba
import numpy as np


@numba.njit(cache=False)  # type: ignore[misc]
def hfill(room, seed):
    gl = seed & room
    gr = gl
    pl = room
    pr = room
    s = np.uint64(1)
    for _ in range(6):
        gl |= pl & (gl << s)
        pl &= pl << s
        gr |= pr & (gr >> s)
        pr &= pr >> s
        s = s << np.uint64(1)
    return gl | gr

@numba.njit(cache=False)  # type: ignore[misc]
def slide(occ, w, h, dx, dy, ow, oh, out):
    col = (np.uint64(1) << np.uint64(w)) - np.uint64(1)
    rows = h + 4
    empty = np.empty(rows, np.uint64)
    for y in range(h):
        empty[y] = ~occ[y] & col
    for y in range(h, rows):
        empty[y] = col
    ymax = rows - oh
    xmask = (np.uint64(1) << np.uint64(w - ow + 1)) - np.uint64(1)
    fits = np.zeros(rows, np.uint64)
    for y in range(ymax + 1):
        f = xmask
        for i in range(dx.shape[0]):
            f &= empty[y + dy[i]] >> np.uint64(dx[i])
        fits[y] = f
    above = np.uint64(0)
    reach = np.zeros(rows, np.uint64)
    for y in range(ymax, -1, -1):
        seed = above & fits[y]
        if y >= h:
            seed |= fits[y]
        above = hfill(fits[y], seed) if seed else np.uint64(0)
        reach[y] = above
    n = 0
    for y in range(h - oh + 1):
        rest = np.uint64(0)
        for i in range(dx.shape[0]):
            yy = y + dy[i]
            rest |= (col if yy == 0 else occ[yy - 1]) >> np.uint64(dx[i])
        out[y] = reach[y] & rest
        n += 1
    return n

def rows_of(occ_int, w, h):
    stride = w + 1
    m = (1 << w) - 1
    return np.array([(occ_int >> (y * stride)) & m for y in range(h)], dtype=np.uint64)

def engine_figures(occ: int, w: int, h: int) -> None:
    from tabletris.engine import board as bm
    from tabletris.engine.board import Board
    from tabletris.engine.shapes import Shape

    b = Board(w, h)
    b.occupied = occ
    o = next(o for o in Shape.L.orientations("rotate") if o.cells == ((0, 0), (1, 0), (2, 0), (2, 1)))
    for native in ([True] if bm.native_available() else []) + [False]:
        bm.use_native(native)
        n = 20000
        t = time.perf_counter()
        for _ in range(n):
            b.positions(o, "slide")
        name = "C extension" if native else "pure Python"
        print(f"{name}: Board.positions, one orientation, slide {(time.perf_counter() - t) / n * 1e6:.2f} us")


if __name__ == "__main__":
    w, h = 10, 20
    rng = random.Random(3)
    occ = 0
    for y in range(8):
        for x in range(w):
            if rng.random() < 0.6:
                occ |= 1 << (y * (w + 1) + x)
    dx = np.array([0, 1, 2, 2], np.int64)
    dy = np.array([0, 0, 0, 1], np.int64)
    out = np.zeros(h, np.uint64)
    rows = rows_of(occ, w, h)
    t = time.perf_counter()
    slide(rows, w, h, dx, dy, 3, 2, out)
    print(f"numba: first call (JIT compile) {time.perf_counter() - t:.2f} s")
    N = 20000
    t = time.perf_counter()
    for _ in range(N):
        slide(rows, w, h, dx, dy, 3, 2, out)
    kernel = (time.perf_counter() - t) / N
    t = time.perf_counter()
    for _ in range(N):
        slide(rows_of(occ, w, h), w, h, dx, dy, 3, 2, out)
    with_conv = (time.perf_counter() - t) / N
    print(f"numba slide, one orientation: kernel call from Python {kernel*1e6:.2f} us; "
          f"with the bitboard int -> rows array conversion {with_conv*1e6:.2f} us")
    engine_figures(occ, w, h)
