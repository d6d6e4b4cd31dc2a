/* The Gymnasium env's fast path in C, included by engine/_native.c after the dice kernel
 * (engine/_dice_kernel.c), whose game, options and apply it drives. It sits with the envs
 * because it is one: ``Dice-v0``'s codec, masks and reward schemes (envs/dice_codec.py,
 * envs/rewards.py) and NumPy's bit generator; the kernel's C names nothing here.
 *
 * envs/dice_codec.py's encoding (DiceCodec, DiceTurn, DiceDecider) for one learning seat whose
 * opponents are all random bots: the learner's sub-steps (PLACE, TAKE, TOKEN), the opponents'
 * whole turns, the observation vector and the action mask, written straight into NumPy arrays.
 * envs/dice_fast.py drives it; tests/test_fastdice_env.py checks it against the Python env. */

enum { PH_PLACE = 0, PH_TAKE = 1, PH_TOKEN = 2 };
enum { SCHEME_SCORE = 0, SCHEME_DIFFERENCE = 1, SCHEME_WIN = 2 };

/* NumPy's bitgen_t (numpy/random/bitgen.h, the documented C interface of a BitGenerator's
 * ``capsule``), declared here so the core builds without NumPy's headers. The batch's resets
 * draw their seeds through it from the env's own ``np_random``, so the Python generator moves
 * exactly as ``DiceEnv.reset``'s ``rng.integers(2**32)`` moves it (numpy draws that range as
 * one ``next_uint32``: random_bounded_uint64_fill's full 32-bit range case). The GIL is held
 * throughout; the BitGenerator's ``lock`` (for NumPy's own nogil draws) is not taken, as an env
 * and its generator are not stepped from two threads at once. */
typedef struct {
    void *state;
    uint64_t (*next_uint64)(void *st);
    uint32_t (*next_uint32)(void *st);
    double (*next_double)(void *st);
    uint64_t (*next_raw)(void *st);
} np_bitgen_t;

typedef struct {
    dk_game g;
    int seat;
    mt_t bot[DK_PLAYERS];
    /* the codec */
    int n_actions, obs_size, full;
    int lay_face, lay_to_move, lay_supply, lay_scores, lay_phase, lay_rows, lay_tokens;
    int take_base, token_base;
    int form_base[DK_SHAPES][8], form_row[DK_SHAPES][8];
    /* the decision being built (DiceTurn) */
    int phase, shape, orient, x, y, group;
    int *takes; /* PLACE with several takes: the groups whose take makes room, in order */
    int ntakes, cap_takes;
    int n_tokens, ntok;
    int tok[DK_MAX_CELLS];
    /* the batch (DiceVectorEnv): the reward scheme, and what a reset in the step call needs */
    int scheme;
    PyObject *bitgen_owner; /* the env's numpy BitGenerator (a reference), or NULL: no resets here */
    np_bitgen_t *bitgen;
    int fresh_supply[DK_SHAPES], first_player;
} de_env;

/* An env and everything it owns (its arrays, its reference to the generator). */
static void de_release(de_env *e) {
    dk_free(&e->g);
    PyMem_Free(e->takes);
    Py_XDECREF(e->bitgen_owner);
    PyMem_Free(e);
}

static void de_capsule_free(PyObject *capsule) {
    de_env *e = PyCapsule_GetPointer(capsule, "tabletris.dice_env");
    if (e != NULL) de_release(e);
}

static de_env *de_of(PyObject *capsule) {
    return PyCapsule_GetPointer(capsule, "tabletris.dice_env");
}

/* A stone's anchor (dice_codec.anchor): its lowest cell, leftmost among the lowest. */
static void de_anchor(const dk_stone *st, int *ax, int *ay) {
    int bx = st->x[0], by = st->y[0];
    for (int c = 1; c < st->n; c++)
        if (st->y[c] < by || (st->y[c] == by && st->x[c] < bx)) {
            bx = st->x[c];
            by = st->y[c];
        }
    *ax = bx;
    *ay = by;
}

/* Stones of each shape left for tokens after the placement being built and the tokens named. */
static void de_remaining(const de_env *e, int *left) {
    const dk_game *g = &e->g;
    for (int s = 0; s < g->nshapes; s++) left[s] = g->supply[s];
    if (g->groups[e->group].take < 0 && (g->flags & F_LIMITED)) left[e->shape]--;
    for (int i = 0; i < e->ntok; i++) left[e->tok[i]]--;
}

static int de_token_options(const de_env *e, int *out) {
    int left[DK_SHAPES], n = 0;
    de_remaining(e, left);
    for (int s = 0; s < e->g.nshapes; s++)
        if (left[s] > 0) out[n++] = s;
    return n;
}

/* The opponents play (the die rolled for each) until the learner has a decision or the game
 * is over (DiceEnv._others_play with random bots). */
static int de_advance(de_env *e) {
    dk_game *g = &e->g;
    while (!g->over) {
        if (g->roll < 0) {
            if (dk_roll(g) < 0) return -1;
            long n = dk_options(g);
            if (n < 0) return -1;
            if (n == 0) {
                if (dk_stuck(g) < 0) return -1;
                continue;
            }
            e->phase = PH_PLACE;
            e->ntok = e->n_tokens = 0;
        }
        if (g->to_move == e->seat) break;
        long n = 0;
        for (int i = 0; i < g->ngroups; i++) n += g->groups[i].count;
        int group = -1, orient = 0, x = 0, y = 0;
        dk_option_at(g, mt_below(&e->bot[g->to_move], n), &group, &orient, &x, &y);
        if (group < 0 || dk_apply(g, group, orient, x, y, NULL) < 0) return -1;
    }
    return 0;
}

/* After the placement (and its take) are chosen: how many tokens the points take, and the
 * forced ones taken (DiceCodec._rewards_or_done and _tokens_or_done); 1 when the decision is
 * whole and was played. */
static int de_tokens_or_done(de_env *e) {
    dk_game *g = &e->g;
    if (e->phase != PH_TOKEN) {
        e->phase = PH_TOKEN;
        e->ntok = 0;
        e->n_tokens = 0;
        if (g->flags & F_TOKENS) {
            long pts;
            double cost;
            dk_immediate(g, e->group, e->orient, e->x, e->y, &pts, &cost);
            int left[DK_SHAPES], total = 0;
            de_remaining(e, left);
            for (int s = 0; s < g->nshapes; s++) total += left[s] > 0 ? left[s] : 0;
            e->n_tokens = (int)(pts < total ? pts : total);
        }
    }
    while (e->ntok < e->n_tokens) {
        int opts[DK_SHAPES];
        int n = de_token_options(e, opts);
        if (n > 1) return 0;
        if (n == 0) {
            PyErr_SetString(PyExc_RuntimeError, "dice env: a token to take and no shape left (a bug)");
            return -1;
        }
        e->tok[e->ntok++] = opts[0];
    }
    if (dk_apply(g, e->group, e->orient, e->x, e->y, e->n_tokens ? e->tok : NULL) < 0) return -1;
    e->phase = PH_PLACE;
    e->ntok = e->n_tokens = 0;
    return 1;
}

