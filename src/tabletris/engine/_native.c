/* tabletris.engine._native: the board's hot loops in C, exactly as engine/board.py defines them.
 *
 * The Python engine (engine/board.py, bots/heuristics.py) is the reference: every function here
 * is a translation of one of its functions and tests/test_native.py checks they agree bit for bit.
 * The board arrives as the engine's bitboard (a Python int, cell (x, y) at bit y*(width+1)+x) and
 * is unpacked into one uint64 per row, so a row shift is a machine shift and the slide fill is
 * one top-down pass over the rows (pieces move left, right and down only: a row's reachable set is
 * final once the row above is done). Widths up to 63 are handled here; the engine keeps 64-wide
 * boards in Python.
 *
 * An orientation is passed as a "spec": bytes (n, width, height, dx0, dy0, dx1, dy1, ...), one
 * after another for a shape's orientations, built once per orientation by board.py.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define MAX_W 63
#define ENTRY_ROWS 4
#define MAX_H 200
#define MAX_ROWS (MAX_H + ENTRY_ROWS)
#define MAX_BYTES ((64 * MAX_ROWS) / 8 + 16)

enum { ACCESS_DROP = 0, ACCESS_SLIDE = 1, ACCESS_FREE = 2 };

/* Set bits of a word. Without -mpopcnt (the build stays portable) __builtin_popcountll is a
 * call into libgcc, a tenth of a placement call's time in a profile; the same bit sums inline
 * cost no call. */
static inline int popcount64(uint64_t x) {
#if defined(__POPCNT__)
    return __builtin_popcountll(x);
#else
    x -= (x >> 1) & 0x5555555555555555ULL;
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
    return (int)((x * 0x0101010101010101ULL) >> 56);
#endif
}

typedef struct {
    int n, ow, oh;
    int dx[8], dy[8];
} orient_t;

/* ------------------------------------------------------------ int <-> rows */

static int int_to_bytes(PyObject *v, unsigned char *buf, size_t n) {
    if (!PyLong_Check(v)) {
        PyErr_SetString(PyExc_TypeError, "board bits must be an int");
        return -1;
    }
    if (_PyLong_Sign(v) < 0) {
        PyErr_SetString(PyExc_ValueError, "board bits must not be negative");
        return -1;
    }
#if PY_VERSION_HEX >= 0x030D0000
    Py_ssize_t need = PyLong_AsNativeBytes(
        v, buf, (Py_ssize_t)n, Py_ASNATIVEBYTES_LITTLE_ENDIAN | Py_ASNATIVEBYTES_UNSIGNED_BUFFER);
    if (need < 0) return -1;
    if ((size_t)need > n) {
        PyErr_SetString(PyExc_OverflowError, "board bits beyond the board");
        return -1;
    }
    return 0;
#else
    return _PyLong_AsByteArray((PyLongObject *)v, buf, n, 1, 0);
#endif
}

static PyObject *bytes_to_int(const unsigned char *buf, size_t n) {
#if PY_VERSION_HEX >= 0x030D0000
    return PyLong_FromUnsignedNativeBytes(buf, (Py_ssize_t)n, Py_ASNATIVEBYTES_LITTLE_ENDIAN);
#else
    return _PyLong_FromByteArray(buf, n, 1, 0);
#endif
}

static inline uint64_t read_bits(const unsigned char *buf, size_t bit, int count) {
    /* ``count`` (<= 64) bits from ``bit`` on, little-endian; buf has slack bytes past the end. */
    size_t byte = bit >> 3;
    int shift = (int)(bit & 7);
    uint64_t lo = 0, hi;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(&lo, buf + byte, 8); /* one load where the bytes are already in word order */
#else
    for (int i = 0; i < 8; i++) lo |= (uint64_t)buf[byte + i] << (8 * i);
#endif
    hi = buf[byte + 8];
    uint64_t v = (lo >> shift) | (shift ? hi << (64 - shift) : 0);
    return count >= 64 ? v : v & ((1ULL << count) - 1);
}

static inline void or_bits(unsigned char *buf, size_t bit, uint64_t v) {
    size_t byte = bit >> 3;
    int shift = (int)(bit & 7);
    for (int i = 0; i < 8; i++) buf[byte + i] |= (unsigned char)((v << shift) >> (8 * i));
    if (shift) buf[byte + 8] |= (unsigned char)(v >> (64 - shift));
}

