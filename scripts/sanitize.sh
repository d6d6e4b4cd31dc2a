#!/usr/bin/env bash
# The compiled dice core under AddressSanitizer + UndefinedBehaviorSanitizer (issue 30).
#
# Builds tabletris.engine._native with the sanitizers into a copy of the package under a temporary
# directory (the checkout's own build, which the rest of CI uses, is not touched), proves that the
# flags reached the compiler and the linker, then runs the kernel's differential tests, its limits
# tests and the fuzz test of damaged copies and states against that copy. Any sanitizer report
# fails the run: ASan ends the process on its first error, UBSan too (-fno-sanitize-recover=undefined),
# both with exit code 86, and a report found in the output fails it as well.
#
#   scripts/sanitize.sh                 # from the checkout, with .venv built
#   PYTHON=/path/python scripts/sanitize.sh -k fuzz     # other interpreter; extra pytest args
#
# TABLETRIS_EXAMPLES_SHARE (default 0.25 here) scales the hypothesis examples of the kernel tests:
# the sanitized build is several times slower, and the step should stay within about 2 minutes.
# A deeper hunt: TABLETRIS_EXAMPLES_SHARE=4 scripts/sanitize.sh -k fuzz (12,000 damaged copies and
# 8,000 damaged positions). SANITIZE_KEEP=1 keeps the build and its logs.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-.venv/bin/python}
CC=${CC:-cc}
SAN_FLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
TESTS=(  # the kernel against the Python engine (turns, expert, env, batch, copies, lab playouts), its limits, its fuzz
  tests/test_fastdice.py tests/test_fastexpert.py tests/test_fastdice_env.py tests/test_fastvector.py
  tests/test_fastdice_copy.py tests/test_fastdice_lab.py tests/test_fastexpert_lab.py
  tests/test_fastdice_limits.py tests/test_fastdice_fuzz.py
)
start=$(date +%s)

WORK=$(mktemp -d /tmp/tabletris-sanitize-XXXXXX)
trap '[ -n "${SANITIZE_KEEP:-}" ] || rm -rf "$WORK"' EXIT  # SANITIZE_KEEP=1: keep the build and logs
fail() { echo "sanitize: FAILED: $*" >&2; exit 1; }

# 1. The build, into $WORK only (setup.py repeats CFLAGS after its -O2; distutils passes CFLAGS to
#    the link as well, so the extension links the sanitizers' runtimes).
echo "sanitize: building the dice core with $SAN_FLAGS"
CFLAGS="$SAN_FLAGS" TABLETRIS_BUILD_ONLY=tabletris.engine._native "$PY" setup.py build_ext --force --build-lib "$WORK/lib" --build-temp "$WORK/tmp" \
  >"$WORK/build.log" 2>&1 || { cat "$WORK/build.log"; fail "the build"; }
built=$(date +%s)
SO=$(ls "$WORK"/lib/tabletris/engine/_native.*.so 2>/dev/null || true)
# The extension is optional in setup.py: a failed compile only warns, so its absence is checked here.
[ -n "$SO" ] || { cat "$WORK/build.log"; fail "no _native extension was built (see the log above)"; }

# 2. The flags reached the compiler and the linker.
compile_line=$(grep -E -- '-c [^ ]*_native\.c' "$WORK/build.log" | tail -1)
[ -n "$compile_line" ] || { cat "$WORK/build.log"; fail "no compile line for _native.c in the build log"; }
last_opt=$(grep -oE -- '(^| )-O[0-9s]' <<<"$compile_line" | tail -1 | tr -d ' ')
[ "$last_opt" = "-O1" ] || fail "the last optimisation flag on the compile line is '$last_opt', not -O1: $compile_line"
for flag in -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined -g; do
  grep -qF -- " $flag" <<<"$compile_line" || fail "$flag is not on the compile line: $compile_line"
done
symbols=$(nm -D --undefined-only "$SO")  # (into a variable: grep -q on a pipe would SIGPIPE nm under pipefail)
libs=$(ldd "$SO")
grep -q '__asan_report_' <<<"$symbols" || fail "$SO calls no AddressSanitizer checks"
grep -q '__ubsan_handle_' <<<"$symbols" || fail "$SO calls no UndefinedBehaviorSanitizer handlers"
grep -q 'libasan' <<<"$libs" || fail "$SO does not link libasan"
grep -q 'libubsan' <<<"$libs" || fail "$SO does not link libubsan"
echo "sanitize: built in $((built - start)) s; $(basename "$SO"): compiled with $last_opt," \
  "$(grep -c '__asan_\|__ubsan_' <<<"$symbols") sanitizer entry points, links" \
  "$(grep -oE 'lib(asan|ubsan)\.so[.0-9]*' <<<"$libs" | sort -u | tr '\n' ' ')"

