/* The dice kernel: whole dice turns and playouts in C (issue 19), included by _native.c.
 *
 * engine/dice.py (DiceGame) is the reference. This is a second copy of one turn's rules, kept
 * only because tests/test_fastdice.py plays whole games on both from the same seeds and checks
 * that the moves, scores, supply, board, tokens and generators agree exactly. Every step below
 * names the Python function it translates. What it does not do (row_reward: choose, boards wider
 * than 63) engine/fastdice.py refuses (``supports``), and the Python engine plays those.
 *
 * Randomness is CPython's own: MT19937 as Modules/_randommodule.c runs it, loaded from and stored
 * back to ``random.Random.getstate()``, with ``_randbelow`` as Lib/random.py draws it, so the die
 * (``rng.choice(rules.die)``) and the random bot (``rng.randrange(n)``) draw exactly as in Python.
 */

/* ------------------------------------------------------------ CPython's Mersenne Twister */

#define MT_N 624
#define MT_M 397

typedef struct {
    uint32_t mt[MT_N];
    int index;
} mt_t;

static uint32_t mt_next(mt_t *r) {
    static const uint32_t mag01[2] = {0x0U, 0x9908b0dfU};
    uint32_t y;
    uint32_t *mt = r->mt;
    if (r->index >= MT_N) {
        int kk;
        for (kk = 0; kk < MT_N - MT_M; kk++) {
            y = (mt[kk] & 0x80000000U) | (mt[kk + 1] & 0x7fffffffU);
            mt[kk] = mt[kk + MT_M] ^ (y >> 1) ^ mag01[y & 0x1U];
        }
        for (; kk < MT_N - 1; kk++) {
            y = (mt[kk] & 0x80000000U) | (mt[kk + 1] & 0x7fffffffU);
            mt[kk] = mt[kk + (MT_M - MT_N)] ^ (y >> 1) ^ mag01[y & 0x1U];
        }
        y = (mt[MT_N - 1] & 0x80000000U) | (mt[0] & 0x7fffffffU);
        mt[MT_N - 1] = mt[MT_M - 1] ^ (y >> 1) ^ mag01[y & 0x1U];
        r->index = 0;
    }
    y = mt[r->index++];
    y ^= (y >> 11);
    y ^= (y << 7) & 0x9d2c5680U;
    y ^= (y << 15) & 0xefc60000U;
    y ^= (y >> 18);
    return y;
}

/* random.Random._randbelow_with_getrandbits(n) for 1 <= n < 2**31: k = n.bit_length(), draw
 * getrandbits(k) (the top k bits of one 32-bit output) until it is below n. */
static long mt_below(mt_t *r, long n) {
    int k = 0;
    for (long v = n; v; v >>= 1) k++;
    uint32_t x;
    do {
        x = mt_next(r) >> (32 - k);
    } while ((long)x >= n);
    return (long)x;
}

/* random.seed(n) for an int 0 <= n < 2**32, as Modules/_randommodule.c seeds: init_by_array
 * with the one 32-bit word of n. */
static void mt_seed(mt_t *r, uint32_t seed) {
    uint32_t *mt = r->mt;
    mt[0] = 19650218U;
    for (int i = 1; i < MT_N; i++) mt[i] = (1812433253U * (mt[i - 1] ^ (mt[i - 1] >> 30)) + (uint32_t)i);
    int i = 1;
    for (int k = MT_N; k; k--) {
        mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1664525U)) + seed; /* key word j = 0, + j */
        i++;
        if (i >= MT_N) {
            mt[0] = mt[MT_N - 1];
            i = 1;
        }
    }
    for (int k = MT_N - 1; k; k--) {
        mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1566083941U)) - (uint32_t)i;
        i++;
        if (i >= MT_N) {
            mt[0] = mt[MT_N - 1];
            i = 1;
        }
    }
    mt[0] = 0x80000000U;
    r->index = MT_N;
}

/* A generator from getstate()[1] (624 words and the index), or from an int seed (0 <= seed <
 * 2**32: what random.Random(seed) starts from, without making one in Python). */
static int mt_load(mt_t *r, PyObject *t) {
    if (PyLong_Check(t)) {
        unsigned long v = PyLong_AsUnsignedLong(t);
        if (v == (unsigned long)-1 && PyErr_Occurred()) return -1;
        if (v > 0xffffffffUL) {
            PyErr_SetString(PyExc_ValueError, "generator seed: expected 0 <= seed < 2**32");
            return -1;
        }
        mt_seed(r, (uint32_t)v);
        return 0;
    }
    if (!PyTuple_Check(t) || PyTuple_GET_SIZE(t) != MT_N + 1) {
        PyErr_SetString(PyExc_ValueError, "generator state: expected getstate()[1], a tuple of 625 ints");
        return -1;
    }
    for (int i = 0; i <= MT_N; i++) {
        unsigned long v = PyLong_AsUnsignedLong(PyTuple_GET_ITEM(t, i));
        if (v == (unsigned long)-1 && PyErr_Occurred()) return -1;
        if (i < MT_N) {
            r->mt[i] = (uint32_t)v;
        } else {
            if (v > MT_N) {
                PyErr_SetString(PyExc_ValueError, "generator state: index out of range");
                return -1;
            }
            r->index = (int)v;
        }
    }
    return 0;
}

static PyObject *mt_store(const mt_t *r) {
    PyObject *t = PyTuple_New(MT_N + 1);
    if (t == NULL) return NULL;
    for (int i = 0; i <= MT_N; i++) {
        PyObject *v = PyLong_FromUnsignedLong(i < MT_N ? r->mt[i] : (unsigned long)r->index);
        if (v == NULL) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, i, v);
    }
    return t;
}

/* mt_draw(state, n, count) -> (draws, state): ``count`` draws of randrange(n), for the test
 * that checks this generator against CPython's. */
static PyObject *py_mt_draw(PyObject *self, PyObject *args) {
    PyObject *st;
    long n, count;
    if (!PyArg_ParseTuple(args, "Oll", &st, &n, &count)) return NULL;
    if (n < 1 || n >= (1L << 31)) {
        PyErr_SetString(PyExc_ValueError, "n: expected 1 <= n < 2**31");
        return NULL;
    }
    if (count < 0) {
        PyErr_Format(PyExc_ValueError, "count: %ld draws; expected 0 or more", count);
        return NULL;
    }
    mt_t r;
    if (mt_load(&r, st) < 0) return NULL;
    PyObject *out = PyList_New(count);
    if (out == NULL) return NULL;
    for (long i = 0; i < count; i++) {
        PyObject *v = PyLong_FromLong(mt_below(&r, n));
        if (v == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, i, v);
    }
    return Py_BuildValue("(NN)", out, mt_store(&r));
}

