#!/bin/bash
# Long paths (issue 9, item 11: a 4072-character directory made `run` exit
# 1 with no message). Every place a path the user gives can be too long
# either works or says in one line what and why ("File name too long"):
# run DIR, run -o PATH, lifecycle --image, matrix's workdir, clean DIR,
# each at 4072 characters (what fits in PATH_MAX, not with fsbench's own
# names below it) and at 5000 (more than PATH_MAX; the directories are
# made one component at a time). Nothing is left behind.
. "$(dirname "$0")/lib.sh"

[ -x "$FSBENCH" ] || { echo "Bail out! $FSBENCH not built"; exit 1; }
tmpdir T || exit 1
export TMPDIR=$T/tmp
mkdir "$TMPDIR"

# deep LEN: make a directory whose absolute path is LEN characters long
# (components of at most 200) and print it.
deep() {
	local len=$1 p=$T/d rest n
	rest=$((len - ${#p}))
	while ((rest > 0)); do
		n=$((rest - 1 > 200 ? 200 : rest - 1))
		((rest - n - 1 == 1)) && n=$((n - 2))
		((n < 1)) && n=1
		p=$p/$(printf '%*s' "$n" '' | tr ' ' x)
		rest=$((len - ${#p}))
	done
	mkdir -p "$p" && printf '%s' "$p"
}

# fine DESC WANT ARGS...: fsbench ARGS exits 0, or exits WANT with one line
# saying why ("File name too long" / "too long"); nothing left behind.
fine() {
	local what=$1 want=$2 rc why=""; shift 2
	timeout 300 "$FSBENCH" "$@" >"$T/out" 2>"$T/err"; rc=$?
	if [ $rc -ne 0 ]; then
		[ $rc -eq "$want" ] || why="$why exit $rc, want 0 or $want;"
		one_line "$T/err" || why="$why stderr is not one 'fsbench: ' line;"
		grep -Eq '(File name too long|too long[^:]*)$' "$T/err" || why="$why the line does not end saying why;"
	fi
	left=$(leftovers)
	[ -z "$left" ] || why="$why left:$left"
	if [ -z "$why" ]; then
		ok "$what (exit $rc)"
	else
		nok "$what ($why)"; sed 's/xxxxxxxxx*/x…x/g' "$T/err" | diag /dev/stdin
	fi
}
leftovers() {
	local l=""
	[ -z "$(find "$T" -name 'fsbench.*' -print -quit)" ] || l="$l scratch dir;"
	[ -z "$(find "$T" -name 'fsbench-result.*' -print -quit)" ] || l="$l fallback file;"
	[ -z "$(losetup -l -n -O BACK-FILE 2>/dev/null | grep "^$T/")" ] || l="$l loop device;"
	[ "$(findmnt -rn -o TARGET | grep -c "^$T/")" -eq 0 ] || l="$l mount;"
	printf '%s' "$l"
}

D4072=$(deep 4072) || { echo "Bail out! cannot make a 4072-character directory"; exit 1; }
D5000=$(deep 5000) || { echo "Bail out! cannot make a 5000-character directory"; exit 1; }
RUN=(run --tests write,seq-create --size 64k --files 16 --repeat 1 --min-time 0.001 --cache keep --quiet)

# ---- run DIR ----
fine "run DIR of 4072 characters (item 11)" 1 "${RUN[@]}" "$D4072"
# (The path fills the line: its closing quote may be cut, the why is not.)
grep -q "^fsbench: run: cannot create a scratch directory in '.*: File name too long\$" "$T/err" &&
	ok "run DIR of 4072: the line says it cannot make the scratch directory, and why" ||
	{ nok "run DIR of 4072: the line says what and why"; diag "$T/err"; }
fine "run DIR of 5000 characters" 1 "${RUN[@]}" "$D5000"
for len in 4040 4058 4061; do
	d=$(deep $len)
	fine "run DIR of $len characters (the scratch dir's own names pass PATH_MAX)" 1 "${RUN[@]}" "$d"
done

# ---- run -o PATH ----
fine "run -o PATH of 4081 characters" 2 "${RUN[@]}" --format json -o "$D4072/r.json" "$T"
fine "run -o PATH of 5009 characters" 2 "${RUN[@]}" --format json -o "$D5000/r.json" "$T"
rm -f "$D4072/r.json"

# ---- clean DIR ----
fine "clean DIR of 4072 characters" 1 clean "$D4072"
fine "clean DIR of 5000 characters" 1 clean "$D5000"
# A killed run's scratch dir whose path passes PATH_MAX only below DIR.
mkdir "$T/k"
"$FSBENCH" run --tests null --repeat 1 --min-time 30 --quiet "$T/k" >/dev/null 2>&1 &
pid=$!
for ((i = 0; i < 200; i++)); do compgen -G "$T/k/fsbench.*" >/dev/null && break; sleep 0.05; done
kill -9 $pid 2>/dev/null
wait $pid 2>/dev/null
if compgen -G "$T/k/fsbench.*" >/dev/null; then
	d=$(deep 4080)
	mv "$T"/k/fsbench.* "$d/"
	# Below DIR the path passes PATH_MAX: clean cannot examine the dir, so
	# it must say so in one line and exit 1 (the dir stays: nothing proves
	# it is ours).
	"$FSBENCH" clean "$d" >"$T/out" 2>"$T/err"
	rc=$?
	if [ $rc -eq 1 ] && one_line "$T/err" && grep -q "File name too long$" "$T/err"; then
		ok "clean DIR (4080) with a killed run's scratch dir below PATH_MAX's reach: one line why, exit 1"
	else
		nok "clean DIR (4080) with a killed run's scratch dir: exit $rc"
		sed 's/xxxxxxxxx*/x…x/g' "$T/err" | diag /dev/stdin
	fi
	# Relative to $d: the path below it is longer than PATH_MAX.
	(cd "$d" && rm -rf fsbench.*)
else
	nok "clean: could not make a killed run's scratch dir to clean"
fi

if ! is_root; then
	skip "lifecycle --image and matrix workdir with long paths" "needs root (loop devices)"
	done_testing
	exit 0
fi

# ---- lifecycle --image ----
LC=(lifecycle --fs ext4 --image-size 32m --repeat 1 --phases mount-umount --progress never --quiet)
fine "lifecycle --image of 4076 characters" 1 "${LC[@]}" --image "$D4072/img"
rm -f "$D4072/img"
fine "lifecycle --image of 5004 characters" 1 "${LC[@]}" --image "$D5000/img"

# ---- matrix workdir ----
# In the file a workdir this long is a line too long; through a symlink
# its real path is what fsbench resolves and uses.
ini() { printf '[global]\nimage_size = 32m\nworkdir = %s\nrun = --size 64k --files 16 --repeat 1 --tests write --cache keep\n[ext4]\n' "$1" >"$T/m.ini"; }
ini "$D4072"
fine "matrix workdir of 4072 characters in the file" 2 matrix --progress never "$T/m.ini"
ln -s "$D4072" "$T/w"
ini "$T/w"
fine "matrix workdir reached through a symlink, real path of 4072 characters" \
	1 matrix --progress never "$T/m.ini"

done_testing
