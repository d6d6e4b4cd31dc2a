/* The tower bots' decisions in C (issue 29), included by engine/_tower_core.c.
 *
 * bots/random_bot.py, bots/greedy.py, bots/tower_eval.py and bots/expert.py (the tower part) are
 * the reference; every function below names the one it translates, and tests/test_fasttower*.py
 * check the decisions are the Python bots' own, decision for decision, and the numbers of the
 * lookahead (features, values, achievement points) equal to the last bit. Floats are summed in the
 * Python's order and the extension is built with -ffp-contract=off (no fused multiply-adds), and
 * powers go through the C library's pow(), which Python's ``**`` on floats calls too.
 */

/* TowerWeights, in field order, and the expert's lookahead (ExpertBot.choose_tower). */
typedef struct {
    double hole_rows, holes, bumpiness, column_transitions, wells;
    int height_margin;
    double height, mino, hold, progress, race_discount;
    int width1;   /* actions extended by NEXT */
    int width2;   /* of those, extended by a third card weighed by card counting */
    int minos2;   /* NEXT's replies include the drops after one mino */
    int minos3;   /* the third card's replies too */
} tw_params;

/* tower_eval.Context: the cards in play this seat can still win (CardStake), the deck and supply. */
typedef struct {
    int nstakes;
    int kind[TW_CARDS], points[TW_CARDS], contested[TW_CARDS];
    int deck_left, supply;
    int unseen[TW_SHAPES];
} tw_ctx;

/* tower_eval.Node: a tower in a lookahead line, the stakes met on it (a bit per stake) and their
 * points, and the minos the line has dropped. */
typedef struct {
    tw_tower t;
    int achieved;
    double card_points;
    int minos_used;
} tw_node;

typedef struct {
    int8_t hold, mino, o, x, y; /* mino: its column, -1 for none */
} tw_action;

#define TW_MAX_ACTIONS (TW_ORIENTS * TW_MAX_W * (TW_MAX_W + 1) + 1)

static void tw_node_copy(tw_node *dst, const tw_node *src, const tw_rules *r) {
    tw_copy(&dst->t, &src->t, r);
    dst->achieved = src->achieved;
    dst->card_points = src->card_points;
    dst->minos_used = src->minos_used;
}

/* Node.points */
static inline double tw_node_points(const tw_node *nd) {
    return (double)(2 * nd->t.lines + nd->t.bonus) + nd->card_points;
}

/* tower_eval.actions: every drop, then every drop after one mino (column by column), then the hold
 * while it is unused; ``minos`` 0 leaves out the drops after a mino. */
static int tw_actions(const tw_rules *r, const tw_tower *t, int shape, int minos, tw_action *out) {
    tw_place places[TW_ORIENTS * TW_MAX_W];
    int n = 0;
    int k = tw_drops(r, t, shape, places);
    for (int i = 0; i < k; i++) {
        tw_action a = {0, -1, places[i].o, places[i].x, places[i].y};
        out[n++] = a;
    }
    if (minos && t->minos > 0) {
        uint8_t height[TW_MAX_W];
        memcpy(height, t->height, sizeof height);
        for (int c = 0; c < r->w; c++) {
            if (height[c] >= r->h) continue;
            height[c]++;
            k = tw_drops_on(r, height, shape, places);
            height[c]--;
            for (int i = 0; i < k; i++) {
                tw_action a = {0, (int8_t)c, places[i].o, places[i].x, places[i].y};
                out[n++] = a;
            }
        }
    }
    if (t->held < 0) {
        tw_action a = {1, -1, 0, 0, 0};
        out[n++] = a;
    }
    return n;
}

/* tower_eval.advance: ``node`` after ``a`` with PLAY piece ``shape``, into ``out``. Diamonds pay
 * minos from the supply as seen now; stakes met are credited with their points, discounted by
 * race_discount**depth when others still race for them. */
static void tw_advance(const tw_rules *r, const tw_layout *lay, const tw_ctx *ctx, const tw_params *p, const tw_node *node,
                       int shape, const tw_action *a, int depth, tw_node *out) {
    tw_node_copy(out, node, r);
    tw_tower *t = &out->t;
    int fshape = -1, frows = 0, diamonds = 0;
    if (a->hold) {
        t->held = shape;
    } else {
        uint64_t before = t->full;
        if (a->mino >= 0) {
            tw_push_mino(t, r, lay, a->mino);
            t->minos -= 1;
        }
        diamonds = tw_push_piece(t, r, lay, shape, a->o, a->x, a->y, before, &frows);
        fshape = shape;
    }
    if (diamonds) {
        int avail = ctx->supply - node->minos_used;
        if (avail < 0) avail = 0;
        t->minos += diamonds < avail ? diamonds : avail;
    }
    for (int i = 0; i < ctx->nstakes; i++) {
        if (out->achieved >> i & 1) continue;
        if (tw_condition(ctx->kind[i], t, r, fshape, frows)) {
            out->achieved |= 1 << i;
            double worth = (double)ctx->points[i];
            if (ctx->contested[i] && depth > 0) worth *= pow(p->race_discount, (double)depth);
            out->card_points += worth;
        }
    }
    out->minos_used = node->minos_used + (a->mino >= 0 && !a->hold ? 1 : 0);
}

/* heuristics.features_of, the figures tower_eval.value reads. */
typedef struct {
    long holes, hole_rows, bump, col_tr, wells, maxh;
} tw_features;

