#!/bin/bash
# -o/--output never destroys what it was not meant to, and -o and --format
# are checked before any work: /dev/null stays a device, /dev/stdout and a
# FIFO are written in place, an input, a directory, a symlink, a missing
# directory or a format the command cannot show is refused at once (exit 2,
# no scratch dir, no image); an existing file keeps its mode and owner; a
# report that cannot be written at the end is kept in a fallback file.
# Fast: the null test, or nothing at all. Root-only parts skip without root.
. "$(dirname "$0")/lib.sh"

[ -x "$FSBENCH" ] || { echo "Bail out! $FSBENCH not built"; exit 1; }
tmpdir T || exit 1
# Fallback files and lifecycle's scratch dirs go to TMPDIR: keep them in ours.
mkdir "$T/tmp"
export TMPDIR=$T/tmp
D=$T/dir
mkdir "$D"
QUICK=(run --tests null --repeat 1 --min-time 0.001 --quiet)
# A run that measures for 2 s at least: long enough to see it start work.
SLOW=(run --tests null --repeat 1 --min-time 2 --quiet)

now() { date +%s.%N; }
# under SECS START: less than SECS seconds since START.
under() { awk -v s="$1" -v a="$2" -v b="$(now)" 'BEGIN { exit !(b - a < s) }'; }

# refused_early DESC ARGS...: `fsbench ARGS` (a SLOW run) exits 2 in under
# a second with one line on stderr, and no scratch dir ever appears in $D
# (watched while it runs: a run that started work would show one).
refused_early() {
	local what=$1 t0 pid rc seen=0 why=""; shift
	t0=$(now)
	"$FSBENCH" "$@" >"$T/out" 2>"$T/err" &
	pid=$!
	while kill -0 $pid 2>/dev/null; do
		compgen -G "$D/fsbench.*" >/dev/null && seen=1
		sleep 0.01
	done
	wait $pid; rc=$?
	[ $rc -eq 2 ] || why="$why exit $rc, want 2;"
	under 1 "$t0" || why="$why took $(awk -v a="$t0" -v b="$(now)" 'BEGIN { print b - a }') s;"
	[ $seen -eq 0 ] || why="$why a scratch dir appeared;"
	one_line "$T/err" || why="$why stderr is not one 'fsbench: ' line;"
	no_scratch_left "$D" || why="$why scratch dir left;"
	if [ -z "$why" ]; then ok "$what"; else nok "$what ($why)"; diag "$T/err"; fi
}

# ---- devices, descriptors and FIFOs are written in place ----
"$FSBENCH" "${QUICK[@]}" --format json -o /dev/null "$D" >"$T/out" 2>"$T/err"; rc=$?
if [ $rc -eq 0 ] && [ "$(stat -c '%F %t:%T' /dev/null)" = "character special file 1:3" ] &&
	[ ! -s "$T/out" ]; then
	ok "-o /dev/null: exit 0, /dev/null is still the null device"
else
	nok "-o /dev/null: exit 0, /dev/null is still the null device (exit $rc, $(stat -c '%F %t:%T' /dev/null))"
	diag "$T/err"
fi

"$FSBENCH" "${QUICK[@]}" --format json -o /dev/stdout "$D" >"$T/stdout.json" 2>"$T/err"; rc=$?
if [ $rc -eq 0 ] && pycheck "$T/stdout.json" 'assert d["kind"] == "run", d["kind"]'; then
	ok "-o /dev/stdout > FILE: the report lands in FILE"
else
	nok "-o /dev/stdout > FILE: the report lands in FILE (exit $rc)"; diag "$T/err"
fi
"$FSBENCH" "${QUICK[@]}" --format json -o /dev/fd/7 "$D" 7>"$T/fd7.json" >"$T/out" 2>"$T/err"; rc=$?
if [ $rc -eq 0 ] && [ ! -s "$T/out" ] && pycheck "$T/fd7.json" 'assert d["kind"] == "run"'; then
	ok "-o /dev/fd/7 7>FILE: written through descriptor 7"
else
	nok "-o /dev/fd/7 7>FILE: written through descriptor 7 (exit $rc)"; diag "$T/err"
fi
"$FSBENCH" "${QUICK[@]}" -o /dev/fd/7 "$D" 7<"$T/fd7.json" >"$T/out" 2>"$T/err"; rc=$?
if [ $rc -eq 2 ] && one_line "$T/err" && pycheck "$T/fd7.json" 'assert d["kind"] == "run"'; then
	ok "-o /dev/fd/7 open for reading only: exit 2 at startup"
else
	nok "-o /dev/fd/7 open for reading only: exit 2 at startup (exit $rc)"; diag "$T/err"
fi

mkfifo "$T/fifo"
# Bounded: a fsbench that never opens the FIFO must not hang the test.
timeout 20 cat "$T/fifo" >"$T/from-fifo" &
reader=$!
"$FSBENCH" "${QUICK[@]}" --format json -o "$T/fifo" "$D" >"$T/out" 2>"$T/err"; rc=$?
wait $reader
if [ $rc -eq 0 ] && [ -p "$T/fifo" ] && pycheck "$T/from-fifo" 'assert d["kind"] == "run"'; then
	ok "-o FIFO: the reader gets the report, the FIFO stays a FIFO"
