#!/bin/bash
# Messages that must say what is wrong (issue 9, item 13), in the parts
# that read result files and decide where -o goes:
#   a result file holding valid JSON that is no result (null, 42, "x",
#   true, [..]) is "not an fsbench result: the document is null / a
#   number / ...", not "truncated JSON" or "not valid JSON (success at
#   byte 5)"; a file cut short is still "truncated JSON";
#   -o in a directory where no file can be created (/proc, /sys, a
#   filesystem out of inodes) is refused at startup, exit 2, before any
#   work, naming the directory and why, not after the benchmark with
#   "No such file or directory".
. "$(dirname "$0")/lib.sh"

[ -x "$FSBENCH" ] || { echo "Bail out! $FSBENCH not built"; exit 1; }
tmpdir T || exit 1
# A fallback file, should one be written, lands here, where it is seen.
mkdir "$T/tmp"
export TMPDIR=$T/tmp
D=$T/dir
mkdir "$D"

# ---- JSON that is valid but no result ----
# not_result CMD FILE WHAT: exit 1, one line "cannot read 'FILE': not an
# fsbench result: the document is WHAT", nothing on stdout.
not_result() {
	local cmd=$1 f=$2 what=$3 rc want
	want="fsbench: cannot read '$f': not an fsbench result: the document is $what"
	if [ "$cmd" = report ]; then
		"$FSBENCH" report -o "$T/r.html" "$f" >"$T/out" 2>"$T/err"
	else
		"$FSBENCH" compare "$f" >"$T/out" 2>"$T/err"
	fi
	rc=$?
	if [ $rc -eq 1 ] && one_line "$T/err" && [ "$(cat "$T/err")" = "$want" ] && [ ! -s "$T/out" ]; then
		ok "$cmd $(basename "$f"): '...the document is $what'"
	else
		nok "$cmd $(basename "$f"): '...the document is $what' (exit $rc)"; diag "$T/err"
	fi
}
printf 'null\n' >"$T/null.json"
printf 'null' >"$T/null-nonl.json"
printf '42\n' >"$T/42.json"
printf '42' >"$T/42-nonl.json"
printf '  -1.5e3  ' >"$T/float.json"
printf '"fsbench"\n' >"$T/string.json"
printf 'true' >"$T/true.json"
printf '[{"format_version": 1}]\n' >"$T/array.json"
for cmd in compare report; do
	not_result $cmd "$T/null.json" null
	not_result $cmd "$T/42.json" "a number"
done
not_result compare "$T/null-nonl.json" null
not_result compare "$T/42-nonl.json" "a number"
not_result compare "$T/float.json" "a number"
not_result compare "$T/string.json" "a string"
not_result compare "$T/true.json" "a boolean"
not_result compare "$T/array.json" "an array"
[ ! -e "$T/r.html" ] && ok "report: no page written for a file that is no result" ||
	nok "report: no page written for a file that is no result"

printf '{"format_version": 1, "tests": [4' >"$T/cut.json"
"$FSBENCH" compare "$T/cut.json" >"$T/out" 2>"$T/err"; rc=$?
if [ $rc -eq 1 ] && one_line "$T/err" && grep -q ": truncated JSON\$" "$T/err"; then
	ok "a document cut short (ending in a number) is still 'truncated JSON'"
else
	nok "a document cut short is still 'truncated JSON' (exit $rc)"; diag "$T/err"
fi
printf '42 43\n' >"$T/two.json"
"$FSBENCH" compare "$T/two.json" >"$T/out" 2>"$T/err"; rc=$?
if [ $rc -eq 1 ] && one_line "$T/err" && grep -q ": not valid JSON (.* at byte 3)\$" "$T/err"; then
	ok "two numbers: not valid JSON at byte 3 (the first is no document of its own)"
else
	nok "two numbers: not valid JSON at byte 3 (exit $rc)"; diag "$T/err"
fi