static void tw_features_of(const tw_tower *t, const tw_rules *r, tw_features *f) {
    int w = r->w, h = r->h;
    uint32_t col = (1U << w) - 1, wall = 1U << w;
    long holes = 0, hole_rows = 0, col_tr = 0, wells = 0;
    int depth[TW_MAX_W] = {0};
    uint32_t covered = 0;
    for (int y = h - 1; y >= 0; y--) {
        uint32_t o = t->rows[y];
        covered |= o;
        uint32_t hole = covered & ~o;
        if (hole) {
            holes += tw_popcount32(hole);
            hole_rows++;
        }
        col_tr += tw_popcount32((o ^ (y > 0 ? t->rows[y - 1] : col)) & col);
        uint32_t walled = o | wall;
        uint32_t well = ~covered & col & ((o << 1) | 1U) & (walled >> 1);
        for (; well; well &= well - 1) depth[__builtin_ctz(well)]++;
    }
    long bump = 0, maxh = 0;
    for (int x = 0; x < w; x++) {
        wells += (long)depth[x] * (depth[x] + 1) / 2;
        if (t->height[x] > maxh) maxh = t->height[x];
        if (x > 0) bump += t->height[x] > t->height[x - 1] ? t->height[x] - t->height[x - 1] : t->height[x - 1] - t->height[x];
    }
    f->holes = holes;
    f->hole_rows = hole_rows;
    f->bump = bump;
    f->col_tr = col_tr;
    f->wells = wells;
    f->maxh = maxh;
}

static inline double tw_min1(double x) {
    return x < 1.0 ? x : 1.0; /* min(1.0, x) */
}

/* tower_eval.progress: how far (0-1) a tower is towards a card that builds up over the game. */
static double tw_progress(int kind, const tw_tower *t, const tw_rules *r) {
    switch (kind) {
    case C_SIX_LINES:
        return tw_min1((double)t->lines / 6.0);
    case C_FIVE_BONUS:
        return tw_min1((double)t->bonus / 5.0);
    case C_FOUR_DIAMONDS:
        return tw_min1((double)t->dcover / 4.0);
    case C_SEVEN_ON_A_SIDE: {
        int a = tw_popcount32((uint32_t)t->left), b = tw_popcount32((uint32_t)t->right);
        return (double)(a > b ? a : b) / (double)TW_SHAPES;
    }
    case C_FULL_COLUMN: {
        int best = 0;
        for (int x = 0; x < r->w; x++)
            if (t->count[x] > best) best = t->count[x];
        return (double)best / (double)r->h;
    }
    case C_CONNECT_LJ:
    case C_CONNECT_SZ:
    case C_CONNECT_IO:
        return tw_min1((double)tw_largest_group(t, tw_group_shapes[kind - C_CONNECT_LJ]) / 4.0);
    case C_FOUR_PAIRS:
        return tw_min1((double)tw_same_pairs(t) / 4.0);
    }
    return 0.0;
}

/* tower_eval.value: points won so far plus the worth of the position with ``cards_after`` cards
 * still to come. */
static double tw_value(const tw_rules *r, const tw_ctx *ctx, const tw_params *p, const tw_node *nd, int cards_after) {
    const tw_tower *t = &nd->t;
    tw_features f;
    tw_features_of(t, r, &f);
    double v = tw_node_points(nd);
    if (t->out) return v;
    double future = tw_min1((double)cards_after / 6.0);
    v -= future * (p->hole_rows * (double)f.hole_rows + p->holes * (double)f.holes + p->bumpiness * (double)f.bump +
                   p->column_transitions * (double)f.col_tr + p->wells * (double)f.wells);
    long over = f.maxh - (r->h - p->height_margin);
    if (over > 0 && cards_after > 0) v -= p->height * (double)over * (double)over;
    if (cards_after > 0) {
        v += p->mino * (double)t->minos;
        if (t->held < 0) v += p->hold * tw_min1((double)cards_after / 10.0);
    }
    if (p->progress != 0.0 && cards_after > 0)
        for (int i = 0; i < ctx->nstakes; i++)
            if (!(nd->achieved >> i & 1))
                v += p->progress * (double)ctx->points[i] * pow(tw_progress(ctx->kind[i], t, r), 2.0);
    return v;
}

/* ------------------------------------------------------------ random (RandomBot.choose_tower) */

/* Sometimes (MINO_CHANCE, 0.25) a random number of minos in random columns with room first; if
 * they leave no drop, none; then a uniform pick among the drops and the hold while unused. */
static void tw_random(const tw_rules *r, const tw_tower *t, int shape, pyr_t *rng, tw_action *a, int *minos, int *nminos) {
    uint8_t height[TW_MAX_W];
    memcpy(height, t->height, sizeof height);
    int m = 0;
    if (t->minos && pyr_random(rng) < 0.25) {
        int count = 1 + (int)pyr_below(rng, t->minos);
        for (int i = 0; i < count; i++) {
            int open[TW_MAX_W], k = 0;
            for (int x = 0; x < r->w; x++)
                if (height[x] < r->h) open[k++] = x;
            if (!k) break;
            int c = open[pyr_below(rng, k)];
            height[c]++;
            minos[m++] = c;
        }
    }
    tw_place places[TW_ORIENTS * TW_MAX_W];
    int n = m ? tw_drops_on(r, height, shape, places) : 0;
    if (!n) {
        m = 0;
        n = tw_drops(r, t, shape, places);
    }
    int choices = n + (t->held < 0 ? 1 : 0);
    int pick = (int)pyr_below(rng, choices);
    *nminos = m;
    if (pick == n) {
        a->hold = 1;
        a->mino = -1;
        *nminos = 0;
        return;
    }
    a->hold = 0;
    a->mino = -1;
    a->o = places[pick].o;
    a->x = places[pick].x;
    a->y = places[pick].y;
}