else
	nok "-o FIFO: the reader gets the report, the FIFO stays a FIFO (exit $rc)"; diag "$T/err"
fi

# ---- an existing file: replaced, mode and owner kept ----
echo old >"$T/kept.json"
chmod 0640 "$T/kept.json"
owner=$(id -u):$(id -g)
if is_root; then
	chown nobody "$T/kept.json" && owner=$(stat -c %u:%g "$T/kept.json")
fi
"$FSBENCH" "${QUICK[@]}" --format json -o "$T/kept.json" "$D" 2>"$T/err"; rc=$?
if [ $rc -eq 0 ] && pycheck "$T/kept.json" 'assert d["kind"] == "run"' &&
	[ "$(stat -c %a "$T/kept.json")" = 640 ] && [ "$(stat -c %u:%g "$T/kept.json")" = "$owner" ]; then
	ok "existing -o file (0640, owner $owner): replaced, mode and owner kept"
else
	nok "existing -o file (0640, owner $owner): replaced, mode and owner kept" \
		"(exit $rc, now $(stat -c '%a %u:%g' "$T/kept.json"))"
	diag "$T/err"
fi
[ -z "$(find "$T" -maxdepth 1 -name '.kept.json.*')" ] && ok "no temporary file left beside it" ||
	nok "no temporary file left beside it"

# ---- refused before any work: exit 2, under a second, no scratch dir ----
refused_early "run --format lifecycle: exit 2 at once, no scratch dir" \
	"${SLOW[@]}" --format lifecycle "$D"
refused_early "-o missing-dir/x.json: exit 2 at once, no scratch dir" \
	"${SLOW[@]}" -o "$T/missing-dir/x.json" "$D"
[ ! -e "$T/missing-dir" ] && ok "the missing directory is not created" ||
	nok "the missing directory is not created"
mkdir "$T/a-dir"
refused_early "-o DIR: exit 2 at once, no scratch dir" "${SLOW[@]}" -o "$T/a-dir" "$D"
empty_dir "$T/a-dir" && ok "-o DIR: the directory is untouched" || nok "-o DIR: the directory is untouched"

echo precious >"$T/target"
ln -s "$T/target" "$T/link"
refused_early "-o SYMLINK: exit 2 at once, no scratch dir" "${SLOW[@]}" -o "$T/link" "$D"
if [ -L "$T/link" ] && [ "$(cat "$T/target")" = precious ] && grep -qF "'$T/target'" "$T/err"; then
	ok "-o SYMLINK: link and target untouched, the message names the target"
else
	nok "-o SYMLINK: link and target untouched, the message names the target"; diag "$T/err"
fi

if is_root; then
	mkdir "$T/ro"
	if mount_tmpfs "$T/ro" size=1m,ro; then
		refused_early "-o on a read-only filesystem: exit 2 at once, no scratch dir" \
			"${SLOW[@]}" -o "$T/ro/r.json" "$D"
	else
		skip "-o on a read-only filesystem" "cannot mount a tmpfs"
	fi
else
	skip "-o on a read-only filesystem" "needs root (mode bits do not stop root)"
fi

# ---- -o naming an input: exit 2, the input unchanged ----
cp "$T/kept.json" "$T/a.json"
cp "$T/kept.json" "$T/b.json"
sum=$(sha1sum <"$T/a.json")
for cmd in compare report; do
	"$FSBENCH" $cmd -o "$T/a.json" "$T/b.json" "$T/a.json" >"$T/out" 2>"$T/err"; rc=$?
	if [ $rc -eq 2 ] && one_line "$T/err" && [ "$(sha1sum <"$T/a.json")" = "$sum" ]; then
		ok "$cmd -o a.json b.json a.json: exit 2, a.json unchanged"
	else
		nok "$cmd -o a.json b.json a.json: exit 2, a.json unchanged (exit $rc)"; diag "$T/err"
	fi
done
# No -o, but the shell points standard output at an input.
for cmd in show compare; do
	"$FSBENCH" $cmd "$T/a.json" >>"$T/a.json" 2>"$T/err"; rc=$?
	if [ $rc -eq 2 ] && one_line "$T/err" && grep -q 'it is the input' "$T/err" &&
		[ "$(sha1sum <"$T/a.json")" = "$sum" ]; then
		ok "$cmd a.json >>a.json: exit 2, a.json unchanged"
	else
		nok "$cmd a.json >>a.json: exit 2, a.json unchanged (exit $rc)"; diag "$T/err"
		cp "$T/kept.json" "$T/a.json"
	fi
