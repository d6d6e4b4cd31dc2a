/* The tower env's fast path (issue 29), included by engine/_tower_core.c.
 *
 * envs/tower_codec.py's encoding (TowerCodec.legal, mask, observe) and envs/gym.py's TowerEnv
 * (reset, step, _others_play) for one learning seat whose opponents are ``random`` and ``greedy``
 * bots by name: the learner's sub-steps (MINO, then DROP or HOLD), the opponents' decisions (their
 * own generators, seeded as TowerEnv._seat_bots seeds them), the rounds, the observation vector,
 * the mask and the reward, written straight into NumPy arrays; one call steps a whole batch.
 * envs/tower_fast.py drives it; tests/test_fasttower_env.py checks it against the Python env.
 */

enum { TW_WAIT = 0, TW_HOLD = 1 };
enum { TS_SCORE = 0, TS_DIFFERENCE = 1, TS_WIN = 2 };

/* NumPy's bitgen_t (numpy/random/bitgen.h, the documented C interface of a BitGenerator's
 * ``capsule``), declared here so the core builds without NumPy's headers. A reset in the batch
 * step draws its seeds through it from the env's own np_random as TowerEnv.reset's
 * ``rng.integers(2**32)`` does: one ``next_uint32`` each (numpy's full 32-bit range case). */
typedef struct {
    void *state;
    uint64_t (*next_uint64)(void *st);
    uint32_t (*next_uint32)(void *st);
    double (*next_double)(void *st);
    uint64_t (*next_raw)(void *st);
} tw_bitgen_t;

typedef struct {
    int n_actions, obs_size, drop_base, mino_base, box;
    int tower, others, play, next, seen, deck, supply, minos, hold, submitted, out, scores, ach;
} tw_codec;

typedef struct {
    tw_game g;
    int seat;
    int policy[TW_PLAYERS]; /* the opponents' (the learner's entry is unused) */
    pyr_t bot[TW_PLAYERS];
    tw_params p; /* greedy's weights */
    tw_codec c;
    int nchosen, done; /* SeatTurn: the minos chosen this round, the action in */
    int chosen[TW_MAX_MINOS];
    int scheme;
    int fresh; /* resets in the batch step make new games (tw_new_game from ``setup``) */
    tw_setup setup;
    PyObject *bitgen_owner; /* the env's numpy BitGenerator (a reference), or NULL: no resets here */
    tw_bitgen_t *bitgen;
} tw_env;

static void tw_env_free(PyObject *capsule) {
    tw_env *e = PyCapsule_GetPointer(capsule, "tabletris.tower_env");
    if (e == NULL) return;
    Py_XDECREF(e->bitgen_owner);
    PyMem_Free(e);
}

static tw_env *tw_env_of(PyObject *capsule) {
    return PyCapsule_GetPointer(capsule, "tabletris.tower_env");
}

/* The learner's heights with the minos chosen this round. */
static void tw_env_heights(const tw_env *e, uint8_t *height) {
    memcpy(height, e->g.t[e->seat].height, TW_MAX_W);
    for (int i = 0; i < e->nchosen; i++) height[e->chosen[i]]++;
}

/* TowerCodec.legal for the learner, as a mask: WAIT alone once its action is in, nothing once
 * the game is over or it is out; else HOLD (no minos yet, hold unused), the drops after the minos
 * chosen, and MINO c where a mino is left, c has room and the piece still has a drop after it. */
static void tw_env_mask(const tw_env *e, signed char *mask) {
    const tw_game *g = &e->g;
    const tw_tower *t = &g->t[e->seat];
    memset(mask, 0, (size_t)e->c.n_actions);
    if (g->over || t->out) return;
    if (e->done || !(tw_waiting(g) >> e->seat & 1)) {
        mask[TW_WAIT] = 1;
        return;
    }
    if (!e->nchosen && t->held < 0) mask[TW_HOLD] = 1;
    uint8_t height[TW_MAX_W];
    tw_env_heights(e, height);
    tw_place places[TW_ORIENTS * TW_MAX_W];
    int n = tw_drops_on(&g->r, height, g->play, places);
    for (int i = 0; i < n; i++) mask[e->c.drop_base + places[i].o * g->r.w + places[i].x] = 1;
    if (e->nchosen < t->minos)
        for (int c = 0; c < g->r.w; c++) {
            if (height[c] >= g->r.h) continue;
            height[c]++;
            if (tw_has_drop_on(&g->r, height, g->play)) mask[e->c.mino_base + c] = 1;
            height[c]--;
        }
}