/* ------------------------------------------------------------ the game's state */

#define DK_SHAPES 8
#define DK_PLAYERS 8
#define DK_FACES 64
#define DK_MAX_CELLS 4
#define DK_MAX_STONES (MAX_H * MAX_W) /* stones never overlap: at most one per cell */
/* The most a count of the game (turn, stone number, supply, score, rows) may be when a position
 * is loaded, and the turn the kernel stops at: a turn adds at most DK_MAX_CELLS to a count, so
 * from here no int of the game can overflow (INT_MAX / 8; fastdice.KERNEL_MAX_COUNT). */
#define DK_MAX_COUNT (INT_MAX / 8)

enum { CLEAR_NONE = 0, CLEAR_CELLS = 1, CLEAR_STONES = 2 };
enum { POLICY_RANDOM = 0, POLICY_GREEDY = 1, POLICY_EXPERT = 2 };
enum {
    F_LIMITED = 1, F_TOKENS = 2, F_TAKE_ANY = 4, F_MUST_CLOSE = 8, F_STUCK_PENALTY = 16, F_RESCORE = 32,
    F_ALL = 63
};

typedef struct {
    int shape, owner, number, n;
    int x[DK_MAX_CELLS], y[DK_MAX_CELLS];
} dk_stone;

typedef struct {
    int player, face, shape, orient, x, y;
    int take_n; /* cells of the stone taken (0: none) */
    int take_x[DK_MAX_CELLS], take_y[DK_MAX_CELLS];
    int ntokens;
    int tokens[DK_MAX_CELLS];
} dk_move;

/* One (shape, take) group of the options, in turn_options order: its legal anchors per
 * orientation (``nos`` planes of ``h`` rows in the anchor pool, must_close applied). */
typedef struct {
    int shape, take; /* take: index into stones, -1 for none */
    size_t off;
    long count;
} dk_group;

typedef struct {
    /* rules */
    int w, h, access, nshapes, nfaces, nplayers, flags, clear, target;
    orient_t os[DK_SHAPES][8];
    int nos[DK_SHAPES];
    int face_shape[DK_FACES]; /* -1: '*' (every shape in die order) */
    double wt[8];
    /* position */
    uint64_t rows[MAX_H];
    unsigned char scored[MAX_H];
    dk_stone *stones; /* alive stones, by number (the board's dict order) */
    int nstones, cap_stones;
    int next_number;
    int supply[DK_SHAPES];
    int scores[DK_PLAYERS], rows_completed[DK_PLAYERS];
    int turn, to_move, roll, over, stuck;
    mt_t rng;
    /* work */
    dk_group *groups;
    int ngroups, cap_groups;
    uint64_t *pool;
    size_t pool_used, pool_cap;
    dk_move *moves;
    long nmoves, cap_moves;
} dk_game;

static void dk_free(dk_game *g) {
    PyMem_Free(g->stones);
    PyMem_Free(g->groups);
    PyMem_Free(g->pool);
    PyMem_Free(g->moves);
    g->stones = NULL;
    g->groups = NULL;
    g->pool = NULL;
    g->moves = NULL;
}

