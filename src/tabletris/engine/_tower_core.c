/* tabletris.engine._tower: the tower game in C (issue 29), a second copy of engine/tower.py's rules.
 *
 * engine/tower.py (TowerGame, Tower) is the reference and stays the only implementation the
 * front ends use. This copy exists because tests/test_fasttower*.py play whole games on both from
 * the same seeds (1-4 players, every achievement card, minos, holds, outs, custom layouts and
 * sizes) and check that rounds, towers, stones, scores, supply, cards and generators agree
 * exactly; every function below names the Python function it translates. engine/fasttower.py is
 * the binding (what it does not play, ``unsupported`` says, and the Python engine plays it).
 *
 * A tower is one uint32 per row (bit x = cell (x, y) filled; towers are at most 20 wide and 40
 * tall), the columns' heights (one above the highest filled cell: where a mino lands, and with the
 * piece's lowest cell per column where a straight drop stops), a grid of which stone fills each
 * cell (255 a mino, k the k-th tetromino) and, where a card in play asks (four-pairs, connect-*),
 * which tetrominoes touch (one bit mask per tetromino). The bots' lookahead copies towers, so the
 * copy (``tw_copy``) moves only the rows, cells and pieces the tower's size and history use.
 *
 * Included here, so they share these structs and the one extension: the bots' policies
 * (bots/_tower_bots.c: random, greedy, expert, bit for bit the Python bots' decisions) and the
 * Gymnasium env's fast path (envs/_tower_env.c).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "_cpython_random.h"

#define TW_MAX_W 20
#define TW_MAX_H 40
#define TW_PLAYERS 4
#define TW_SHAPES 7 /* the tetrominoes, TETROMINOES order: I O T S Z J L */
#define TW_MINO 7   /* Shape.M's index in stone data */
#define TW_ORIENTS 4
#define TW_MAX_TET 63 /* tetrominoes in one tower (a game drops at most 27) */
#define TW_MAX_STONES 320
#define TW_MAX_MINOS 255 /* a tower's minos and the box's, at most */
#define TW_DECK 27       /* DECK_SIZE */
#define TW_CARDS 12      /* ACHIEVEMENTS */
#define TW_SPACES 3
#define TW_POOL (TW_PLAYERS * TW_MAX_MINOS + TW_MAX_MINOS + 8)
#define TW_GRID_MINO 255

enum { SH_I = 0, SH_O = 1, SH_T = 2, SH_S = 3, SH_Z = 4, SH_J = 5, SH_L = 6 };

/* The achievement cards, in ACHIEVEMENTS order (their ids in ``tw_card_names``). */
enum {
    C_TETRIS = 0, C_SIX_LINES, C_THREE_ROWS, C_TWO_ROWS, C_SEVEN_ON_A_SIDE, C_FULL_COLUMN, C_FIVE_BONUS,
    C_FOUR_DIAMONDS, C_FOUR_PAIRS, C_CONNECT_LJ, C_CONNECT_SZ, C_CONNECT_IO
};
static const char *tw_card_names[TW_CARDS] = {
    "tetris", "six-lines", "three-rows", "two-rows", "seven-on-a-side", "full-column", "five-bonus",
    "four-diamonds", "four-pairs", "connect-lj", "connect-sz", "connect-io",
};

enum { ACT_NONE = 0, ACT_HOLD = 1, ACT_DROP = 2 };

static inline int tw_popcount32(uint32_t x) {
    x -= (x >> 1) & 0x55555555U;
    x = (x & 0x33333333U) + ((x >> 2) & 0x33333333U);
    x = (x + (x >> 4)) & 0x0f0f0f0fU;
    return (int)((x * 0x01010101U) >> 24);
}

static inline int tw_popcount64(uint64_t x) {
    x -= (x >> 1) & 0x5555555555555555ULL;
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
    return (int)((x * 0x0101010101010101ULL) >> 56);
}

/* ------------------------------------------------------------ rules, layouts, towers */

typedef struct {
    int n, ow, oh;
    int dx[4], dy[4];
    int lo[4]; /* per column of the form, its lowest cell's dy: where a straight drop meets the column */
} tw_orient;

typedef struct {
    int w, h, box, start_minos, seven_both, pairs_any;
    int nos[TW_SHAPES];
    tw_orient os[TW_SHAPES][TW_ORIENTS]; /* shape.orientations("rotate"), in that order */
    int card_kind[TW_CARDS];             /* the card table (every card the game knows), in ACHIEVEMENTS order */
    int card_points[TW_CARDS][TW_SPACES];
    int ntable;
    int touch; /* a card in play reads which pieces touch */
} tw_rules;

typedef struct {
    uint32_t bonus[TW_SHAPES][TW_MAX_H]; /* bonus icons of each shape, per row */
    uint32_t diamond[TW_MAX_H];
} tw_layout;

typedef struct {
    /* scalars, heights, counts and piece shapes: copied whole by tw_copy */
    int minos, held, out, bonus, lines, left, right, dcover, ntet;
    uint64_t full; /* complete rows, bit y */
    uint8_t height[TW_MAX_W];
    uint8_t count[TW_MAX_W];
    uint8_t tshape[TW_MAX_TET + 1];
    /* rows, touches and cells: copied as far as the tower uses them */
    uint32_t rows[TW_MAX_H];
    uint64_t adj[TW_MAX_TET + 1]; /* bit j of adj[k]: tetromino k touches tetromino j (edge to edge) */
    uint8_t grid[TW_MAX_H * TW_MAX_W];
} tw_tower;

static void tw_copy(tw_tower *dst, const tw_tower *src, const tw_rules *r) {
    memcpy(dst, src, offsetof(tw_tower, rows));
    memcpy(dst->rows, src->rows, sizeof(uint32_t) * (size_t)r->h);
    if (r->touch) memcpy(dst->adj, src->adj, sizeof(uint64_t) * (size_t)(src->ntet + 1));
    memcpy(dst->grid, src->grid, (size_t)r->h * (size_t)r->w);
}

/* Orientations from board.shape_spec bytes: (n, width, height, dx0, dy0, ...) per form. */
static int tw_load_specs(tw_rules *r, PyObject *specs) {
    if (!PyTuple_Check(specs) || PyTuple_GET_SIZE(specs) != TW_SHAPES) {
        PyErr_SetString(PyExc_ValueError, "tower core: expected one orientation spec per tetromino");
        return -1;
    }
    for (int s = 0; s < TW_SHAPES; s++) {
        PyObject *b = PyTuple_GET_ITEM(specs, s);
        if (!PyBytes_Check(b)) {
            PyErr_SetString(PyExc_TypeError, "tower core: an orientation spec is bytes");
            return -1;
        }
        const unsigned char *p = (const unsigned char *)PyBytes_AS_STRING(b);
        Py_ssize_t len = PyBytes_GET_SIZE(b), i = 0;
        int k = 0;
        while (i < len) {
            if (k >= TW_ORIENTS || i + 3 > len || p[i] != 4 || i + 3 + 2 * p[i] > len) {
                PyErr_SetString(PyExc_ValueError, "tower core: a tetromino spec is damaged");
                return -1;
            }
            tw_orient *o = &r->os[s][k];
            o->n = p[i];
            o->ow = p[i + 1];
            o->oh = p[i + 2];
            if (o->ow < 1 || o->ow > 4 || o->oh < 1 || o->oh > 4) {
                PyErr_SetString(PyExc_ValueError, "tower core: a tetromino spec is damaged");
                return -1;
            }
            for (int c = 0; c < 4; c++) o->lo[c] = -1;
            for (int c = 0; c < o->n; c++) {
                o->dx[c] = p[i + 3 + 2 * c];
                o->dy[c] = p[i + 4 + 2 * c];
                if (o->dx[c] >= o->ow || o->dy[c] >= o->oh) {
                    PyErr_SetString(PyExc_ValueError, "tower core: a tetromino spec is damaged");
                    return -1;
                }
                if (o->lo[o->dx[c]] < 0 || o->dy[c] < o->lo[o->dx[c]]) o->lo[o->dx[c]] = o->dy[c];
            }
            for (int c = 0; c < o->ow; c++)
                if (o->lo[c] < 0) {
                    PyErr_SetString(PyExc_ValueError, "tower core: a tetromino spec has an empty column");
                    return -1;
                }
            i += 3 + 2 * o->n;
            k++;
        }
        if (k == 0) {
            PyErr_SetString(PyExc_ValueError, "tower core: a tetromino without orientations");
            return -1;
        }
        r->nos[s] = k;
    }
    return 0;
}

/* ------------------------------------------------------------ drops (Tower.legal_drops) */

typedef struct {
    int8_t o, x, y;
} tw_place;