/* TowerCodec.observe for the learner (the minos it chose this round already in its tower). */
static void tw_env_observe(const tw_env *e, float *obs) {
    const tw_game *g = &e->g;
    const tw_codec *c = &e->c;
    int w = g->r.w, h = g->r.h, hw = w * h, n = g->n, seat = e->seat;
    const tw_tower *t = &g->t[seat];
    const tw_layout *lay = &g->lay[seat];
    memset(obs, 0, sizeof(float) * (size_t)c->obs_size);
    float *planes = obs + c->tower;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            int k = t->grid[y * w + x];
            if (!k) continue;
            int plane = k == TW_GRID_MINO ? TW_MINO : t->tshape[k];
            planes[plane * hw + y * w + x] = 1.0f;
        }
    uint8_t height[TW_MAX_W];
    memcpy(height, t->height, sizeof height);
    for (int i = 0; i < e->nchosen; i++) {
        int x = e->chosen[i];
        if (height[x] < h) planes[TW_MINO * hw + height[x]++ * w + x] = 1.0f;
    }
    for (int y = 0; y < h; y++) {
        for (uint32_t m = lay->diamond[y]; m; m &= m - 1) planes[8 * hw + y * w + __builtin_ctz(m)] = 1.0f;
        for (int s = 0; s < TW_SHAPES; s++)
            for (uint32_t m = lay->bonus[s][y]; m; m &= m - 1) planes[(9 + s) * hw + y * w + __builtin_ctz(m)] = 1.0f;
    }
    for (int k = 1; k < n; k++) {
        const tw_tower *o = &g->t[(seat + k) % n];
        float *plane = obs + c->others + (k - 1) * hw;
        for (int y = 0; y < h; y++)
            for (uint32_t m = o->rows[y]; m; m &= m - 1) plane[y * w + __builtin_ctz(m)] = 1.0f;
    }
    if (g->play >= 0) obs[c->play + g->play] = 1.0f;
    int nxt = tw_next_card(g);
    obs[c->next + (nxt < 0 ? TW_SHAPES : nxt)] = 1.0f;
    int unseen[TW_SHAPES];
    tw_unseen(g, unseen);
    for (int s = 0; s < TW_SHAPES; s++) obs[c->seen + s] = (float)tw_min1((double)(4 - unseen[s]) / 4.0);
    obs[c->deck] = (float)((double)(g->deck_size - g->drawn) / (double)TW_DECK);
    obs[c->supply] = (float)tw_min1((double)g->supply / (double)c->box);
    obs[c->minos] = (float)tw_min1((double)t->minos / (double)c->box);
    obs[c->minos + 1] = (float)tw_min1((double)e->nchosen / (double)c->box);
    obs[c->hold] = t->held >= 0 ? 1.0f : 0.0f;
    obs[c->submitted] = (e->done || (!g->over && !(tw_waiting(g) >> seat & 1))) ? 1.0f : 0.0f;
    for (int k = 0; k < n; k++) {
        int other = (seat + k) % n;
        obs[c->out + k] = g->t[other].out ? 1.0f : 0.0f;
        int score = tw_score(g, other);
        obs[c->scores + k] = (float)(score < 1000 ? score : 1000);
    }
    for (int i = 0; i < g->ncards; i++) {
        const tw_card *cd = &g->card[i];
        float *a = obs + c->ach + 3 * cd->kind;
        a[0] = 1.0f;
        a[1] = (cd->met >> seat & 1) ? 1.0f : 0.0f;
        a[2] = (float)((double)(cd->next_space < TW_SPACES ? TW_SPACES - cd->next_space : 0) / (double)TW_SPACES);
    }
}

/* TowerEnv._others_play with random and greedy bots: they submit (seat order), rounds the learner
 * has no say in are played through, until the learner has a decision or the game is over. */
static int tw_env_advance(tw_env *e) {
    tw_game *g = &e->g;
    while (!g->over) {
        int waiting = tw_waiting(g);
        for (int s = 0; s < g->n; s++)
            if (s != e->seat && (waiting >> s & 1))
                if (tw_play_seat(g, s, e->policy[s], &e->bot[s], &e->p) < 0) return -1;
        if (tw_waiting(g) >> e->seat & 1) break;
    }
    return 0;
}