static int check_size(int w, int h) {
    if (w < 1 || w > MAX_W || h < 1 || h > MAX_H) {
        PyErr_Format(PyExc_ValueError, "native engine: board size %dx%d is out of range (1-%d x 1-%d)",
                     w, h, MAX_W, MAX_H);
        return -1;
    }
    return 0;
}

/* Rows 0..h-1 of the bitboard ``v`` (stride w+1). */
static int load_rows(PyObject *v, int w, int h, uint64_t *rows) {
    unsigned char buf[MAX_BYTES];
    size_t stride = (size_t)w + 1;
    size_t n = (stride * (size_t)h + 7) / 8;
    memset(buf, 0, n + 16);
    if (int_to_bytes(v, buf, n) < 0) {
        if (PyErr_ExceptionMatches(PyExc_OverflowError)) {
            PyErr_Clear();
            PyErr_Format(PyExc_OverflowError, "board bits beyond a %dx%d board (highest bit %zu; %zu bits fit)",
                         w, h, PyLong_Check(v) ? (size_t)_PyLong_NumBits(v) - 1 : (size_t)0, n * 8);
        }
        return -1;
    }
    for (int y = 0; y < h; y++) rows[y] = read_bits(buf, (size_t)y * stride, w);
    return 0;
}

static PyObject *rows_to_int(const uint64_t *rows, int w, int nrows) {
    unsigned char buf[MAX_BYTES];
    size_t stride = (size_t)w + 1;
    size_t n = (stride * (size_t)nrows + 7) / 8;
    memset(buf, 0, n + 16);
    for (int y = 0; y < nrows; y++)
        if (rows[y]) or_bits(buf, (size_t)y * stride, rows[y]);
    return bytes_to_int(buf, n);
}

/* ------------------------------------------------------------ move generation */

static inline uint64_t hfill(uint64_t room, uint64_t seed) {
    /* Every bit reached from ``seed`` by steps left or right inside ``room`` (Kogge-Stone). */
    uint64_t gl = seed & room, gr = gl, pl = room, pr = room;
    for (int s = 1; s < 64; s <<= 1) {
        gl |= pl & (gl << s);
        pl &= pl << s;
        gr |= pr & (gr >> s);
        pr &= pr >> s;
    }
    return gl | gr;
}

/* Legal anchors of ``o``, one row mask per anchor row y in [0, h): bit x = anchor (x, y). */
static void generate(const uint64_t *occ, int w, int h, const orient_t *o, int access, uint64_t *out) {
    uint64_t col = (1ULL << w) - 1;
    int rows = h + ENTRY_ROWS;
    uint64_t empty[MAX_ROWS + 8];
    uint64_t fits[MAX_ROWS + 8];
    for (int y = 0; y < h; y++) {
        empty[y] = ~occ[y] & col;
        out[y] = 0;
    }
    for (int y = h; y < rows; y++) empty[y] = col;
    int ymax = rows - o->oh; /* highest anchor row whose piece stays within the open air */
    uint64_t xmask = o->ow <= w ? (1ULL << (w - o->ow + 1)) - 1 : 0;
    int ytop = h - o->oh; /* highest anchor row on the board */
    if (xmask == 0 || ymax < 0) return;
    if (o->n == 4) {
        /* A tetromino, the pieces of both games: the cells' offsets held in registers (the loop
         * over them reloaded each offset per row, the largest share of generation's time). */
        const int x0 = o->dx[0], x1 = o->dx[1], x2 = o->dx[2], x3 = o->dx[3];
        const uint64_t *e0 = empty + o->dy[0], *e1 = empty + o->dy[1], *e2 = empty + o->dy[2], *e3 = empty + o->dy[3];
        for (int y = 0; y <= ymax; y++)
            fits[y] = xmask & (e0[y] >> x0) & (e1[y] >> x1) & (e2[y] >> x2) & (e3[y] >> x3);
    } else {
        for (int y = 0; y <= ymax; y++) {
            uint64_t f = xmask;
            for (int i = 0; i < o->n; i++) f &= empty[y + o->dy[i]] >> o->dx[i];
            fits[y] = f;
        }
    }
    if (access == ACCESS_FREE || access == ACCESS_SLIDE) {
        /* resting: some cell on the floor or on a stone */
        uint64_t reach[MAX_ROWS + 8];
        if (access == ACCESS_SLIDE) {
            uint64_t above = 0;
            for (int y = ymax; y >= 0; y--) {
                uint64_t seed = above & fits[y];
                if (y >= h) seed |= fits[y];
                above = seed ? hfill(fits[y], seed) : 0;
                reach[y] = above;
            }
        }
        /* under[y]: what a cell in row y rests on (the floor below row 0, else row y - 1) */
        uint64_t under[MAX_H];
        under[0] = col;
        for (int y = 1; y < h; y++) under[y] = occ[y - 1];
        const uint64_t *got = access == ACCESS_SLIDE ? reach : fits;
        if (o->n == 4) {
            const int x0 = o->dx[0], x1 = o->dx[1], x2 = o->dx[2], x3 = o->dx[3];
            const uint64_t *u0 = under + o->dy[0], *u1 = under + o->dy[1], *u2 = under + o->dy[2], *u3 = under + o->dy[3];
            for (int y = 0; y <= ytop; y++)
                out[y] = got[y] & ((u0[y] >> x0) | (u1[y] >> x1) | (u2[y] >> x2) | (u3[y] >> x3));
        } else {
            for (int y = 0; y <= ytop; y++) {
                uint64_t rest = 0;
                for (int i = 0; i < o->n; i++) rest |= under[y + o->dy[i]] >> o->dx[i];
                out[y] = got[y] & rest;
            }
        }
        return;
    }
    /* drop: reached by a straight fall from the entry rows, and the anchor below does not fit */
    uint64_t above = 0;
    for (int y = ymax; y >= 0; y--) {
        uint64_t r = fits[y] & (above | (y >= h ? fits[y] : 0));
        if (y <= ytop) out[y] = r & ~(y > 0 ? fits[y - 1] : 0);
        above = r;
    }
}