/* Board.placements(shape, "rotate", "drop") on a tower whose column heights are ``height``:
 * per orientation, the anchors in bit order (row, then column). A straight drop from above stops
 * where some column of the piece meets that column's highest filled cell: y = max over the
 * form's columns of (height - lowest dy); it is legal when the piece ends below the skyline. */
static int tw_drops_on(const tw_rules *r, const uint8_t *height, int s, tw_place *out) {
    int n = 0, w = r->w, h = r->h;
    for (int k = 0; k < r->nos[s]; k++) {
        const tw_orient *o = &r->os[s][k];
        int ys[TW_MAX_W], xs[TW_MAX_W], m = 0;
        for (int x = 0; x + o->ow <= w; x++) {
            int y = 0;
            for (int c = 0; c < o->ow; c++) {
                int v = (int)height[x + c] - o->lo[c];
                if (v > y) y = v;
            }
            if (y + o->oh > h) continue;
            /* insertion in (y, x) order; x grows, so only y moves an entry */
            int j = m++;
            while (j > 0 && ys[j - 1] > y) {
                ys[j] = ys[j - 1];
                xs[j] = xs[j - 1];
                j--;
            }
            ys[j] = y;
            xs[j] = x;
        }
        for (int j = 0; j < m; j++) {
            out[n].o = (int8_t)k;
            out[n].x = (int8_t)xs[j];
            out[n].y = (int8_t)ys[j];
            n++;
        }
    }
    return n;
}

static int tw_drops(const tw_rules *r, const tw_tower *t, int s, tw_place *out) {
    return tw_drops_on(r, t->height, s, out);
}

/* Tower.has_drop */
static int tw_has_drop_on(const tw_rules *r, const uint8_t *height, int s) {
    for (int k = 0; k < r->nos[s]; k++) {
        const tw_orient *o = &r->os[s][k];
        for (int x = 0; x + o->ow <= r->w; x++) {
            int y = 0;
            for (int c = 0; c < o->ow; c++) {
                int v = (int)height[x + c] - o->lo[c];
                if (v > y) y = v;
            }
            if (y + o->oh <= r->h) return 1;
        }
    }
    return 0;
}

/* ------------------------------------------------------------ changes (Tower.apply) */

/* A cell filled: its row, column height and count, the complete rows, the diamonds covered. */
static inline void tw_fill(tw_tower *t, const tw_rules *r, const tw_layout *lay, int x, int y, uint8_t who) {
    t->rows[y] |= 1U << x;
    t->grid[y * r->w + x] = who;
    if (t->height[x] < y + 1) t->height[x] = (uint8_t)(y + 1);
    t->count[x]++;
    if (lay->diamond[y] >> x & 1) t->dcover++;
    if (t->rows[y] == (1U << r->w) - 1) {
        t->full |= 1ULL << y;
        t->lines++;
    }
}

/* One mino dropped in ``column`` (Tower.mino_placement, then board.push); its row. */
static int tw_push_mino(tw_tower *t, const tw_rules *r, const tw_layout *lay, int column) {
    int y = t->height[column];
    tw_fill(t, r, lay, column, y, TW_GRID_MINO);
    return y;
}

/* The piece of shape ``s`` in form ``k`` at (x, y) put in (board.push), with what Tower.apply
 * measures of it: the bonus icons of its own shape it covers (added to the tower's bonus), the
 * diamonds it covers (returned), the walls it touches, and the rows it completed that were not
 * complete before the round's minos (``before``): RoundFacts.rows_by_piece, into ``rows``. */
static int tw_push_piece(tw_tower *t, const tw_rules *r, const tw_layout *lay, int s, int k, int x, int y,
                         uint64_t before, int *rows) {
    const tw_orient *o = &r->os[s][k];
    int id = ++t->ntet;
    t->tshape[id] = (uint8_t)s;
    if (r->touch) t->adj[id] = 0;
    int diamonds = 0, minx = TW_MAX_W, maxx = -1;
    uint64_t piece_rows = 0;
    for (int c = 0; c < o->n; c++) {
        int cx = x + o->dx[c], cy = y + o->dy[c];
        if (lay->bonus[s][cy] >> cx & 1) t->bonus++;
        if (lay->diamond[cy] >> cx & 1) diamonds++;
        tw_fill(t, r, lay, cx, cy, (uint8_t)id);
        piece_rows |= 1ULL << cy;
        if (cx < minx) minx = cx;
        if (cx > maxx) maxx = cx;
    }
    if (r->touch) {
        int w = r->w, h = r->h;
        for (int c = 0; c < o->n; c++) {
            int cx = x + o->dx[c], cy = y + o->dy[c];
            int nx[4] = {cx + 1, cx - 1, cx, cx}, ny[4] = {cy, cy, cy + 1, cy - 1};
            for (int d = 0; d < 4; d++) {
                if (nx[d] < 0 || nx[d] >= w || ny[d] < 0 || ny[d] >= h) continue;
                int g = t->grid[ny[d] * w + nx[d]];
                if (g == 0 || g == TW_GRID_MINO || g == id) continue;
                t->adj[id] |= 1ULL << g;
                t->adj[g] |= 1ULL << id;
            }
        }
    }
    if (minx == 0) t->left |= 1 << s;
    if (maxx == r->w - 1) t->right |= 1 << s;
    *rows = tw_popcount64((t->full & ~before) & piece_rows);
    return diamonds;
}

/* ------------------------------------------------------------ the cards' conditions (achievements.py) */

/* Pairs of same-shape tetrominoes that touch (progress of four-pairs, and its "pairs" reading). */
static int tw_same_pairs(const tw_tower *t) {
    int pairs = 0;
    for (int a = 1; a <= t->ntet; a++) {
        uint64_t m = t->adj[a] & ~((2ULL << a) - 1); /* partners numbered after a */
        for (; m; m &= m - 1) {
            int b = __builtin_ctzll(m);
            if (t->tshape[b] == t->tshape[a]) pairs++;
        }
    }
    return pairs;
}

/* _max_matching over the touching pairs of the tetrominoes in ``mask`` (one shape's pieces). */
static int tw_matching(const tw_tower *t, uint64_t mask) {
    if (!mask) return 0;
    int v = __builtin_ctzll(mask);
    uint64_t rest = mask & ~(1ULL << v);
    int best = tw_matching(t, rest); /* v left unmatched */
    for (uint64_t m = t->adj[v] & rest; m; m &= m - 1) {
        int u = __builtin_ctzll(m);
        int with = 1 + tw_matching(t, rest & ~(1ULL << u));
        if (with > best) best = with;
    }
    return best;
}

static int tw_four_pairs(const tw_tower *t, const tw_rules *r) {
    if (r->pairs_any) return tw_same_pairs(t) >= 4;
    int total = 0;
    for (int s = 0; s < TW_SHAPES; s++) {
        uint64_t mask = 0;
        for (int k = 1; k <= t->ntet; k++)
            if (t->tshape[k] == s) mask |= 1ULL << k;
        total += tw_matching(t, mask);
    }
    return total >= 4;
}

/* achievements.largest_group: the most tetrominoes of the shapes in ``shapes`` (a bit per shape)
 * in one edge-connected group of such pieces. */
static int tw_largest_group(const tw_tower *t, int shapes) {
    uint64_t members = 0;
    for (int k = 1; k <= t->ntet; k++)
        if (shapes >> t->tshape[k] & 1) members |= 1ULL << k;
    int best = 0;
    while (members) {
        uint64_t group = members & -members, grown;
        do {
            grown = group;
            for (uint64_t m = grown; m; m &= m - 1) group |= t->adj[__builtin_ctzll(m)] & members;
        } while (group != grown);
        int size = tw_popcount64(group);
        if (size > best) best = size;
        members &= ~group;
    }
    return best;
}

static const int tw_group_shapes[3] = {(1 << SH_L) | (1 << SH_J), (1 << SH_S) | (1 << SH_Z), (1 << SH_I) | (1 << SH_O)};

static int tw_full_column(const tw_tower *t, const tw_rules *r) {
    for (int x = 0; x < r->w; x++)
        if (t->count[x] == r->h) return 1;
    return 0;
}

/* AchievementSpec.condition of card ``kind`` for tower ``t`` and this round's facts: the shape
 * dropped (-1 for a hold) and RoundFacts.rows_by_piece. */
