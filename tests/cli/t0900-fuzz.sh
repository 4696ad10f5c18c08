#!/bin/bash
# The libFuzzer harnesses (tests/fuzz/fuzz_*.c): built with clang through
# `make fuzz-build`; each replays its committed corpus (seed inputs and
# every crash input found so far, kept as regression inputs), then fuzzes
# for FUZZ_SECONDS (default 5) more. Skipped, saying why, when clang or
# libFuzzer's runtime (libclang-rt-14-dev on Debian 12) is missing.
# `make fuzz` runs the same harnesses for minutes each.
. "$(dirname "$0")/lib.sh"
cd "$TOP" || exit 1
secs=${FUZZ_SECONDS:-5}
cc=${FUZZ_CC:-clang}

tmpdir T || exit 1
if ! command -v "$cc" >/dev/null 2>&1; then
	skip "fuzz harnesses" "no $cc: install clang and libclang-rt-14-dev (scripts/deps.sh test)"
	done_testing
	exit 0
fi
printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' \
	>"$T/probe.c"
if ! "$cc" -fsanitize=fuzzer -o "$T/probe" "$T/probe.c" >"$T/probe.log" 2>&1; then
	skip "fuzz harnesses" "$cc cannot link libFuzzer: install libclang-rt-14-dev"
	done_testing
	exit 0
fi

if make --no-print-directory fuzz-build >"$T/build.log" 2>&1; then
	ok "fuzz harnesses build (make fuzz-build)"
else
	nok "fuzz harnesses build (make fuzz-build)"
	tail -n 20 "$T/build.log" | sed 's/^/#   /'
	done_testing
	exit 0
fi

for bin in build/fuzz/fuzz_*; do
	[ -x "$bin" ] || continue
	name=${bin##*/fuzz_}
	corpus=tests/fuzz/corpus/$name
	n=$(find "$corpus" -type f | wc -l)
	if [ "$n" -gt 0 ] && "$bin" -runs=0 -close_fd_mask=3 "$corpus" >"$T/$name.replay" 2>&1; then
		ok "fuzz $name: replays its $n corpus inputs"
	else
		nok "fuzz $name: replays its $n corpus inputs"
		grep -E 'ERROR|invariant|SUMMARY|Running:' "$T/$name.replay" | head -n 5 | sed 's/^/#   /'
	fi
	if tests/fuzz/run.sh "$secs" "$bin" >"$T/$name.fuzz" 2>&1; then
		ok "$(head -n 1 "$T/$name.fuzz")"
	else
		nok "fuzz $name: ${secs}s of fuzzing found something"
		sed 's/^/#   /' "$T/$name.fuzz"
	fi
done
done_testing