/* Orientations from a spec; returns the count or -1. */
static int parse_spec(PyObject *spec, orient_t *os, int max) {
    if (!PyBytes_Check(spec)) {
        PyErr_SetString(PyExc_TypeError, "spec must be bytes");
        return -1;
    }
    const unsigned char *p = (const unsigned char *)PyBytes_AS_STRING(spec);
    Py_ssize_t len = PyBytes_GET_SIZE(spec), i = 0;
    int k = 0;
    while (i < len) {
        if (k >= max || i + 3 > len) goto bad;
        orient_t *o = &os[k++];
        o->n = p[i];
        o->ow = p[i + 1];
        o->oh = p[i + 2];
        i += 3;
        if (o->n < 1 || o->n > 8 || o->oh > ENTRY_ROWS || i + 2 * o->n > len) goto bad;
        for (int c = 0; c < o->n; c++) {
            o->dx[c] = p[i++];
            o->dy[c] = p[i++];
            if (o->dx[c] >= o->ow || o->dy[c] >= o->oh) goto bad;
        }
    }
    return k;
bad:
    PyErr_SetString(PyExc_ValueError, "malformed orientation spec");
    return -1;
}

static int parse_access(int access) {
    if (access < ACCESS_DROP || access > ACCESS_FREE) {
        PyErr_Format(PyExc_ValueError, "access code %d: expected 0 (drop), 1 (slide) or 2 (free)", access);
        return -1;
    }
    return 0;
}

/* The arguments every single-board call shares: the board's size and access mode checked, up to
 * ``max`` orientations parsed from ``spec`` and the occupied rows loaded. Returns the number of
 * orientations, or -1 with the Python error set. */
static int board_args(PyObject *occ_obj, int w, int h, int access, PyObject *spec, orient_t *os, int max,
                      uint64_t *occ) {
    if (check_size(w, h) < 0 || parse_access(access) < 0) return -1;
    int k = parse_spec(spec, os, max);
    if (k < 0 || load_rows(occ_obj, w, h, occ) < 0) return -1;
    return k;
}

/* positions(occupied, width, height, access, spec) -> int: as Board.positions, one orientation. */
static PyObject *py_positions(PyObject *self, PyObject *args) {
    PyObject *occ_obj, *spec;
    int w, h, access;
    if (!PyArg_ParseTuple(args, "OiiiO", &occ_obj, &w, &h, &access, &spec)) return NULL;
    orient_t os[1];
    uint64_t occ[MAX_H], out[MAX_H];
    int k = board_args(occ_obj, w, h, access, spec, os, 1, occ);
    if (k < 0) return NULL;
    if (k == 0) return PyLong_FromLong(0);
    generate(occ, w, h, &os[0], access, out);
    return rows_to_int(out, w, h);
}