static int dk_grow(void **p, int *cap_i, long *cap_l, size_t *cap_z, size_t need, size_t item) {
    /* One growth rule for the kernel's arrays (only one of the three caps is given). */
    size_t cap = cap_i ? (size_t)*cap_i : cap_l ? (size_t)*cap_l : *cap_z;
    if (need <= cap) return 0;
    size_t next = cap ? cap : 64;
    while (next < need) next *= 2;
    void *q = PyMem_Realloc(*p, next * item);
    if (q == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    *p = q;
    if (cap_i) *cap_i = (int)next;
    else if (cap_l) *cap_l = (long)next;
    else *cap_z = next;
    return 0;
}

static inline uint64_t dk_col(const dk_game *g) { return (1ULL << g->w) - 1; }

static inline int dk_in_supply(const dk_game *g, int s) {
    return !(g->flags & F_LIMITED) || g->supply[s] > 0;
}

static inline int dk_lowest(const dk_stone *st) {
    int low = st->y[0];
    for (int c = 1; c < st->n; c++)
        if (st->y[c] < low) low = st->y[c];
    return low;
}

/* DiceGame.take_candidates: stones of the shape (the lowest ones with take: lowest), by number,
 * into ``out`` (DK_MAX_STONES ints). The loaders refuse overlapping stones, so a game never has
 * more stones than cells; the bound is kept here too, so that no state can write past ``out``. */
static int dk_candidates(const dk_game *g, int s, int *out) {
    int n = 0, low = MAX_H;
    if (!(g->flags & F_TAKE_ANY))
        for (int i = 0; i < g->nstones; i++)
            if (g->stones[i].shape == s && dk_lowest(&g->stones[i]) < low) low = dk_lowest(&g->stones[i]);
    for (int i = 0; i < g->nstones; i++) {
        const dk_stone *st = &g->stones[i];
        if (st->shape == s && ((g->flags & F_TAKE_ANY) || dk_lowest(st) == low) && n < DK_MAX_STONES) out[n++] = i;
    }
    return n;
}

/* The rows with stone ``take`` lifted off (none: -1). */
static void dk_rows_without(const dk_game *g, int take, uint64_t *rows) {
    memcpy(rows, g->rows, sizeof(uint64_t) * (size_t)g->h);
    if (take >= 0) {
        const dk_stone *st = &g->stones[take];
        for (int c = 0; c < st->n; c++) rows[st->y[c]] &= ~(1ULL << st->x[c]);
    }
}

/* DiceGame._closes_row: some row the piece touches is full with it. */
static int dk_closes(const dk_game *g, const uint64_t *rows, const orient_t *o, int x, int y) {
    uint64_t col = dk_col(g);
    for (int dy = 0; dy < o->oh; dy++) {
        uint64_t piece = 0;
        for (int c = 0; c < o->n; c++)
            if (o->dy[c] == dy) piece |= 1ULL << (x + o->dx[c]);
        if (piece && (rows[y + dy] | piece) == col) return 1;
    }
    return 0;
}

/* DiceGame._option_groups for the pending roll, with must_close's duty applied as
 * legal_placements applies it. Returns the number of options, or -1 with an error set. */
static long dk_options(dk_game *g) {
    int shapes[DK_SHAPES], ns = 0;
    int f = g->face_shape[g->roll];
    if (f < 0)
        for (int s = 0; s < g->nshapes; s++) shapes[ns++] = s;
    else
        shapes[ns++] = f;
    g->ngroups = 0;
    g->pool_used = 0;
    long total = 0;
    int cand[DK_MAX_STONES]; /* every stone of a shape could be a candidate (take: any) */
    for (int si = 0; si < ns; si++) {
        int s = shapes[si];
        int ncand;
        if (dk_in_supply(g, s)) {
            cand[0] = -1;
            ncand = 1;
        } else {
            ncand = dk_candidates(g, s, cand);
        }
        for (int ci = 0; ci < ncand; ci++) {
            if (dk_grow((void **)&g->groups, &g->cap_groups, NULL, NULL, (size_t)g->ngroups + 1, sizeof(dk_group)) < 0)
                return -1;
            size_t need = (size_t)g->nos[s] * (size_t)g->h;
            if (dk_grow((void **)&g->pool, NULL, NULL, &g->pool_cap, g->pool_used + need, sizeof(uint64_t)) < 0)
                return -1;
            dk_group *gr = &g->groups[g->ngroups++];
            gr->shape = s;
            gr->take = cand[ci];
            gr->off = g->pool_used;
            gr->count = 0;
            g->pool_used += need;
            uint64_t rows[MAX_H];
            dk_rows_without(g, gr->take, rows);
            for (int k = 0; k < g->nos[s]; k++) {
                uint64_t *out = g->pool + gr->off + (size_t)k * g->h;
                generate(rows, g->w, g->h, &g->os[s][k], g->access, out);
                for (int y = 0; y < g->h; y++)
                    if (out[y]) gr->count += popcount64(out[y]);
            }
            total += gr->count;
        }
    }
    if (total == 0 || !(g->flags & F_MUST_CLOSE)) return total;
    /* must_close: the duty binds when any option of the roll closes a row; then only those. */
    int duty = 0;
    for (int i = 0; i < g->ngroups && !duty; i++) {
        dk_group *gr = &g->groups[i];
        uint64_t rows[MAX_H];
        dk_rows_without(g, gr->take, rows);
        for (int k = 0; k < g->nos[gr->shape] && !duty; k++) {
            const orient_t *o = &g->os[gr->shape][k];
            uint64_t *out = g->pool + gr->off + (size_t)k * g->h;
            for (int y = 0; y < g->h && !duty; y++)
                for (uint64_t b = out[y]; b && !duty; b &= b - 1)
                    duty = dk_closes(g, rows, o, __builtin_ctzll(b), y);
        }
    }
    if (!duty) return total;
    total = 0;
    for (int i = 0; i < g->ngroups; i++) {
        dk_group *gr = &g->groups[i];
        uint64_t rows[MAX_H];
        dk_rows_without(g, gr->take, rows);
        gr->count = 0;
        for (int k = 0; k < g->nos[gr->shape]; k++) {
            const orient_t *o = &g->os[gr->shape][k];
            uint64_t *out = g->pool + gr->off + (size_t)k * g->h;
            for (int y = 0; y < g->h; y++) {
                uint64_t keep = 0;
                for (uint64_t b = out[y]; b; b &= b - 1) {
                    int x = __builtin_ctzll(b);
                    if (dk_closes(g, rows, o, x, y)) keep |= 1ULL << x;
                }
                out[y] = keep;
                gr->count += popcount64(keep);
            }
        }
        total += gr->count;
    }
    return total;
}

/* The option at ``index`` in turn_options order: its group, orientation and anchor. */
static void dk_option_at(const dk_game *g, long index, int *group, int *orient, int *x, int *y) {
    for (int i = 0; i < g->ngroups; i++) {
        const dk_group *gr = &g->groups[i];
        if (index >= gr->count) {
            index -= gr->count;
            continue;
        }
        for (int k = 0; k < g->nos[gr->shape]; k++) {
            const uint64_t *out = g->pool + gr->off + (size_t)k * g->h;
            for (int yy = 0; yy < g->h; yy++) {
                long c = popcount64(out[yy]);
                if (index >= c) {
                    index -= c;
                    continue;
                }
                uint64_t b = out[yy];
                while (index--) b &= b - 1;
                *group = i;
                *orient = k;
                *x = __builtin_ctzll(b);
                *y = yy;
                return;
            }
        }
    }
    *group = -1; /* not reached: index < the count dk_options gave */
}

static void dk_remove_stone(dk_game *g, int i) {
    dk_stone *st = &g->stones[i];
    for (int c = 0; c < st->n; c++) g->rows[st->y[c]] &= ~(1ULL << st->x[c]);
    memmove(&g->stones[i], &g->stones[i + 1], sizeof(dk_stone) * (size_t)(g->nstones - i - 1));
    g->nstones--;
}

/* DiceGame.default_token: the shape with the most stones left, ties in die order; -1 if none. */
static int dk_default_token(const dk_game *g) {
    int best = -1;
    for (int s = 0; s < g->nshapes; s++)
        if (g->supply[s] > 0 && (best < 0 || g->supply[s] > g->supply[best])) best = s;
    return best;
}

static void dk_complete_rows(const dk_game *g, const uint64_t *rows, unsigned char *out) {
    uint64_t col = dk_col(g);
    for (int y = 0; y < g->h; y++) out[y] = rows[y] == col;
}

/* DiceGame._clear: cells (rows leave, everything above falls: Board.clear_rows) or stones
 * (every stone with a cell in a row goes back to the supply whole); then scored_rows is the
 * complete rows of the board left. */
static void dk_clear(dk_game *g, const unsigned char *gone) {
    if (g->clear == CLEAR_STONES) {
        for (int i = 0; i < g->nstones;) {
            dk_stone *st = &g->stones[i];
            int hit = 0;
            for (int c = 0; c < st->n; c++) hit |= gone[st->y[c]];
            if (hit) {
                if ((g->flags & F_LIMITED)) g->supply[st->shape]++;
                dk_remove_stone(g, i);
            } else {
                i++;
            }
        }
    } else {
        int below[MAX_H], n = 0, any = 0;
        for (int y = 0; y < g->h; y++) {
            below[y] = n;
            if (gone[y]) {
                n++;
                any = 1;
            }
        }
        if (any) {
            int keep = 0;
            for (int i = 0; i < g->nstones; i++) {
                dk_stone st = g->stones[i];
                int m = 0;
                for (int c = 0; c < st.n; c++) {
                    if (gone[st.y[c]]) continue;
                    st.x[m] = st.x[c];
                    st.y[m] = st.y[c] - below[st.y[c]];
                    m++;
                }
                st.n = m;
                if (m) g->stones[keep++] = st;
            }
            g->nstones = keep;
            int dst = 0;
            for (int y = 0; y < g->h; y++)
                if (!gone[y]) g->rows[dst++] = g->rows[y];
            for (; dst < g->h; dst++) g->rows[dst] = 0;
        }
    }
    dk_complete_rows(g, g->rows, g->scored);
}

/* DiceGame._end_stuck. */
static int dk_stuck(dk_game *g) {
    if (dk_grow((void **)&g->moves, NULL, &g->cap_moves, NULL, (size_t)g->nmoves + 1, sizeof(dk_move)) < 0) return -1;
    dk_move *mv = &g->moves[g->nmoves++];
    memset(mv, 0, sizeof *mv);
    mv->player = g->to_move;
    mv->face = g->roll;
    mv->shape = -1;
    if (g->flags & F_STUCK_PENALTY) g->scores[g->to_move]--;
    g->stuck = g->to_move;
    g->over = 1;
    g->turn++;
    return 0;
}

/* DiceGame._apply for an option the generator made (so every check passes), with the
 * rules' default rewards and tokens (``complete``): every scoring row a point, each point's
 * token the default one. */
static int dk_apply(dk_game *g, int group, int orient, int x, int y, const int *named) {
    const dk_group *gr = &g->groups[group];
    int s = gr->shape, player = g->to_move;
    const orient_t *o = &g->os[s][orient];
    if (dk_grow((void **)&g->moves, NULL, &g->cap_moves, NULL, (size_t)g->nmoves + 1, sizeof(dk_move)) < 0) return -1;
    if (dk_grow((void **)&g->stones, &g->cap_stones, NULL, NULL, (size_t)g->nstones + 1, sizeof(dk_stone)) < 0)
        return -1;
    dk_move *mv = &g->moves[g->nmoves++];
    memset(mv, 0, sizeof *mv);
    mv->player = player;
    mv->face = g->roll;
    mv->shape = s;
    mv->orient = orient;
    mv->x = x;
    mv->y = y;
    if (gr->take >= 0) {
        const dk_stone *t = &g->stones[gr->take];
        mv->take_n = t->n;
        for (int c = 0; c < t->n; c++) {
            mv->take_x[c] = t->x[c];
            mv->take_y[c] = t->y[c];
        }
        dk_remove_stone(g, gr->take);
    }
    unsigned char before[MAX_H], after[MAX_H];
    dk_complete_rows(g, g->rows, before);
    dk_stone *st = &g->stones[g->nstones++];
    st->shape = s;
    st->owner = player;
    st->number = g->next_number++;
    st->n = o->n;
    for (int c = 0; c < o->n; c++) {
        st->x[c] = x + o->dx[c];
        st->y[c] = y + o->dy[c];
        g->rows[st->y[c]] |= 1ULL << st->x[c];
    }
    if (gr->take < 0 && (g->flags & F_LIMITED)) g->supply[s]--;
    dk_complete_rows(g, g->rows, after);
    unsigned char fresh[MAX_H];
    int count = 0, rescores = (g->flags & F_RESCORE) || g->clear != CLEAR_NONE;
    for (int r = 0; r < g->h; r++) {
        fresh[r] = after[r] && !before[r];
        if (fresh[r] && (rescores || !g->scored[r])) count++;
        if (fresh[r]) g->scored[r] = 1;
    }
    /* DiceGame._settle / _take_token: one token per point while the supply has stones. */
    for (int i = 0; i < count; i++) {
        if (!(g->flags & F_TOKENS)) break;
        int t = dk_default_token(g);
        if (t < 0) break;
        if (named != NULL) t = named[i]; /* the env's learner names them (checked against the supply) */
        g->supply[t]--;
        mv->tokens[mv->ntokens++] = t;
    }
    if (g->clear != CLEAR_NONE) dk_clear(g, fresh);
    g->scores[player] += count;
    g->rows_completed[player] += count;
    g->roll = -1;
    g->turn++;
    g->to_move = (player + 1) % g->nplayers;
    if (g->clear != CLEAR_NONE && g->scores[player] >= g->target) g->over = 1;
    return 0;
}

/* dice_eval.immediate for one option: the rows it scores and the weighted cost of the board it
 * leaves (rows cleared as the rules clear them). */
static void dk_immediate(const dk_game *g, int group, int orient, int x, int y, long *points, double *cost) {
    const dk_group *gr = &g->groups[group];
    const orient_t *o = &g->os[gr->shape][orient];
    uint64_t rows[MAX_H], col = dk_col(g);
    dk_rows_without(g, gr->take, rows);
    unsigned char fresh[MAX_H];
    int any = 0;
    int rescores = (g->flags & F_RESCORE) || g->clear != CLEAR_NONE;
    long pts = 0;
    for (int r = 0; r < g->h; r++) fresh[r] = rows[r] == col; /* complete before */
    for (int c = 0; c < o->n; c++) rows[y + o->dy[c]] |= 1ULL << (x + o->dx[c]);
    for (int r = 0; r < g->h; r++) {
        fresh[r] = rows[r] == col && !fresh[r];
        if (fresh[r]) {
            any = 1;
            if (rescores || !g->scored[r]) pts++;
        }
    }
    if (any && g->clear == CLEAR_STONES) {
        /* whole stones leave, nothing falls: the piece, and every stone with a cell in a row */
        for (int c = 0; c < o->n; c++) rows[y + o->dy[c]] &= ~(1ULL << (x + o->dx[c]));
        for (int i = 0; i < g->nstones; i++) {
            if (i == gr->take) continue;
            const dk_stone *st = &g->stones[i];
            int hit = 0;
            for (int c = 0; c < st->n; c++) hit |= fresh[st->y[c]];
            if (hit)
                for (int c = 0; c < st->n; c++) rows[st->y[c]] &= ~(1ULL << st->x[c]);
        }
    } else if (any && g->clear == CLEAR_CELLS) {
        int dst = 0;
        for (int r = 0; r < g->h; r++)
            if (!fresh[r]) rows[dst++] = rows[r];
        for (; dst < g->h; dst++) rows[dst] = 0;
    }
    features_t f;
    features_core(rows, g->w, g->h, &f);
    *points = pts;
    *cost = features_cost(&f, g->wt);
}

/* GreedyBot.choose_dice at full strength: the first option with the most points, then the
 * lowest cost (the key (points, -cost) compared as Python compares tuples). */
static void dk_greedy(const dk_game *g, int *group, int *orient, int *x, int *y) {
    long best_pts = -1;
    double best_cost = 0.0;
    *group = -1;
    for (int i = 0; i < g->ngroups; i++) {
        const dk_group *gr = &g->groups[i];
        for (int k = 0; k < g->nos[gr->shape]; k++) {
            const uint64_t *out = g->pool + gr->off + (size_t)k * g->h;
            for (int yy = 0; yy < g->h; yy++)
                for (uint64_t b = out[yy]; b; b &= b - 1) {
                    int xx = __builtin_ctzll(b);
                    long pts;
                    double cost;
                    dk_immediate(g, i, k, xx, yy, &pts, &cost);
                    if (pts > best_pts || (pts == best_pts && -cost > -best_cost)) {
                        best_pts = pts;
                        best_cost = cost;
                        *group = i;
                        *orient = k;
                        *x = xx;
                        *y = yy;
                    }
                }
        }
    }
}

/* A seat policy that a layer above the engine supplies: the bots' expert (bots/_dice_expert.c,
 * ExpertBot.choose_dice). The kernel names no bot; _native.c, which puts the layers together,
 * hands dice_playout this table. ``load`` checks the policy's params from Python into
 * ``params_size`` bytes once per call; ``choose`` decides for the roll showing (its ``n``
 * options made by dk_options): the option and its tokens (``*ntok``, 0 for the default ones). */
typedef struct {
    size_t params_size;
    int (*load)(PyObject *params, void *out);
    int (*choose)(const dk_game *g, long n, const void *params, int *group, int *orient, int *x, int *y,
                  int *tokens, int *ntok);
} dk_policy;

/* DiceGame.roll: the die rolled for the turn (-1 with an error set once the game has played
 * DK_MAX_COUNT turns: past it a count could overflow; the Python engine plays on). */
static int dk_roll(dk_game *g) {
    if (g->turn >= DK_MAX_COUNT) {
        PyErr_Format(PyExc_ValueError, "dice kernel: the game reached turn %d, the most the kernel counts", g->turn);
        return -1;
    }
    g->roll = (int)mt_below(&g->rng, g->nfaces);
    return 0;
}

/* One whole turn: DiceGame.roll (unless a roll is pending), then the seat's policy and
 * DiceGame.act (``expert``: the expert seats' policy and its loaded params). Returns 0, or -1
 * with an error set. */
static int dk_turn(dk_game *g, const int *policy, mt_t *bot_rng, const dk_policy *expert, const void *params) {
    if (g->roll < 0 && dk_roll(g) < 0) return -1;
    long n = dk_options(g);
    if (n < 0) return -1;
    if (n == 0) return dk_stuck(g);
    int group = -1, orient = 0, x = 0, y = 0;
    int seat = g->to_move;
    if (policy[seat] == POLICY_EXPERT) {
        int tokens[DK_MAX_CELLS], ntok = 0;
        if (expert->choose(g, n, params, &group, &orient, &x, &y, tokens, &ntok) < 0) return -1;
        return dk_apply(g, group, orient, x, y, ntok ? tokens : NULL);
    }
    if (policy[seat] == POLICY_GREEDY) {
        dk_greedy(g, &group, &orient, &x, &y);
    } else {
        dk_option_at(g, mt_below(&bot_rng[seat], n), &group, &orient, &x, &y);
    }
    if (group < 0) {
        PyErr_SetString(PyExc_RuntimeError, "dice kernel: no option chosen (a bug)");
        return -1;
    }
    return dk_apply(g, group, orient, x, y, NULL);
}

/* ------------------------------------------------------------ Python in and out */

/* A Python int the kernel keeps in a C int (its counts are 32-bit): OverflowError naming
 * ``what`` where it does not fit, never a truncated value. fastdice.unsupported keeps such rules
 * from the kernel (the Python engine plays them); this is the kernel's own guard. */
static int dk_as_int(PyObject *v, const char *what, int *out) {
    int overflow;
    long x = PyLong_AsLongAndOverflow(v, &overflow);
    if (x == -1 && PyErr_Occurred()) return -1;
    if (overflow || x < INT_MIN || x > INT_MAX) {
        PyErr_Format(PyExc_OverflowError, "dice kernel: %s %R does not fit the kernel's 32-bit ints", what, v);
        return -1;
    }
    *out = (int)x;
    return 0;
}

static int dk_int(PyObject *seq, Py_ssize_t i, int *out, const char *what) {
    return dk_as_int(PyTuple_GET_ITEM(seq, i), what, out);
}

static int dk_ints(PyObject *t, int *out, int n, const char *what) {
    if (!PyTuple_Check(t) || PyTuple_GET_SIZE(t) != n) {
        PyErr_Format(PyExc_ValueError, "%s: expected a tuple of %d ints", what, n);
        return -1;
    }
    for (int i = 0; i < n; i++)
        if (dk_int(t, i, &out[i], what) < 0) return -1;
    return 0;
}

static int dk_row_flags(PyObject *v, int h, unsigned char *out) {
    uint64_t rows[MAX_H];
    if (load_candidates(v, h, rows) < 0) return -1;
    for (int y = 0; y < h; y++) out[y] = (unsigned char)rows[y];
    return 0;
}

static PyObject *dk_row_int(const unsigned char *flags, int h) {
    unsigned char buf[MAX_H / 8 + 16];
    memset(buf, 0, sizeof buf);
    for (int y = 0; y < h; y++)
        if (flags[y]) buf[y >> 3] |= (unsigned char)(1 << (y & 7));
    return bytes_to_int(buf, (size_t)(h + 7) / 8);
}

/* Whether the rules in ``g`` are ones the kernel can play: every field within this build's
 * limits (the arrays' sizes), every orientation a piece of 1..DK_MAX_CELLS distinct cells in the
 * entry rows, every face a shape or '*'. One check for the rules from Python (dk_load_rules) and
 * for the bytes of a copy (env_load), which trusts nothing it reads. */
static int dk_check_rules(const dk_game *g) {
    if (check_size(g->w, g->h) < 0 || parse_access(g->access) < 0) return -1;
    if (g->nshapes < 1 || g->nshapes > DK_SHAPES || g->nfaces < 1 || g->nfaces > DK_FACES || g->nplayers < 1 ||
        g->nplayers > DK_PLAYERS || g->clear < CLEAR_NONE || g->clear > CLEAR_STONES || (g->flags & ~F_ALL))
        goto bad;
    for (int s = 0; s < g->nshapes; s++) {
        if (g->nos[s] < 1 || g->nos[s] > 8) goto bad;
        for (int k = 0; k < g->nos[s]; k++) {
            const orient_t *o = &g->os[s][k];
            if (o->n < 1 || o->n > DK_MAX_CELLS || o->ow < 1 || o->ow > MAX_W || o->oh < 1 || o->oh > ENTRY_ROWS) goto bad;
            for (int c = 0; c < o->n; c++) {
                if (o->dx[c] < 0 || o->dx[c] >= o->ow || o->dy[c] < 0 || o->dy[c] >= o->oh) goto bad;
                for (int d = 0; d < c; d++) /* distinct cells: a stone covers each cell once */
                    if (o->dx[d] == o->dx[c] && o->dy[d] == o->dy[c]) goto bad;
            }
        }
    }
    for (int i = 0; i < g->nfaces; i++)
        if (g->face_shape[i] < -1 || g->face_shape[i] >= g->nshapes) {
            PyErr_SetString(PyExc_ValueError, "dice kernel: a face names no shape");
            return -1;
        }
    return 0;
bad:
    PyErr_SetString(PyExc_ValueError, "dice kernel: rules out of range");
    return -1;
}

/* rules = (width, height, access, specs, die, flags, clear, target, players, weights):
 * specs one orientation spec per shape of the die (DiceRules.shapes order), die one byte per
 * face (the shape's index, 255 for '*'). */
static int dk_load_rules(dk_game *g, PyObject *rules) {
    PyObject *specs, *die, *target, *wt;
    if (!PyArg_ParseTuple(rules, "iiiO!SiiOiO!", &g->w, &g->h, &g->access, &PyTuple_Type, &specs, &die, &g->flags,
                          &g->clear, &target, &g->nplayers, &PyTuple_Type, &wt))
        return -1;
    if (dk_as_int(target, "target", &g->target) < 0) return -1;
    g->nshapes = (int)PyTuple_GET_SIZE(specs);
    g->nfaces = (int)PyBytes_GET_SIZE(die);
    if (g->nshapes < 1 || g->nshapes > DK_SHAPES || g->nfaces < 1 || g->nfaces > DK_FACES || PyTuple_GET_SIZE(wt) != 8) {
        PyErr_SetString(PyExc_ValueError, "dice kernel: rules out of range");
        return -1;
    }
    for (int s = 0; s < g->nshapes; s++) {
        g->nos[s] = parse_spec(PyTuple_GET_ITEM(specs, s), g->os[s], 8);
        if (g->nos[s] < 0) return -1;
    }
    const unsigned char *d = (const unsigned char *)PyBytes_AS_STRING(die);
    for (int i = 0; i < g->nfaces; i++) g->face_shape[i] = d[i] == 255 ? -1 : d[i];
    for (int i = 0; i < 8; i++) {
        g->wt[i] = PyFloat_AsDouble(PyTuple_GET_ITEM(wt, i));
        if (g->wt[i] == -1.0 && PyErr_Occurred()) return -1;
    }
    return dk_check_rules(g);
}

/* Whether the position in ``g`` is one the rules in ``g`` (checked) can have: the counts in
 * range, every stone a piece of the die's shapes on the board, no two stones on one cell, the
 * stones in number order below next_number, ``rows`` exactly their cells, the generator's index
 * in its state. The loaders (dk_load_state, env_load) ask it before the position is used, so
 * no index taken from a state or a copy's bytes reaches past an array. */
static int dk_check_position(const dk_game *g) {
    const char *why = NULL;
    uint64_t rows[MAX_H];
    memset(rows, 0, sizeof rows);
    if (g->nstones < 0 || g->nstones > g->w * g->h) why = "more stones than cells";
    for (int i = 0; i < g->nstones && why == NULL; i++) {
        const dk_stone *st = &g->stones[i];
        if (st->shape < 0 || st->shape >= g->nshapes || st->n < 1 || st->n > DK_MAX_CELLS) {
            why = "a stone of another shape or size";
            break;
        }
        if (st->owner < -1 || st->owner >= g->nplayers) why = "a stone of a seat that is not there";
        else if (st->number < 1 || st->number >= g->next_number || (i > 0 && st->number <= g->stones[i - 1].number))
            why = "stones out of number order";
        for (int c = 0; c < st->n && why == NULL; c++) {
            if (st->x[c] < 0 || st->x[c] >= g->w || st->y[c] < 0 || st->y[c] >= g->h) why = "a stone off the board";
            else if (rows[st->y[c]] >> st->x[c] & 1) why = "two stones on one cell";
            else rows[st->y[c]] |= 1ULL << st->x[c];
        }
    }
    for (int y = 0; y < g->h && why == NULL; y++)
        if (rows[y] != g->rows[y] || g->scored[y] > 1) why = "the board is not its stones";
    for (int s = 0; s < g->nshapes && why == NULL; s++)
        if (g->supply[s] < 0 || g->supply[s] > DK_MAX_COUNT) why = "a supply out of range";
    for (int k = 0; k < g->nplayers && why == NULL; k++)
        if (g->rows_completed[k] < 0 || g->rows_completed[k] > DK_MAX_COUNT || g->scores[k] < -DK_MAX_COUNT ||
            g->scores[k] > DK_MAX_COUNT)
            why = "a score or count of rows out of range";
    if (why == NULL && (g->to_move < 0 || g->to_move >= g->nplayers || g->roll < -1 || g->roll >= g->nfaces))
        why = "to_move or roll out of range";
    if (why == NULL && (g->turn < 0 || g->turn > DK_MAX_COUNT || g->next_number < 1 || g->next_number > DK_MAX_COUNT ||
                        g->over < 0 || g->over > 1 || g->stuck < -1 || g->stuck >= g->nplayers))
        why = "turn, next_number, over or stuck out of range";
    if (why == NULL && (g->rng.index < 0 || g->rng.index > MT_N)) why = "the generator's index out of range";
    if (why == NULL) return 0;
    PyErr_Format(PyExc_ValueError, "dice kernel: %s", why);
    return -1;
}

/* state = (stones, next_number, supply, scores, rows_completed, scored_rows, turn, to_move,
 * roll, over, stuck, rng): stones a sequence of (shape, owner (-1: garbage), number, cells as
 * bytes x0 y0 x1 y1 ...) in number order; roll and stuck -1 for none; rng getstate()[1]. */
static int dk_load_state(dk_game *g, PyObject *state) {
    PyObject *stones, *supply, *scores, *done, *scored, *rng;
    if (!PyArg_ParseTuple(state, "OiO!O!O!OiiiiiO", &stones, &g->next_number, &PyTuple_Type, &supply, &PyTuple_Type,
                          &scores, &PyTuple_Type, &done, &scored, &g->turn, &g->to_move, &g->roll, &g->over,
                          &g->stuck, &rng))
        return -1;
    if (dk_ints(supply, g->supply, g->nshapes, "supply") < 0 || dk_ints(scores, g->scores, g->nplayers, "scores") < 0 ||
        dk_ints(done, g->rows_completed, g->nplayers, "rows_completed") < 0)
        return -1;
    if (dk_row_flags(scored, g->h, g->scored) < 0 || mt_load(&g->rng, rng) < 0) return -1;
    PyObject *seq = PySequence_Fast(stones, "stones: expected a sequence");
    if (seq == NULL) return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    memset(g->rows, 0, sizeof g->rows);
    g->nstones = 0;
    if (n > DK_MAX_STONES) {
        PyErr_SetString(PyExc_ValueError, "dice kernel: more stones than cells");
        goto fail;
    }
    if (dk_grow((void **)&g->stones, &g->cap_stones, NULL, NULL, (size_t)n + 1, sizeof(dk_stone)) < 0) goto fail;
    for (Py_ssize_t i = 0; i < n; i++) {
        dk_stone *st = &g->stones[g->nstones];
        PyObject *cells;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(seq, i), "iiiS", &st->shape, &st->owner, &st->number, &cells))
            goto fail;
        Py_ssize_t nb = PyBytes_GET_SIZE(cells);
        const unsigned char *c = (const unsigned char *)PyBytes_AS_STRING(cells);
        if (st->shape < 0 || st->shape >= g->nshapes || nb < 2 || nb > 2 * DK_MAX_CELLS || nb % 2) {
            PyErr_SetString(PyExc_ValueError, "dice kernel: a stone of another shape or size");
            goto fail;
        }
        st->n = (int)(nb / 2);
        for (int k = 0; k < st->n; k++) {
            st->x[k] = c[2 * k];
            st->y[k] = c[2 * k + 1];
            if (st->x[k] >= g->w || st->y[k] >= g->h) {
                PyErr_SetString(PyExc_ValueError, "dice kernel: a stone off the board");
                goto fail;
            }
            if (g->rows[st->y[k]] >> st->x[k] & 1) {
                PyErr_SetString(PyExc_ValueError, "dice kernel: two stones on one cell");
                goto fail;
            }
            g->rows[st->y[k]] |= 1ULL << st->x[k];
        }
        g->nstones++;
    }
    Py_DECREF(seq);
    return dk_check_position(g);