static int tw_condition(int kind, const tw_tower *t, const tw_rules *r, int shape, int rows) {
    switch (kind) {
    case C_TETRIS:
        return shape == SH_I && rows >= 4;
    case C_SIX_LINES:
        return t->lines >= 6;
    case C_THREE_ROWS:
        return (shape == SH_L || shape == SH_J) && rows >= 3;
    case C_TWO_ROWS:
        return shape == SH_O && rows >= 2;
    case C_SEVEN_ON_A_SIDE:
        if (r->seven_both) return tw_popcount32((uint32_t)(t->left | t->right)) == TW_SHAPES;
        return tw_popcount32((uint32_t)t->left) == TW_SHAPES || tw_popcount32((uint32_t)t->right) == TW_SHAPES;
    case C_FULL_COLUMN:
        return tw_full_column(t, r);
    case C_FIVE_BONUS:
        return t->bonus >= 5;
    case C_FOUR_DIAMONDS:
        return t->dcover >= 4;
    case C_FOUR_PAIRS:
        return tw_four_pairs(t, r);
    case C_CONNECT_LJ:
    case C_CONNECT_SZ:
    case C_CONNECT_IO:
        return tw_largest_group(t, tw_group_shapes[kind - C_CONNECT_LJ]) >= 4;
    }
    return 0;
}

/* ------------------------------------------------------------ the game (TowerGame) */

typedef struct {
    uint8_t shape, n;
    int8_t owner; /* -1: None */
    uint16_t number;
    uint8_t x[4], y[4];
} tw_stone;

typedef struct {
    int kind, forced, nminos;
    uint8_t minos[TW_MAX_MINOS];
    int o, x, y;
} tw_pend;

typedef struct {
    int8_t kind; /* ACT_NONE: out (null in the record), ACT_HOLD, ACT_DROP */
    int8_t o, x, y;
    uint8_t nminos;
    uint16_t moff; /* its minos in the game's pool */
} tw_rec;

typedef struct {
    int kind, next_space, met;
    int points[TW_SPACES];
    int holders[TW_SPACES]; /* a bit per seat */
    int met_round[TW_PLAYERS];
} tw_card;

typedef struct {
    tw_rules r;
    int n;
    tw_tower t[TW_PLAYERS];
    tw_layout lay[TW_PLAYERS];
    tw_stone stones[TW_PLAYERS][TW_MAX_STONES];
    int nstones[TW_PLAYERS], next_number[TW_PLAYERS];
    int cards[TW_DECK], deck_size, drawn, play, supply, over;
    tw_pend pend[TW_PLAYERS];
    int submitted[TW_PLAYERS];
    int ncards;
    tw_card card[TW_CARDS];
    int base_rounds, nrounds; /* rounds before the load; rounds resolved here (in ``rec``) */
    tw_rec rec[TW_DECK][TW_PLAYERS];
    int npool;
    uint8_t pool[TW_POOL];
    pyr_t rng; /* the game's generator: drawn from at set-up only */
} tw_game;

static void tw_log_stone(tw_game *g, int seat, int shape, int n, const int *xs, const int *ys, int owner) {
    tw_stone *st = &g->stones[seat][g->nstones[seat]++];
    st->shape = (uint8_t)shape;
    st->n = (uint8_t)n;
    st->owner = (int8_t)owner;
    st->number = (uint16_t)g->next_number[seat]++;
    for (int c = 0; c < n; c++) {
        st->x[c] = (uint8_t)xs[c];
        st->y[c] = (uint8_t)ys[c];
    }
}

/* TowerGame.waiting_for, as a bit per seat. */
static int tw_waiting(const tw_game *g) {
    if (g->over) return 0;
    int m = 0;
    for (int s = 0; s < g->n; s++)
        if (!g->t[s].out && !g->submitted[s]) m |= 1 << s;
    return m;
}

static int tw_active(const tw_game *g) {
    int m = 0;
    for (int s = 0; s < g->n; s++)
        if (!g->t[s].out) m |= 1 << s;
    return m;
}

/* TowerGame.score(seat)["total"]: 2 per complete row, the bonus icons, the cards' spaces. */
static int tw_points_for(const tw_card *c, int seat) {
    for (int i = 0; i < TW_SPACES; i++)
        if (c->holders[i] >> seat & 1) return c->points[i];
    return 0;
}

static int tw_score(const tw_game *g, int seat) {
    const tw_tower *t = &g->t[seat];
    int total = 2 * t->lines + t->bonus;
    for (int i = 0; i < g->ncards; i++) total += tw_points_for(&g->card[i], seat);
    return total;
}

/* TowerGame.winners, as a bit per seat (0 until the game is over). */
static int tw_winners(const tw_game *g) {
    if (!g->over) return 0;
    int best_total = tw_score(g, 0), best_lines = g->t[0].lines;
    for (int s = 1; s < g->n; s++) {
        int total = tw_score(g, s), lines = g->t[s].lines;
        if (total > best_total || (total == best_total && lines > best_lines)) {
            best_total = total;
            best_lines = lines;
        }
    }
    int m = 0;
    for (int s = 0; s < g->n; s++)
        if (tw_score(g, s) == best_total && g->t[s].lines == best_lines) m |= 1 << s;
    return m;
}

/* AchievementCard.award: the seats meeting the card first this round share its highest vacant space. */
static void tw_award(tw_card *c, int seats, int number) {
    int fresh = seats & ~c->met;
    if (!fresh) return;
    c->met |= fresh;
    for (int s = 0; s < TW_PLAYERS; s++)
        if (fresh >> s & 1) c->met_round[s] = number;
    if (c->next_space >= TW_SPACES) return;
    c->holders[c->next_space++] = fresh;
}

static void tw_start_round(tw_game *g);

/* TowerGame._resolve: every seat's action in seat order, the minos their diamonds earn (seat order
 * when the supply runs short), then the cards. ``start_next``: the next round begins. */
static void tw_resolve(tw_game *g, int start_next) {
    int shape = g->play, n = g->n;
    int earned[TW_PLAYERS] = {0}, fact_shape[TW_PLAYERS], fact_rows[TW_PLAYERS], has_fact[TW_PLAYERS];
    tw_rec *rec = g->rec[g->nrounds];
    for (int s = 0; s < n; s++) {
        tw_tower *t = &g->t[s];
        tw_pend *p = &g->pend[s];
        has_fact[s] = 0;
        rec[s].kind = ACT_NONE;
        rec[s].nminos = 0;
        rec[s].moff = 0;
        if (t->out || p->kind == ACT_NONE) continue;
        has_fact[s] = 1;
        if (p->kind == ACT_HOLD) {
            t->held = shape;
            fact_shape[s] = -1;
            fact_rows[s] = 0;
            rec[s].kind = ACT_HOLD;
            continue;
        }
        const tw_rules *r = &g->r;
        const tw_layout *lay = &g->lay[s];
        uint64_t before = t->full;
        rec[s].kind = ACT_DROP;
        rec[s].nminos = (uint8_t)p->nminos;
        rec[s].moff = (uint16_t)g->npool;
        for (int i = 0; i < p->nminos; i++) {
            int c = p->minos[i];
            int y = tw_push_mino(t, r, lay, c);
            tw_log_stone(g, s, TW_MINO, 1, &c, &y, s);
            g->pool[g->npool++] = (uint8_t)c;
        }
        t->minos -= p->nminos;
        earned[s] = tw_push_piece(t, r, lay, shape, p->o, p->x, p->y, before, &fact_rows[s]);
        fact_shape[s] = shape;
        const tw_orient *o = &r->os[shape][p->o];
        int xs[4], ys[4];
        for (int c = 0; c < o->n; c++) {
            xs[c] = p->x + o->dx[c];
            ys[c] = p->y + o->dy[c];
        }
        tw_log_stone(g, s, shape, o->n, xs, ys, s);
        rec[s].o = (int8_t)p->o;
        rec[s].x = (int8_t)p->x;
        rec[s].y = (int8_t)p->y;
    }
    for (int s = 0; s < n; s++) {
        int give = earned[s] < g->supply ? earned[s] : g->supply;
        g->supply -= give;
        g->t[s].minos += give;
    }
    g->nrounds++;
    int number = g->base_rounds + g->nrounds;
    for (int i = 0; i < g->ncards; i++) {
        tw_card *c = &g->card[i];
        int meeting = 0;
        for (int s = 0; s < n; s++)
            if (has_fact[s] && !(c->met >> s & 1) && tw_condition(c->kind, &g->t[s], &g->r, fact_shape[s], fact_rows[s]))
                meeting |= 1 << s;
        if (meeting) tw_award(c, meeting, number);
    }
    for (int s = 0; s < n; s++) {
        g->pend[s].kind = ACT_NONE;
        g->pend[s].forced = 0;
        g->submitted[s] = 0;
    }
    if (start_next) tw_start_round(g);
}

/* TowerGame._start_round: the top card to PLAY; forced holds and outs; a round nobody is left to
 * choose in resolves by itself. */