/* TowerEnv.step's move for the legal id ``a`` (tower_codec's encoding): a MINO is kept for the
 * learner's action; a DROP (with the minos) or a HOLD is submitted and the opponents play on.
 * ValueError when ``a`` is not legal now. */
static int tw_env_act(tw_env *e, long a) {
    tw_game *g = &e->g;
    signed char mask[2 + 5 * TW_MAX_W];
    tw_env_mask(e, mask);
    if (a < 0 || a >= e->c.n_actions || !mask[a]) {
        PyErr_Format(PyExc_ValueError, "tower env: action %ld is not legal now", a);
        return -1;
    }
    if (a == TW_WAIT) return 0;
    if (a >= e->c.mino_base) {
        e->chosen[e->nchosen++] = (int)(a - e->c.mino_base);
        return 0;
    }
    if (a == TW_HOLD) {
        tw_submit(g, e->seat, ACT_HOLD, 0, NULL, 0, 0, 0);
    } else {
        int o = (int)((a - e->c.drop_base) / g->r.w), x = (int)((a - e->c.drop_base) % g->r.w);
        uint8_t height[TW_MAX_W];
        tw_env_heights(e, height);
        const tw_orient *f = &g->r.os[g->play][o];
        int y = 0;
        for (int c = 0; c < f->ow; c++) {
            int v = (int)height[x + c] - f->lo[c];
            if (v > y) y = v;
        }
        tw_submit(g, e->seat, ACT_DROP, e->nchosen, e->chosen, o, x, y);
    }
    e->nchosen = 0;
    e->done = 0;
    return tw_env_advance(e);
}

/* status = (over, round, winners as a bit per seat, 0, scores...) */
static void tw_env_status(const tw_env *e, int32_t *status) {
    const tw_game *g = &e->g;
    status[0] = g->over;
    status[1] = g->base_rounds + g->nrounds + (g->over ? 0 : 1);
    status[2] = tw_winners(g);
    status[3] = 0;
    for (int s = 0; s < g->n; s++) status[4 + s] = tw_score(g, s);
}

/* rewards.margin */
static double tw_margin(const int *scores, int n, int seat) {
    int best = 0, any = 0;
    for (int k = 0; k < n; k++)
        if (k != seat && (!any || scores[k] > best)) {
            best = scores[k];
            any = 1;
        }
    return (double)(scores[seat] - (any ? best : 0));
}

/* rewards.step_reward for the learner's step from scores ``before`` to the game now. */
static double tw_env_reward(const tw_env *e, const int *before) {
    const tw_game *g = &e->g;
    int after[TW_PLAYERS];
    for (int s = 0; s < g->n; s++) after[s] = tw_score(g, s);
    if (e->scheme == TS_SCORE) return (double)(after[e->seat] - before[e->seat]);
    if (e->scheme == TS_DIFFERENCE) return tw_margin(after, g->n, e->seat) - tw_margin(before, g->n, e->seat);
    if (!g->over) return 0.0;
    int won = tw_winners(g);
    if (!(won >> e->seat & 1)) return -1.0;
    return tw_popcount32((uint32_t)won) == 1 ? 1.0 : 0.0;
}

/* TowerEnv.reset with no seed, in C: the game's seed and each opponent's bot seed (seat order)
 * drawn as ``rng.integers(2**32)`` from the env's np_random, the new game, the opponents' first
 * round when the learner has no decision in it. */
static int tw_env_restart(tw_env *e, uint32_t *seed_out) {
    tw_bitgen_t *bg = e->bitgen;
    uint32_t seed = bg->next_uint32(bg->state);
    for (int s = 0; s < e->g.n; s++)
        if (s != e->seat) pyr_seed(&e->bot[s], bg->next_uint32(bg->state));
    tw_new_game(&e->g, &e->setup, e->g.n, seed);
    e->nchosen = 0;
    e->done = 0;
    *seed_out = seed;
    if (tw_waiting(&e->g) >> e->seat & 1) return 0;
    return tw_env_advance(e);
}