/* has_any(occupied, width, height, access, spec) -> bool: any legal anchor for any orientation. */
static PyObject *py_has_any(PyObject *self, PyObject *args) {
    PyObject *occ_obj, *spec;
    int w, h, access;
    if (!PyArg_ParseTuple(args, "OiiiO", &occ_obj, &w, &h, &access, &spec)) return NULL;
    orient_t os[8];
    uint64_t occ[MAX_H], out[MAX_H];
    int k = board_args(occ_obj, w, h, access, spec, os, 8, occ);
    if (k < 0) return NULL;
    for (int i = 0; i < k; i++) {
        generate(occ, w, h, &os[i], access, out);
        for (int y = 0; y < h; y++)
            if (out[y]) Py_RETURN_TRUE;
    }
    Py_RETURN_FALSE;
}

/* placements(occupied, width, height, access, spec, table) -> list: Board.placements.
 * For each orientation in order, anchors by row then column. ``table`` holds one tuple per
 * orientation of the Placement objects for every anchor (index y*width + x), made once per
 * shape and board size by board.py: placements are immutable, so handing out shared ones
 * saves building a tuple per legal placement on every call. */
static PyObject *py_placements(PyObject *self, PyObject *args) {
    PyObject *occ_obj, *spec, *table;
    int w, h, access;
    if (!PyArg_ParseTuple(args, "OiiiOO!", &occ_obj, &w, &h, &access, &spec, &PyTuple_Type, &table))
        return NULL;
    orient_t os[8];
    uint64_t occ[MAX_H];
    int k = board_args(occ_obj, w, h, access, spec, os, 8, occ);
    if (k < 0) return NULL;
    if (PyTuple_GET_SIZE(table) != k) {
        PyErr_SetString(PyExc_ValueError, "one table entry per orientation of the spec");
        return NULL;
    }
    for (int i = 0; i < k; i++) {
        PyObject *t = PyTuple_GET_ITEM(table, i);
        if (!PyTuple_Check(t) || PyTuple_GET_SIZE(t) != (Py_ssize_t)w * h) {
            PyErr_SetString(PyExc_ValueError, "each table entry is a tuple of width*height placements");
            return NULL;
        }
    }
    uint64_t out[8][MAX_H];
    Py_ssize_t count = 0;
    for (int i = 0; i < k; i++) {
        generate(occ, w, h, &os[i], access, out[i]);
        for (int y = 0; y < h; y++)
            if (out[i][y]) count += popcount64(out[i][y]);
    }
    PyObject *result = PyList_New(count);
    if (result == NULL) return NULL;
    Py_ssize_t j = 0;
    for (int i = 0; i < k; i++) {
        PyObject **items = &PyTuple_GET_ITEM(PyTuple_GET_ITEM(table, i), 0);
        for (int y = 0; y < h; y++) {
            uint64_t bits = out[i][y];
            while (bits) {
                int x = __builtin_ctzll(bits);
                bits &= bits - 1;
                PyObject *p = items[y * w + x];
                Py_INCREF(p);
                PyList_SET_ITEM(result, j++, p);
            }
        }
    }
    return result;
}

/* batch_positions(boards, width, height, access, spec, out): for each board (a sequence of
 * ints) and each orientation of the spec, the legal anchors written as bytes 0/1 into the
 * writable buffer ``out`` laid out [board][orientation][y][x] (C order). */
static PyObject *py_batch_positions(PyObject *self, PyObject *args) {
    PyObject *boards, *spec;
    int w, h, access;
    Py_buffer view;
    if (!PyArg_ParseTuple(args, "OiiiOw*", &boards, &w, &h, &access, &spec, &view)) return NULL;
    PyObject *seq = NULL;
    if (check_size(w, h) < 0 || parse_access(access) < 0) goto error;
    orient_t os[64];
    int k = parse_spec(spec, os, 64);
    if (k < 0) goto error;
    seq = PySequence_Fast(boards, "boards must be a sequence of ints");
    if (seq == NULL) goto error;
    Py_ssize_t nb = PySequence_Fast_GET_SIZE(seq);
    Py_ssize_t plane = (Py_ssize_t)w * h;
    if (view.len < nb * k * plane) {
        PyErr_Format(PyExc_ValueError, "out holds %zd bytes, %zd needed", view.len, nb * k * plane);
        goto error;
    }
    unsigned char *dst = (unsigned char *)view.buf;
    uint64_t occ[MAX_H], out[MAX_H];
    for (Py_ssize_t b = 0; b < nb; b++) {
        if (load_rows(PySequence_Fast_GET_ITEM(seq, b), w, h, occ) < 0) goto error;
        for (int i = 0; i < k; i++) {
            generate(occ, w, h, &os[i], access, out);
            unsigned char *p = dst + (b * k + i) * plane;
            for (int y = 0; y < h; y++) {
                uint64_t bits = out[y];
                memset(p + y * w, 0, (size_t)w);
                while (bits) {
                    p[y * w + __builtin_ctzll(bits)] = 1;
                    bits &= bits - 1;
                }
            }
        }
    }
    Py_DECREF(seq);
    PyBuffer_Release(&view);
    Py_RETURN_NONE;
error:
    Py_XDECREF(seq);
    PyBuffer_Release(&view);
    return NULL;
}