static void tw_start_round(tw_game *g) {
    for (;;) {
        if (g->drawn >= g->deck_size) {
            g->over = 1;
            g->play = -1;
            return;
        }
        g->play = g->cards[g->drawn++];
        for (int s = 0; s < g->n; s++) {
            g->pend[s].kind = ACT_NONE;
            g->pend[s].forced = 0;
            g->submitted[s] = 0;
        }
        for (int s = 0; s < g->n; s++) {
            tw_tower *t = &g->t[s];
            if (t->out) continue;
            if (!tw_has_drop_on(&g->r, t->height, g->play)) {
                if (t->held >= 0) {
                    t->out = 1;
                } else {
                    g->pend[s].kind = ACT_HOLD;
                    g->pend[s].forced = 1;
                    g->pend[s].nminos = 0;
                    g->submitted[s] = 1;
                }
            }
        }
        if (!tw_active(g)) {
            g->over = 1;
            return;
        }
        if (tw_waiting(g)) return;
        tw_resolve(g, 0);
    }
}

/* TowerGame.submit for an action known to be legal (the core's own bots and the env's masked
 * ids): kept as the seat's pending action; the round resolves when every active seat is in. */
static void tw_submit(tw_game *g, int seat, int kind, int nminos, const int *minos, int o, int x, int y) {
    tw_pend *p = &g->pend[seat];
    p->kind = kind;
    p->forced = 0;
    p->nminos = kind == ACT_DROP ? nminos : 0;
    for (int i = 0; i < p->nminos; i++) p->minos[i] = (uint8_t)minos[i];
    p->o = o;
    p->x = x;
    p->y = y;
    g->submitted[seat] = 1;
    if (!tw_waiting(g)) tw_resolve(g, 1);
}

/* TowerGame.cards_unseen: per shape, the cards not yet seen (PLAY and NEXT count as seen). */
static void tw_unseen(const tw_game *g, int *unseen) {
    for (int s = 0; s < TW_SHAPES; s++) unseen[s] = 4;
    int seen = g->drawn + 1 < g->deck_size ? g->drawn + 1 : g->deck_size;
    for (int i = 0; i < seen; i++) unseen[g->cards[i]]--;
}

static int tw_next_card(const tw_game *g) {
    return g->drawn < g->deck_size ? g->cards[g->drawn] : -1;
}

/* ------------------------------------------------------------ Python in and out */

static int tw_long(PyObject *v, long lo, long hi, const char *what, int *out) {
    long x = PyLong_AsLong(v);
    if (x == -1 && PyErr_Occurred()) return -1;
    if (x < lo || x > hi) {
        PyErr_Format(PyExc_ValueError, "tower core: %s %ld is out of range (%ld-%ld)", what, x, lo, hi);
        return -1;
    }
    *out = (int)x;
    return 0;
}

static int tw_item(PyObject *t, Py_ssize_t i, long lo, long hi, const char *what, int *out) {
    return tw_long(PyTuple_GET_ITEM(t, i), lo, hi, what, out);
}

static int tw_tuple(PyObject *t, Py_ssize_t n, const char *what) {
    if (!PyTuple_Check(t) || (n >= 0 && PyTuple_GET_SIZE(t) != n)) {
        if (n >= 0)
            PyErr_Format(PyExc_ValueError, "tower core: %s: expected a tuple of %zd", what, n);
        else
            PyErr_Format(PyExc_ValueError, "tower core: %s: expected a tuple", what);
        return -1;
    }
    return 0;
}

/* rules = (width, height, minos_in_box, start_minos, seven_both, pairs_any, specs, table):
 * ``specs`` the rotate-mode orientation spec of each tetromino, ``table`` every card the game
 * knows as (id, high, middle, low) in ACHIEVEMENTS order. */
static int tw_load_rules(tw_rules *r, PyObject *rules) {
    if (tw_tuple(rules, 8, "rules") < 0) return -1;
    if (tw_item(rules, 0, 4, TW_MAX_W, "width", &r->w) < 0 || tw_item(rules, 1, 4, TW_MAX_H, "height", &r->h) < 0 ||
        tw_item(rules, 2, 0, TW_MAX_MINOS, "minos_in_box", &r->box) < 0 ||
        tw_item(rules, 3, 0, TW_MAX_MINOS, "start_minos", &r->start_minos) < 0 ||
        tw_item(rules, 4, 0, 1, "seven_both", &r->seven_both) < 0 || tw_item(rules, 5, 0, 1, "pairs_any", &r->pairs_any) < 0)
        return -1;
    if (tw_load_specs(r, PyTuple_GET_ITEM(rules, 6)) < 0) return -1;
    PyObject *table = PyTuple_GET_ITEM(rules, 7);
    if (tw_tuple(table, TW_CARDS, "the card table") < 0) return -1;
    r->ntable = TW_CARDS;
    for (int i = 0; i < TW_CARDS; i++) {
        PyObject *row = PyTuple_GET_ITEM(table, i);
        if (tw_tuple(row, 4, "a card") < 0) return -1;
        const char *name = PyUnicode_Check(PyTuple_GET_ITEM(row, 0)) ? PyUnicode_AsUTF8(PyTuple_GET_ITEM(row, 0)) : NULL;
        if (name == NULL || strcmp(name, tw_card_names[i]) != 0) {
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_ValueError, "tower core: card %d is not %s: the core knows the cards of rules.md", i,
                             tw_card_names[i]);
            return -1;
        }
        r->card_kind[i] = i;
        for (int k = 0; k < TW_SPACES; k++)
            if (tw_item(row, 1 + k, 0, 1000, "card points", &r->card_points[i][k]) < 0) return -1;
    }
    r->touch = 0;
    return 0;
}

static void tw_layout_clear(tw_layout *lay) {
    memset(lay->bonus, 0, sizeof lay->bonus);
    memset(lay->diamond, 0, sizeof lay->diamond);
}

/* layout = (bonus, diamonds): ((x, y, shape), ...) and ((x, y), ...) inside the tower. */
static int tw_load_layout(tw_layout *lay, const tw_rules *r, PyObject *spec) {
    tw_layout_clear(lay);
    if (tw_tuple(spec, 2, "layout") < 0) return -1;
    PyObject *bonus = PyTuple_GET_ITEM(spec, 0), *dia = PyTuple_GET_ITEM(spec, 1);
    if (tw_tuple(bonus, -1, "layout bonus") < 0 || tw_tuple(dia, -1, "layout diamonds") < 0) return -1;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(bonus); i++) {
        PyObject *b = PyTuple_GET_ITEM(bonus, i);
        int x, y, s;
        if (tw_tuple(b, 3, "bonus icon") < 0 || tw_item(b, 0, 0, r->w - 1, "icon x", &x) < 0 ||
            tw_item(b, 1, 0, r->h - 1, "icon y", &y) < 0 || tw_item(b, 2, 0, TW_SHAPES - 1, "icon shape", &s) < 0)
            return -1;
        lay->bonus[s][y] |= 1U << x;
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(dia); i++) {
        PyObject *d = PyTuple_GET_ITEM(dia, i);
        int x, y;
        if (tw_tuple(d, 2, "diamond") < 0 || tw_item(d, 0, 0, r->w - 1, "diamond x", &x) < 0 ||
            tw_item(d, 1, 0, r->h - 1, "diamond y", &y) < 0)
            return -1;
        lay->diamond[y] |= 1U << x;
    }
    return 0;
}

static void tw_tower_clear(tw_tower *t, int minos) {
    memset(t, 0, sizeof *t);
    t->minos = minos;
    t->held = -1;
}

/* The tower's derived state (rows, heights, grid, touches, complete rows, diamonds covered) from
 * its stones, in number order. */
static int tw_place_stones(tw_tower *t, const tw_rules *r, const tw_layout *lay, const tw_stone *stones, int n) {
    for (int i = 0; i < n; i++) {
        const tw_stone *st = &stones[i];
        uint8_t who;
        if (st->shape == TW_MINO) {
            who = TW_GRID_MINO;
        } else {
            if (t->ntet >= TW_MAX_TET) {
                PyErr_SetString(PyExc_ValueError, "tower core: too many tetrominoes in one tower");
                return -1;
            }
            who = (uint8_t)++t->ntet;
            t->tshape[who] = st->shape;
            t->adj[who] = 0;
        }
        for (int c = 0; c < st->n; c++) {
            int x = st->x[c], y = st->y[c];
            if (t->grid[y * r->w + x]) {
                PyErr_Format(PyExc_ValueError, "tower core: two stones at (%d, %d)", x, y);
                return -1;
            }
            tw_fill(t, r, lay, x, y, who);
        }
    }
    /* Tower.touching: every pair of tetrominoes with cells edge to edge */
    for (int y = 0; y < r->h; y++)
        for (int x = 0; x < r->w; x++) {
            int a = t->grid[y * r->w + x];
            if (a == 0 || a == TW_GRID_MINO) continue;
            int b = x + 1 < r->w ? t->grid[y * r->w + x + 1] : 0;
            int c = y + 1 < r->h ? t->grid[(y + 1) * r->w + x] : 0;
            if (b && b != TW_GRID_MINO && b != a) {
                t->adj[a] |= 1ULL << b;
                t->adj[b] |= 1ULL << a;
            }
            if (c && c != TW_GRID_MINO && c != a) {
                t->adj[a] |= 1ULL << c;
                t->adj[c] |= 1ULL << a;
            }
        }
    return 0;
}

