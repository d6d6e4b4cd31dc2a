/* CPython's random.Random, bit for bit, for compiled cores that must draw what Python draws.
 *
 * MT19937 as Modules/_randommodule.c runs it (loaded from and stored back to
 * ``random.Random.getstate()[1]``), ``_randbelow`` as Lib/random.py draws it with getrandbits,
 * ``random()`` as random_random builds a double from two outputs, and the list algorithms the
 * tower game's set-up uses (``shuffle``, ``sample`` for small populations, ``choice``). The dice
 * kernel (_dice_kernel.c) has its own copy of the generator from before this header; the tower
 * core (_tower_core.c) includes this one. tests/test_fasttower.py checks the draws against
 * CPython's own.
 *
 * Everything is ``static``: the header belongs to the one extension that includes it.
 */
#ifndef TABLETRIS_CPYTHON_RANDOM_H
#define TABLETRIS_CPYTHON_RANDOM_H

#include <stdint.h>

#define PYR_N 624
#define PYR_M 397

typedef struct {
    uint32_t mt[PYR_N];
    int index;
} pyr_t;

static uint32_t pyr_next(pyr_t *r) {
    static const uint32_t mag01[2] = {0x0U, 0x9908b0dfU};
    uint32_t y;
    uint32_t *mt = r->mt;
    if (r->index >= PYR_N) {
        int kk;
        for (kk = 0; kk < PYR_N - PYR_M; kk++) {
            y = (mt[kk] & 0x80000000U) | (mt[kk + 1] & 0x7fffffffU);
            mt[kk] = mt[kk + PYR_M] ^ (y >> 1) ^ mag01[y & 0x1U];
        }
        for (; kk < PYR_N - 1; kk++) {
            y = (mt[kk] & 0x80000000U) | (mt[kk + 1] & 0x7fffffffU);
            mt[kk] = mt[kk + (PYR_M - PYR_N)] ^ (y >> 1) ^ mag01[y & 0x1U];
        }
        y = (mt[PYR_N - 1] & 0x80000000U) | (mt[0] & 0x7fffffffU);
        mt[PYR_N - 1] = mt[PYR_M - 1] ^ (y >> 1) ^ mag01[y & 0x1U];
        r->index = 0;
    }
    y = mt[r->index++];
    y ^= (y >> 11);
    y ^= (y << 7) & 0x9d2c5680U;
    y ^= (y << 15) & 0xefc60000U;
    y ^= (y >> 18);
    return y;
}

/* _randbelow_with_getrandbits(n) for 1 <= n < 2**31: k = n.bit_length(), getrandbits(k) (the
 * top k bits of one output) until it is below n. */
static long pyr_below(pyr_t *r, long n) {
    int k = 0;
    for (long v = n; v; v >>= 1) k++;
    uint32_t x;
    do {
        x = pyr_next(r) >> (32 - k);
    } while ((long)x >= n);
    return (long)x;
}

/* random(): 53 bits from two outputs, as random_random makes them. */
static double pyr_random(pyr_t *r) {
    uint32_t a = pyr_next(r) >> 5, b = pyr_next(r) >> 6;
    return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
}

/* seed(n) for an int 0 <= n < 2**32: init_by_array with the one 32-bit word of n. */
static void pyr_seed(pyr_t *r, uint32_t seed) {
    uint32_t *mt = r->mt;
    mt[0] = 19650218U;
    for (int i = 1; i < PYR_N; i++) mt[i] = (1812433253U * (mt[i - 1] ^ (mt[i - 1] >> 30)) + (uint32_t)i);
    int i = 1;
    for (int k = PYR_N; k; k--) {
        mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1664525U)) + seed;
        i++;
        if (i >= PYR_N) {
            mt[0] = mt[PYR_N - 1];
            i = 1;
        }
    }
    for (int k = PYR_N - 1; k; k--) {
        mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1566083941U)) - (uint32_t)i;
        i++;
        if (i >= PYR_N) {
            mt[0] = mt[PYR_N - 1];
            i = 1;
        }
    }
    mt[0] = 0x80000000U;
    r->index = PYR_N;
}

/* shuffle(x) of ``n`` ints in place: for i from n-1 down to 1, swap x[i] and x[randbelow(i+1)]. */
static void pyr_shuffle(pyr_t *r, int *x, int n) {
    for (int i = n - 1; i >= 1; i--) {
        int j = (int)pyr_below(r, i + 1);
        int t = x[i];
        x[i] = x[j];
        x[j] = t;
    }
}

/* sample(population, k) for a population of n <= 21 (Lib/random.py's pool branch, which every
 * n <= 21 takes): ``out`` gets the k picks in selection order. */
static void pyr_sample_small(pyr_t *r, const int *population, int n, int k, int *out) {
    int pool[32];
    for (int i = 0; i < n; i++) pool[i] = population[i];
    for (int i = 0; i < k; i++) {
        int j = (int)pyr_below(r, n - i);
        out[i] = pool[j];
        pool[j] = pool[n - i - 1];
    }
}

#endif