static int tw_env_configure(tw_env *e, PyObject *auto_) {
    PyObject *owner;
    int scheme;
    if (!PyArg_ParseTuple(auto_, "Oi", &owner, &scheme)) return -1;
    if (scheme < TS_SCORE || scheme > TS_WIN) {
        PyErr_Format(PyExc_ValueError, "tower env: reward scheme %d: expected 0, 1 or 2", scheme);
        return -1;
    }
    tw_bitgen_t *bitgen = NULL;
    if (owner != Py_None) {
        if (!e->fresh) {
            PyErr_SetString(PyExc_ValueError, "tower env: resets in the batch need the new game's set-up");
            return -1;
        }
        PyObject *cap = PyObject_GetAttrString(owner, "capsule");
        if (cap == NULL) return -1;
        bitgen = PyCapsule_GetPointer(cap, "BitGenerator");
        Py_DECREF(cap);
        if (bitgen == NULL) return -1;
        Py_INCREF(owner);
    }
    Py_XDECREF(e->bitgen_owner);
    e->bitgen_owner = owner == Py_None ? NULL : owner;
    e->bitgen = bitgen;
    e->scheme = scheme;
    return 0;
}

/* codec = (n_actions, obs_size, drop_base, mino_base, box, and the layout's starts: tower, others,
 * play, next, cards_seen, deck_left, supply, minos, hold_used, submitted, out, scores,
 * achievements) */
static int tw_load_codec(tw_codec *c, const tw_game *g, PyObject *t) {
    if (tw_tuple(t, 18, "codec") < 0) return -1;
    int *f[] = {&c->n_actions, &c->obs_size, &c->drop_base, &c->mino_base, &c->box, &c->tower, &c->others, &c->play,
                &c->next, &c->seen, &c->deck, &c->supply, &c->minos, &c->hold, &c->submitted, &c->out, &c->scores, &c->ach};
    for (int i = 0; i < 18; i++)
        if (tw_item(t, i, 0, 1 << 24, "codec field", f[i]) < 0) return -1;
    int w = g->r.w, hw = w * g->r.h;
    if (c->n_actions != 2 + 5 * w || c->drop_base != 2 || c->mino_base != 2 + 4 * w || c->box < 1 || c->tower != 0 ||
        c->others != 16 * hw || c->play != c->others + (g->n - 1) * hw || c->next != c->play + 7 || c->seen != c->next + 8 ||
        c->deck != c->seen + 7 || c->supply != c->deck + 1 || c->minos != c->supply + 1 || c->hold != c->minos + 2 ||
        c->submitted != c->hold + 1 || c->out != c->submitted + 1 || c->scores != c->out + g->n ||
        c->ach != c->scores + g->n || c->obs_size != c->ach + 3 * TW_CARDS) {
        PyErr_SetString(PyExc_ValueError, "tower env: the codec's layout is not tower_codec's");
        return -1;
    }
    return 0;
}

/* env_new(rules, state, seat, policies, bot_seeds, codec, params, auto, setup) -> capsule: a game
 * for the fast env (tw_load_game's state), the opponents' policies (bytes, the learner's ignored)
 * and seeds (ints, None for the learner), greedy's params, ``auto`` = (bit generator or None,
 * reward scheme), ``setup`` (tw_load_setup's) for new games in the batch, or None. */
static PyObject *py_env_new(PyObject *self, PyObject *args) {
    PyObject *rules, *state, *policies, *seeds, *codec, *params, *auto_, *setup;
    int seat;
    if (!PyArg_ParseTuple(args, "OOiSOOOOO", &rules, &state, &seat, &policies, &seeds, &codec, &params, &auto_, &setup))
        return NULL;
    tw_env *e = PyMem_Calloc(1, sizeof(tw_env));
    if (e == NULL) return PyErr_NoMemory();
    if (tw_load_rules(&e->g.r, rules) < 0 || tw_load_game(&e->g, state) < 0) goto fail;
    if (seat < 0 || seat >= e->g.n || PyBytes_GET_SIZE(policies) != e->g.n || tw_tuple(seeds, e->g.n, "bot seeds") < 0) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "tower env: a seat, and a policy and a seed per seat");
        goto fail;
    }
    e->seat = seat;
    for (int s = 0; s < e->g.n; s++) {
        if (s == seat) continue;
        e->policy[s] = (unsigned char)PyBytes_AS_STRING(policies)[s];
        if (e->policy[s] != POLICY_RANDOM && e->policy[s] != POLICY_GREEDY) {
            PyErr_SetString(PyExc_ValueError, "tower env: opponents are random or greedy");
            goto fail;
        }
        if (pyr_load(&e->bot[s], PyTuple_GET_ITEM(seeds, s)) < 0) goto fail;
    }
    if (tw_load_params(&e->p, params) < 0 || tw_load_codec(&e->c, &e->g, codec) < 0) goto fail;
    if (setup != Py_None) {
        if (tw_load_setup(&e->setup, &e->g.r, setup) < 0) goto fail;
        e->fresh = 1;
    }
    if (tw_env_configure(e, auto_) < 0) goto fail;
    if (!(tw_waiting(&e->g) >> seat & 1) && tw_env_advance(e) < 0) goto fail;
    PyObject *cap = PyCapsule_New(e, "tabletris.tower_env", tw_env_free);
    if (cap == NULL) goto fail;
    return cap;