/* tower = (stones, next_number, minos, held, out, bonus, left, right, layout): stones as
 * (shape index (7: M), owner or -1, number, cells as bytes x0 y0 x1 y1 ...) in number order. */
static int tw_load_tower(tw_game *g, int seat, PyObject *spec) {
    const tw_rules *r = &g->r;
    tw_tower *t = &g->t[seat];
    if (tw_tuple(spec, 9, "tower") < 0) return -1;
    PyObject *stones = PyTuple_GET_ITEM(spec, 0);
    int minos, held, out, bonus, left, right, next;
    if (tw_tuple(stones, -1, "stones") < 0 || tw_item(spec, 1, 1, 60000, "next stone number", &next) < 0 ||
        tw_item(spec, 2, 0, TW_MAX_MINOS, "minos", &minos) < 0 || tw_item(spec, 3, -1, TW_SHAPES - 1, "held", &held) < 0 ||
        tw_item(spec, 4, 0, 1, "out", &out) < 0 || tw_item(spec, 5, 0, 10000, "bonus", &bonus) < 0 ||
        tw_item(spec, 6, 0, 127, "left", &left) < 0 || tw_item(spec, 7, 0, 127, "right", &right) < 0)
        return -1;
    if (tw_load_layout(&g->lay[seat], r, PyTuple_GET_ITEM(spec, 8)) < 0) return -1;
    Py_ssize_t ns = PyTuple_GET_SIZE(stones);
    if (ns > TW_MAX_STONES) {
        PyErr_SetString(PyExc_ValueError, "tower core: too many stones in one tower");
        return -1;
    }
    tw_tower_clear(t, minos);
    int last = 0;
    for (Py_ssize_t i = 0; i < ns; i++) {
        PyObject *s = PyTuple_GET_ITEM(stones, i);
        int shape, owner, number;
        if (tw_tuple(s, 4, "stone") < 0 || tw_item(s, 0, 0, TW_MINO, "stone shape", &shape) < 0 ||
            tw_item(s, 1, -1, TW_PLAYERS - 1, "stone owner", &owner) < 0 ||
            tw_item(s, 2, last + 1, next - 1, "stone number", &number) < 0)
            return -1;
        PyObject *cells = PyTuple_GET_ITEM(s, 3);
        int ncell = shape == TW_MINO ? 1 : 4;
        if (!PyBytes_Check(cells) || PyBytes_GET_SIZE(cells) != 2 * ncell) {
            PyErr_SetString(PyExc_ValueError, "tower core: a stone's cells (4 for a tetromino, 1 for a mino)");
            return -1;
        }
        const unsigned char *p = (const unsigned char *)PyBytes_AS_STRING(cells);
        tw_stone *st = &g->stones[seat][i];
        st->shape = (uint8_t)shape;
        st->n = (uint8_t)ncell;
        st->owner = (int8_t)owner;
        st->number = (uint16_t)number;
        for (int c = 0; c < ncell; c++) {
            if (p[2 * c] >= r->w || p[2 * c + 1] >= r->h) {
                PyErr_SetString(PyExc_ValueError, "tower core: a stone outside the tower");
                return -1;
            }
            st->x[c] = p[2 * c];
            st->y[c] = p[2 * c + 1];
        }
        last = number;
    }
    g->nstones[seat] = (int)ns;
    g->next_number[seat] = next;
    if (tw_place_stones(t, r, &g->lay[seat], g->stones[seat], (int)ns) < 0) return -1;
    t->held = held;
    t->out = out;
    t->bonus = bonus;
    t->left = left;
    t->right = right;
    return 0;
}

static PyObject *pyr_store(const pyr_t *rng) {
    PyObject *t = PyTuple_New(PYR_N + 1);
    if (t == NULL) return NULL;
    for (int i = 0; i <= PYR_N; i++) {
        PyObject *v = PyLong_FromUnsignedLong(i < PYR_N ? rng->mt[i] : (unsigned long)rng->index);
        if (v == NULL) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, i, v);
    }
    return t;
}

static int pyr_load(pyr_t *rng, PyObject *st) {
    if (PyLong_Check(st)) {
        unsigned long v = PyLong_AsUnsignedLong(st);
        if (v == (unsigned long)-1 && PyErr_Occurred()) return -1;
        if (v > 0xffffffffUL) {
            PyErr_SetString(PyExc_ValueError, "tower core: generator seed: expected 0 <= seed < 2**32");
            return -1;
        }
        pyr_seed(rng, (uint32_t)v);
        return 0;
    }
    if (!PyTuple_Check(st) || PyTuple_GET_SIZE(st) != PYR_N + 1) {
        PyErr_SetString(PyExc_ValueError, "tower core: generator state: getstate()[1] or a seed");
        return -1;
    }
    for (int i = 0; i <= PYR_N; i++) {
        unsigned long v = PyLong_AsUnsignedLong(PyTuple_GET_ITEM(st, i));
        if (v == (unsigned long)-1 && PyErr_Occurred()) return -1;
        if (i < PYR_N) {
            rng->mt[i] = (uint32_t)v;
        } else if (v > PYR_N) {
            PyErr_SetString(PyExc_ValueError, "tower core: generator state: index out of range");
            return -1;
        } else {
            rng->index = (int)v;
        }
    }
    return 0;
}

/* state = (towers, deck, drawn, play, supply, over, pending, cards, rounds_before, rng):
 * ``deck`` the cards in draw order as shape indices (all of them), ``pending`` per seat (kind,
 * forced, minos bytes, orientation, x, y), ``cards`` per card in play (table index, next space,
 * holders (3 seat masks), met mask, met rounds per seat), ``rng`` getstate()[1] or a seed. */
