/* The expert's dice decision in C (issue 19's fifth round), included by engine/_native.c after
 * the dice kernel (engine/_dice_kernel.c), whose state, options, apply and immediate it reuses.
 * It sits with the bots because it is one (bots/expert.py); the kernel plays its expert seats
 * through the dk_policy table at the end of this file, so the engine's C names no bot.
 *
 * bots/expert.py (ExpertBot.choose_dice at full strength, no budget, row_reward: point) is the
 * reference; this is a second copy of its arithmetic, kept only because tests/test_fastexpert*.py
 * check that it makes exactly the Python expert's decision at every position of whole games under
 * many rule sets. Every function names the Python it translates; the floats are the same because
 * the sums run in the same order and the build forbids contraction (-ffp-contract=off).
 *
 * The steps: every option measured (dice_eval.immediate_all: points - shape * cost), ranked (ties
 * by option order), the first ``width`` played and weighed by position_value (the next player's
 * roll face by face: dice_eval.outlook with the supply and take rules; _final_value and _diff;
 * minus shape * board_cost), the first best kept; then, when points take tokens, each point's
 * token chosen by ExpertBot._with_tokens (the default first, then the die's shapes; the starve
 * term). */

#include <math.h>

/* The expert's tuning: DiceParams' (win_bonus, threat, shape, starve) and the lookahead width. */
typedef struct {
    double win_bonus, threat, shape, starve;
    long width;
} dx_params;

/* expert._final_value: the score difference to the best other player, with the win bonus. */
static double dx_final(const int *scores, int n, int me, const dx_params *p) {
    int any = 0, best = 0;
    for (int i = 0; i < n; i++)
        if (i != me && (!any || scores[i] > best)) {
            best = scores[i];
            any = 1;
        }
    if (!any) return (double)scores[me];
    long diff = (long)scores[me] - best;
    if (diff > 0) return (double)diff + p->win_bonus;
    if (diff == 0) return (double)diff + p->win_bonus / 2;
    return (double)diff - p->win_bonus;
}

/* expert._diff. */
static double dx_diff(const int *scores, int n, int me) {
    int any = 0, best = 0;
    for (int i = 0; i < n; i++)
        if (i != me && (!any || scores[i] > best)) {
            best = scores[i];
            any = 1;
        }
    return any ? (double)((long)scores[me] - best) : (double)scores[me];
}

/* max_rows_core (max_gaps 4) with its answer found sooner where it is known early: with no
 * candidate row one piece could complete, the first orientation with a legal anchor answers 0
 * (max_rows_core would generate every orientation to say the same). */
static long dx_max_rows(const uint64_t *occ, int w, int h, const orient_t *os, int k, int access,
                        const uint64_t *cand) {
    uint64_t col = (1ULL << w) - 1;
    for (int y = 0; y < h; y++) {
        uint64_t gaps = ~occ[y] & col;
        if (cand[y] && gaps && popcount64(gaps) <= 4) return max_rows_core(occ, w, h, os, k, access, cand, 4);
    }
    uint64_t legal[MAX_H];
    for (int i = 0; i < k; i++) {
        generate(occ, w, h, &os[i], access, legal);
        for (int y = 0; y < h; y++)
            if (legal[y]) return 0;
    }
    return -1;
}

/* dice_eval.shape_outlook for every shape of the die (``rows_mask`` as one flag per row): the
 * most rows the player to move scores with it, -1 if it cannot be placed; with none of a shape
 * in the supply, each stone the rules let them take is lifted off in turn. */
static void dx_shape_outlooks(const dk_game *g, const uint64_t *rows_mask, int *per) {
    uint64_t col = dk_col(g), here[MAX_H], cand[MAX_H], rows[MAX_H];
    int takes[DK_MAX_STONES];
    /* the rows of the board as it stands that can still score: the same for every shape */
    for (int y = 0; y < g->h; y++) here[y] = rows_mask[y] && g->rows[y] != col;
    for (int s = 0; s < g->nshapes; s++) {
        if (dk_in_supply(g, s)) {
            per[s] = (int)dx_max_rows(g->rows, g->w, g->h, g->os[s], g->nos[s], g->access, here);
            continue;
        }
        int n = dk_candidates(g, s, takes);
        long best = -1;
        for (int i = 0; i < n; i++) {
            dk_rows_without(g, takes[i], rows);
            for (int y = 0; y < g->h; y++) cand[y] = rows_mask[y] && rows[y] != col;
            long v = dx_max_rows(rows, g->w, g->h, g->os[s], g->nos[s], g->access, cand);
            if (v > best) best = v;
        }
        per[s] = (int)best;
    }
}