/* DiceCodec.advance for the legal id ``a``: 0 taken (the learner decides again or the turn was
 * played), -1 with ValueError when ``a`` is not legal now. */
static int de_act(de_env *e, long a) {
    dk_game *g = &e->g;
    if (g->over || g->to_move != e->seat || g->roll < 0) goto illegal;
    if (e->phase == PH_PLACE) {
        int s = -1, k = -1;
        for (int si = 0; si < g->nshapes && s < 0; si++)
            for (int ki = 0; ki < g->nos[si]; ki++) {
                const orient_t *o = &g->os[si][ki];
                long rows = g->h - o->oh + 1;
                if (rows < 1 || e->form_row[si][ki] < 1) continue;
                long base = e->form_base[si][ki], count = rows * e->form_row[si][ki];
                if (a >= base && a < base + count) {
                    s = si;
                    k = ki;
                    break;
                }
            }
        if (s < 0) goto illegal;
        long rel = a - e->form_base[s][k];
        int y = (int)(rel / e->form_row[s][k]), x = (int)(rel % e->form_row[s][k]);
        if (dk_grow((void **)&e->takes, &e->cap_takes, NULL, NULL, (size_t)g->ngroups + 1, sizeof(int)) < 0) return -1;
        e->ntakes = 0;
        for (int i = 0; i < g->ngroups; i++) {
            const dk_group *gr = &g->groups[i];
            if (gr->shape != s) continue;
            const uint64_t *out = g->pool + gr->off + (size_t)k * g->h;
            if (out[y] >> x & 1) e->takes[e->ntakes++] = i;
        }
        if (e->ntakes == 0) goto illegal;
        e->shape = s;
        e->orient = k;
        e->x = x;
        e->y = y;
        e->group = e->takes[0];
        if (e->ntakes > 1) {
            e->phase = PH_TAKE;
            return 0;
        }
        return de_tokens_or_done(e) < 0 ? -1 : 0;
    }
    if (e->phase == PH_TAKE) {
        for (int i = 0; i < e->ntakes; i++) {
            int ax, ay;
            de_anchor(&g->stones[g->groups[e->takes[i]].take], &ax, &ay);
            if (a == e->take_base + (long)ay * g->w + ax) {
                e->group = e->takes[i];
                return de_tokens_or_done(e) < 0 ? -1 : 0;
            }
        }
        goto illegal;
    }
    {
        int opts[DK_SHAPES];
        int n = de_token_options(e, opts);
        for (int i = 0; i < n; i++)
            if (a == e->token_base + opts[i]) {
                e->tok[e->ntok++] = opts[i];
                return de_tokens_or_done(e) < 0 ? -1 : 0;
            }
    }
illegal:
    PyErr_Format(PyExc_ValueError, "dice env: action %ld is not legal now", a);
    return -1;
}

/* DiceCodec.observe for the learner, and its mask (DiceEnv._mask). */
static void de_observe(const de_env *e, float *obs, signed char *mask) {
    const dk_game *g = &e->g;
    int w = g->w, h = g->h, hw = w * h, n = g->nplayers;
    memset(obs, 0, sizeof(float) * (size_t)e->obs_size);
    memset(mask, 0, (size_t)e->n_actions);
    for (int i = 0; i < g->nstones; i++) {
        const dk_stone *st = &g->stones[i];
        int base = st->owner < 0 ? 2 * hw : st->owner == e->seat ? 0 : hw;
        for (int c = 0; c < st->n; c++) obs[base + st->y[c] * w + st->x[c]] = 1.0f;
    }
    if (g->roll >= 0) obs[e->lay_face + (g->face_shape[g->roll] < 0 ? g->nshapes : g->face_shape[g->roll])] = 1.0f;
    if (!g->over) obs[e->lay_to_move + ((g->to_move - e->seat) % n + n) % n] = 1.0f;
    for (int s = 0; s < g->nshapes; s++) {
        double left = (g->flags & F_LIMITED) ? (double)g->supply[s] : (double)e->full;
        double v = left / (double)e->full;
        obs[e->lay_supply + s] = (float)(v < 1.0 ? v : 1.0);
    }
    for (int k = 0; k < n; k++) {
        double sc = (double)g->scores[(e->seat + k) % n];
        obs[e->lay_scores + k] = (float)(sc < -1000.0 ? -1000.0 : sc > 1000.0 ? 1000.0 : sc);
    }
    int mine = g->to_move == e->seat;
    int phase = mine ? e->phase : PH_PLACE;
    obs[e->lay_phase + (phase == PH_PLACE ? 0 : phase == PH_TAKE ? 1 : 3)] = 1.0f;
    if (mine && phase != PH_PLACE) {
        const orient_t *o = &g->os[e->shape][e->orient];
        for (int c = 0; c < o->n; c++) obs[3 * hw + (e->y + o->dy[c]) * w + e->x + o->dx[c]] = 1.0f;
    }
    if (mine) {
        double left = (double)(e->n_tokens - e->ntok) / 4.0;
        obs[e->lay_tokens] = (float)(left < 1.0 ? left : 1.0);
    }
    if (g->over || !mine || g->roll < 0) return;
    if (phase == PH_PLACE) {
        for (int i = 0; i < g->ngroups; i++) {
            const dk_group *gr = &g->groups[i];
            for (int k = 0; k < g->nos[gr->shape]; k++) {
                const uint64_t *out = g->pool + gr->off + (size_t)k * g->h;
                for (int y = 0; y < g->h; y++)
                    for (uint64_t b = out[y]; b; b &= b - 1)
                        mask[e->form_base[gr->shape][k] + y * e->form_row[gr->shape][k] + __builtin_ctzll(b)] = 1;
            }
        }
    } else if (phase == PH_TAKE) {
        for (int i = 0; i < e->ntakes; i++) {
            int ax, ay;
            de_anchor(&g->stones[g->groups[e->takes[i]].take], &ax, &ay);
            mask[e->take_base + ay * w + ax] = 1;
        }
    } else {
        int opts[DK_SHAPES];
        int nopt = de_token_options(e, opts);
        for (int i = 0; i < nopt; i++) mask[e->token_base + opts[i]] = 1;
    }
}