static int tw_load_game(tw_game *g, PyObject *state) {
    tw_rules *r = &g->r;
    if (tw_tuple(state, 10, "state") < 0) return -1;
    PyObject *towers = PyTuple_GET_ITEM(state, 0), *deck = PyTuple_GET_ITEM(state, 1);
    PyObject *pending = PyTuple_GET_ITEM(state, 6), *cards = PyTuple_GET_ITEM(state, 7);
    if (tw_tuple(towers, -1, "towers") < 0) return -1;
    g->n = (int)PyTuple_GET_SIZE(towers);
    if (g->n < 1 || g->n > TW_PLAYERS) {
        PyErr_SetString(PyExc_ValueError, "tower core: 1 to 4 towers");
        return -1;
    }
    for (int s = 0; s < g->n; s++)
        if (tw_load_tower(g, s, PyTuple_GET_ITEM(towers, s)) < 0) return -1;
    if (!PyBytes_Check(deck) || PyBytes_GET_SIZE(deck) != TW_DECK) {
        PyErr_SetString(PyExc_ValueError, "tower core: the deck is 27 shape indices (the whole deck)");
        return -1;
    }
    g->deck_size = TW_DECK;
    for (int i = 0; i < TW_DECK; i++) {
        int c = (unsigned char)PyBytes_AS_STRING(deck)[i];
        if (c >= TW_SHAPES) {
            PyErr_SetString(PyExc_ValueError, "tower core: a card that is not a tetromino");
            return -1;
        }
        g->cards[i] = c;
    }
    if (tw_item(state, 2, 0, TW_DECK, "drawn", &g->drawn) < 0 || tw_item(state, 3, -1, TW_SHAPES - 1, "play", &g->play) < 0 ||
        tw_item(state, 4, 0, TW_MAX_MINOS, "supply", &g->supply) < 0 || tw_item(state, 5, 0, 1, "over", &g->over) < 0 ||
        tw_item(state, 8, 0, TW_DECK, "rounds", &g->base_rounds) < 0)
        return -1;
    if (!g->over && (g->play < 0 || g->drawn < 1 || g->cards[g->drawn - 1] != g->play)) {
        PyErr_SetString(PyExc_ValueError, "tower core: PLAY is not the card last drawn");
        return -1;
    }
    if (tw_tuple(pending, g->n, "pending") < 0) return -1;
    for (int s = 0; s < g->n; s++) {
        PyObject *p = PyTuple_GET_ITEM(pending, s);
        tw_pend *pd = &g->pend[s];
        if (tw_tuple(p, 6, "a pending action") < 0 || tw_item(p, 0, ACT_NONE, ACT_DROP, "pending kind", &pd->kind) < 0 ||
            tw_item(p, 1, 0, 1, "forced", &pd->forced) < 0 || tw_item(p, 3, -1, TW_ORIENTS - 1, "orientation", &pd->o) < 0 ||
            tw_item(p, 4, -1, TW_MAX_W - 1, "x", &pd->x) < 0 || tw_item(p, 5, -1, TW_MAX_H - 1, "y", &pd->y) < 0)
            return -1;
        PyObject *m = PyTuple_GET_ITEM(p, 2);
        if (!PyBytes_Check(m) || PyBytes_GET_SIZE(m) > TW_MAX_MINOS) {
            PyErr_SetString(PyExc_ValueError, "tower core: pending minos are bytes");
            return -1;
        }
        pd->nminos = (int)PyBytes_GET_SIZE(m);
        memcpy(pd->minos, PyBytes_AS_STRING(m), (size_t)pd->nminos);
        g->submitted[s] = pd->kind != ACT_NONE;
    }
    if (tw_tuple(cards, -1, "cards") < 0 || PyTuple_GET_SIZE(cards) > TW_CARDS) return -1;
    g->ncards = (int)PyTuple_GET_SIZE(cards);
    int seen = 0;
    for (int i = 0; i < g->ncards; i++) {
        PyObject *c = PyTuple_GET_ITEM(cards, i);
        tw_card *cd = &g->card[i];
        int id;
        if (tw_tuple(c, 5, "card") < 0 || tw_item(c, 0, 0, TW_CARDS - 1, "card", &id) < 0 ||
            tw_item(c, 1, 0, TW_SPACES, "next space", &cd->next_space) < 0 ||
            tw_item(c, 3, 0, (1 << TW_PLAYERS) - 1, "met", &cd->met) < 0)
            return -1;
        if (seen >> id & 1) {
            PyErr_SetString(PyExc_ValueError, "tower core: a card is in play twice");
            return -1;
        }
        seen |= 1 << id;
        cd->kind = r->card_kind[id];
        for (int k = 0; k < TW_SPACES; k++) cd->points[k] = r->card_points[id][k];
        PyObject *holders = PyTuple_GET_ITEM(c, 2), *rounds = PyTuple_GET_ITEM(c, 4);
        if (tw_tuple(holders, TW_SPACES, "holders") < 0 || tw_tuple(rounds, g->n, "met rounds") < 0) return -1;
        for (int k = 0; k < TW_SPACES; k++)
            if (tw_item(holders, k, 0, (1 << TW_PLAYERS) - 1, "holders", &cd->holders[k]) < 0) return -1;
        for (int s = 0; s < TW_PLAYERS; s++) cd->met_round[s] = 0;
        for (int s = 0; s < g->n; s++)
            if (tw_item(rounds, s, 0, 1000, "met round", &cd->met_round[s]) < 0) return -1;
        if (cd->kind == C_FOUR_PAIRS || cd->kind >= C_CONNECT_LJ) r->touch = 1;
    }
    if (pyr_load(&g->rng, PyTuple_GET_ITEM(state, 9)) < 0) return -1;
    g->nrounds = 0;
    g->npool = 0;
    return 0;
}

static PyObject *tw_bytes(const uint8_t *p, int n) {
    return PyBytes_FromStringAndSize((const char *)p, n);
}

/* One round's actions as the binding rebuilds them: per seat None (out), 1 (a hold) or
 * (minos bytes, orientation, x, y). */
static PyObject *tw_dump_round(const tw_game *g, int k) {
    PyObject *row = PyTuple_New(g->n);
    if (row == NULL) return NULL;
    for (int s = 0; s < g->n; s++) {
        const tw_rec *rc = &g->rec[k][s];
        PyObject *item;
        if (rc->kind == ACT_NONE) {
            item = Py_NewRef(Py_None);
        } else if (rc->kind == ACT_HOLD) {
            item = PyLong_FromLong(1);
        } else {
            item = Py_BuildValue("(Niii)", tw_bytes(g->pool + rc->moff, rc->nminos), rc->o, rc->x, rc->y);
        }
        if (item == NULL) {
            Py_DECREF(row);
            return NULL;
        }
        PyTuple_SET_ITEM(row, s, item);
    }
    return row;
}

/* The game back to Python (fasttower.write_back): (towers, drawn, play, supply, over, pending,
 * cards, rounds, rng); a tower as (stones, next_number, minos, held, out, bonus, left, right),
 * stones as tw_load_tower reads them; the rounds resolved since the load. */
static PyObject *tw_dump_game(const tw_game *g) {
    PyObject *towers = PyTuple_New(g->n), *pending = PyTuple_New(g->n), *cards = PyTuple_New(g->ncards);
    PyObject *rounds = PyTuple_New(g->nrounds);
    if (towers == NULL || pending == NULL || cards == NULL || rounds == NULL) goto fail;
    for (int s = 0; s < g->n; s++) {
        const tw_tower *t = &g->t[s];
        PyObject *stones = PyTuple_New(g->nstones[s]);
        if (stones == NULL) goto fail;
        for (int i = 0; i < g->nstones[s]; i++) {
            const tw_stone *st = &g->stones[s][i];
            uint8_t cells[8];
            for (int c = 0; c < st->n; c++) {
                cells[2 * c] = st->x[c];
                cells[2 * c + 1] = st->y[c];
            }
            PyObject *item = Py_BuildValue("(iiiN)", st->shape, st->owner, st->number, tw_bytes(cells, 2 * st->n));
            if (item == NULL) {
                Py_DECREF(stones);
                goto fail;
            }
            PyTuple_SET_ITEM(stones, i, item);
        }
        PyObject *tower = Py_BuildValue("(Niiiiiii)", stones, g->next_number[s], t->minos, t->held, t->out, t->bonus,
                                        t->left, t->right);
        if (tower == NULL) goto fail;
        PyTuple_SET_ITEM(towers, s, tower);
        const tw_pend *p = &g->pend[s];
        int drop = p->kind == ACT_DROP;
        PyObject *pd = Py_BuildValue("(iiNiii)", p->kind, p->forced, tw_bytes(p->minos, drop ? p->nminos : 0),
                                     drop ? p->o : -1, drop ? p->x : -1, drop ? p->y : -1);
        if (pd == NULL) goto fail;
        PyTuple_SET_ITEM(pending, s, pd);
    }
    for (int i = 0; i < g->ncards; i++) {
        const tw_card *c = &g->card[i];
        PyObject *rounds_met = PyTuple_New(g->n);
        if (rounds_met == NULL) goto fail;
        for (int s = 0; s < g->n; s++) PyTuple_SET_ITEM(rounds_met, s, PyLong_FromLong(c->met_round[s]));
        PyObject *item = Py_BuildValue("(i(iii)iN)", c->next_space, c->holders[0], c->holders[1], c->holders[2], c->met,
                                       rounds_met);
        if (item == NULL) goto fail;
        PyTuple_SET_ITEM(cards, i, item);
    }
    for (int k = 0; k < g->nrounds; k++) {
        PyObject *row = tw_dump_round(g, k);
        if (row == NULL) goto fail;
        PyTuple_SET_ITEM(rounds, k, row);
    }
    return Py_BuildValue("(NiiiiNNNN)", towers, g->drawn, g->play, g->supply, g->over, pending, cards, rounds,
                         pyr_store(&g->rng));
fail:
    Py_XDECREF(towers);
    Py_XDECREF(pending);
    Py_XDECREF(cards);
    Py_XDECREF(rounds);
    return NULL;
}

/* ------------------------------------------------------------ a new game from its seed */

/* What TowerGame(players, rules, seed) draws, for rules without chosen towers: the library's
 * eight layouts (clipped to the tower's size already), the card table and which cards are in play
 * (or how many to draw). ``setup = (layouts, in_play or None, draw)``, layouts in LAYOUT_NAMES
 * order (1a 1b 2a 2b 3a 3b 4a 4b). */
typedef struct {
    tw_layout library[8];
    int nplay, in_play[TW_CARDS], draw;
} tw_setup;

static int tw_load_setup(tw_setup *su, const tw_rules *r, PyObject *setup) {
    if (tw_tuple(setup, 3, "setup") < 0) return -1;
    PyObject *layouts = PyTuple_GET_ITEM(setup, 0), *play = PyTuple_GET_ITEM(setup, 1);
    if (tw_tuple(layouts, 8, "library layouts") < 0) return -1;
    for (int i = 0; i < 8; i++)
        if (tw_load_layout(&su->library[i], r, PyTuple_GET_ITEM(layouts, i)) < 0) return -1;
    if (tw_item(setup, 2, 0, TW_CARDS, "cards drawn", &su->draw) < 0) return -1;
    if (play == Py_None) {
        su->nplay = -1;
        return 0;
    }
    if (tw_tuple(play, -1, "cards in play") < 0 || PyTuple_GET_SIZE(play) > TW_CARDS) return -1;
    su->nplay = (int)PyTuple_GET_SIZE(play);
    for (int i = 0; i < su->nplay; i++)
        if (tw_item(play, i, 0, TW_CARDS - 1, "card in play", &su->in_play[i]) < 0) return -1;
    return 0;
}