fail:
    Py_XDECREF(e->bitgen_owner);
    PyMem_Free(e);
    return NULL;
}

/* env_reset(capsule, state, bot_seeds, auto): a new game in the same env (as env_new). */
static PyObject *py_env_reset(PyObject *self, PyObject *args) {
    PyObject *capsule, *state, *seeds, *auto_;
    if (!PyArg_ParseTuple(args, "OOOO", &capsule, &state, &seeds, &auto_)) return NULL;
    tw_env *e = tw_env_of(capsule);
    if (e == NULL) return NULL;
    tw_game *g = PyMem_Calloc(1, sizeof(tw_game));
    if (g == NULL) return PyErr_NoMemory();
    g->r = e->g.r;
    if (tw_load_game(g, state) < 0 || g->n != e->g.n || tw_tuple(seeds, g->n, "bot seeds") < 0) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "tower env: the new game has other seats");
        PyMem_Free(g);
        return NULL;
    }
    pyr_t bots[TW_PLAYERS];
    for (int s = 0; s < g->n; s++)
        if (s != e->seat && pyr_load(&bots[s], PyTuple_GET_ITEM(seeds, s)) < 0) {
            PyMem_Free(g);
            return NULL;
        }
    e->g = *g;
    PyMem_Free(g);
    for (int s = 0; s < e->g.n; s++)
        if (s != e->seat) e->bot[s] = bots[s];
    e->nchosen = 0;
    e->done = 0;
    if (tw_env_configure(e, auto_) < 0) return NULL;
    if (!(tw_waiting(&e->g) >> e->seat & 1) && tw_env_advance(e) < 0) return NULL;
    Py_RETURN_NONE;
}

/* env_seed(capsule, seed, bot_seeds, auto): a new game TowerGame(players, rules, seed) made in
 * the core (tw_new_game: the env's rules choose no towers), the opponents' generators from their
 * seeds, ``auto`` as env_new's; the opponents' first round when the learner has no decision in it. */
static PyObject *py_env_seed(PyObject *self, PyObject *args) {
    PyObject *capsule, *seeds, *auto_;
    unsigned long seed;
    if (!PyArg_ParseTuple(args, "OkOO", &capsule, &seed, &seeds, &auto_)) return NULL;
    tw_env *e = tw_env_of(capsule);
    if (e == NULL) return NULL;
    if (!e->fresh || seed > 0xffffffffUL) {
        PyErr_SetString(PyExc_ValueError, "tower env: no set-up for new games here (or a seed of 2**32 or more)");
        return NULL;
    }
    if (tw_tuple(seeds, e->g.n, "bot seeds") < 0) return NULL;
    pyr_t bots[TW_PLAYERS];
    for (int s = 0; s < e->g.n; s++)
        if (s != e->seat && pyr_load(&bots[s], PyTuple_GET_ITEM(seeds, s)) < 0) return NULL;
    for (int s = 0; s < e->g.n; s++)
        if (s != e->seat) e->bot[s] = bots[s];
    if (tw_env_configure(e, auto_) < 0) return NULL;
    tw_new_game(&e->g, &e->setup, e->g.n, (uint32_t)seed);
    e->nchosen = 0;
    e->done = 0;
    if (!(tw_waiting(&e->g) >> e->seat & 1) && tw_env_advance(e) < 0) return NULL;
    Py_RETURN_NONE;
}