/* max_rows(occupied, width, height, access, spec, candidates, max_gaps) -> int:
 * heuristics.max_rows_completed for the rows of ``candidates`` (a bit set of row indices) that miss
 * 1..max_gaps cells: the most of them one legal placement completes, -1 with no legal placement. */
/* The candidate rows (a Python int, bit y = row y) as one flag per row. */
static int load_candidates(PyObject *cand_obj, int h, uint64_t *cand_rows) {
    unsigned char buf[MAX_H / 8 + 16];
    memset(buf, 0, sizeof buf);
    if (int_to_bytes(cand_obj, buf, sizeof buf - 8) < 0) return -1;
    for (int y = 0; y < h; y++) cand_rows[y] = buf[y >> 3] >> (y & 7) & 1;
    return 0;
}

static long max_rows_core(const uint64_t *occ, int w, int h, const orient_t *os, int k, int access,
                          const uint64_t *cand_rows, int max_gaps);

static PyObject *py_max_rows(PyObject *self, PyObject *args) {
    PyObject *occ_obj, *spec, *cand_obj;
    int w, h, access, max_gaps;
    if (!PyArg_ParseTuple(args, "OiiiOOi", &occ_obj, &w, &h, &access, &spec, &cand_obj, &max_gaps))
        return NULL;
    orient_t os[8];
    uint64_t occ[MAX_H], cand_rows[MAX_H];
    int k = board_args(occ_obj, w, h, access, spec, os, 8, occ);
    if (k < 0) return NULL;
    if (load_candidates(cand_obj, h, cand_rows) < 0) return NULL;
    return PyLong_FromLong(max_rows_core(occ, w, h, os, k, access, cand_rows, max_gaps));
}

/* outlook_rows(occupied, width, height, access, specs, candidates, max_gaps) -> tuple: for each
 * shape's spec, max_rows over the candidate rows that are not complete now (dice_eval's
 * shape_outlook for a shape the supply has: one call per position instead of one per shape). */
static PyObject *py_outlook_rows(PyObject *self, PyObject *args) {
    PyObject *occ_obj, *specs, *cand_obj;
    int w, h, access, max_gaps;
    if (!PyArg_ParseTuple(args, "OiiiO!Oi", &occ_obj, &w, &h, &access, &PyTuple_Type, &specs, &cand_obj,
                          &max_gaps))
        return NULL;
    if (check_size(w, h) < 0 || parse_access(access) < 0) return NULL;
    uint64_t occ[MAX_H], cand_rows[MAX_H];
    if (load_rows(occ_obj, w, h, occ) < 0) return NULL;
    if (load_candidates(cand_obj, h, cand_rows) < 0) return NULL;
    uint64_t col = (1ULL << w) - 1;
    for (int y = 0; y < h; y++)
        if (occ[y] == col) cand_rows[y] = 0;
    Py_ssize_t n = PyTuple_GET_SIZE(specs);
    PyObject *out = PyTuple_New(n);
    if (out == NULL) return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        orient_t os[8];
        int k = parse_spec(PyTuple_GET_ITEM(specs, i), os, 8);
        if (k < 0) {
            Py_DECREF(out);
            return NULL;
        }
        PyObject *v = PyLong_FromLong(max_rows_core(occ, w, h, os, k, access, cand_rows, max_gaps));
        if (v == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyTuple_SET_ITEM(out, i, v);
    }
    return out;
}

