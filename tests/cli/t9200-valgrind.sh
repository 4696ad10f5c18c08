#!/bin/bash
# Valgrind memcheck on the unsanitized binary (./fsbench): a short run of
# every test (the seekers are forked children, checked too), with --cache
# drop and keep and two views, compare in each of its views and report to
# HTML. No invalid read or write, no use of uninitialised memory, no
# definite leak: --error-exitcode=99 --leak-check=full
# --errors-for-leak-kinds=definite. Skipped where valgrind is missing.
. "$(dirname "$0")/lib.sh"

BIN=$TOP/fsbench
if ! command -v valgrind >/dev/null; then
	skip "valgrind memcheck" "valgrind is missing (apt-get install valgrind)"
	done_testing
	exit 0
fi
[ -x "$BIN" ] || { echo "Bail out! $BIN not built (make fsbench)"; exit 1; }
tmpdir T || exit 1
D=$T/dir
mkdir "$D"
is_root && mount_tmpfs "$D" size=64m
export TMPDIR=$T

# vg DESC ARGS...: fsbench ARGS under memcheck exits 0 with no error.
vg() {
	local what=$1 rc; shift
	valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
		--log-file="$T/vg.%p.log" "$BIN" "$@" >"$T/out" 2>"$T/err"
	rc=$?
	if [ $rc -eq 0 ] && [ -z "$(cat "$T"/vg.*.log 2>/dev/null)" ]; then
		ok "memcheck: $what"
	else
		nok "memcheck: $what (exit $rc)"
		cat "$T"/vg.*.log "$T/err" 2>/dev/null | sed 's/^/#   /' | head -40
	fi
	rm -f "$T"/vg.*.log
}

SMALL=(--size 256k --files 32:2k:0:2 --repeat 2 --min-time 0.001 --seeks 64 --seekers 2
	--char-size 16k --progress never)
vg "run, every test, --cache drop, -o a.json" run "${SMALL[@]}" --label alpha --format json \
	-o "$T/a.json" "$D"
vg "run, every test, --cache keep, --char-io syscall, -o b.json" run "${SMALL[@]}" --cache keep \
	--char-io syscall --label beta --format json -o "$T/b.json" "$D"
vg "run --format bonnie++ to standard output" run "${SMALL[@]}" --cache keep --tests write,read,seq-create \
	--format bonnie++ "$D"
vg "run --links soft --sync, text view" run --size 64k --files 16 --links soft --sync --repeat 1 \
	--min-time 0.001 --cache keep --tests files "$D"
for f in text csv json; do
	vg "compare a.json b.json --format $f" compare --format "$f" "$T/a.json" "$T/b.json"
done
vg "report a.json b.json -o r.html" report -o "$T/r.html" "$T/a.json" "$T/b.json"
grep -q '<svg' "$T/r.html" 2>/dev/null && ok "the report holds its charts" || nok "the report holds its charts"
# A refused input is a path of its own through the reader.
printf 'null\n' >"$T/null.json"
valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
	--log-file="$T/vg.%p.log" "$BIN" compare "$T/a.json" "$T/null.json" >"$T/out" 2>"$T/err"; rc=$?
if [ $rc -eq 1 ] && [ -z "$(cat "$T"/vg.*.log 2>/dev/null)" ]; then
	ok "memcheck: compare with a file that is no result (exit 1, no error)"
else
	nok "memcheck: compare with a file that is no result (exit $rc)"; cat "$T"/vg.*.log | sed 's/^/#   /' | head -40
fi
rm -f "$T"/vg.*.log
no_scratch_left "$D" && ok "no scratch dir left" || nok "no scratch dir left"

done_testing