# ---- usage errors that name what is expected ----
# usage_line DESC PATTERN ARGS...: exit 2, one line matching PATTERN.
usage_line() {
	local desc=$1 pat=$2 rc
	shift 2
	"$FSBENCH" "$@" >"$T/out" 2>"$T/err"; rc=$?
	if [ $rc -eq 2 ] && one_line "$T/err" && grep -q -- "$pat" "$T/err"; then
		ok "$desc"
	else
		nok "$desc (exit $rc)"; diag "$T/err"
	fi
}
for f in auto2 Auto 0; do
	usage_line "run --repeat $f: the message names both forms" \
		"invalid --repeat '$f': expected a whole number from 1 to 1000, or auto\$" \
		run --repeat "$f" "$D"
done
usage_line "compare '': an empty file name is a usage error" \
	"^fsbench: compare: an empty file name" compare "$T/two.json" ""
usage_line "report '': an empty file name is a usage error" \
	"^fsbench: report: an empty file name" report -o "$T/r.html" ""

# ---- -o where no file can be created: exit 2 at startup ----
now() { date +%s.%N; }
# refused_at_start DESC PATTERN ARGS...: a run of at least 2 s (min-time)
# exits 2 in under a second, one line matching PATTERN, no scratch dir
# and no fallback file.
refused_at_start() {
	local what=$1 pat=$2 t0 rc why=""; shift 2
	t0=$(now)
	"$FSBENCH" run --tests null --repeat 1 --min-time 2 --quiet "$@" "$D" >"$T/out" 2>"$T/err"; rc=$?
	[ $rc -eq 2 ] || why="$why exit $rc, want 2;"
	awk -v a="$t0" -v b="$(now)" 'BEGIN { exit !(b - a < 1) }' || why="$why not at startup;"
	one_line "$T/err" || why="$why stderr is not one 'fsbench: ' line;"
	grep -q -- "$pat" "$T/err" || why="$why message does not match '$pat';"
	no_scratch_left "$D" || why="$why scratch dir left;"
	[ -z "$(ls -A "$TMPDIR")" ] || why="$why a fallback file was written;"
	if [ -z "$why" ]; then ok "$what"; else nok "$what ($why)"; diag "$T/err"; fi
}
refused_at_start "-o /proc/version: exit 2 at startup, naming /proc" \
	"^fsbench: cannot write '/proc/version': no file can be created in '/proc' (No such file or directory)\$" \
	-o /proc/version
refused_at_start "-o /proc/new.json: exit 2 at startup" "no file can be created in '/proc'" \
	-o /proc/new.json
if is_root; then
	refused_at_start "-o /sys/kernel/r.json (root passes access(2) there): exit 2 at startup" \
		"cannot create a file in '/sys/kernel': " -o /sys/kernel/r.json
	# A filesystem with no inode left: access(2) says yes, creating says no.
	mkdir "$T/full"
	if mount_tmpfs "$T/full" size=1m,nr_inodes=8; then
		i=0
		while : 2>/dev/null >"$T/full/f$i"; do i=$((i + 1)); [ $i -gt 100 ] && break; done
		refused_at_start "-o on a filesystem out of inodes: exit 2 at startup" \
			"cannot create a file in '$T/full': No space left on device" -o "$T/full/r.json"
		[ ! -e "$T/full/r.json" ] && [ "$(ls -A "$T/full" | wc -l)" -eq "$i" ] &&
			ok "out of inodes: nothing left in the directory" ||
			nok "out of inodes: nothing left in the directory"
	else
		skip "-o on a filesystem out of inodes" "cannot mount a tmpfs"
	fi
else
	skip "-o in /sys and on a filesystem out of inodes" "needs root (access(2) stops others)"
fi
# The probe leaves nothing behind where it succeeds either.
"$FSBENCH" run --tests null --repeat 1 --min-time 0.001 --quiet --format json -o "$T/ok.json" "$D" \
	>"$T/out" 2>"$T/err"; rc=$?
if [ $rc -eq 0 ] && [ "$(ls -A "$T" | grep -c '\.tmp$')" -eq 0 ] && pycheck "$T/ok.json" 'assert d["kind"] == "run"'; then
	ok "-o in a writable directory: written, no probe or temporary file left"
else
	nok "-o in a writable directory: written, nothing left (exit $rc)"; diag "$T/err"
fi

done_testing