/* The rows the outlook looks at: every row when a row scores again (rescore_reopened or
 * clear_rows), else the rows not scored yet (dice_eval.outlook's rows_mask). */
static void dx_rows_mask(const dk_game *g, uint64_t *mask) {
    int rescores = (g->flags & F_RESCORE) || g->clear != CLEAR_NONE;
    for (int y = 0; y < g->h; y++) mask[y] = rescores || !g->scored[y];
}

/* expert.position_value of the position in ``g`` (the next roll pending) for player ``me``. */
static double dx_value(const dk_game *g, int me, const dx_params *p) {
    int n = g->nplayers;
    if (g->over) return dx_final(g->scores, n, me, p);
    uint64_t mask[MAX_H];
    int per[DK_SHAPES];
    dx_rows_mask(g, mask);
    dx_shape_outlooks(g, mask, per);
    int q = g->to_move;
    double prob = 1.0 / (double)g->nfaces;
    double total = 0.0;
    int scores[DK_PLAYERS];
    for (int f = 0; f < g->nfaces; f++) {
        int rows = -1, fs = g->face_shape[f];
        if (fs < 0) {
            for (int s = 0; s < g->nshapes; s++)
                if (per[s] > rows) rows = per[s];
        } else {
            rows = per[fs];
        }
        memcpy(scores, g->scores, sizeof(int) * (size_t)n);
        if (rows < 0) {
            if (g->flags & F_STUCK_PENALTY) scores[q] -= 1;
            total += prob * dx_final(scores, n, me, p);
            continue;
        }
        scores[q] += rows;
        if (q == me) {
            total += prob * dx_diff(scores, n, me);
            continue;
        }
        if (g->clear != CLEAR_NONE && scores[q] >= g->target) {
            total += prob * dx_final(scores, n, me, p);
            continue;
        }
        total += prob * (dx_diff(g->scores, n, me) - p->threat * (double)rows);
    }
    features_t ft;
    features_core(g->rows, g->w, g->h, &ft);
    return total - p->shape * features_cost(&ft, g->wt);
}

/* A scratch game for the lookahead: the rules copied once, then the position of ``g`` loaded
 * before each trial (the engine's push; nothing to pop). */
typedef struct {
    dk_game s;
    dk_move mv;
} dx_scratch;