# 3. A copy of the package with the sanitized core in place of the checkout's (the Python sources
#    are the checkout's; the other compiled core stays the normal build).
mkdir -p "$WORK/pkg"
cp -r src/tabletris "$WORK/pkg/"
find "$WORK/pkg" -name '__pycache__' -prune -exec rm -rf {} +
rm -f "$WORK"/pkg/tabletris/engine/_native.*.so
cp "$SO" "$WORK/pkg/tabletris/engine/"

LIBASAN=$("$CC" -print-file-name=libasan.so)
[ -e "$LIBASAN" ] || fail "$CC does not know its libasan.so"
export PYTHONPATH="$WORK/pkg${PYTHONPATH:+:$PYTHONPATH}"
unset TABLETRIS_PURE
export TABLETRIS_EXAMPLES_SHARE=${TABLETRIS_EXAMPLES_SHARE:-0.25}
# CPython frees little at exit: no leak check. A report ends the process with exit code 86 (both
# sanitizers; UBSan never recovers), written to stderr: pytest captures only sys.stderr
# (--capture=sys), so the report reaches the log even when it ends the process mid-test.
REPORT_EXIT=86
export ASAN_OPTIONS="detect_leaks=0:exitcode=$REPORT_EXIT"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:exitcode=$REPORT_EXIT"
export PYTHONUNBUFFERED=1  # the test output up to a report is kept
run() { LD_PRELOAD="$LIBASAN" "$@"; }

# The plumbing: under these options a report ends a process with $REPORT_EXIT (a heap overflow
# for ASan, a shift past the width for UBSan, in a program built with the same flags).
cat >"$WORK/canary.c" <<'C'
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv) {
    char *p = malloc(8);
    int n = argc > 2 ? atoi(argv[2]) : 0;
    if (argv[1][0] == 'a') memset(p, 1, (size_t)n); /* 9: one byte past the block */
    else n = (int)(1ULL << n);                      /* 70: a shift past 64 bits */
    n += p[0]; /* read: the store is not optimised away */
    free(p);
    return n == 12345;
}
C
# shellcheck disable=SC2086
"$CC" $SAN_FLAGS "$WORK/canary.c" -o "$WORK/canary"
for canary in "a 9 AddressSanitizer" "u 70 runtime error"; do
  read -r kind arg report <<<"$canary"
  out=$("$WORK/canary" "$kind" "$arg" 2>&1) && got=0 || got=$?
  { grep -q "$report" <<<"$out" && [ "$got" = "$REPORT_EXIT" ]; } ||
    fail "the canary '$kind' ended with exit $got and no '$report' report: $out"
done
echo "sanitize: the canaries' reports end them with exit $REPORT_EXIT"

where=$(run "$PY" -c 'from tabletris.engine import _native, board; assert board.native_available(); print(_native.__file__)') \
  || fail "the sanitized core does not load"
[ "$where" = "$WORK/pkg/tabletris/engine/$(basename "$SO")" ] || fail "the tests would import $where, not the sanitized core"
echo "sanitize: the tests import $where"

# 4. The tests. A skipped test would hide the core (it skips where the core is not built): none may skip.
status=0
run "$PY" -m pytest -q -p no:cacheprovider --capture=sys -rs "${TESTS[@]}" "$@" 2>&1 | tee "$WORK/pytest.log" || status=$?
if [ "$status" = "$REPORT_EXIT" ] || grep -qE 'runtime error:|ERROR: (Address|UndefinedBehavior)Sanitizer' "$WORK/pytest.log"; then
  fail "a sanitizer report (above; exit $status)"
fi
[ "$status" = 0 ] || fail "the tests (exit $status)"
if grep -qE '^SKIPPED|[0-9]+ skipped' "$WORK/pytest.log"; then fail "tests were skipped"; fi
echo "sanitize: clean: $(tail -1 "$WORK/pytest.log"), in $(($(date +%s) - start)) s with TABLETRIS_EXAMPLES_SHARE=$TABLETRIS_EXAMPLES_SHARE"