done
ln "$T/a.json" "$T/hard.json"
"$FSBENCH" compare -o "$T/hard.json" "$T/a.json" >"$T/out" 2>"$T/err"; rc=$?
if [ $rc -eq 2 ] && [ "$(sha1sum <"$T/a.json")" = "$sum" ]; then
	ok "compare -o HARDLINK-OF-INPUT: exit 2, input unchanged"
else
	nok "compare -o HARDLINK-OF-INPUT: exit 2, input unchanged (exit $rc)"; diag "$T/err"
fi
"$FSBENCH" compare -o /dev/null "$T/a.json" "$T/b.json" >"$T/out" 2>"$T/err"; rc=$?
[ $rc -eq 0 ] && [ -c /dev/null ] && ok "compare -o /dev/null: exit 0" ||
	{ nok "compare -o /dev/null: exit 0 (exit $rc)"; diag "$T/err"; }

# ---- lifecycle and matrix: checked before anything is made ----
# lc_refused DESC ARGS...: exit 2, one line, no image, no loop device, no
# scratch dir in TMPDIR.
lc_refused() {
	local what=$1 rc why=""; shift
	timeout 300 "$FSBENCH" lifecycle --fs ext4 --image "$T/lc.img" --image-size 64m \
		--phases mount-umount --repeat 1 "$@" >"$T/out" 2>"$T/err"; rc=$?
	[ $rc -eq 2 ] || why="$why exit $rc, want 2;"
	one_line "$T/err" || why="$why stderr is not one 'fsbench: ' line;"
	[ -e "$T/lc.img" ] && why="$why image made;"
	[ -z "$(losetup -j "$T/lc.img" 2>/dev/null)" ] || why="$why loop device left;"
	no_scratch_left "$TMPDIR" || why="$why scratch dir left;"
	if [ -z "$why" ]; then ok "$what"; else nok "$what ($why)"; diag "$T/err"; fi
	rm -f "$T/lc.img"
}
lc_refused "lifecycle --format bonnie: exit 2 before anything is made" --format bonnie
lc_refused "lifecycle -o IMAGE (the image it would make): exit 2" -o "$T/lc.img"
lc_refused "lifecycle -o missing-dir/x: exit 2 before anything is made" -o "$T/nodir/x.txt"

cat >"$T/lc-only.ini" <<EOF
[global]
image_size = 64m
workdir = $T
lifecycle = --phases mount-umount --repeat 1
[ext4]
EOF
ini_sum=$(sha1sum <"$T/lc-only.ini")
timeout 300 "$FSBENCH" matrix --format csv "$T/lc-only.ini" >"$T/out" 2>"$T/err"; rc=$?
if [ $rc -eq 2 ] && one_line "$T/err" && no_scratch_left "$T"; then
	ok "matrix --format csv without a run suite: exit 2 before any setup"
else
	nok "matrix --format csv without a run suite: exit 2 before any setup (exit $rc)"; diag "$T/err"
fi
timeout 300 "$FSBENCH" matrix -o "$T/lc-only.ini" "$T/lc-only.ini" >"$T/out" 2>"$T/err"; rc=$?
if [ $rc -eq 2 ] && one_line "$T/err" && [ "$(sha1sum <"$T/lc-only.ini")" = "$ini_sum" ]; then
	ok "matrix -o CONFIG.ini CONFIG.ini: exit 2, the INI unchanged"
else
	nok "matrix -o CONFIG.ini CONFIG.ini: exit 2, the INI unchanged (exit $rc)"; diag "$T/err"
fi
timeout 60 "$FSBENCH" guest --format lifecycle -- run --tests null >"$T/out" 2>"$T/err"; rc=$?
if [ $rc -eq 2 ] && one_line "$T/err"; then
	ok "guest --format lifecycle -- run: exit 2 before anything boots"
else
	nok "guest --format lifecycle -- run: exit 2 before anything boots (exit $rc)"; diag "$T/err"
fi

# ---- the final write fails: the result is kept, exit 1 ----
# kept_in_fallback DESC: exit 1, one line naming a fallback file in TMPDIR
# that holds the JSON report (mode 0600).
kept_in_fallback() {
	local what=$1 rc=$2 f
	f=$(sed -n "s/.*(the result is in '\(.*\)')\$/\1/p" "$T/err")
	if [ "$rc" -eq 1 ] && one_line "$T/err" && [ -n "$f" ] && [ "$(dirname "$f")" = "$TMPDIR" ] &&
		[ "$(stat -c %a "$f")" = 600 ] && pycheck "$f" 'assert d["kind"] == "run"'; then
		ok "$what"
	else
		nok "$what (exit $rc)"; diag "$T/err"
	fi
	[ -n "$f" ] && rm -f "$f"
}
"$FSBENCH" "${QUICK[@]}" --format json -o /dev/full "$D" >"$T/out" 2>"$T/err"
kept_in_fallback "-o /dev/full: exit 1, the result kept in TMPDIR" $?
"$FSBENCH" "${QUICK[@]}" --format json "$D" >/dev/full 2>"$T/err"
kept_in_fallback "> /dev/full: exit 1, the result kept in TMPDIR" $?

done_testing