/* TowerGame.__init__ for ``n`` players and a seed: free towers and ends drawn (_setup_layouts with
 * no choice), the 28 cards shuffled and the last removed (_setup_deck), the cards drawn when the
 * rules leave them open; then the first round started. */
static void tw_new_game(tw_game *g, const tw_setup *su, int n, uint32_t seed) {
    tw_rules *r = &g->r;
    g->n = n;
    pyr_seed(&g->rng, seed);
    int free[4] = {1, 2, 3, 4}, order[4];
    pyr_sample_small(&g->rng, free, 4, 4, order);
    for (int s = 0; s < n; s++) {
        int end = (int)pyr_below(&g->rng, 2); /* rng.choice('ab') */
        g->lay[s] = su->library[2 * (order[s] - 1) + end];
        tw_tower_clear(&g->t[s], r->start_minos);
        g->nstones[s] = 0;
        g->next_number[s] = 1;
    }
    int cards[28];
    for (int i = 0; i < 28; i++) cards[i] = i / 4;
    pyr_shuffle(&g->rng, cards, 28);
    for (int i = 0; i < TW_DECK; i++) g->cards[i] = cards[i];
    g->deck_size = TW_DECK;
    int in_play[TW_CARDS], nplay = su->nplay;
    if (nplay < 0) {
        int table[TW_CARDS];
        for (int i = 0; i < TW_CARDS; i++) table[i] = i;
        pyr_sample_small(&g->rng, table, TW_CARDS, su->draw, in_play);
        nplay = su->draw;
    } else {
        for (int i = 0; i < nplay; i++) in_play[i] = su->in_play[i];
    }
    g->ncards = nplay;
    r->touch = 0;
    for (int i = 0; i < nplay; i++) {
        tw_card *c = &g->card[i];
        memset(c, 0, sizeof *c);
        c->kind = r->card_kind[in_play[i]];
        for (int k = 0; k < TW_SPACES; k++) c->points[k] = r->card_points[in_play[i]][k];
        c->next_space = n == 2 ? 1 : 0;
        if (c->kind == C_FOUR_PAIRS || c->kind >= C_CONNECT_LJ) r->touch = 1;
    }
    g->supply = r->box - r->start_minos * n;
    g->drawn = 0;
    g->play = -1;
    g->over = 0;
    g->base_rounds = 0;
    g->nrounds = 0;
    g->npool = 0;
    for (int s = 0; s < n; s++) {
        g->pend[s].kind = ACT_NONE;
        g->submitted[s] = 0;
    }
    tw_start_round(g);
}

/* The cards in play after a new game's draw, as table indices (for the binding's rules). */
static PyObject *tw_cards_in_play(const tw_game *g) {
    PyObject *t = PyTuple_New(g->ncards);
    if (t == NULL) return NULL;
    for (int i = 0; i < g->ncards; i++) PyTuple_SET_ITEM(t, i, PyLong_FromLong(g->card[i].kind));
    return t;
}

/* The layout a new game gave each seat, as an index into the library. */
static int tw_layout_index(const tw_game *g, const tw_setup *su, int seat) {
    for (int i = 0; i < 8; i++)
        if (memcmp(&g->lay[seat], &su->library[i], sizeof(tw_layout)) == 0) return i;
    return -1;
}

