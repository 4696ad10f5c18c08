#!/bin/bash
# Run libFuzzer harnesses: tests/fuzz/run.sh SECONDS build/fuzz/fuzz_NAME...
# Each first replays its committed corpus (tests/fuzz/corpus/NAME/), then
# fuzzes for SECONDS with new inputs kept in build/fuzz/corpus/NAME/ (not
# committed); a crash or leak input is written to tests/fuzz/corpus/NAME/
# as a regression input; tests/fuzz/NAME.dict, when there is one, gives
# libFuzzer the words of the format. Prints one summary line per harness;
# exits 1 when any harness failed.
cd "$(dirname "$0")/../.." || exit 1
secs=${1:?usage: run.sh SECONDS HARNESS...}
shift
rc=0
for bin in "$@"; do
	name=${bin##*/fuzz_}
	seeds=tests/fuzz/corpus/$name
	work=build/fuzz/corpus/$name
	mkdir -p "$seeds" "$work"
	log=build/fuzz/$name.log
	dict=()
	[ -f "tests/fuzz/$name.dict" ] && dict=(-dict="tests/fuzz/$name.dict")
	# Inputs may be up to 64 KiB; the views harness renders up to 1024
	# results, so one input stays well under a second.
	"$bin" -max_total_time="$secs" -max_len=65536 -timeout=30 -rss_limit_mb=2048 \
		-close_fd_mask=3 -print_final_stats=1 -artifact_prefix="$seeds/" "${dict[@]}" \
		"$work" "$seeds" >"$log" 2>&1
	status=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n1)
	cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n1)
	if [ "$status" -eq 0 ]; then
		echo "fuzz $name: ${execs:-?} runs in ${secs}s, $cov, no finding"
	else
		echo "fuzz $name: FAILED (exit $status), see $log; input kept in $seeds/"
		grep -E 'ERROR|invariant|SUMMARY|crash-' "$log" | head -n 5 | sed 's/^/  /'
		rc=1
	fi
done
exit $rc