static long max_rows_core(const uint64_t *occ, int w, int h, const orient_t *os, int k, int access,
                          const uint64_t *cand_rows, int max_gaps) {
    uint64_t legal[MAX_H];
    uint64_t col = (1ULL << w) - 1;
    int gy[MAX_H];
    uint64_t gaps[MAX_H];
    int ng = 0;
    for (int y = 0; y < h; y++) {
        if (!cand_rows[y]) continue;
        uint64_t g = ~occ[y] & col;
        int c = popcount64(g);
        if (g && c <= max_gaps) {
            gy[ng] = y;
            gaps[ng++] = g;
        }
    }
    long best = -1;
    for (int i = 0; i < k; i++) {
        const orient_t *o = &os[i];
        generate(occ, w, h, o, access, legal);
        int any = 0;
        for (int y = 0; y < h && !any; y++) any = legal[y] != 0;
        if (!any) continue;
        if (best < 0) best = 0;
        if (ng == 0) continue;
        /* cover[j][d]: anchors in row gy[j]-d whose piece covers every gap of row gy[j] */
        uint64_t cover[MAX_H][ENTRY_ROWS];
        for (int j = 0; j < ng; j++) {
            for (int d = 0; d < ENTRY_ROWS; d++) {
                int ay = gy[j] - d;
                cover[j][d] = 0;
                if (d >= o->oh || ay < 0) continue;
                uint64_t anchors = legal[ay];
                uint64_t bits = gaps[j];
                while (bits && anchors) {
                    int gx = __builtin_ctzll(bits);
                    bits &= bits - 1;
                    uint64_t reach = 0;
                    for (int c = 0; c < o->n; c++)
                        if (o->dy[c] == d && gx >= o->dx[c]) reach |= 1ULL << (gx - o->dx[c]);
                    anchors &= reach;
                }
                cover[j][d] = anchors; /* 0 once some gap is left uncovered */
            }
        }
        /* the most rows one anchor completes: per anchor row, count the rows that anchor covers */
        for (int ay = 0; ay < h; ay++) {
            uint64_t m[ENTRY_ROWS];
            int nm = 0;
            for (int j = 0; j < ng; j++) {
                int d = gy[j] - ay;
                if (d >= 0 && d < ENTRY_ROWS && cover[j][d]) m[nm++] = cover[j][d];
            }
            if (nm == 0) continue;
            uint64_t u = 0;
            for (int t = 0; t < nm; t++) u |= m[t];
            while (u) {
                uint64_t low = u & -u;
                u ^= low;
                long cnt = 0;
                for (int t = 0; t < nm; t++) cnt += (m[t] & low) != 0;
                if (cnt > best) best = cnt;
            }
        }
    }
    return best;
}

/* ------------------------------------------------------------ rows and features */

static PyObject *py_complete_rows(PyObject *self, PyObject *args) {
    PyObject *occ_obj;
    int w, h;
    if (!PyArg_ParseTuple(args, "Oii", &occ_obj, &w, &h)) return NULL;
    if (check_size(w, h) < 0) return NULL;
    uint64_t occ[MAX_H];
    if (load_rows(occ_obj, w, h, occ) < 0) return NULL;
    uint64_t col = (1ULL << w) - 1;
    unsigned char buf[MAX_H / 8 + 16];
    memset(buf, 0, sizeof buf);
    for (int y = 0; y < h; y++)
        if (occ[y] == col) buf[y >> 3] |= (unsigned char)(1 << (y & 7));
    return bytes_to_int(buf, (size_t)(h + 7) / 8);
}

/* features(occupied, width, height) -> (holes, hole_rows, bumpiness, row_transitions,
 * column_transitions, wells, max_height, aggregate_height, heights): heuristics.features_of. */
typedef struct {
    long holes, hole_rows, bump, row_tr, col_tr, wells, maxh, agg;
    int heights[64];
} features_t;

static void features_core(const uint64_t *occ, int w, int h, features_t *f);

static PyObject *py_features(PyObject *self, PyObject *args) {
    PyObject *occ_obj;
    int w, h;
    if (!PyArg_ParseTuple(args, "Oii", &occ_obj, &w, &h)) return NULL;
    if (check_size(w, h) < 0) return NULL;
    uint64_t occ[MAX_H];
    if (load_rows(occ_obj, w, h, occ) < 0) return NULL;
    features_t f;
    features_core(occ, w, h, &f);
    PyObject *hs = PyTuple_New(w);
    if (hs == NULL) return NULL;
    for (int x = 0; x < w; x++) {
        PyObject *v = PyLong_FromLong(f.heights[x]);
        if (v == NULL) {
            Py_DECREF(hs);
            return NULL;
        }
        PyTuple_SET_ITEM(hs, x, v);
    }
    return Py_BuildValue("(llllllllN)", f.holes, f.hole_rows, f.bump, f.row_tr, f.col_tr, f.wells, f.maxh,
                         f.agg, hs);
}