/* ``auto`` = (bit_generator or None, scheme): the reward scheme env_step's batch form computes
 * (0 score, 1 difference, 2 win: envs/rewards.step_reward) and the env's numpy BitGenerator
 * its resets draw the seeds from (None: the batch cannot reset this game; DiceVectorEnv resets
 * it in Python, as for garbage, which the Python engine places). The state just loaded must be
 * a new game (fastdice.fresh_state): its supply and first player are what a reset starts from. */
static int de_configure(de_env *e, PyObject *auto_) {
    PyObject *owner;
    int scheme;
    if (!PyArg_ParseTuple(auto_, "Oi", &owner, &scheme)) return -1;
    if (scheme < SCHEME_SCORE || scheme > SCHEME_WIN) {
        PyErr_Format(PyExc_ValueError, "dice env: reward scheme %d: expected 0, 1 or 2", scheme);
        return -1;
    }
    np_bitgen_t *bitgen = NULL;
    if (owner != Py_None) {
        if (e->g.nstones || e->g.turn || e->g.nmoves || e->g.over) {
            PyErr_SetString(PyExc_ValueError, "dice env: resets in the batch need a new game to copy");
            return -1;
        }
        PyObject *cap = PyObject_GetAttrString(owner, "capsule");
        if (cap == NULL) return -1;
        bitgen = PyCapsule_GetPointer(cap, "BitGenerator");
        Py_DECREF(cap);
        if (bitgen == NULL) return -1;
        for (int s = 0; s < e->g.nshapes; s++) e->fresh_supply[s] = e->g.supply[s];
        e->first_player = e->g.to_move;
        Py_INCREF(owner);
    }
    Py_XDECREF(e->bitgen_owner);
    e->bitgen_owner = owner == Py_None ? NULL : owner;
    e->bitgen = bitgen;
    e->scheme = scheme;
    return 0;
}

/* DiceEnv.reset with no seed, in C: the game's seed, then each opponent's bot seed in seat order,
 * drawn as ``rng.integers(2**32)`` from the env's np_random; then fastdice.fresh_state's game. */
static uint32_t de_restart(de_env *e) {
    np_bitgen_t *bg = e->bitgen;
    dk_game *g = &e->g;
    uint32_t seed = bg->next_uint32(bg->state);
    for (int s = 0; s < g->nplayers; s++)
        if (s != e->seat) mt_seed(&e->bot[s], bg->next_uint32(bg->state));
    g->nmoves = 0;
    g->nstones = 0;
    memset(g->rows, 0, sizeof g->rows);
    memset(g->scored, 0, sizeof g->scored);
    g->next_number = 1;
    for (int s = 0; s < g->nshapes; s++) g->supply[s] = e->fresh_supply[s];
    for (int k = 0; k < g->nplayers; k++) g->scores[k] = g->rows_completed[k] = 0;
    g->turn = 0;
    g->to_move = e->first_player;
    g->roll = -1;
    g->over = 0;
    g->stuck = -1;
    mt_seed(&g->rng, seed);
    e->phase = PH_PLACE;
    e->ntok = e->n_tokens = e->ntakes = 0;
    return seed;
}

/* rewards.margin: own score minus the best other (own score alone with one player). */
static double de_margin(const int *scores, int n, int seat) {
    int best = 0, any = 0;
    for (int k = 0; k < n; k++)
        if (k != seat && (!any || scores[k] > best)) {
            best = scores[k];
            any = 1;
        }
    return (double)scores[seat] - (double)(any ? best : 0); /* exact: no int difference to overflow */
}

/* rewards.step_reward for the learner's step from ``before`` to the game's scores now. */
static double de_reward(const de_env *e, const int *before) {
    const dk_game *g = &e->g;
    int n = g->nplayers, seat = e->seat;
    if (e->scheme == SCHEME_SCORE) return (double)(g->scores[seat] - before[seat]);
    if (e->scheme == SCHEME_DIFFERENCE) return de_margin(g->scores, n, seat) - de_margin(before, n, seat);
    if (!g->over) return 0.0;
    int best = g->scores[0], winners = 0;
    for (int k = 1; k < n; k++)
        if (g->scores[k] > best) best = g->scores[k];
    for (int k = 0; k < n; k++) winners += g->scores[k] == best;
    if (g->scores[seat] != best) return -1.0;
    return winners == 1 ? 1.0 : 0.0;
}

/* Whether the seat and codec in ``e`` fit its rules (checked): every observation entry and action
 * id the env writes (de_observe's board planes and blocks, the mask's PLACE, TAKE and TOKEN
 * ids) inside obs_size and n_actions. env_new asks it of the codec from Python, env_load of a
 * copy's bytes. */
static int de_check_codec(const de_env *e) {
    const dk_game *g = &e->g;
    long hw = (long)g->w * g->h;
    int ok = e->seat >= 0 && e->seat < g->nplayers && e->full >= 1 && e->n_actions >= 1 && e->obs_size >= 4 * hw;
    const long blocks[][2] = {{e->lay_face, g->nshapes + 1}, {e->lay_to_move, g->nplayers},
                              {e->lay_supply, g->nshapes},   {e->lay_scores, g->nplayers},
                              {e->lay_phase, 4},             {e->lay_tokens, 1}};
    for (size_t i = 0; i < sizeof blocks / sizeof blocks[0]; i++)
        ok = ok && blocks[i][0] >= 0 && blocks[i][0] + blocks[i][1] <= e->obs_size;
    ok = ok && e->take_base >= 0 && e->take_base + hw <= e->n_actions && e->token_base >= 0 &&
         (long)e->token_base + g->nshapes <= e->n_actions; /* in long: a base may be INT_MAX */
    for (int s = 0; s < g->nshapes && ok; s++)
        for (int k = 0; k < g->nos[s] && ok; k++) {
            const orient_t *o = &g->os[s][k];
            long rows = g->h - o->oh + 1, across = g->w - o->ow + 1, base = e->form_base[s][k], row = e->form_row[s][k];
            if (rows < 1 || across < 1) continue; /* no anchor: no id written */
            ok = row == across && base >= 0 && base + rows * row <= e->n_actions; /* x < across: on the board */
        }
    if (ok) return 0;
    PyErr_SetString(PyExc_ValueError, "dice env: seat, generators or codec do not fit the rules");
    return -1;
}