static int dx_scratch_init(dx_scratch *x, const dk_game *g) {
    x->s = *g;
    x->s.stones = PyMem_Malloc(sizeof(dk_stone) * (size_t)(g->nstones + 1));
    if (x->s.stones == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    x->s.cap_stones = g->nstones + 1;
    x->s.moves = &x->mv;
    x->s.cap_moves = 1;
    x->s.pool = NULL; /* the options (groups, pool) stay g's, read only */
    return 0;
}

static void dx_scratch_free(dx_scratch *x) { PyMem_Free(x->s.stones); }

/* ``g``'s position with an option played (its tokens ``named``, or the default ones: NULL). */
static void dx_play(dx_scratch *x, const dk_game *g, int group, int orient, int ox, int oy, const int *named) {
    dk_game *s = &x->s;
    size_t h = (size_t)g->h;
    memcpy(s->rows, g->rows, sizeof(uint64_t) * h);
    memcpy(s->scored, g->scored, h);
    memcpy(s->stones, g->stones, sizeof(dk_stone) * (size_t)g->nstones);
    s->nstones = g->nstones;
    s->next_number = g->next_number;
    memcpy(s->supply, g->supply, sizeof g->supply);
    memcpy(s->scores, g->scores, sizeof g->scores);
    memcpy(s->rows_completed, g->rows_completed, sizeof g->rows_completed);
    s->turn = g->turn;
    s->to_move = g->to_move;
    s->roll = g->roll;
    s->over = g->over;
    s->stuck = g->stuck;
    s->nmoves = 0;
    dk_apply(s, group, orient, ox, oy, named); /* cannot fail: the arrays are large enough */
}

typedef struct {
    double key;
    long index;
    int group, orient, x, y;
} dx_option;

static int dx_cmp(const void *a, const void *b) {
    const dx_option *p = a, *q = b;
    if (p->key > q->key) return -1;
    if (p->key < q->key) return 1;
    return (p->index > q->index) - (p->index < q->index);
}

/* ExpertBot.choose_dice for the roll showing in ``g`` (its options made by dk_options: ``n`` of
 * them, n >= 1): the option (group, orientation, anchor) and its tokens (``*ntok`` of them; 0
 * when points take none). Returns 0, or -1 with an error set. */
static int dx_choose(const dk_game *g, long n, const dx_params *p, int *group, int *orient, int *ox, int *oy,
                     int *tokens, int *ntok) {
    dx_option *opts = PyMem_Malloc(sizeof(dx_option) * (size_t)n);
    if (opts == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    dx_scratch x;
    if (dx_scratch_init(&x, g) < 0) {
        PyMem_Free(opts);
        return -1;
    }
    long m = 0;
    for (int i = 0; i < g->ngroups; i++) {
        const dk_group *gr = &g->groups[i];
        for (int k = 0; k < g->nos[gr->shape]; k++) {
            const uint64_t *out = g->pool + gr->off + (size_t)k * g->h;
            for (int yy = 0; yy < g->h; yy++)
                for (uint64_t b = out[yy]; b; b &= b - 1) {
                    dx_option *o = &opts[m];
                    o->index = m;
                    o->group = i;
                    o->orient = k;
                    o->x = __builtin_ctzll(b);
                    o->y = yy;
                    o->key = 0.0;
                    m++;
                }
        }
    }
    int me = g->to_move;
    long best = 0;
    if (n > 1) {
        /* ranked = points - shape * cost, sorted by (-value, index) */
        for (long i = 0; i < n; i++) {
            long pts;
            double cost;
            dk_immediate(g, opts[i].group, opts[i].orient, opts[i].x, opts[i].y, &pts, &cost);
            opts[i].key = (double)pts - p->shape * cost;
        }
        qsort(opts, (size_t)n, sizeof(dx_option), dx_cmp);
        double best_value = -HUGE_VAL;
        long width = p->width < n ? p->width : n;
        for (long i = 0; i < width; i++) {
            dx_play(&x, g, opts[i].group, opts[i].orient, opts[i].x, opts[i].y, NULL);
            double v = dx_value(&x.s, me, p);
            if (v > best_value) {
                best_value = v;
                best = i;
            }
        }
    }
    const dx_option *chosen = &opts[best];
    *group = chosen->group;
    *orient = chosen->orient;
    *ox = chosen->x;
    *oy = chosen->y;
    *ntok = 0;
    if (g->flags & F_TOKENS) {
        /* ExpertBot._with_tokens: the default tokens, then each one in turn the best shape */
        dx_play(&x, g, *group, *orient, *ox, *oy, NULL);
        int nt = x.mv.ntokens;
        for (int k = 0; k < nt; k++) tokens[k] = x.mv.tokens[k];
        if (nt > 0) {
            uint64_t mask[MAX_H];
            int need[DK_SHAPES];
            dx_rows_mask(&x.s, mask);
            dx_shape_outlooks(&x.s, mask, need);
            for (int s = 0; s < g->nshapes; s++)
                if (need[s] < 0) need[s] = 0;
            /* the supply when the tokens are taken: after the piece (a take leaves it as it is) */
            int base[DK_SHAPES];
            memcpy(base, g->supply, sizeof base);
            if (g->groups[*group].take < 0 && (g->flags & F_LIMITED)) base[g->groups[*group].shape]--;
            for (int k = 0; k < nt; k++) {
                double best_value = -HUGE_VAL;
                int dflt = tokens[k];
                for (int j = -1; j < g->nshapes; j++) {
                    int shape = j < 0 ? dflt : j;
                    if (j >= 0 && j == dflt) continue;
                    int trial[DK_MAX_CELLS], left[DK_SHAPES], legal = 1;
                    memcpy(trial, tokens, sizeof(int) * (size_t)nt);
                    trial[k] = shape;
                    memcpy(left, base, sizeof left);
                    for (int i = 0; i < nt && legal; i++) /* DiceGame._take_token's check */
                        if (left[trial[i]]-- <= 0) legal = 0;
                    if (!legal) continue;
                    dx_play(&x, g, *group, *orient, *ox, *oy, trial);
                    double v = dx_value(&x.s, me, p) + p->starve * (double)need[shape] / (double)(1 + x.s.supply[shape]);
                    if (v > best_value) {
                        best_value = v;
                        tokens[k] = shape;
                    }
                }
            }
            *ntok = nt;
        }
    }
    dx_scratch_free(&x);
    PyMem_Free(opts);
    return 0;
}

static int dx_load_params(PyObject *t, dx_params *p) {
    if (!PyArg_ParseTuple(t, "ddddl", &p->win_bonus, &p->threat, &p->shape, &p->starve, &p->width)) return -1;
    if (p->width < 1) {
        PyErr_SetString(PyExc_ValueError, "expert: width must be at least 1");
        return -1;
    }
    return 0;
}

/* The expert as the kernel's playouts call it (dk_policy: untyped params). */
static int dx_policy_load(PyObject *t, void *out) { return dx_load_params(t, (dx_params *)out); }

static int dx_policy_choose(const dk_game *g, long n, const void *params, int *group, int *orient, int *x, int *y,
                            int *tokens, int *ntok) {
    return dx_choose(g, n, (const dx_params *)params, group, orient, x, y, tokens, ntok);
}

static const dk_policy dx_policy = {sizeof(dx_params), dx_policy_load, dx_policy_choose};

/* expert_decide(rules, state, params) -> (shape, take, orientation, x, y, tokens) or None:
 * ExpertBot.choose_dice for the roll showing in ``state`` (loaded as dice_playout loads one; the
 * generator is not drawn from), ``params`` = (win_bonus, threat, shape, starve, width), the
 * weights in ``rules``. ``take`` is the number of the stone taken (-1: none), ``tokens`` bytes of
 * shape indices; None when the roll has no legal option (the game should have ended). */
static PyObject *py_expert_decide(PyObject *self, PyObject *args) {
    PyObject *rules, *state, *params;
    if (!PyArg_ParseTuple(args, "O!O!O!", &PyTuple_Type, &rules, &PyTuple_Type, &state, &PyTuple_Type, &params))
        return NULL;
    dk_game g;
    memset(&g, 0, sizeof g);
    dx_params p;
    PyObject *result = NULL;
    if (dx_load_params(params, &p) < 0 || dk_load_rules(&g, rules) < 0 || dk_load_state(&g, state) < 0) goto done;
    if (g.roll < 0 || g.over) {
        PyErr_SetString(PyExc_ValueError, "expert: the die must show and the game must not be over");
        goto done;
    }
    long n = dk_options(&g);
    if (n < 0) goto done;
    if (n == 0) {
        result = Py_NewRef(Py_None);
        goto done;
    }
    int group, orient, x, y, tokens[DK_MAX_CELLS], ntok;
    if (dx_choose(&g, n, &p, &group, &orient, &x, &y, tokens, &ntok) < 0) goto done;
    unsigned char tk[DK_MAX_CELLS];
    for (int k = 0; k < ntok; k++) tk[k] = (unsigned char)tokens[k];
    const dk_group *gr = &g.groups[group];
    result = Py_BuildValue("(iiiiiy#)", gr->shape, gr->take < 0 ? -1 : g.stones[gr->take].number, orient, x, y, tk,
                           (Py_ssize_t)ntok);
done:
    dk_free(&g);
    return result;
}
