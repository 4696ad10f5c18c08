#!/bin/bash
# Run the tests and count them:
#   tests/run-all.sh [--unit | --cli] [UNIT_BINARY...]
# the cmocka unit binaries given as arguments (TAP output), then each
# end-to-end script tests/cli/t*.sh (TAP too); --unit runs only the former
# (`make unit-test`), --cli only the latter (`make cli-test`). Prints each
# result line, then a note of the skips (if any) and the summary line
# "N passed, N failed"; exits 0 when nothing failed. Each end-to-end
# script's time follows its results as a comment line. t1000 and t1650
# run again with TMPDIR on a tmpfs the runner mounts (and unmounts).
cd "$(dirname "$0")/.." || exit 1
unit=1 cli=1
case ${1:-} in
--unit) cli=0; shift ;;
--cli) unit=0; shift ;;
--*) echo "usage: tests/run-all.sh [--unit | --cli] [UNIT_BINARY...]" >&2; exit 2 ;;
esac
pass=0 fail=0 skip=0
log=$(mktemp) || exit 1
trap 'rm -f "$log"' EXIT

count() { # reads TAP on stdin, echoes it, updates counters via the log
	# (A last line without its newline is a line too.)
	while IFS= read -r line || [ -n "$line" ]; do
		printf '%s\n' "$line"
		case "$line" in
		# cmocka 1.1 writes a skipped case as "not ok N # SKIP".
		"ok "*"# SKIP"* | "ok "*"# skip"* | "not ok "*" # SKIP"*) echo s >>"$log" ;;
		"ok "*) echo p >>"$log" ;;
		"not ok "*) echo f >>"$log" ;;
		esac
	done
}

[ "$unit" -eq 1 ] || set --
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

# run_script SCRIPT [WHERE]: one end-to-end script, counted; a script that
# exits non-zero with no failed case counts as one failure.
run_script() {
	local t=$1 where=${2:-} start=$SECONDS rc
	echo "# cli${where:+ ($where)}: $t"
	timeout 1200 bash "$t" 2>&1 | count
	rc=${PIPESTATUS[0]}
	if [ "$rc" -ne 0 ]; then
		echo "not ok - $t${where:+ $where} exited $rc"
		echo f >>"$log"
	fi
	# How long each script took: what to look at when `make test` slows.
	echo "# $t${where:+ ($where)}: $((SECONDS - start)) s"
}

for t in tests/cli/t[0-9]*.sh; do
	[ "$cli" -eq 1 ] && [ -e "$t" ] || continue
	run_script "$t"
done

# The scripts whose figures depend on where TMPDIR is run a second time
# with TMPDIR on a tmpfs mounted here (Debian 13's, Fedora's and Arch's
# /tmp), so a RAM-backed TMPDIR is tested on every machine.
TMPFS_SCRIPTS="tests/cli/t1000-run-basic.sh tests/cli/t1650-devcap-caveats.sh"
if [ "$cli" -eq 1 ]; then
	tt=$(mktemp -d) || exit 1
	trap 'umount "$tt" 2>/dev/null; rmdir "$tt" 2>/dev/null; rm -f "$log"' EXIT
	if [ "$(id -u)" -ne 0 ]; then
		why="not root: cannot mount a tmpfs"
	elif ! mount -t tmpfs -o size=4g,mode=1777 fsbench-test "$tt" 2>/dev/null; then
		why="cannot mount a tmpfs"
	else
		why=
	fi
	for t in $TMPFS_SCRIPTS; do
		if [ -n "$why" ]; then
			echo "ok - $t with TMPDIR on a tmpfs # SKIP $why" | count
			continue
		fi
		TMPDIR=$tt run_script "$t" "with TMPDIR on a tmpfs"
	done
	[ -n "$why" ] || umount "$tt"
	rmdir "$tt"
fi

pass=$(grep -c '^[ps]$' "$log")
fail=$(grep -c '^f$' "$log")
skip=$(grep -c '^s$' "$log")
echo
# Skips are counted with the passes (they are "ok" lines) and listed above
# with their reasons; the last line is exactly "N passed, N failed", the
# line CI reads.
[ "$skip" -eq 0 ] || echo "# $skip of the passed tests were skipped (see '# SKIP' above)"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