/* env_new(rules, state, seat, bot_rngs, codec) -> capsule: a game for the fast env, loaded
 * as dice_playout loads one; ``codec`` = (n_actions, obs_size, full, face, to_move, supply,
 * scores, phase, rows_left, tokens_left, take_base, token_base, bases), ``bases`` per shape a
 * tuple of (PLACE id of anchor (0, 0), anchors per row) per orientation. */
static PyObject *py_env_new(PyObject *self, PyObject *args) {
    PyObject *rules, *state, *bot_states, *codec, *bases, *auto_ = NULL;
    int seat;
    if (!PyArg_ParseTuple(args, "O!O!iO!O!|O!", &PyTuple_Type, &rules, &PyTuple_Type, &state, &seat, &PyTuple_Type,
                          &bot_states, &PyTuple_Type, &codec, &PyTuple_Type, &auto_))
        return NULL;
    de_env *e = PyMem_Calloc(1, sizeof(de_env));
    if (e == NULL) return PyErr_NoMemory();
    if (dk_load_rules(&e->g, rules) < 0 || dk_load_state(&e->g, state) < 0) goto fail;
    if (!PyArg_ParseTuple(codec, "iiiiiiiiiiiiO!", &e->n_actions, &e->obs_size, &e->full, &e->lay_face,
                          &e->lay_to_move, &e->lay_supply, &e->lay_scores, &e->lay_phase, &e->lay_rows,
                          &e->lay_tokens, &e->take_base, &e->token_base, &PyTuple_Type, &bases))
        goto fail;
    if (seat < 0 || seat >= e->g.nplayers || PyTuple_GET_SIZE(bot_states) != e->g.nplayers ||
        PyTuple_GET_SIZE(bases) != e->g.nshapes) {
        PyErr_SetString(PyExc_ValueError, "dice env: seat, generators or codec do not fit the rules");
        goto fail;
    }
    e->seat = seat;
    for (int i = 0; i < e->g.nplayers; i++)
        if (i != seat && mt_load(&e->bot[i], PyTuple_GET_ITEM(bot_states, i)) < 0) goto fail;
    for (int s = 0; s < e->g.nshapes; s++) {
        PyObject *forms = PyTuple_GET_ITEM(bases, s);
        if (!PyTuple_Check(forms) || PyTuple_GET_SIZE(forms) != e->g.nos[s]) {
            PyErr_SetString(PyExc_ValueError, "dice env: one base per orientation");
            goto fail;
        }
        for (int k = 0; k < e->g.nos[s]; k++)
            if (!PyArg_ParseTuple(PyTuple_GET_ITEM(forms, k), "ii", &e->form_base[s][k], &e->form_row[s][k])) goto fail;
    }
    if (de_check_codec(e) < 0) goto fail;
    if (e->g.roll >= 0) {
        PyErr_SetString(PyExc_ValueError, "dice env: starts between turns (no roll showing)");
        goto fail;
    }
    if (auto_ != NULL && de_configure(e, auto_) < 0) goto fail;
    PyObject *cap = PyCapsule_New(e, "tabletris.dice_env", de_capsule_free);
    if (cap == NULL) goto fail;
    return cap;
fail:
    de_release(e);
    return NULL;
}

/* env_reset(env, state, bot_rngs[, auto]): a new game in an env made by env_new (same rules and
 * codec): its allocations are kept. ``bot_rngs``: per seat a generator state or an int seed;
 * ``auto`` as in de_configure (left as it was when not given). */
static PyObject *py_env_reset(PyObject *self, PyObject *args) {
    PyObject *cap, *state, *bot_states, *auto_ = NULL;
    if (!PyArg_ParseTuple(args, "OO!O!|O!", &cap, &PyTuple_Type, &state, &PyTuple_Type, &bot_states, &PyTuple_Type,
                          &auto_))
        return NULL;
    de_env *e = de_of(cap);
    if (e == NULL) return NULL;
    if (PyTuple_GET_SIZE(bot_states) != e->g.nplayers) {
        PyErr_SetString(PyExc_ValueError, "dice env: one generator per seat");
        return NULL;
    }
    for (int i = 0; i < e->g.nplayers; i++)
        if (i != e->seat && mt_load(&e->bot[i], PyTuple_GET_ITEM(bot_states, i)) < 0) return NULL;
    e->g.nmoves = 0;
    if (dk_load_state(&e->g, state) < 0) return NULL;
    if (e->g.roll >= 0) {
        PyErr_SetString(PyExc_ValueError, "dice env: starts between turns (no roll showing)");
        return NULL;
    }
    e->phase = PH_PLACE;
    e->ntok = e->n_tokens = e->ntakes = 0;
    if (auto_ != NULL && de_configure(e, auto_) < 0) return NULL;
    Py_RETURN_NONE;
}

/* env_step(envs, actions, obs, masks, status[, resets, rewards, seeds]): for each env i, the
 * learner's action ``actions[i]`` (int64; -1: none, only the opponents play up to the learner's
 * decision), then its observation into row i of ``obs`` (float32), its mask into ``masks``
 * (int8) and into ``status`` (int32) (over, turn, to_move, stuck or -1, scores...). One call for
 * a batch. The batch form (DiceVectorEnv) also takes ``resets`` (uint8: 1 resets game i first,
 * its seeds drawn from its np_random, de_restart; its action is ignored), and writes
 * ``rewards`` (float64: the configured scheme's reward of game i's action, 0 without one) and
 * ``seeds`` (int64: the seed of the game a reset started, -1 for the others). */
/* ``obj``'s memory as at least ``count`` items of one C type: ``kinds`` are the struct-module
 * format letters of that type (``itemsize`` bytes, native order), ``type`` its NumPy name.
 * env_step reads and writes through plain C pointers, so a buffer of another dtype, a strided,
 * misaligned or read-only view, or one too short is refused by name, never reinterpreted. On
 * failure ``view`` holds nothing to release. */
static int de_buffer(PyObject *obj, Py_buffer *view, int writable, const char *kinds, Py_ssize_t itemsize,
                     const char *type, Py_ssize_t count, const char *name) {
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj, view, flags) < 0) {
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "dice env: %s: expected a C-contiguous%s buffer of %s, got %.100s", name,
                     writable ? ", writable" : "", type, Py_TYPE(obj)->tp_name);
        return -1;
    }
    const char *f = view->format != NULL ? view->format : "B";
    if (*f == '@' || *f == '=') f++;
    const char *why = NULL;
    if (view->itemsize != itemsize || f[0] == '\0' || f[1] != '\0' || strchr(kinds, f[0]) == NULL) why = "of another type";
    else if ((uintptr_t)view->buf % (uintptr_t)itemsize) why = "misaligned";
    else if (view->len < count * itemsize) why = "too small for the batch";
    if (why == NULL) return 0;
    PyErr_Format(PyExc_ValueError, "dice env: %s: a buffer %s: expected %zd %s (format %s, %zd bytes, at %p)", name, why,
                 count, type, view->format != NULL ? view->format : "B", view->len, view->buf);
    PyBuffer_Release(view);
    return -1;
}