static int tw_buffer(PyObject *obj, Py_buffer *view, const char *format, Py_ssize_t itemsize, Py_ssize_t rows,
                     Py_ssize_t cols, const char *what) {
    if (PyObject_GetBuffer(obj, view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) return -1;
    Py_ssize_t need = rows * cols;
    if (view->itemsize != itemsize || view->len < need * itemsize ||
        (view->format != NULL && strchr(format, view->format[0]) == NULL)) {
        PyErr_Format(PyExc_ValueError, "tower env: %s: expected a C-contiguous writable %s array of %zd x %zd", what,
                     format, rows, cols);
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

/* env_step(envs, actions, obs, masks, status[, resets, rewards, seeds]): env i plays actions[i]
 * (-1: none; or, where resets[i], a new game from its np_random first) and writes row i of
 * ``obs`` (float32), ``masks`` (int8), ``status`` (int32: tw_env_status), its reward into
 * rewards[i] (float64; 0 without an action) and the new game's seed into seeds[i] (int64; -1
 * without a reset). */
static PyObject *py_env_step(PyObject *self, PyObject *args) {
    PyObject *envs, *acts, *obs_o, *mask_o, *status_o, *resets_o = NULL, *rewards_o = NULL, *seeds_o = NULL;
    if (!PyArg_ParseTuple(args, "O!OOOO|OOO", &PyList_Type, &envs, &acts, &obs_o, &mask_o, &status_o, &resets_o, &rewards_o,
                          &seeds_o))
        return NULL;
    Py_ssize_t n = PyList_GET_SIZE(envs);
    if (n == 0) Py_RETURN_NONE;
    tw_env *first = tw_env_of(PyList_GET_ITEM(envs, 0));
    if (first == NULL) return NULL;
    int batch = resets_o != NULL;
    Py_buffer av, ov, mv, sv, rv = {0}, wv = {0}, dv = {0};
    if (tw_buffer(acts, &av, "lq", 8, n, 1, "actions") < 0) return NULL;
    if (tw_buffer(obs_o, &ov, "f", 4, n, first->c.obs_size, "observations") < 0) goto f1;
    if (tw_buffer(mask_o, &mv, "bB?", 1, n, first->c.n_actions, "masks") < 0) goto f2;
    if (tw_buffer(status_o, &sv, "il", 4, n, 4 + first->g.n, "status") < 0) goto f3;
    if (batch) {
        if (rewards_o == NULL || seeds_o == NULL) {
            PyErr_SetString(PyExc_TypeError, "tower env: a batch step takes resets, rewards and seeds");
            goto f4;
        }
        if (tw_buffer(resets_o, &rv, "bB?", 1, n, 1, "resets") < 0) goto f4;
        if (tw_buffer(rewards_o, &wv, "d", 8, n, 1, "rewards") < 0) goto f5;
        if (tw_buffer(seeds_o, &dv, "lq", 8, n, 1, "seeds") < 0) goto f6;
    }
    const int64_t *actions = av.buf;
    for (Py_ssize_t i = 0; i < n; i++) {
        tw_env *e = tw_env_of(PyList_GET_ITEM(envs, i));
        if (e == NULL) goto fail;
        if (e->c.obs_size != first->c.obs_size || e->c.n_actions != first->c.n_actions || e->g.n != first->g.n) {
            PyErr_SetString(PyExc_ValueError, "tower env: a batch of envs with different shapes");
            goto fail;
        }
        double reward = 0.0;
        int64_t seed = -1;
        if (batch && ((const uint8_t *)rv.buf)[i]) {
            if (e->bitgen == NULL) {
                PyErr_SetString(PyExc_ValueError, "tower env: this game resets in Python (no generator here)");
                goto fail;
            }
            uint32_t s;
            if (tw_env_restart(e, &s) < 0) goto fail;
            seed = s;
        } else if (actions[i] >= 0) {
            int before[TW_PLAYERS];
            for (int s = 0; s < e->g.n; s++) before[s] = tw_score(&e->g, s);
            if (tw_env_act(e, (long)actions[i]) < 0) goto fail;
            reward = tw_env_reward(e, before);
        }
        tw_env_observe(e, (float *)ov.buf + i * e->c.obs_size);
        tw_env_mask(e, (signed char *)mv.buf + i * e->c.n_actions);
        tw_env_status(e, (int32_t *)sv.buf + i * (4 + e->g.n));
        if (batch) {
            ((double *)wv.buf)[i] = reward;
            ((int64_t *)dv.buf)[i] = seed;
        }
    }
    if (batch) {
        PyBuffer_Release(&dv);
        PyBuffer_Release(&wv);
        PyBuffer_Release(&rv);
    }
    PyBuffer_Release(&sv);
    PyBuffer_Release(&mv);
    PyBuffer_Release(&ov);
    PyBuffer_Release(&av);
    Py_RETURN_NONE;
fail:
    if (batch) PyBuffer_Release(&dv);
f6:
    if (batch) PyBuffer_Release(&wv);
f5:
    if (batch) PyBuffer_Release(&rv);
f4:
    PyBuffer_Release(&sv);
f3:
    PyBuffer_Release(&mv);
f2:
    PyBuffer_Release(&ov);
f1:
    PyBuffer_Release(&av);
    return NULL;
}

/* env_game(capsule) -> (dump, chosen minos, done, cards in play): the game (tw_dump_game's form)
 * and the learner's turn, for the binding's TowerGame. */
static PyObject *py_env_game(PyObject *self, PyObject *args) {
    PyObject *capsule;
    if (!PyArg_ParseTuple(args, "O", &capsule)) return NULL;
    tw_env *e = tw_env_of(capsule);
    if (e == NULL) return NULL;
    PyObject *chosen = PyList_New(e->nchosen);
    if (chosen == NULL) return NULL;
    for (int i = 0; i < e->nchosen; i++) PyList_SET_ITEM(chosen, i, PyLong_FromLong(e->chosen[i]));
    return Py_BuildValue("(NNiN)", tw_dump_game(&e->g), chosen, e->done, tw_cards_in_play(&e->g));
}

/* env_dump(capsule) -> bytes: the env (without its generator), for copy and pickle. */
static PyObject *py_env_dump(PyObject *self, PyObject *args) {
    PyObject *capsule;
    if (!PyArg_ParseTuple(args, "O", &capsule)) return NULL;
    tw_env *e = tw_env_of(capsule);
    if (e == NULL) return NULL;
    tw_env copy = *e;
    copy.bitgen_owner = NULL;
    copy.bitgen = NULL;
    return PyBytes_FromStringAndSize((const char *)&copy, sizeof copy);
}

/* Everything of a loaded env that indexes an array, inside the build's bounds: bytes that fail
 * here are damaged (or from another build), never trusted. */
static int tw_env_valid(const tw_env *e) {
    const tw_game *g = &e->g;
    const tw_rules *r = &g->r;
    if (r->w < 4 || r->w > TW_MAX_W || r->h < 4 || r->h > TW_MAX_H || g->n < 1 || g->n > TW_PLAYERS || e->seat < 0 ||
        e->seat >= g->n || g->deck_size != TW_DECK || g->drawn < 0 || g->drawn > TW_DECK || g->play < -1 ||
        g->play >= TW_SHAPES || g->ncards < 0 || g->ncards > TW_CARDS || g->nrounds < 0 || g->nrounds > TW_DECK ||
        g->base_rounds < 0 || g->base_rounds > TW_DECK || g->npool < 0 || g->npool > TW_POOL || e->nchosen < 0 ||
        e->nchosen > TW_MAX_MINOS || e->scheme < TS_SCORE || e->scheme > TS_WIN)
        return 0;
    for (int s = 0; s < TW_SHAPES; s++) {
        if (r->nos[s] < 1 || r->nos[s] > TW_ORIENTS) return 0;
        for (int k = 0; k < r->nos[s]; k++) {
            const tw_orient *o = &r->os[s][k];
            if (o->n != 4 || o->ow < 1 || o->ow > 4 || o->oh < 1 || o->oh > 4) return 0;
            for (int c = 0; c < 4; c++)
                if (o->dx[c] < 0 || o->dx[c] >= o->ow || o->dy[c] < 0 || o->dy[c] >= o->oh || (c < o->ow && (o->lo[c] < 0 || o->lo[c] >= o->oh)))
                    return 0;
        }
    }
    for (int i = 0; i < TW_CARDS; i++)
        if (r->card_kind[i] < 0 || r->card_kind[i] >= TW_CARDS) return 0;
    for (int i = 0; i < TW_DECK; i++)
        if (g->cards[i] < 0 || g->cards[i] >= TW_SHAPES) return 0;
    for (int s = 0; s < g->n; s++) {
        const tw_tower *t = &g->t[s];
        if (t->ntet < 0 || t->ntet > TW_MAX_TET || t->held < -1 || t->held >= TW_SHAPES || t->minos < 0 ||
            t->minos > TW_MAX_MINOS || g->nstones[s] < 0 || g->nstones[s] > TW_MAX_STONES)
            return 0;
        for (int x = 0; x < r->w; x++)
            if (t->height[x] > r->h) return 0;
        for (int k = 1; k <= t->ntet; k++)
            if (t->tshape[k] >= TW_SHAPES) return 0;
        for (int i = 0; i < r->h * r->w; i++)
            if (t->grid[i] != TW_GRID_MINO && t->grid[i] > t->ntet) return 0;
        const tw_pend *p = &g->pend[s];
        if (p->kind < ACT_NONE || p->kind > ACT_DROP || p->nminos < 0 || p->nminos > TW_MAX_MINOS) return 0;
        if (p->kind == ACT_DROP && (g->play < 0 || p->o < 0 || p->o >= r->nos[g->play] || p->x < 0 || p->x >= r->w || p->y < 0 || p->y >= r->h))
            return 0;
        for (int i = 0; i < p->nminos; i++)
            if (p->minos[i] >= r->w) return 0;
        if (s != e->seat && e->policy[s] != POLICY_RANDOM && e->policy[s] != POLICY_GREEDY) return 0;
        if (e->bot[s].index < 0 || e->bot[s].index > PYR_N || g->rng.index < 0 || g->rng.index > PYR_N) return 0;
    }
    for (int i = 0; i < g->ncards; i++) {
        const tw_card *c = &g->card[i];
        if (c->kind < 0 || c->kind >= TW_CARDS || c->next_space < 0 || c->next_space > TW_SPACES) return 0;
    }
    for (int k = 0; k < g->nrounds; k++)
        for (int s = 0; s < g->n; s++) {
            const tw_rec *rc = &g->rec[k][s];
            if (rc->kind < ACT_NONE || rc->kind > ACT_DROP || rc->moff + rc->nminos > TW_POOL) return 0;
        }
    for (int i = 0; i < e->nchosen; i++)
        if (e->chosen[i] < 0 || e->chosen[i] >= r->w) return 0;
    return 1;
}

/* env_load(data, bit_generator or None) -> capsule: the env env_dump wrote, its batch resets
 * drawing from ``bit_generator`` (the copy's own np_random). */
static PyObject *py_env_load(PyObject *self, PyObject *args) {
    Py_buffer data;
    PyObject *owner;
    if (!PyArg_ParseTuple(args, "y*O", &data, &owner)) return NULL;
    if (data.len != (Py_ssize_t)sizeof(tw_env)) {
        PyBuffer_Release(&data);
        PyErr_SetString(PyExc_ValueError, "tower env: the bytes are damaged (or from another build)");
        return NULL;
    }
    tw_env *e = PyMem_Malloc(sizeof(tw_env));
    if (e == NULL) {
        PyBuffer_Release(&data);
        return PyErr_NoMemory();
    }
    memcpy(e, data.buf, sizeof(tw_env));
    PyBuffer_Release(&data);
    e->bitgen_owner = NULL;
    e->bitgen = NULL;
    if (!tw_env_valid(e)) {
        PyMem_Free(e);
        PyErr_SetString(PyExc_ValueError, "tower env: the bytes are damaged (or from another build)");
        return NULL;
    }
    PyObject *auto_ = Py_BuildValue("(Oi)", owner, e->scheme);
    if (auto_ == NULL || (owner != Py_None && !e->fresh) || tw_env_configure(e, auto_) < 0) {
        if (auto_ != NULL && !PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "tower env: no set-up for resets");
        Py_XDECREF(auto_);
        PyMem_Free(e);
        return NULL;
    }
    Py_DECREF(auto_);
    PyObject *cap = PyCapsule_New(e, "tabletris.tower_env", tw_env_free);
    if (cap == NULL) {
        Py_XDECREF(e->bitgen_owner);
        PyMem_Free(e);
    }
    return cap;
}

#define TW_ENV_METHODS                                                                              \
    {"env_new", py_env_new, METH_VARARGS, "A tower game for the Gymnasium env's fast path."},       \
    {"env_reset", py_env_reset, METH_VARARGS, "A new game in a fast-path tower env."},              \
    {"env_seed", py_env_seed, METH_VARARGS, "A new game from its seed, set up in the core."},        \
    {"env_step", py_env_step, METH_VARARGS, "Step a batch of fast-path tower envs into NumPy arrays."}, \
    {"env_game", py_env_game, METH_VARARGS, "The game and the learner's turn of a fast-path env."}, \
    {"env_dump", py_env_dump, METH_VARARGS, "A fast-path tower env as bytes (copy and pickle)."},   \
    {"env_load", py_env_load, METH_VARARGS, "A fast-path tower env from env_dump's bytes."},