fail:
    Py_DECREF(seq);
    return -1;
}

static PyObject *dk_tuple_ints(const int *v, int n) {
    PyObject *t = PyTuple_New(n);
    if (t == NULL) return NULL;
    for (int i = 0; i < n; i++) {
        PyObject *x = PyLong_FromLong(v[i]);
        if (x == NULL) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, i, x);
    }
    return t;
}

static PyObject *dk_store_state(const dk_game *g) {
    PyObject *stones = PyList_New(g->nstones);
    if (stones == NULL) return NULL;
    for (int i = 0; i < g->nstones; i++) {
        const dk_stone *st = &g->stones[i];
        unsigned char c[2 * DK_MAX_CELLS];
        for (int k = 0; k < st->n; k++) {
            c[2 * k] = (unsigned char)st->x[k];
            c[2 * k + 1] = (unsigned char)st->y[k];
        }
        PyObject *item = Py_BuildValue("(iiiy#)", st->shape, st->owner, st->number, c, (Py_ssize_t)(2 * st->n));
        if (item == NULL) {
            Py_DECREF(stones);
            return NULL;
        }
        PyList_SET_ITEM(stones, i, item);
    }
    return Py_BuildValue("(NiNNNNiiiiiN)", stones, g->next_number, dk_tuple_ints(g->supply, g->nshapes),
                         dk_tuple_ints(g->scores, g->nplayers), dk_tuple_ints(g->rows_completed, g->nplayers),
                         dk_row_int(g->scored, g->h), g->turn, g->to_move, g->roll, g->over, g->stuck,
                         mt_store(&g->rng));
}