/* The weighted cost of heuristics.Weights.cost, summed in its order (so the double is the same). */
static double features_cost(const features_t *f, const double *wt) {
    double c = wt[0] * (double)f->holes;
    c += wt[1] * (double)f->hole_rows;
    c += wt[2] * (double)f->bump;
    c += wt[3] * (double)f->row_tr;
    c += wt[4] * (double)f->col_tr;
    c += wt[5] * (double)f->wells;
    c += wt[6] * (double)f->maxh;
    c += wt[7] * (double)f->agg;
    return c;
}

/* immediate(occupied, width, height, masks, scored, clear_cells, weights) -> list of (points, cost):
 * dice_eval.immediate for many options of one position (no take; clear_rows off or "cells"): each
 * placement mask is ORed onto the board, its new complete rows counted (less ``scored``, the rows
 * that do not score again: 0 when they all do), those rows cleared when ``clear_cells``, and the
 * board's features weighted by the 8 ``weights``. */
static PyObject *py_immediate(PyObject *self, PyObject *args) {
    PyObject *occ_obj, *masks, *scored_obj, *wt_obj;
    int w, h, clear_cells;
    if (!PyArg_ParseTuple(args, "OiiO!OpO!", &occ_obj, &w, &h, &PyList_Type, &masks, &scored_obj, &clear_cells,
                          &PyTuple_Type, &wt_obj))
        return NULL;
    if (check_size(w, h) < 0) return NULL;
    if (PyTuple_GET_SIZE(wt_obj) != 8) {
        PyErr_SetString(PyExc_ValueError, "weights: expected 8 numbers");
        return NULL;
    }
    double wt[8];
    for (int i = 0; i < 8; i++) {
        wt[i] = PyFloat_AsDouble(PyTuple_GET_ITEM(wt_obj, i));
        if (wt[i] == -1.0 && PyErr_Occurred()) return NULL;
    }
    uint64_t occ[MAX_H], scored[MAX_H], piece[MAX_H], after[MAX_H];
    if (load_rows(occ_obj, w, h, occ) < 0) return NULL;
    if (load_candidates(scored_obj, h, scored) < 0) return NULL;
    uint64_t col = (1ULL << w) - 1;
    Py_ssize_t n = PyList_GET_SIZE(masks);
    PyObject *out = PyList_New(n);
    if (out == NULL) return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (load_rows(PyList_GET_ITEM(masks, i), w, h, piece) < 0) {
            Py_DECREF(out);
            return NULL;
        }
        long points = 0;
        int nrows = 0;
        for (int y = 0; y < h; y++) {
            uint64_t a = occ[y] | piece[y];
            int fresh = a == col && occ[y] != col;
            if (fresh && !scored[y]) points++;
            if (fresh && clear_cells) continue;
            after[nrows++] = a;
        }
        for (int y = nrows; y < h; y++) after[y] = 0;
        features_t f;
        features_core(after, w, h, &f);
        PyObject *item = Py_BuildValue("(ld)", points, features_cost(&f, wt));
        if (item == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, i, item);
    }
    return out;
}

static void features_core(const uint64_t *occ, int w, int h, features_t *f) {
    uint64_t col = (1ULL << w) - 1, wall = 1ULL << w, with_wall = (wall << 1) - 1;
    long holes = 0, hole_rows = 0, row_tr = 0, col_tr = 0, wells = 0;
    int heights[64] = {0}, well_depth[64] = {0};
    uint64_t covered = 0;
    for (int y = h - 1; y >= 0; y--) {
        uint64_t o = occ[y];
        uint64_t fresh = o & ~covered;
        while (fresh) {
            int x = __builtin_ctzll(fresh);
            fresh &= fresh - 1;
            heights[x] = y + 1;
        }
        covered |= o;
        uint64_t hole = covered & ~o;
        if (hole) {
            holes += popcount64(hole);
            hole_rows++;
        }
        uint64_t walled = o | wall;
        row_tr += popcount64((walled ^ ((walled << 1) | 1)) & with_wall);
        col_tr += popcount64((o ^ (y > 0 ? occ[y - 1] : col)) & col);
        uint64_t well = ~covered & col & ((o << 1) | 1) & (walled >> 1);
        while (well) {
            int x = __builtin_ctzll(well);
            well &= well - 1;
            well_depth[x]++;
        }
    }
    long bump = 0, agg = 0, maxh = 0;
    for (int x = 0; x < w; x++) {
        wells += (long)well_depth[x] * (well_depth[x] + 1) / 2;
        agg += heights[x];
        if (heights[x] > maxh) maxh = heights[x];
        if (x > 0) bump += heights[x] > heights[x - 1] ? heights[x] - heights[x - 1] : heights[x - 1] - heights[x];
    }
    f->holes = holes;
    f->hole_rows = hole_rows;
    f->bump = bump;
    f->row_tr = row_tr;
    f->col_tr = col_tr;
    f->wells = wells;
    f->maxh = maxh;
    f->agg = agg;
    for (int x = 0; x < w; x++) f->heights[x] = heights[x];
}