/* ------------------------------------------------------------ greedy (GreedyBot.choose_tower) */

/* Most points now (rows, bonus icons, cards); then the best-valued tower; the first such action.
 * The hold is never chosen (with no drop at all the engine holds). 0: no drop. */
static int tw_greedy(const tw_rules *r, const tw_layout *lay, const tw_ctx *ctx, const tw_params *p, const tw_node *root,
                     int shape, tw_action *best) {
    static tw_action acts[TW_MAX_ACTIONS];
    int n = tw_actions(r, &root->t, shape, 1, acts);
    if (n && acts[n - 1].hold) n--;
    if (!n) return 0;
    double start = tw_node_points(root), b0 = -INFINITY, b1 = -INFINITY;
    *best = acts[0];
    tw_node node;
    for (int i = 0; i < n; i++) {
        tw_advance(r, lay, ctx, p, root, shape, &acts[i], 0, &node);
        double k0 = tw_node_points(&node) - start, k1 = tw_value(r, ctx, p, &node, ctx->deck_left);
        if (k0 > b0 || (k0 == b0 && k1 > b1)) {
            *best = acts[i];
            b0 = k0;
            b1 = k1;
        }
    }
    return 1;
}

/* ------------------------------------------------------------ expert (ExpertBot.choose_tower) */

typedef struct {
    double v;
    int i;    /* the action's index in tower_eval.actions: the ranking's tie-break */
    int slot; /* where its lookahead node is kept */
} tw_ranked;

/* sort by (-value, index): Python's ``sort(key=lambda t: (-t[0], t[1]))`` */
static int tw_rank_cmp(const void *pa, const void *pb) {
    const tw_ranked *a = pa, *b = pb;
    if (a->v > b->v) return -1;
    if (a->v < b->v) return 1;
    return (a->i > b->i) - (a->i < b->i);
}

/* tower_eval.shape_odds(unseen): the chance of each shape for a card not seen yet. */
static int tw_odds(const tw_ctx *ctx, int *shapes, double *odds) {
    int total = 0, n = 0;
    for (int s = 0; s < TW_SHAPES; s++)
        if (ctx->unseen[s] > 0) total += ctx->unseen[s];
    if (total <= 0) {
        for (int s = 0; s < TW_SHAPES; s++) {
            shapes[s] = s;
            odds[s] = 1.0 / (double)TW_SHAPES;
        }
        return TW_SHAPES;
    }
    for (int s = 0; s < TW_SHAPES; s++)
        if (ctx->unseen[s] > 0) {
            shapes[n] = s;
            odds[n++] = (double)ctx->unseen[s] / (double)total;
        }
    return n;
}

/* ExpertBot._expected_third: ``node``'s value once a card drawn by card counting is played as well
 * as possible (its drops, the drops after one mino with minos3, and the hold). */
static double tw_expected_third(const tw_rules *r, const tw_layout *lay, const tw_ctx *ctx, const tw_params *p,
                                const tw_node *node, const int *shapes, const double *odds, int nodds, int cards_after,
                                tw_action *acts) {
    double total = 0.0, base = tw_value(r, ctx, p, node, cards_after) - 100.0;
    tw_node child;
    for (int k = 0; k < nodds; k++) {
        double best = base;
        int n = tw_actions(r, &node->t, shapes[k], p->minos3, acts);
        for (int i = 0; i < n; i++) {
            tw_advance(r, lay, ctx, p, node, shapes[k], &acts[i], 2, &child);
            double v = tw_value(r, ctx, p, &child, cards_after);
            if (v > best) best = v;
        }
        total += odds[k] * best;
    }
    return total;
}

/* The expert's decision for PLAY ``shape`` with NEXT ``nxt`` (-1: none): every action valued, the
 * best width1 extended by NEXT, the best width2 of those by a third card (module docstring of
 * bots/expert.py). -1 when memory runs out; 0 with *best the decision. */