static PyObject *py_env_step(PyObject *self, PyObject *args) {
    PyObject *envs, *objs[7] = {NULL};
    Py_buffer act = {0}, obs = {0}, mask = {0}, status = {0}, resets = {0}, rewards = {0}, seeds = {0};
    int batch = PyTuple_GET_SIZE(args) > 5;
    if (batch ? !PyArg_ParseTuple(args, "O!OOOOOOO", &PyList_Type, &envs, &objs[0], &objs[1], &objs[2], &objs[3],
                                  &objs[4], &objs[5], &objs[6])
              : !PyArg_ParseTuple(args, "O!OOOO", &PyList_Type, &envs, &objs[0], &objs[1], &objs[2], &objs[3]))
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t n = PyList_GET_SIZE(envs);
    if (n == 0) return Py_NewRef(Py_None);
    de_env *first = de_of(PyList_GET_ITEM(envs, 0));
    if (first == NULL) return NULL;
    Py_ssize_t width = 4 + first->g.nplayers;
    if (de_buffer(objs[0], &act, 0, "lq", 8, "int64", n, "actions") < 0 ||
        de_buffer(objs[1], &obs, 1, "f", 4, "float32", n * first->obs_size, "obs") < 0 ||
        de_buffer(objs[2], &mask, 1, "b", 1, "int8", n * first->n_actions, "masks") < 0 ||
        de_buffer(objs[3], &status, 1, "il", 4, "int32", n * width, "status") < 0 ||
        (batch && (de_buffer(objs[4], &resets, 0, "B?", 1, "uint8", n, "resets") < 0 ||
                   de_buffer(objs[5], &rewards, 1, "d", 8, "float64", n, "rewards") < 0 ||
                   de_buffer(objs[6], &seeds, 1, "lq", 8, "int64", n, "seeds") < 0)))
        goto done;
    for (Py_ssize_t i = 0; i < n; i++) {
        de_env *e = de_of(PyList_GET_ITEM(envs, i));
        if (e == NULL) goto done;
        if (e->obs_size != first->obs_size || e->n_actions != first->n_actions || e->g.nplayers != first->g.nplayers) {
            PyErr_SetString(PyExc_ValueError, "dice env: every game of a batch has the same codec");
            goto done;
        }
        int64_t a = ((const int64_t *)act.buf)[i];
        int before[DK_PLAYERS];
        if (batch) {
            ((double *)rewards.buf)[i] = 0.0;
            ((int64_t *)seeds.buf)[i] = -1;
            if (((const unsigned char *)resets.buf)[i]) {
                if (e->bitgen == NULL) {
                    PyErr_SetString(PyExc_ValueError, "dice env: this game is not reset in the batch (no generator)");
                    goto done;
                }
                ((int64_t *)seeds.buf)[i] = de_restart(e);
                a = -1;
            }
            memcpy(before, e->g.scores, sizeof(int) * (size_t)e->g.nplayers);
        }
        if (a >= 0) {
            if (de_act(e, (long)a) < 0) goto done;
        }
        if (de_advance(e) < 0) goto done;
        if (batch && a >= 0) ((double *)rewards.buf)[i] = de_reward(e, before);
        de_observe(e, (float *)obs.buf + i * e->obs_size, (signed char *)mask.buf + i * e->n_actions);
        int32_t *st = (int32_t *)status.buf + i * width;
        st[0] = e->g.over;
        st[1] = e->g.turn;
        st[2] = e->g.to_move;
        st[3] = e->g.stuck;
        for (int k = 0; k < e->g.nplayers; k++) st[4 + k] = e->g.scores[k];
    }
    result = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&act);
    PyBuffer_Release(&obs);
    PyBuffer_Release(&mask);
    PyBuffer_Release(&status);
    PyBuffer_Release(&resets);
    PyBuffer_Release(&rewards);
    PyBuffer_Release(&seeds);
    return result;
}

/* env_game(env) -> (moves, state): the game so far, for a DiceGame built on demand. */
static PyObject *py_env_game(PyObject *self, PyObject *args) {
    PyObject *cap;
    if (!PyArg_ParseTuple(args, "O", &cap)) return NULL;
    de_env *e = de_of(cap);
    if (e == NULL) return NULL;
    return Py_BuildValue("(NN)", dk_store_moves(&e->g), dk_store_state(&e->g));
}

/* ------------------------------------------------------------ copies (deepcopy, pickle) */

/* An env's bytes for copy and pickle: a header that names this build's layout, the de_env
 * struct as it lies in memory, then the used part of each array it owns. Only the build that
 * wrote them reads them back (another build's layout is refused, never guessed at): a copy or a
 * pickle moves between processes of one installation, which is what copy.deepcopy, vector envs'
 * worker processes and search over a copied env do. */
#define DE_DUMP_MAGIC 0x4b445454u /* "TTDK" */
#define DE_DUMP_VERSION 1u

typedef struct {
    uint32_t magic, version, env_size, stone_size, group_size, move_size;
    int64_t nstones, ngroups, pool_used, nmoves, ntakes;
} de_dump_head;

static PyObject *py_env_dump(PyObject *self, PyObject *args) {
    PyObject *cap;
    if (!PyArg_ParseTuple(args, "O", &cap)) return NULL;
    de_env *e = de_of(cap);
    if (e == NULL) return NULL;
    const dk_game *g = &e->g;
    de_dump_head head = {DE_DUMP_MAGIC, DE_DUMP_VERSION, sizeof(de_env), sizeof(dk_stone), sizeof(dk_group),
                         sizeof(dk_move), g->nstones, g->ngroups, (int64_t)g->pool_used, g->nmoves, e->ntakes};
    size_t parts[6] = {sizeof head, sizeof *e, (size_t)g->nstones * sizeof(dk_stone),
                       (size_t)g->ngroups * sizeof(dk_group), g->pool_used * sizeof(uint64_t),
                       (size_t)g->nmoves * sizeof(dk_move)};
    size_t takes = (size_t)e->ntakes * sizeof(int), total = takes;
    for (int i = 0; i < 6; i++) total += parts[i];
    PyObject *out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)total);
    if (out == NULL) return NULL;
    char *p = PyBytes_AS_STRING(out);
    const void *from[7] = {&head, e, g->stones, g->groups, g->pool, g->moves, e->takes};
    size_t sizes[7] = {parts[0], parts[1], parts[2], parts[3], parts[4], parts[5], takes};
    for (int i = 0; i < 7; i++) {
        if (sizes[i]) memcpy(p, from[i], sizes[i]);
        p += sizes[i];
    }
    return out;
}