/* A game loaded from Python (tw_load_rules, tw_load_game), on the heap. */
static tw_game *tw_game_new(PyObject *rules, PyObject *state) {
    tw_game *g = PyMem_Calloc(1, sizeof(tw_game));
    if (g == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    if (tw_load_rules(&g->r, rules) < 0 || tw_load_game(g, state) < 0) {
        PyMem_Free(g);
        return NULL;
    }
    return g;
}

/* ------------------------------------------------------------ module functions */

/* roundtrip(rules, state) -> dump: a state loaded and written back unchanged (the tests' check
 * of the loader and the writer). */
static PyObject *py_roundtrip(PyObject *self, PyObject *args) {
    PyObject *rules, *state;
    if (!PyArg_ParseTuple(args, "OO", &rules, &state)) return NULL;
    tw_game *g = tw_game_new(rules, state);
    if (g == NULL) return NULL;
    PyObject *out = tw_dump_game(g);
    PyMem_Free(g);
    return out;
}

/* drops(rules, tower, layout, shape, minos) -> [(orientation, x, y), ...]: Tower.legal_drops of
 * ``shape`` after the minos (columns; a full column raises ValueError), for the tests. */
static PyObject *py_drops(PyObject *self, PyObject *args) {
    PyObject *rules, *state, *minos;
    int shape;
    if (!PyArg_ParseTuple(args, "OOiS", &rules, &state, &shape, &minos)) return NULL;
    tw_game *g = tw_game_new(rules, state);
    if (g == NULL) return NULL;
    PyObject *out = NULL;
    if (shape < 0 || shape >= TW_SHAPES) {
        PyErr_SetString(PyExc_ValueError, "tower core: shape out of range");
        goto done;
    }
    uint8_t height[TW_MAX_W];
    memcpy(height, g->t[0].height, sizeof height);
    for (Py_ssize_t i = 0; i < PyBytes_GET_SIZE(minos); i++) {
        int c = (unsigned char)PyBytes_AS_STRING(minos)[i];
        if (c >= g->r.w || height[c] >= g->r.h) {
            PyErr_Format(PyExc_ValueError, "tower core: no room for a mino in column %d", c);
            goto done;
        }
        height[c]++;
    }
    tw_place places[TW_ORIENTS * TW_MAX_W];
    int n = tw_drops_on(&g->r, height, shape, places);
    out = PyList_New(n);
    if (out == NULL) goto done;
    for (int i = 0; i < n; i++) PyList_SET_ITEM(out, i, Py_BuildValue("(iii)", places[i].o, places[i].x, places[i].y));
done:
    PyMem_Free(g);
    return out;
}

/* new_game(rules, setup, players, seed) -> (state dump, cards in play, layout indices): the game
 * TowerGame(players, rules, seed) sets up, for the tests of the set-up's draws. */
static PyObject *py_new_game(PyObject *self, PyObject *args) {
    PyObject *rules, *setup;
    int players;
    unsigned long seed;
    if (!PyArg_ParseTuple(args, "OOik", &rules, &setup, &players, &seed)) return NULL;
    if (players < 1 || players > TW_PLAYERS || seed > 0xffffffffUL) {
        PyErr_SetString(PyExc_ValueError, "tower core: 1-4 players and a seed below 2**32");
        return NULL;
    }
    tw_game *g = PyMem_Calloc(1, sizeof(tw_game));
    tw_setup *su = PyMem_Calloc(1, sizeof(tw_setup));
    PyObject *out = NULL;
    if (g == NULL || su == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    if (tw_load_rules(&g->r, rules) < 0 || tw_load_setup(su, &g->r, setup) < 0) goto done;
    tw_new_game(g, su, players, (uint32_t)seed);
    PyObject *lays = PyTuple_New(players);
    if (lays == NULL) goto done;
    for (int s = 0; s < players; s++) PyTuple_SET_ITEM(lays, s, PyLong_FromLong(tw_layout_index(g, su, s)));
    PyObject *deck = PyBytes_FromStringAndSize(NULL, TW_DECK);
    if (deck == NULL) {
        Py_DECREF(lays);
        goto done;
    }
    for (int i = 0; i < TW_DECK; i++) PyBytes_AS_STRING(deck)[i] = (char)g->cards[i];
    out = Py_BuildValue("(NNNN)", tw_dump_game(g), tw_cards_in_play(g), lays, deck);
done:
    PyMem_Free(g);
    PyMem_Free(su);
    return out;
}

/* draws(state, kind, n, count) -> (draws, state): ``count`` draws of CPython's generator as the
 * core makes them (kind 0: randbelow(n), 1: random(), 2: a shuffle of range(n), 3: sample(range(n),
 * count)), for the test that holds it to CPython's. */
static PyObject *py_draws(PyObject *self, PyObject *args) {
    PyObject *st;
    int kind;
    long n, count;
    if (!PyArg_ParseTuple(args, "Oill", &st, &kind, &n, &count)) return NULL;
    if (n < 1 || n > 21 || count < 0 || count > 100000 || (kind == 3 && count > n)) {
        PyErr_SetString(PyExc_ValueError, "draws: expected 1 <= n <= 21 and 0 <= count (<= n for a sample)");
        return NULL;
    }
    pyr_t r;
    if (pyr_load(&r, st) < 0) return NULL;
    PyObject *out = NULL;
    if (kind == 2 || kind == 3) {
        int x[32], pick[32];
        for (int i = 0; i < n; i++) x[i] = i;
        int m = (int)(kind == 2 ? n : count);
        if (kind == 2)
            pyr_shuffle(&r, x, (int)n);
        else
            pyr_sample_small(&r, x, (int)n, (int)count, pick);
        out = PyList_New(m);
        if (out == NULL) return NULL;
        for (int i = 0; i < m; i++) PyList_SET_ITEM(out, i, PyLong_FromLong(kind == 2 ? x[i] : pick[i]));
    } else {
        out = PyList_New(count);
        if (out == NULL) return NULL;
        for (long i = 0; i < count; i++)
            PyList_SET_ITEM(out, i, kind == 0 ? PyLong_FromLong(pyr_below(&r, n)) : PyFloat_FromDouble(pyr_random(&r)));
    }
    return Py_BuildValue("(NN)", out, pyr_store(&r));
}

/* ------------------------------------------------------------ a board's bits, and the codec's legal ids */

/* The rows of a Board's bitboard (a Python int, cell (x, y) at bit y * (w + 1) + x). */
static int tw_rows_of(PyObject *v, int w, int h, uint32_t *rows) {
    unsigned char buf[(TW_MAX_W + 1) * TW_MAX_H / 8 + 16];
    size_t stride = (size_t)w + 1, n = (stride * (size_t)h + 7) / 8;
    memset(buf, 0, sizeof buf);
    if (!PyLong_Check(v) || _PyLong_Sign(v) < 0) {
        PyErr_SetString(PyExc_ValueError, "tower core: board bits are a non-negative int");
        return -1;
    }
#if PY_VERSION_HEX >= 0x030D0000
    Py_ssize_t need = PyLong_AsNativeBytes(v, buf, (Py_ssize_t)n, Py_ASNATIVEBYTES_LITTLE_ENDIAN | Py_ASNATIVEBYTES_UNSIGNED_BUFFER);
    if (need < 0) return -1;
    if ((size_t)need > n) {
        PyErr_SetString(PyExc_OverflowError, "tower core: board bits beyond the tower");
        return -1;
    }
#else
    if (_PyLong_AsByteArray((PyLongObject *)v, buf, n, 1, 0) < 0) return -1;
#endif
    for (int y = 0; y < h; y++) {
        uint32_t row = 0;
        for (int x = 0; x < w; x++) {
            size_t bit = (size_t)y * stride + (size_t)x;
            row |= (uint32_t)(buf[bit >> 3] >> (bit & 7) & 1) << x;
        }
        rows[y] = row;
    }
    return 0;
}

static void tw_rules_free(PyObject *capsule) {
    PyMem_Free(PyCapsule_GetPointer(capsule, "tabletris.tower_rules"));
}

/* rules_new(rules) -> capsule: the rules loaded once, for the codec's calls. */
static PyObject *py_rules_new(PyObject *self, PyObject *args) {
    PyObject *rules;
    if (!PyArg_ParseTuple(args, "O", &rules)) return NULL;
    tw_rules *r = PyMem_Calloc(1, sizeof(tw_rules));
    if (r == NULL) return PyErr_NoMemory();
    if (tw_load_rules(r, rules) < 0) {
        PyMem_Free(r);
        return NULL;
    }
    PyObject *cap = PyCapsule_New(r, "tabletris.tower_rules", tw_rules_free);
    if (cap == NULL) PyMem_Free(r);
    return cap;
}

/* legal_ids(rules, occupied, shape, chosen, minos_left, can_hold) -> [(id, orientation, x, y),
 * ...]: TowerCodec.legal's ids for a seat that decides (HOLD 1, DROP 2 + o * w + x with the
 * drop's row, MINO 2 + 4w + c with -1s), ascending, for the tower ``occupied`` after the
 * ``chosen`` mino columns. */
static PyObject *py_legal_ids(PyObject *self, PyObject *args) {
    PyObject *capsule, *occupied, *chosen;
    int shape, minos_left, can_hold;
    if (!PyArg_ParseTuple(args, "OOiSii", &capsule, &occupied, &shape, &chosen, &minos_left, &can_hold)) return NULL;
    tw_rules *r = PyCapsule_GetPointer(capsule, "tabletris.tower_rules");
    if (r == NULL) return NULL;
    if (shape < 0 || shape >= TW_SHAPES) {
        PyErr_SetString(PyExc_ValueError, "tower core: shape out of range");
        return NULL;
    }
    uint32_t rows[TW_MAX_H];
    if (tw_rows_of(occupied, r->w, r->h, rows) < 0) return NULL;
    uint8_t height[TW_MAX_W] = {0};
    for (int y = 0; y < r->h; y++)
        for (int x = 0; x < r->w; x++)
            if (rows[y] >> x & 1) height[x] = (uint8_t)(y + 1);
    Py_ssize_t nchosen = PyBytes_GET_SIZE(chosen);
    for (Py_ssize_t i = 0; i < nchosen; i++) {
        int c = (unsigned char)PyBytes_AS_STRING(chosen)[i];
        if (c >= r->w || height[c] >= r->h) {
            PyErr_Format(PyExc_ValueError, "tower core: no room for a mino in column %d", c);
            return NULL;
        }
        height[c]++;
    }
    int w = r->w, drop_base = 2, mino_base = 2 + 4 * w;
    tw_place places[TW_ORIENTS * TW_MAX_W];
    int n = tw_drops_on(r, height, shape, places);
    /* ids ascending: HOLD, the drops by (orientation, x), the minos by column */
    int order[TW_ORIENTS * TW_MAX_W];
    for (int i = 0; i < n; i++) order[i] = i;
    for (int i = 1; i < n; i++) {
        int k = order[i], j = i;
        int key = places[k].o * w + places[k].x;
        while (j > 0 && places[order[j - 1]].o * w + places[order[j - 1]].x > key) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = k;
    }
    PyObject *out = PyList_New(0);
    if (out == NULL) return NULL;
#define TW_APPEND(id, o, x, y)                                                  \
    do {                                                                        \
        PyObject *item = Py_BuildValue("(iiii)", (id), (o), (x), (y));          \
        if (item == NULL || PyList_Append(out, item) < 0) {                     \
            Py_XDECREF(item);                                                   \
            Py_DECREF(out);                                                     \
            return NULL;                                                        \
        }                                                                       \
        Py_DECREF(item);                                                        \
    } while (0)
    if (!nchosen && can_hold) TW_APPEND(1, -1, -1, -1);
    for (int i = 0; i < n; i++) {
        const tw_place *p = &places[order[i]];
        TW_APPEND(drop_base + p->o * w + p->x, p->o, p->x, p->y);
    }
    if (nchosen < minos_left)
        for (int c = 0; c < w; c++) {
            if (height[c] >= r->h) continue;
            height[c]++;
            if (tw_has_drop_on(r, height, shape)) TW_APPEND(mino_base + c, -1, -1, -1);
            height[c]--;
        }
#undef TW_APPEND
    return out;
}

/* ------------------------------------------------------------ the module: the layers put together
 *
 * The bots' decisions and the env's fast path, in the files beside the Python they translate
 * (tests/test_native_layers.py holds each file to its layer), then the method table. */

#include "../bots/_tower_bots.c"

#include "../envs/_tower_env.c"

static PyMethodDef tw_methods[] = {
    {"roundtrip", py_roundtrip, METH_VARARGS, "A state loaded and dumped (the loader's test)."},
    {"drops", py_drops, METH_VARARGS, "Tower.legal_drops of a shape after minos."},
    {"new_game", py_new_game, METH_VARARGS, "The game TowerGame(players, rules, seed) sets up."},
    {"draws", py_draws, METH_VARARGS, "Draws of CPython's generator as the core makes them."},
    {"rules_new", py_rules_new, METH_VARARGS, "The rules loaded once, for the codec."},
    {"legal_ids", py_legal_ids, METH_VARARGS, "TowerCodec.legal's ids for a seat that decides."},
    TW_BOT_METHODS
    TW_ENV_METHODS
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef tw_module = {
    PyModuleDef_HEAD_INIT, "_tower", "The tower game in C (engine/tower.py is the reference).", -1, tw_methods,
};

PyMODINIT_FUNC PyInit__tower(void) {
    PyObject *m = PyModule_Create(&tw_module);
    if (m == NULL) return NULL;
    if (PyModule_AddIntConstant(m, "MAX_WIDTH", TW_MAX_W) < 0 || PyModule_AddIntConstant(m, "MAX_HEIGHT", TW_MAX_H) < 0 ||
        PyModule_AddIntConstant(m, "MAX_MINOS", TW_MAX_MINOS) < 0 || PyModule_AddIntConstant(m, "DECK", TW_DECK) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
