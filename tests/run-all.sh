#!/bin/bash
# Run every test: the cmocka unit binaries given as arguments (TAP output),
# then each end-to-end script tests/cli/t*.sh (TAP too). Prints each
# result line, then one summary line "N passed, N failed[, N skipped]".
cd "$(dirname "$0")/.." || exit 1
pass=0 fail=0 skip=0
log=$(mktemp) || exit 1
trap 'rm -f "$log"' EXIT

count() { # reads TAP on stdin, echoes it, updates counters via the log
	while IFS= read -r line; do
		printf '%s\n' "$line"
		case "$line" in
		"ok "*"# SKIP"* | "ok "*"# skip"*) echo s >>"$log" ;;
		"ok "*) echo p >>"$log" ;;
		"not ok "*) echo f >>"$log" ;;
		esac
	done
}

for bin in "$@"; do
	echo "# unit: $bin"
	before=$(grep -c '^f$' "$log")
	CMOCKA_MESSAGE_OUTPUT=tap "$bin" 2>&1 | count
	rc=${PIPESTATUS[0]}
	# A crash (sanitizer report) with no failed case still counts as one.
	if [ "$rc" -ne 0 ] && [ "$(grep -c '^f$' "$log")" -eq "$before" ]; then
		echo "not ok - $bin exited $rc"
		echo f >>"$log"
	fi
done

for t in tests/cli/t[0-9]*.sh; do
	[ -e "$t" ] || continue
	echo "# cli: $t"
	timeout 1200 bash "$t" 2>&1 | count
	rc=${PIPESTATUS[0]}
	if [ "$rc" -ne 0 ]; then
		echo "not ok - $t exited $rc"
		echo f >>"$log"
	fi
done

pass=$(grep -c '^p$' "$log")
fail=$(grep -c '^f$' "$log")
skip=$(grep -c '^s$' "$log")
echo
if [ "$skip" -gt 0 ]; then
	echo "$pass passed, $fail failed, $skip skipped"
else
	echo "$pass passed, $fail failed"
fi
[ "$fail" -eq 0 ]