static int tw_expert(const tw_rules *r, const tw_layout *lay, const tw_ctx *ctx, const tw_params *p, const tw_node *root,
                     int shape, int nxt, tw_action *best) {
    tw_action *acts = PyMem_Malloc(sizeof(tw_action) * (size_t)TW_MAX_ACTIONS * 2);
    tw_ranked *first = PyMem_Malloc(sizeof(tw_ranked) * (size_t)TW_MAX_ACTIONS);
    int width1 = p->width1 > 0 ? p->width1 : 0;
    tw_node *nodes2 = PyMem_Malloc(sizeof(tw_node) * (size_t)(width1 + 1));
    tw_ranked *second = PyMem_Malloc(sizeof(tw_ranked) * (size_t)(width1 + 1));
    int *has2 = PyMem_Malloc(sizeof(int) * (size_t)(width1 + 1));
    int rc = -1;
    if (acts == NULL || first == NULL || nodes2 == NULL || second == NULL || has2 == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    tw_action *more = acts + TW_MAX_ACTIONS;
    int n = tw_actions(r, &root->t, shape, 1, acts);
    rc = 0;
    if (n == 0) {
        best->hold = 1;
        best->mino = -1;
        goto done;
    }
    if (n == 1) {
        *best = acts[0];
        goto done;
    }
    int after1 = ctx->deck_left;
    tw_node node, node2;
    for (int i = 0; i < n; i++) {
        tw_advance(r, lay, ctx, p, root, shape, &acts[i], 0, &node);
        first[i].v = tw_value(r, ctx, p, &node, after1);
        first[i].i = i;
        first[i].slot = i;
    }
    qsort(first, (size_t)n, sizeof(tw_ranked), tw_rank_cmp);
    if (nxt < 0) {
        *best = acts[first[0].i];
        goto done;
    }
    int m = n < width1 ? n : width1;
    for (int j = 0; j < m; j++) {
        tw_advance(r, lay, ctx, p, root, shape, &acts[first[j].i], 0, &node);
        double best_v = first[j].v - 100.0; /* no legal drop for NEXT: nearly out */
        has2[j] = 0;
        int k = tw_actions(r, &node.t, nxt, p->minos2, more);
        for (int a = 0; a < k; a++) {
            tw_advance(r, lay, ctx, p, &node, nxt, &more[a], 1, &node2);
            double v2 = tw_value(r, ctx, p, &node2, after1 - 1);
            if (v2 > best_v) {
                best_v = v2;
                tw_node_copy(&nodes2[j], &node2, r);
                has2[j] = 1;
            }
        }
        second[j].v = best_v;
        second[j].i = first[j].i;
        second[j].slot = j;
    }
    qsort(second, (size_t)m, sizeof(tw_ranked), tw_rank_cmp);
    int width2 = p->width2 > 0 ? p->width2 : 0;
    if (width2 && after1 - 1 > 0) {
        int shapes[TW_SHAPES];
        double odds[TW_SHAPES];
        int nodds = tw_odds(ctx, shapes, odds);
        int m2 = m < width2 ? m : width2;
        for (int j = 0; j < m2; j++) {
            if (has2[second[j].slot])
                second[j].v = tw_expected_third(r, lay, ctx, p, &nodes2[second[j].slot], shapes, odds, nodds, after1 - 2, more);
        }
        qsort(second, (size_t)m2, sizeof(tw_ranked), tw_rank_cmp);
    }
    *best = acts[second[0].i];
done:
    PyMem_Free(acts);
    PyMem_Free(first);
    PyMem_Free(nodes2);
    PyMem_Free(second);
    PyMem_Free(has2);
    return rc;
}

/* ------------------------------------------------------------ a seat of the game decides */

enum { POLICY_RANDOM = 0, POLICY_GREEDY = 1, POLICY_EXPERT = 2 };

/* tower_eval.Context.of(game, seat) */
static void tw_context(const tw_game *g, int seat, tw_ctx *ctx) {
    ctx->nstakes = 0;
    for (int i = 0; i < g->ncards; i++) {
        const tw_card *c = &g->card[i];
        if ((c->met >> seat & 1) || c->next_space >= TW_SPACES) continue;
        int contested = 0;
        for (int s = 0; s < g->n; s++)
            if (s != seat && !(c->met >> s & 1) && !g->t[s].out) contested = 1;
        ctx->kind[ctx->nstakes] = c->kind;
        ctx->points[ctx->nstakes] = c->points[c->next_space];
        ctx->contested[ctx->nstakes] = contested;
        ctx->nstakes++;
    }
    ctx->deck_left = g->deck_size - g->drawn;
    ctx->supply = g->supply;
    tw_unseen(g, ctx->unseen);
}

static void tw_root(tw_node *root, const tw_tower *t, const tw_rules *r) {
    tw_copy(&root->t, t, r);
    root->achieved = 0;
    root->card_points = 0.0;
    root->minos_used = 0;
}

/* The seat's bot decides and submits (Table.play_bot): its policy, its generator (random), the
 * expert's params. -1 on an error (memory). */
static int tw_play_seat(tw_game *g, int seat, int policy, pyr_t *rng, const tw_params *p) {
    const tw_tower *t = &g->t[seat];
    int minos[TW_MAX_MINOS], nminos = 0;
    tw_action a = {1, -1, 0, 0, 0};
    if (policy == POLICY_RANDOM) {
        tw_random(&g->r, t, g->play, rng, &a, minos, &nminos);
    } else {
        tw_ctx ctx;
        tw_context(g, seat, &ctx);
        tw_node root;
        tw_root(&root, t, &g->r);
        if (policy == POLICY_GREEDY) {
            if (!tw_greedy(&g->r, &g->lay[seat], &ctx, p, &root, g->play, &a)) a.hold = 1;
        } else if (tw_expert(&g->r, &g->lay[seat], &ctx, p, &root, g->play, tw_next_card(g), &a) < 0) {
            return -1;
        }
        if (!a.hold && a.mino >= 0) minos[nminos++] = a.mino;
    }
    if (a.hold)
        tw_submit(g, seat, ACT_HOLD, 0, NULL, 0, 0, 0);
    else
        tw_submit(g, seat, ACT_DROP, nminos, minos, a.o, a.x, a.y);
    return 0;
}

/* params = (TowerWeights fields..., width1, width2, minos2, minos3) */
static int tw_load_params(tw_params *p, PyObject *t) {
    if (tw_tuple(t, 15, "expert params") < 0) return -1;
    double *d[] = {&p->hole_rows, &p->holes, &p->bumpiness, &p->column_transitions, &p->wells, NULL,
                   &p->height, &p->mino, &p->hold, &p->progress, &p->race_discount};
    for (int i = 0; i < 11; i++) {
        PyObject *v = PyTuple_GET_ITEM(t, i);
        if (i == 5) {
            if (tw_long(v, -1000, 1000, "height_margin", &p->height_margin) < 0) return -1;
            continue;
        }
        *d[i] = PyFloat_AsDouble(v);
        if (*d[i] == -1.0 && PyErr_Occurred()) return -1;
    }
    if (tw_item(t, 11, 0, TW_MAX_ACTIONS, "width1", &p->width1) < 0 || tw_item(t, 12, 0, TW_MAX_ACTIONS, "width2", &p->width2) < 0 ||
        tw_item(t, 13, 0, 1, "minos2", &p->minos2) < 0 || tw_item(t, 14, 0, 1, "minos3", &p->minos3) < 0)
        return -1;
    return 0;
}

/* ctx = (deck_left, supply, unseen (7 counts), stakes ((table index, points, contested), ...)) */
static int tw_load_ctx(tw_ctx *ctx, tw_rules *r, PyObject *t) {
    if (tw_tuple(t, 4, "context") < 0 || tw_item(t, 0, 0, TW_DECK, "deck left", &ctx->deck_left) < 0 ||
        tw_item(t, 1, 0, TW_MAX_MINOS, "supply", &ctx->supply) < 0)
        return -1;
    PyObject *unseen = PyTuple_GET_ITEM(t, 2), *stakes = PyTuple_GET_ITEM(t, 3);
    if (tw_tuple(unseen, TW_SHAPES, "unseen") < 0 || tw_tuple(stakes, -1, "stakes") < 0 ||
        PyTuple_GET_SIZE(stakes) > TW_CARDS)
        return -1;
    for (int s = 0; s < TW_SHAPES; s++)
        if (tw_item(unseen, s, 0, 28, "unseen", &ctx->unseen[s]) < 0) return -1;
    ctx->nstakes = (int)PyTuple_GET_SIZE(stakes);
    for (int i = 0; i < ctx->nstakes; i++) {
        PyObject *st = PyTuple_GET_ITEM(stakes, i);
        int id;
        if (tw_tuple(st, 3, "stake") < 0 || tw_item(st, 0, 0, TW_CARDS - 1, "stake card", &id) < 0 ||
            tw_item(st, 1, 0, 1000, "stake points", &ctx->points[i]) < 0 ||
            tw_item(st, 2, 0, 1, "contested", &ctx->contested[i]) < 0)
            return -1;
        ctx->kind[i] = r->card_kind[id];
        if (ctx->kind[i] == C_FOUR_PAIRS || ctx->kind[i] >= C_CONNECT_LJ) r->touch = 1;
    }
    return 0;
}

static PyObject *tw_action_out(const tw_action *a) {
    if (a->hold) return Py_BuildValue("(iiiii)", 1, -1, 0, 0, 0);
    return Py_BuildValue("(iiiii)", 0, a->mino, a->o, a->x, a->y);
}

/* A seat's tower, its layout and its context, loaded for one decision. */
typedef struct {
    tw_game g; /* one tower, seat 0 */
    tw_ctx ctx;
    tw_params p;
    tw_node root;
} tw_decision;

static tw_decision *tw_decision_load(PyObject *rules, PyObject *tower, PyObject *ctx, PyObject *params) {
    tw_decision *d = PyMem_Calloc(1, sizeof(tw_decision));
    if (d == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    d->g.n = 1;
    if (tw_load_rules(&d->g.r, rules) < 0 || tw_load_ctx(&d->ctx, &d->g.r, ctx) < 0 ||
        tw_load_tower(&d->g, 0, tower) < 0 || tw_load_params(&d->p, params) < 0) {
        PyMem_Free(d);
        return NULL;
    }
    tw_root(&d->root, &d->g.t[0], &d->g.r);
    return d;
}

/* decide(rules, tower, ctx, params, policy, play, next) -> (hold, mino, orientation, x, y): the
 * greedy (1) or expert (2) decision of a seat with ``tower`` (tw_load_tower's form, its layout in
 * it) for PLAY ``play`` and NEXT ``next`` (-1: none). Greedy without a drop answers the hold. */
static PyObject *py_decide(PyObject *self, PyObject *args) {
    PyObject *rules, *tower, *ctx, *params;
    int policy, play, nxt;
    if (!PyArg_ParseTuple(args, "OOOOiii", &rules, &tower, &ctx, &params, &policy, &play, &nxt)) return NULL;
    if (play < 0 || play >= TW_SHAPES || nxt < -1 || nxt >= TW_SHAPES || policy < POLICY_GREEDY || policy > POLICY_EXPERT) {
        PyErr_SetString(PyExc_ValueError, "tower core: decide: shapes or policy out of range");
        return NULL;
    }
    tw_decision *d = tw_decision_load(rules, tower, ctx, params);
    if (d == NULL) return NULL;
    tw_action a = {1, -1, 0, 0, 0};
    PyObject *out = NULL;
    if (policy == POLICY_GREEDY) {
        if (!tw_greedy(&d->g.r, &d->g.lay[0], &d->ctx, &d->p, &d->root, play, &a)) a.hold = 1;
    } else if (tw_expert(&d->g.r, &d->g.lay[0], &d->ctx, &d->p, &d->root, play, nxt, &a) < 0) {
        goto done;
    }
    out = tw_action_out(&a);
done:
    PyMem_Free(d);
    return out;
}

/* lookahead(rules, tower, ctx, params, shape, cards_after, minos) -> [(action, points, value,
 * achieved, minos), ...]: every action of tower_eval.actions from the root and its advanced
 * node's points, value, stakes met and minos: the tests' check of the lookahead's numbers. */
static PyObject *py_lookahead(PyObject *self, PyObject *args) {
    PyObject *rules, *tower, *ctx, *params;
    int shape, after, minos, depth;
    if (!PyArg_ParseTuple(args, "OOOOiiii", &rules, &tower, &ctx, &params, &shape, &after, &minos, &depth)) return NULL;
    if (shape < 0 || shape >= TW_SHAPES || depth < 0 || depth > 50) {
        PyErr_SetString(PyExc_ValueError, "tower core: lookahead: shape or depth out of range");
        return NULL;
    }
    tw_decision *d = tw_decision_load(rules, tower, ctx, params);
    if (d == NULL) return NULL;
    d->g.r.touch = 1;
    tw_root(&d->root, &d->g.t[0], &d->g.r);
    tw_action *acts = PyMem_Malloc(sizeof(tw_action) * TW_MAX_ACTIONS);
    PyObject *out = NULL;
    if (acts == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    int n = tw_actions(&d->g.r, &d->root.t, shape, minos, acts);
    out = PyList_New(n);
    if (out == NULL) goto done;
    tw_node node;
    for (int i = 0; i < n; i++) {
        tw_advance(&d->g.r, &d->g.lay[0], &d->ctx, &d->p, &d->root, shape, &acts[i], depth, &node);
        PyObject *item = Py_BuildValue("(Nddii)", tw_action_out(&acts[i]), tw_node_points(&node),
                                       tw_value(&d->g.r, &d->ctx, &d->p, &node, after), node.achieved, node.t.minos);
        if (item == NULL) {
            Py_CLEAR(out);
            goto done;
        }
        PyList_SET_ITEM(out, i, item);
    }
done:
    PyMem_Free(acts);
    PyMem_Free(d);
    return out;
}

/* measure(rules, tower) -> (features (holes, hole_rows, bumpiness, column transitions, wells,
 * max height), lines, progress per card of the table, conditions per card (for a hold)): the
 * tests' check of the features, the cards' conditions and their progress. */
static PyObject *py_measure(PyObject *self, PyObject *args) {
    PyObject *rules, *tower;
    int shape, rows;
    if (!PyArg_ParseTuple(args, "OOii", &rules, &tower, &shape, &rows)) return NULL;
    tw_game *g = PyMem_Calloc(1, sizeof(tw_game));
    if (g == NULL) return PyErr_NoMemory();
    g->n = 1;
    PyObject *out = NULL;
    if (tw_load_rules(&g->r, rules) < 0 || tw_load_tower(g, 0, tower) < 0) goto done;
    g->r.touch = 1;
    tw_features f;
    tw_features_of(&g->t[0], &g->r, &f);
    PyObject *prog = PyTuple_New(TW_CARDS), *cond = PyTuple_New(TW_CARDS);
    if (prog == NULL || cond == NULL) {
        Py_XDECREF(prog);
        Py_XDECREF(cond);
        goto done;
    }
    for (int k = 0; k < TW_CARDS; k++) {
        PyTuple_SET_ITEM(prog, k, PyFloat_FromDouble(tw_progress(k, &g->t[0], &g->r)));
        PyTuple_SET_ITEM(cond, k, PyBool_FromLong(tw_condition(k, &g->t[0], &g->r, shape, rows)));
    }
    out = Py_BuildValue("((llllll)iNN)", f.holes, f.hole_rows, f.bump, f.col_tr, f.wells, f.maxh, g->t[0].lines, prog, cond);
done:
    PyMem_Free(g);
    return out;
}

/* playout(rules, state, policies, bot_states, params, max_rounds) -> (dump, bot_states): the game
 * played on by its seats' bots (policies: one byte per seat, POLICY_*; per seat a random seat's
 * generator state and a greedy or expert seat's params, None elsewhere) until it is over or
 * ``max_rounds`` rounds were resolved. */
static PyObject *py_playout(PyObject *self, PyObject *args) {
    PyObject *rules, *state, *policies, *bot_states, *params;
    long max_rounds;
    if (!PyArg_ParseTuple(args, "OOSOOl", &rules, &state, &policies, &bot_states, &params, &max_rounds)) return NULL;
    tw_game *g = tw_game_new(rules, state);
    if (g == NULL) return NULL;
    PyObject *out = NULL;
    pyr_t *rngs = PyMem_Calloc(TW_PLAYERS, sizeof(pyr_t));
    tw_params p[TW_PLAYERS];
    memset(p, 0, sizeof p);
    int policy[TW_PLAYERS];
    if (rngs == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    if (PyBytes_GET_SIZE(policies) != g->n || tw_tuple(bot_states, g->n, "bot states") < 0 ||
        tw_tuple(params, g->n, "params per seat") < 0) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "tower core: one policy, bot state and params per seat");
        goto done;
    }
    for (int s = 0; s < g->n; s++) {
        policy[s] = (unsigned char)PyBytes_AS_STRING(policies)[s];
        if (policy[s] > POLICY_EXPERT) {
            PyErr_SetString(PyExc_ValueError, "tower core: unknown policy");
            goto done;
        }
        if (policy[s] == POLICY_RANDOM) {
            if (pyr_load(&rngs[s], PyTuple_GET_ITEM(bot_states, s)) < 0) goto done;
        } else if (tw_load_params(&p[s], PyTuple_GET_ITEM(params, s)) < 0) {
            goto done;
        }
    }
    while (!g->over && g->nrounds < max_rounds) {
        int waiting = tw_waiting(g);
        for (int s = 0; s < g->n; s++)
            if (waiting >> s & 1)
                if (tw_play_seat(g, s, policy[s], &rngs[s], &p[s]) < 0) goto done;
    }
    PyObject *states = PyTuple_New(g->n);
    if (states == NULL) goto done;
    for (int s = 0; s < g->n; s++)
        PyTuple_SET_ITEM(states, s, policy[s] == POLICY_RANDOM ? pyr_store(&rngs[s]) : Py_NewRef(Py_None));
    out = Py_BuildValue("(NN)", tw_dump_game(g), states);
done:
    PyMem_Free(rngs);
    PyMem_Free(g);
    return out;
}

/* ------------------------------------------------------------ oracle (OracleBot.plan)
 *
 * Beam search over the known rest of the deck with the expert's actions and values (every drop,
 * every drop after one mino, the hold). Each card, every beam tower's actions are valued; towers
 * equal on (occupied cells, minos, hold used, stakes met) keep the best value (first seen on a
 * tie, its place in the order where it was first seen: Python's dict); an out tower is carried on
 * as it is, and one with no action freezes out with its points. The ``width`` best (stable by
 * value) go on. The answer is the line of the tower with the most points at the end. */

typedef struct {
    double v;
    int parent; /* its tower in the beam before */
    int kind;   /* 0 an action, 1 an out tower carried on, 2 a tower frozen out (no action) */
    tw_action a;
    int minos, hold, achieved; /* the key with ``rows`` */
    uint64_t hash;
} tw_cand;

typedef struct {
    int parent, has_step;
    tw_action a;
} tw_hist;

static uint64_t tw_key_hash(const uint32_t *rows, int h, int minos, int hold, int achieved) {
    uint64_t x = 1469598103934665603ULL;
    for (int y = 0; y < h; y++) x = (x ^ rows[y]) * 1099511628211ULL;
    x = (x ^ (uint64_t)(uint32_t)minos) * 1099511628211ULL;
    x = (x ^ (uint64_t)hold) * 1099511628211ULL;
    x = (x ^ (uint64_t)(uint32_t)achieved) * 1099511628211ULL;
    return x ^ (x >> 29);
}

static int tw_cand_cmp(const void *pa, const void *pb) {
    const tw_ranked *a = pa, *b = pb;
    return tw_rank_cmp(a, b);
}

/* The planned actions into ``plan`` (at most ``ncards``); their count, or -1 (memory). */
static int tw_oracle(const tw_rules *r, const tw_layout *lay, const tw_ctx *ctx, const tw_params *p, const tw_node *root,
                     const int *cards, int ncards, int width, tw_action *plan) {
    int h = r->h;
    int per = TW_ORIENTS * r->w * (r->w + 1) + 1;
    size_t maxc = (size_t)width * (size_t)per;
    size_t table = 1;
    while (table < 2 * maxc) table <<= 1;
    tw_node *beam = PyMem_Malloc(sizeof(tw_node) * (size_t)width);
    tw_node *next = PyMem_Malloc(sizeof(tw_node) * (size_t)width);
    double *beam_v = PyMem_Malloc(sizeof(double) * (size_t)width);
    tw_cand *cand = PyMem_Malloc(sizeof(tw_cand) * maxc);
    uint32_t *keyrows = PyMem_Malloc(sizeof(uint32_t) * maxc * (size_t)h);
    int *slots = PyMem_Malloc(sizeof(int) * table);
    tw_ranked *order = PyMem_Malloc(sizeof(tw_ranked) * maxc);
    tw_hist *hist = PyMem_Malloc(sizeof(tw_hist) * (size_t)(ncards > 0 ? ncards : 1) * (size_t)width);
    tw_action *acts = PyMem_Malloc(sizeof(tw_action) * (size_t)TW_MAX_ACTIONS);
    int rc = -1;
    if (!beam || !next || !beam_v || !cand || !keyrows || !slots || !order || !hist || !acts) {
        PyErr_NoMemory();
        goto done;
    }
    int nbeam = 1;
    tw_node_copy(&beam[0], root, r);
    beam_v[0] = 0.0;
    tw_node child;
    for (int depth = 0; depth < ncards; depth++) {
        int shape = cards[depth], after = ncards - depth - 1;
        int ddepth = depth < 3 ? depth : 3;
        size_t nc = 0;
        memset(slots, -1, sizeof(int) * table);
        for (int b = 0; b < nbeam; b++) {
            const tw_node *node = &beam[b];
            const tw_tower *t = &node->t;
            int carried = t->out, n = carried ? 0 : tw_actions(r, t, shape, 1, acts);
            /* i == -1 alone: the out tower carried on (carried) or frozen out (no action) */
            int lo = n ? 0 : -1, hi = n ? n : 0;
            for (int i = lo; i < hi; i++) {
                const tw_tower *ct;
                int kind, minos, hold;
                double v;
                if (i < 0) {
                    ct = t;
                    kind = carried ? 1 : 2;
                    minos = -1;
                    hold = 1;
                    v = carried ? beam_v[b] : tw_node_points(node); /* value(frozen, ctx, 0): an out tower's points */
                } else {
                    tw_advance(r, lay, ctx, p, node, shape, &acts[i], ddepth, &child);
                    ct = &child.t;
                    kind = 0;
                    minos = ct->minos;
                    hold = ct->held >= 0;
                    v = tw_value(r, ctx, p, &child, after);
                }
                int achieved = i < 0 ? node->achieved : child.achieved;
                uint64_t hash = tw_key_hash(ct->rows, h, minos, hold, achieved);
                size_t mask = table - 1, s = (size_t)hash & mask;
                int found = -1;
                for (; slots[s] >= 0; s = (s + 1) & mask) {
                    const tw_cand *c = &cand[slots[s]];
                    if (c->hash == hash && c->minos == minos && c->hold == hold && c->achieved == achieved &&
                        !memcmp(&keyrows[(size_t)slots[s] * (size_t)h], ct->rows, sizeof(uint32_t) * (size_t)h)) {
                        found = slots[s];
                        break;
                    }
                }
                if (found >= 0) {
                    /* carried: setdefault; otherwise a better value takes the key's place */
                    if (kind == 1 || cand[found].v >= v) continue;
                } else {
                    found = (int)nc++;
                    slots[s] = found;
                    memcpy(&keyrows[(size_t)found * (size_t)h], ct->rows, sizeof(uint32_t) * (size_t)h);
                    cand[found].minos = minos;
                    cand[found].hold = hold;
                    cand[found].achieved = achieved;
                    cand[found].hash = hash;
                }
                cand[found].v = v;
                cand[found].parent = b;
                cand[found].kind = kind;
                if (i >= 0) cand[found].a = acts[i];
            }
        }
        for (size_t k = 0; k < nc; k++) {
            order[k].v = cand[k].v;
            order[k].i = (int)k;
            order[k].slot = (int)k;
        }
        qsort(order, nc, sizeof(tw_ranked), tw_cand_cmp);
        int m = nc < (size_t)width ? (int)nc : width;
        for (int j = 0; j < m; j++) {
            const tw_cand *c = &cand[order[j].i];
            tw_hist *hj = &hist[(size_t)depth * (size_t)width + (size_t)j];
            hj->parent = c->parent;
            hj->has_step = c->kind == 0;
            if (c->kind == 0) {
                hj->a = c->a;
                tw_advance(r, lay, ctx, p, &beam[c->parent], shape, &c->a, ddepth, &next[j]);
            } else {
                tw_node_copy(&next[j], &beam[c->parent], r);
                next[j].t.out = 1;
            }
        }
        for (int j = 0; j < m; j++) {
            tw_node_copy(&beam[j], &next[j], r);
            beam_v[j] = cand[order[j].i].v;
        }
        nbeam = m;
    }
    int best = 0;
    for (int j = 1; j < nbeam; j++)
        if (tw_node_points(&beam[j]) > tw_node_points(&beam[best])) best = j;
    int nsteps = 0;
    for (int depth = ncards - 1, j = best; depth >= 0; depth--) {
        const tw_hist *hj = &hist[(size_t)depth * (size_t)width + (size_t)j];
        if (hj->has_step) plan[nsteps++] = hj->a;
        j = hj->parent;
    }
    for (int i = 0; i < nsteps / 2; i++) {
        tw_action x = plan[i];
        plan[i] = plan[nsteps - 1 - i];
        plan[nsteps - 1 - i] = x;
    }
    rc = nsteps;
done:
    PyMem_Free(beam);
    PyMem_Free(next);
    PyMem_Free(beam_v);
    PyMem_Free(cand);
    PyMem_Free(keyrows);
    PyMem_Free(slots);
    PyMem_Free(order);
    PyMem_Free(hist);
    PyMem_Free(acts);
    return rc;
}

/* oracle_plan(rules, tower, ctx, params, cards, width) -> [(hold, mino, orientation, x, y), ...]:
 * OracleBot.plan's actions for a seat with ``tower`` and the cards still to come (PLAY first,
 * bytes of shape indexes), a beam of ``width`` towers; the params' weights value the towers. */
static PyObject *py_oracle_plan(PyObject *self, PyObject *args) {
    PyObject *rules, *tower, *ctx, *params;
    Py_buffer cards;
    int width;
    if (!PyArg_ParseTuple(args, "OOOOy*i", &rules, &tower, &ctx, &params, &cards, &width)) return NULL;
    PyObject *out = NULL;
    tw_decision *d = NULL;
    int shapes[TW_DECK];
    tw_action plan[TW_DECK];
    if (width < 1 || width > 4096 || cards.len > TW_DECK) {
        PyErr_SetString(PyExc_ValueError, "tower core: oracle_plan: width 1-4096 and at most a deck of cards");
        goto done;
    }
    for (Py_ssize_t i = 0; i < cards.len; i++) {
        shapes[i] = ((const unsigned char *)cards.buf)[i];
        if (shapes[i] >= TW_SHAPES) {
            PyErr_SetString(PyExc_ValueError, "tower core: oracle_plan: a card is not a tetromino");
            goto done;
        }
    }
    d = tw_decision_load(rules, tower, ctx, params);
    if (d == NULL) goto done;
    int n = tw_oracle(&d->g.r, &d->g.lay[0], &d->ctx, &d->p, &d->root, shapes, (int)cards.len, width, plan);
    if (n < 0) goto done;
    out = PyList_New(n);
    if (out == NULL) goto done;
    for (int i = 0; i < n; i++) {
        PyObject *item = tw_action_out(&plan[i]);
        if (item == NULL) {
            Py_CLEAR(out);
            goto done;
        }
        PyList_SET_ITEM(out, i, item);
    }
done:
    PyMem_Free(d);
    PyBuffer_Release(&cards);
    return out;
}

#define TW_BOT_METHODS                                                                                  \
    {"decide", py_decide, METH_VARARGS, "The greedy or expert decision of one seat."},                  \
    {"lookahead", py_lookahead, METH_VARARGS, "Every action's advanced node, points and value."},        \
    {"measure", py_measure, METH_VARARGS, "A tower's features, cards' progress and conditions."},      \
    {"playout", py_playout, METH_VARARGS, "A game played on by random, greedy and expert seats."},      \
    {"oracle_plan", py_oracle_plan, METH_VARARGS, "OracleBot.plan's actions over the known deck."},