/* A copy of ``n`` items of ``size`` bytes read from ``*p`` (advanced past them), or NULL for none. */
static int de_take(const char **p, int64_t n, size_t size, void **into) {
    *into = NULL;
    if (n <= 0) return 0;
    *into = PyMem_Malloc((size_t)n * size);
    if (*into == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    memcpy(*into, *p, (size_t)n * size);
    *p += (size_t)n * size;
    return 0;
}

/* Whether the moves, the options of the roll showing and the decision being built in a copy's
 * env (its rules, position and codec checked) are ones the game can have. The options are made
 * again from the position (dk_options: a function of it) and must be the copy's, bit for bit;
 * the moves and the decision must name options, stones, shapes and cells that exist. */
static int de_check_copy(de_env *e, dk_group *groups, int ngroups, const uint64_t *pool, size_t pool_used) {
    dk_game *g = &e->g;
    const char *why = NULL;
    for (long i = 0; i < g->nmoves && why == NULL; i++) {
        const dk_move *mv = &g->moves[i];
        int ok = mv->player >= 0 && mv->player < g->nplayers && mv->face >= 0 && mv->face < g->nfaces &&
                 mv->shape >= -1 && mv->shape < g->nshapes && mv->take_n >= 0 && mv->take_n <= DK_MAX_CELLS &&
                 mv->ntokens >= 0 && mv->ntokens <= DK_MAX_CELLS;
        if (ok && mv->shape >= 0) {
            ok = mv->orient >= 0 && mv->orient < g->nos[mv->shape];
            const orient_t *o = ok ? &g->os[mv->shape][mv->orient] : NULL;
            ok = ok && mv->x >= 0 && mv->x <= g->w - o->ow && mv->y >= 0 && mv->y <= g->h - o->oh; /* no sum: x may be INT_MAX */
        }
        for (int c = 0; ok && c < mv->take_n; c++)
            ok = mv->take_x[c] >= 0 && mv->take_x[c] < g->w && mv->take_y[c] >= 0 && mv->take_y[c] < g->h;
        for (int k = 0; ok && k < mv->ntokens; k++) ok = mv->tokens[k] >= 0 && mv->tokens[k] < g->nshapes;
        if (!ok) why = "a move off the rules";
    }
    /* the options: made again, and the copy's must be them (with no roll they are not used) */
    g->ngroups = 0;
    g->pool_used = 0;
    if (why == NULL && g->roll >= 0) {
        if (dk_options(g) < 0) return -1;
        if (g->ngroups != ngroups || g->pool_used != pool_used ||
            (ngroups && memcmp(g->groups, groups, sizeof(dk_group) * (size_t)ngroups)) ||
            (pool_used && memcmp(g->pool, pool, sizeof(uint64_t) * pool_used)))
            why = "the options are not the position's";
    }
    /* the decision being built: the learner's, on an option of the roll showing */
    int mine = !g->over && g->roll >= 0 && g->to_move == e->seat;
    if (why == NULL && (e->phase < PH_PLACE || e->phase > PH_TOKEN || (e->phase != PH_PLACE && !mine) ||
                        e->n_tokens < 0 || e->n_tokens > DK_MAX_CELLS || e->ntok < 0 || e->ntok > e->n_tokens ||
                        e->ntakes < 0 || (e->phase == PH_TAKE && e->ntakes > g->ngroups)))
        why = "the decision out of range";
    for (int i = 0; i < DK_MAX_CELLS && why == NULL; i++) /* all: dk_apply reads as many as the points */
        if (e->tok[i] < 0 || e->tok[i] >= g->nshapes) why = "a token of no shape";
    if (why == NULL && e->phase != PH_PLACE) {
        int ok = e->shape >= 0 && e->shape < g->nshapes && e->orient >= 0 && e->orient < g->nos[e->shape] &&
                 e->group >= 0 && e->group < g->ngroups && g->groups[e->group].shape == e->shape && e->x >= 0 &&
                 e->x < g->w && e->y >= 0 && e->y < g->h;
        ok = ok && (g->pool[g->groups[e->group].off + (size_t)e->orient * g->h + e->y] >> e->x & 1);
        for (int i = 0; ok && e->phase == PH_TAKE && i < e->ntakes; i++) /* TAKE's choices (each a stone) */
            ok = e->takes[i] >= 0 && e->takes[i] < g->ngroups && g->groups[e->takes[i]].take >= 0 &&
                 g->groups[e->takes[i]].shape == e->shape;
        if (!ok) why = "the decision names no option";
    }
    for (int i = 0; i < g->nplayers && why == NULL; i++)
        if (e->bot[i].index < 0 || e->bot[i].index > MT_N) why = "a bot's generator index out of range";
    if (why == NULL && (e->scheme < SCHEME_SCORE || e->scheme > SCHEME_WIN || e->first_player < 0 ||
                        e->first_player >= g->nplayers))
        why = "the batch's reset out of range";
    for (int s = 0; s < g->nshapes && why == NULL; s++)
        if (e->fresh_supply[s] < 0 || e->fresh_supply[s] > DK_MAX_COUNT) why = "the batch's reset out of range";
    if (why == NULL) return 0;
    PyErr_Format(PyExc_ValueError, "dice env: %s", why);
    return -1;
}

/* env_load(data, bit_generator or None) -> capsule: the env env_dump wrote, its batch resets
 * drawing from ``bit_generator`` (the copied env's own; None: it resets in Python). Nothing
 * read is trusted: the sizes must add up, and every field is checked against this build's
 * limits and the game's rules before the env is used (the rules, the position, the codec, the
 * moves, the options and the decision); what does not fit is the "bytes are damaged"
 * ValueError. */
static PyObject *py_env_load(PyObject *self, PyObject *args) {
    const char *data;
    Py_ssize_t len;
    PyObject *owner;
    if (!PyArg_ParseTuple(args, "y#O", &data, &len, &owner)) return NULL;
    de_dump_head head;
    if ((size_t)len < sizeof head) goto bad;
    memcpy(&head, data, sizeof head);
    if (head.magic != DE_DUMP_MAGIC || head.version != DE_DUMP_VERSION || head.env_size != sizeof(de_env) ||
        head.stone_size != sizeof(dk_stone) || head.group_size != sizeof(dk_group) || head.move_size != sizeof(dk_move)) {
        PyErr_SetString(PyExc_ValueError,
                        "dice env: this copy was written by another build of tabletris's core; load it where it was made");
        return NULL;
    }
    /* every count within the bytes there are (so no product below can wrap), then the sum */
    int64_t room = (int64_t)len;
    if (head.nstones < 0 || head.ngroups < 0 || head.pool_used < 0 || head.nmoves < 0 || head.ntakes < 0 ||
        head.nstones > DK_MAX_STONES || head.ngroups > room / (int64_t)sizeof(dk_group) ||
        head.pool_used > room / (int64_t)sizeof(uint64_t) || head.nmoves > room / (int64_t)sizeof(dk_move) ||
        head.ntakes > room / (int64_t)sizeof(int))
        goto bad;
    size_t need = sizeof head + sizeof(de_env) + (size_t)head.nstones * sizeof(dk_stone) +
                  (size_t)head.ngroups * sizeof(dk_group) + (size_t)head.pool_used * sizeof(uint64_t) +
                  (size_t)head.nmoves * sizeof(dk_move) + (size_t)head.ntakes * sizeof(int);
    if ((size_t)len != need) goto bad;
    np_bitgen_t *bitgen = NULL;
    if (owner != Py_None) {
        PyObject *bg = PyObject_GetAttrString(owner, "capsule");
        if (bg == NULL) return NULL;
        bitgen = PyCapsule_GetPointer(bg, "BitGenerator");
        Py_DECREF(bg);
        if (bitgen == NULL) return NULL;
    }
    de_env *e = PyMem_Malloc(sizeof(de_env));
    if (e == NULL) return PyErr_NoMemory();
    const char *p = data + sizeof head;
    memcpy(e, p, sizeof *e);
    p += sizeof *e;
    dk_game *g = &e->g;
    g->stones = NULL;
    g->groups = NULL;
    g->pool = NULL;
    g->moves = NULL;
    e->takes = NULL;
    e->bitgen_owner = NULL;
    e->bitgen = NULL;
    g->cap_stones = g->cap_groups = e->cap_takes = 0;
    g->pool_cap = 0;
    g->cap_moves = 0;
    if (g->nstones != head.nstones || g->ngroups != head.ngroups || (int64_t)g->pool_used != head.pool_used ||
        g->nmoves != head.nmoves || e->ntakes != head.ntakes) {
        PyMem_Free(e);
        goto bad;
    }
    dk_group *groups = NULL;
    uint64_t *pool = NULL;
    int ngroups = g->ngroups;
    size_t pool_used = g->pool_used;
    if (de_take(&p, head.nstones, sizeof(dk_stone), (void **)&g->stones) < 0 ||
        de_take(&p, head.ngroups, sizeof(dk_group), (void **)&groups) < 0 ||
        de_take(&p, head.pool_used, sizeof(uint64_t), (void **)&pool) < 0 ||
        de_take(&p, head.nmoves, sizeof(dk_move), (void **)&g->moves) < 0 ||
        de_take(&p, head.ntakes, sizeof(int), (void **)&e->takes) < 0)
        goto fail;
    /* Each array's capacity is what it holds now; the first growth reallocates as usual. */
    g->cap_stones = g->nstones;
    g->cap_moves = g->nmoves;
    e->cap_takes = e->ntakes;
    g->ngroups = 0;
    g->pool_used = 0;
    if (dk_check_rules(g) < 0 || dk_check_position(g) < 0 || de_check_codec(e) < 0 ||
        de_check_copy(e, groups, ngroups, pool, pool_used) < 0) {
        if (PyErr_ExceptionMatches(PyExc_ValueError)) {
            PyObject *type, *value, *trace;
            PyErr_Fetch(&type, &value, &trace);
            PyErr_Format(PyExc_ValueError, "dice env: the copy's bytes are damaged (%S)", value);
            Py_XDECREF(type);
            Py_XDECREF(value);
            Py_XDECREF(trace);
        }
        goto fail;
    }
    PyMem_Free(groups);
    PyMem_Free(pool);
    if (bitgen != NULL) {
        Py_INCREF(owner);
        e->bitgen_owner = owner;
        e->bitgen = bitgen;
    }
    PyObject *cap = PyCapsule_New(e, "tabletris.dice_env", de_capsule_free);
    if (cap == NULL) de_release(e);
    return cap;
fail:
    PyMem_Free(groups);
    PyMem_Free(pool);
    de_release(e);
    return NULL;
bad:
    PyErr_SetString(PyExc_ValueError, "dice env: the copy's bytes are damaged (sizes do not add up)");
    return NULL;
}

/* env_layout() -> (head size, sections, fields): where each field lies in env_dump's bytes, for
 * the fuzz test that damages them one field at a time (tests/test_fastdice_fuzz.py). sections:
 * (name, item size) in the order they follow the header ("env" once, then as many items as
 * the header counts); fields: (name, section, offset in its item, size, count, stride, inner):
 * ``count`` elements ``stride`` bytes apart, each ``inner`` values of ``size`` bytes. The
 * pointers and capacities are absent: env_load sets them itself. */
#define DE_AT(sec, type, name, member, count, stride, inner) \
    {name, sec, offsetof(type, member), sizeof(((type *)0)->member), count, stride, inner}
#define DE_ENV(name, member, count, inner) DE_AT("env", de_env, name, member, count, sizeof(((de_env *)0)->member) * (inner), inner)
#define DE_ONE(name, member) DE_ENV(name, member, 1, 1)
#define DE_ARR(name, member, n) DE_ENV(name, member, n, 1)
#define DE_SUB(sec, type, name, member, inner) DE_AT(sec, type, name, member, 1, sizeof(type), inner)

typedef struct {
    const char *name, *section;
    size_t off, size, count, stride, inner;
} de_field;

static PyObject *py_env_layout(PyObject *self, PyObject *args) {
    static const de_field fields[] = {
        DE_ONE("w", g.w), DE_ONE("h", g.h), DE_ONE("access", g.access), DE_ONE("nshapes", g.nshapes),
        DE_ONE("nfaces", g.nfaces), DE_ONE("nplayers", g.nplayers), DE_ONE("flags", g.flags),
        DE_ONE("clear", g.clear), DE_ONE("target", g.target),
        DE_AT("env", de_env, "os.n", g.os[0][0].n, DK_SHAPES * 8, sizeof(orient_t), 1),
        DE_AT("env", de_env, "os.ow", g.os[0][0].ow, DK_SHAPES * 8, sizeof(orient_t), 1),
        DE_AT("env", de_env, "os.oh", g.os[0][0].oh, DK_SHAPES * 8, sizeof(orient_t), 1),
        DE_AT("env", de_env, "os.dx", g.os[0][0].dx[0], DK_SHAPES * 8, sizeof(orient_t), 8),
        DE_AT("env", de_env, "os.dy", g.os[0][0].dy[0], DK_SHAPES * 8, sizeof(orient_t), 8),
        DE_ARR("nos", g.nos[0], DK_SHAPES), DE_ARR("face_shape", g.face_shape[0], DK_FACES),
        DE_ARR("wt", g.wt[0], 8), DE_ARR("rows", g.rows[0], MAX_H), DE_ARR("scored", g.scored[0], MAX_H),
        DE_ONE("nstones", g.nstones), DE_ONE("next_number", g.next_number), DE_ARR("supply", g.supply[0], DK_SHAPES),
        DE_ARR("scores", g.scores[0], DK_PLAYERS), DE_ARR("rows_completed", g.rows_completed[0], DK_PLAYERS),
        DE_ONE("turn", g.turn), DE_ONE("to_move", g.to_move), DE_ONE("roll", g.roll), DE_ONE("over", g.over),
        DE_ONE("stuck", g.stuck), DE_ARR("rng.mt", g.rng.mt[0], MT_N), DE_ONE("rng.index", g.rng.index),
        DE_ONE("ngroups", g.ngroups), DE_ONE("pool_used", g.pool_used), DE_ONE("nmoves", g.nmoves),
        DE_ONE("seat", seat), DE_AT("env", de_env, "bot.index", bot[0].index, DK_PLAYERS, sizeof(mt_t), 1),
        DE_AT("env", de_env, "bot.mt", bot[0].mt[0], DK_PLAYERS, sizeof(mt_t), MT_N),
        DE_ONE("n_actions", n_actions), DE_ONE("obs_size", obs_size), DE_ONE("full", full),
        DE_ONE("lay_face", lay_face), DE_ONE("lay_to_move", lay_to_move), DE_ONE("lay_supply", lay_supply),
        DE_ONE("lay_scores", lay_scores), DE_ONE("lay_phase", lay_phase), DE_ONE("lay_rows", lay_rows),
        DE_ONE("lay_tokens", lay_tokens), DE_ONE("take_base", take_base), DE_ONE("token_base", token_base),
        DE_ARR("form_base", form_base[0][0], DK_SHAPES * 8), DE_ARR("form_row", form_row[0][0], DK_SHAPES * 8),
        DE_ONE("phase", phase), DE_ONE("shape", shape), DE_ONE("orient", orient), DE_ONE("x", x), DE_ONE("y", y),
        DE_ONE("group", group), DE_ONE("ntakes", ntakes), DE_ONE("n_tokens", n_tokens), DE_ONE("ntok", ntok),
        DE_ARR("tok", tok[0], DK_MAX_CELLS), DE_ONE("scheme", scheme),
        DE_ARR("fresh_supply", fresh_supply[0], DK_SHAPES), DE_ONE("first_player", first_player),
        DE_SUB("stones", dk_stone, "stone.shape", shape, 1), DE_SUB("stones", dk_stone, "stone.owner", owner, 1),
        DE_SUB("stones", dk_stone, "stone.number", number, 1), DE_SUB("stones", dk_stone, "stone.n", n, 1),
        DE_SUB("stones", dk_stone, "stone.x", x[0], DK_MAX_CELLS), DE_SUB("stones", dk_stone, "stone.y", y[0], DK_MAX_CELLS),
        DE_SUB("groups", dk_group, "group.shape", shape, 1), DE_SUB("groups", dk_group, "group.take", take, 1),
        DE_SUB("groups", dk_group, "group.off", off, 1), DE_SUB("groups", dk_group, "group.count", count, 1),
        {"pool", "pool", 0, sizeof(uint64_t), 1, sizeof(uint64_t), 1},
        DE_SUB("moves", dk_move, "move.player", player, 1), DE_SUB("moves", dk_move, "move.face", face, 1),
        DE_SUB("moves", dk_move, "move.shape", shape, 1), DE_SUB("moves", dk_move, "move.orient", orient, 1),
        DE_SUB("moves", dk_move, "move.x", x, 1), DE_SUB("moves", dk_move, "move.y", y, 1),
        DE_SUB("moves", dk_move, "move.take_n", take_n, 1), DE_SUB("moves", dk_move, "move.take_x", take_x[0], DK_MAX_CELLS),
        DE_SUB("moves", dk_move, "move.take_y", take_y[0], DK_MAX_CELLS),
        DE_SUB("moves", dk_move, "move.ntokens", ntokens, 1), DE_SUB("moves", dk_move, "move.tokens", tokens[0], DK_MAX_CELLS),
        {"takes", "takes", 0, sizeof(int), 1, sizeof(int), 1},
    };
    (void)self;
    (void)args;
    size_t n = sizeof fields / sizeof fields[0];
    PyObject *out = PyTuple_New((Py_ssize_t)n);
    if (out == NULL) return NULL;
    for (size_t i = 0; i < n; i++) {
        const de_field *f = &fields[i];
        PyObject *item = Py_BuildValue("(ssnnnnn)", f->name, f->section, (Py_ssize_t)f->off, (Py_ssize_t)f->size,
                                       (Py_ssize_t)f->count, (Py_ssize_t)f->stride, (Py_ssize_t)f->inner);
        if (item == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyTuple_SET_ITEM(out, (Py_ssize_t)i, item);
    }
    return Py_BuildValue("(n((sn)(sn)(sn)(sn)(sn)(sn))N)", (Py_ssize_t)sizeof(de_dump_head), "env",
                         (Py_ssize_t)sizeof(de_env), "stones", (Py_ssize_t)sizeof(dk_stone), "groups",
                         (Py_ssize_t)sizeof(dk_group), "pool", (Py_ssize_t)sizeof(uint64_t), "moves",
                         (Py_ssize_t)sizeof(dk_move), "takes", (Py_ssize_t)sizeof(int), out);
}

/* The reward schemes' codes (envs/dice_fast.py's SCHEMES) for the module's CONSTANTS. */
static int de_add_constants(PyObject *d) {
    static const dk_code codes[] = {
        {"SCHEME_SCORE", SCHEME_SCORE}, {"SCHEME_DIFFERENCE", SCHEME_DIFFERENCE}, {"SCHEME_WIN", SCHEME_WIN},
    };
    return dk_put_codes(d, codes, sizeof codes / sizeof codes[0]);
}