/* A move as (player, face, shape, orientation, x, y, take cells as bytes or None, tokens as
 * bytes of shape indices); a stuck roll has shape -1. */
static PyObject *dk_store_moves(const dk_game *g) {
    PyObject *out = PyList_New(g->nmoves);
    if (out == NULL) return NULL;
    for (long i = 0; i < g->nmoves; i++) {
        const dk_move *mv = &g->moves[i];
        PyObject *take;
        if (mv->take_n) {
            unsigned char c[2 * DK_MAX_CELLS];
            for (int k = 0; k < mv->take_n; k++) {
                c[2 * k] = (unsigned char)mv->take_x[k];
                c[2 * k + 1] = (unsigned char)mv->take_y[k];
            }
            take = PyBytes_FromStringAndSize((const char *)c, 2 * mv->take_n);
        } else {
            take = Py_NewRef(Py_None);
        }
        if (take == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        unsigned char tk[DK_MAX_CELLS];
        for (int k = 0; k < mv->ntokens; k++) tk[k] = (unsigned char)mv->tokens[k];
        PyObject *item = Py_BuildValue("(iiiiiiNy#)", mv->player, mv->face, mv->shape, mv->orient, mv->x, mv->y, take,
                                       tk, (Py_ssize_t)mv->ntokens);
        if (item == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, i, item);
    }
    return out;
}

/* dice_playout(rules, state, policies, bot_rngs, max_turns[, expert]) -> (moves, state, bot_rngs):
 * plays turns from ``state`` until the game is over or ``max_turns`` turns were played (a stuck
 * roll is a turn). ``policies``: bytes, one per seat (0 random, 1 greedy, 2 expert: ``expert``
 * are its params, see expert_decide); ``bot_rngs``: per seat the getstate()[1] of its bot's
 * generator, or None (a greedy or expert seat draws nothing). ``expert_policy`` plays the expert
 * seats: the bots' layer's, which _native.c's dice_playout passes. */
static PyObject *dk_playout(PyObject *args, const dk_policy *expert_policy) {
    PyObject *rules, *state, *policies, *bot_states, *expert = NULL;
    long max_turns;
    if (!PyArg_ParseTuple(args, "O!O!SO!l|O!", &PyTuple_Type, &rules, &PyTuple_Type, &state, &policies, &PyTuple_Type,
                          &bot_states, &max_turns, &PyTuple_Type, &expert))
        return NULL;
    double params[16]; /* the expert's params (a double array: aligned for any of its fields) */
    if (expert_policy->params_size > sizeof params) {
        PyErr_SetString(PyExc_RuntimeError, "dice kernel: the expert's params outgrew their buffer (a bug)");
        return NULL;
    }
    if (expert != NULL && expert_policy->load(expert, params) < 0) return NULL;
    dk_game g;
    memset(&g, 0, sizeof g);
    int policy[DK_PLAYERS];
    mt_t *bot_rng = NULL;
    PyObject *result = NULL;
    if (dk_load_rules(&g, rules) < 0 || dk_load_state(&g, state) < 0) goto done;
    if (PyBytes_GET_SIZE(policies) != g.nplayers || PyTuple_GET_SIZE(bot_states) != g.nplayers) {
        PyErr_SetString(PyExc_ValueError, "dice kernel: one policy and one generator per seat");
        goto done;
    }
    bot_rng = PyMem_Calloc((size_t)g.nplayers, sizeof(mt_t));
    if (bot_rng == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (int i = 0; i < g.nplayers; i++) {
        policy[i] = ((const unsigned char *)PyBytes_AS_STRING(policies))[i];
        PyObject *st = PyTuple_GET_ITEM(bot_states, i);
        if (policy[i] != POLICY_GREEDY && policy[i] != POLICY_RANDOM && (policy[i] != POLICY_EXPERT || expert == NULL)) {
            PyErr_SetString(PyExc_ValueError, "dice kernel: policy 0 (random), 1 (greedy) or 2 (expert, with its params)");
            goto done;
        }
        if (policy[i] == POLICY_RANDOM && mt_load(&bot_rng[i], st) < 0) goto done;
    }
    for (long t = 0; t < max_turns && !g.over; t++)
        if (dk_turn(&g, policy, bot_rng, expert_policy, params) < 0) goto done;
    PyObject *rngs = PyTuple_New(g.nplayers);
    if (rngs == NULL) goto done;
    for (int i = 0; i < g.nplayers; i++) {
        PyObject *v = policy[i] == POLICY_RANDOM ? mt_store(&bot_rng[i]) : Py_NewRef(Py_None);
        if (v == NULL) {
            Py_DECREF(rngs);
            goto done;
        }
        PyTuple_SET_ITEM(rngs, i, v);
    }
    result = Py_BuildValue("(NNN)", dk_store_moves(&g), dk_store_state(&g), rngs);
done:
    PyMem_Free(bot_rng);
    dk_free(&g);
    return result;
}

/* ------------------------------------------------------------ the codes the binding passes */

/* A C name and its value, as the module's CONSTANTS dict holds them. */
typedef struct {
    const char *name;
    long value;
} dk_code;

static int dk_put_codes(PyObject *d, const dk_code *codes, size_t n) {
    for (size_t i = 0; i < n; i++) {
        PyObject *v = PyLong_FromLong(codes[i].value);
        if (v == NULL || PyDict_SetItemString(d, codes[i].name, v) < 0) {
            Py_XDECREF(v);
            return -1;
        }
        Py_DECREF(v);
    }
    return 0;
}

/* Every enum value and flag bit engine/fastdice.py (and board.py's ACCESS_CODE) passes as an
 * int, and the limits it checks against, by their C names: the module's CONSTANTS, which
 * tests/test_native_constants.py compares with the Python constants. */
static int dk_add_constants(PyObject *d) {
    static const dk_code codes[] = {
        {"ACCESS_DROP", ACCESS_DROP}, {"ACCESS_SLIDE", ACCESS_SLIDE}, {"ACCESS_FREE", ACCESS_FREE},
        {"CLEAR_NONE", CLEAR_NONE}, {"CLEAR_CELLS", CLEAR_CELLS}, {"CLEAR_STONES", CLEAR_STONES},
        {"POLICY_RANDOM", POLICY_RANDOM}, {"POLICY_GREEDY", POLICY_GREEDY}, {"POLICY_EXPERT", POLICY_EXPERT},
        {"F_LIMITED", F_LIMITED}, {"F_TOKENS", F_TOKENS}, {"F_TAKE_ANY", F_TAKE_ANY},
        {"F_MUST_CLOSE", F_MUST_CLOSE}, {"F_STUCK_PENALTY", F_STUCK_PENALTY}, {"F_RESCORE", F_RESCORE},
        {"DK_SHAPES", DK_SHAPES}, {"DK_PLAYERS", DK_PLAYERS}, {"DK_FACES", DK_FACES},
        {"DK_MAX_CELLS", DK_MAX_CELLS}, {"DK_MAX_COUNT", DK_MAX_COUNT}, {"MAX_W", MAX_W}, {"MAX_H", MAX_H},
        {"INT_MAX", INT_MAX},
    };
    return dk_put_codes(d, codes, sizeof codes / sizeof codes[0]);
}