/* Whole dice turns and playouts (issue 19's third round): a file of its own, compiled here so it
 * shares the generator and the features above. */
#include "_dice_kernel.c"

/* ------------------------------------------------------------ the module: the layers put together
 *
 * One extension holds the C of three layers, each file beside the Python it translates: the
 * engine's (this file's board loops, _dice_kernel.c), the bots' (the expert's decision) and the
 * envs' (Dice-v0's fast path). Each file names only what its own layer and the layers below
 * define (tests/test_native_layers.py reads them); this part alone names them all. */

/* The expert's dice decision (issue 19's fifth round), on the kernel's state. */
#include "../bots/_dice_expert.c"

/* The Gymnasium env's fast path (issue 19's fourth round), on the kernel's state. */
#include "../envs/_dice_env.c"

/* dice_playout: the kernel's playouts, their expert seats played by the bots' expert. */
static PyObject *py_dice_playout(PyObject *self, PyObject *args) { return dk_playout(args, &dx_policy); }

static PyMethodDef methods[] = {
    {"positions", py_positions, METH_VARARGS, "Legal anchors of one orientation as a bitboard."},
    {"has_any", py_has_any, METH_VARARGS, "Whether any orientation of the spec has a legal anchor."},
    {"placements", py_placements, METH_VARARGS, "Every legal placement of a shape, in Board order."},
    {"batch_positions", py_batch_positions, METH_VARARGS, "Legal anchors for many boards into a buffer."},
    {"max_rows", py_max_rows, METH_VARARGS, "The most threatened rows one placement completes."},
    {"complete_rows", py_complete_rows, METH_VARARGS, "Complete rows as a bit set of row indices."},
    {"features", py_features, METH_VARARGS, "The heuristics' board features."},
    {"outlook_rows", py_outlook_rows, METH_VARARGS, "max_rows of several shapes over the rows not complete."},
    {"immediate", py_immediate, METH_VARARGS, "Points and weighted board cost of many placements."},
    {"dice_playout", py_dice_playout, METH_VARARGS, "Whole dice turns (random or greedy seats) from a position."},
    {"env_new", py_env_new, METH_VARARGS, "A dice game for the Gymnasium env's fast path."},
    {"env_reset", py_env_reset, METH_VARARGS, "A new game in a fast-path dice env."},
    {"env_step", py_env_step, METH_VARARGS, "Step a batch of fast-path dice envs into NumPy arrays."},
    {"env_game", py_env_game, METH_VARARGS, "The moves and position of a fast-path dice env."},
    {"env_dump", py_env_dump, METH_VARARGS, "A fast-path dice env as bytes (copy and pickle)."},
    {"env_load", py_env_load, METH_VARARGS, "A fast-path dice env from env_dump's bytes."},
    {"env_layout", py_env_layout, METH_NOARGS, "Where each field lies in env_dump's bytes (the fuzz test's map)."},
    {"expert_decide", py_expert_decide, METH_VARARGS, "The dice expert's decision for the roll showing."},
    {"mt_draw", py_mt_draw, METH_VARARGS, "randrange(n) draws of CPython's generator from a state."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_native", "The board's hot loops in C (engine/board.py is the reference).",
    -1, methods,
};

PyMODINIT_FUNC PyInit__native(void) {
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    PyObject *codes = PyDict_New();
    if (codes == NULL || dk_add_constants(codes) < 0 || de_add_constants(codes) < 0 ||
        PyModule_AddObject(m, "CONSTANTS", codes) < 0) {
        Py_XDECREF(codes);
        Py_DECREF(m);
        return NULL;
    }
    if (PyModule_AddIntConstant(m, "MAX_WIDTH", MAX_W) < 0 || PyModule_AddIntConstant(m, "MAX_HEIGHT", MAX_H) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
