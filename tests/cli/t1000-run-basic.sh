#!/bin/bash
# fsbench run: usage, bad input, a tiny real run, --repeat auto, two runs at
# once, --output.
# Fast and root-free (the "not writable" case switches to nobody when root).
. "$(dirname "$0")/lib.sh"

tmpdir T || exit 1
chmod 0755 "$T" # so that nobody can reach the dirs below (not-writable case)

[ -x "$FSBENCH" ] || { echo "Bail out! $FSBENCH not built"; exit 1; }

# ---- --help and --version ----
for args in "--help" "run --help" "-h" "run -h"; do
	# shellcheck disable=SC2086
	"$FSBENCH" $args >"$T/out" 2>"$T/err"; rc=$?
	if [ $rc -eq 0 ] && grep -q '^usage: fsbench' "$T/out" && [ ! -s "$T/err" ]; then
		ok "'fsbench $args' exits 0 and prints usage on stdout"
	else
		nok "'fsbench $args' exits 0 and prints usage on stdout (exit $rc)"; diag "$T/err"
	fi
done
if "$FSBENCH" run --help | grep -q -- '--char-io' && "$FSBENCH" run --help | grep -qw seeks; then
	ok "'fsbench run --help' lists the options and the tests"
else
	nok "'fsbench run --help' lists the options and the tests"
fi
# The version, and the commit built when built from a checkout: "fsbench
# 0.2.0 (git 1a2b3c4d)", ", dirty)" with uncommitted changes; a build from
# a release tarball names the commit of its VERSION file (t9500).
want_commit=
if [ -e "$TOP/.git" ] && command -v git >/dev/null 2>&1; then
	want_commit=$(git -C "$TOP" describe --always --abbrev=8 2>/dev/null)
elif [ -f "$TOP/VERSION" ]; then
	want_commit=$(sed -n 2p "$TOP/VERSION")
fi
want_version=$(sed -n 's/^VERSION *:= *//p' "$TOP/Makefile")
for args in "--version" "run --version" "run -V"; do
	# shellcheck disable=SC2086
	"$FSBENCH" $args >"$T/out" 2>"$T/err"; rc=$?
	line=$(cat "$T/out")
	if [ $rc -eq 0 ] && [ ! -s "$T/err" ] && [ "$(wc -l <"$T/out")" -eq 1 ] &&
		case $line in
		"fsbench $want_version") [ -z "$want_commit" ] ;;
		"fsbench $want_version (git $want_commit)" | \
			"fsbench $want_version (git $want_commit, dirty)") [ -n "$want_commit" ] ;;
		*) false ;;
		esac; then
		ok "'fsbench $args' exits 0 and prints 'fsbench $want_version${want_commit:+ (git $want_commit...)}'"
	else
		nok "'fsbench $args' exits 0 and prints 'fsbench $want_version${want_commit:+ (git $want_commit...)}' (exit $rc)"
		diag "$T/out"
	fi
done

# ---- bad input: exit 2, one line on stderr, nothing created ----
# usage_error "what" ARGS...: runs `fsbench run ARGS DIR` on a fresh dir.
usage_error() {
	local what=$1 d rc why=""; shift
	d=$(mktemp -d "$T/bad.XXXXXX")
	"$FSBENCH" run "$@" "$d" >"$T/out" 2>"$T/err"; rc=$?
	[ $rc -eq 2 ] || why="$why exit $rc, want 2;"
	one_line "$T/err" || why="$why stderr is not one 'fsbench: ' line;"
	[ -s "$T/out" ] && why="$why stdout not empty;"
	empty_dir "$d" || why="$why created: $(ls -A "$d" | tr '\n' ' ');"
	if [ -z "$why" ]; then
		ok "usage error: $what"
	else
		nok "usage error: $what ($why)"; diag "$T/err"
	fi
}
usage_error "--size 12q" --size 12q --tests write
usage_error "--size -1" --size -1 --tests write
usage_error "--size 0" --size 0 --tests write
usage_error "--chunk 3 (not a power of two)" --chunk 3 --tests write
usage_error "--chunk 4k --size 2k (chunk > size)" --chunk 4k --size 2k --tests write
usage_error "unknown option --bogus" --bogus
usage_error "unknown short option -x" -x
usage_error "unknown test (--tests bogus)" --tests bogus
usage_error "unknown test in a list (--tests write,bogus)" --tests write,bogus
usage_error "--format nope" --format nope --tests write
usage_error "--cache nope" --cache nope --tests write
usage_error "--repeat 0" --repeat 0 --tests write
usage_error "--min-time abc" --min-time abc --tests write
usage_error "--min-time 1e-9 (under 1 ms)" --min-time 1e-9 --tests write
usage_error "--min-time 0.5ms (under 1 ms)" --min-time 0.5ms --tests write
usage_error "--char-io nope" --char-io nope --tests putc
usage_error "--seekers 0" --seekers 0 --tests seeks

# The implicit command (`fsbench [OPTIONS] DIR`) checks the same way.
d=$(mktemp -d "$T/bad.XXXXXX")
"$FSBENCH" --size 12q "$d" >"$T/out" 2>"$T/err"; rc=$?
if [ $rc -eq 2 ] && one_line "$T/err" && empty_dir "$d"; then
	ok "usage error without the 'run' word: --size 12q"
else
	nok "usage error without the 'run' word: --size 12q (exit $rc)"; diag "$T/err"
fi

# ---- DIR missing, not a directory, not writable: exit 1, one line ----
# dir_error "what" DIR [PREFIX...]: PREFIX runs fsbench as another user.
dir_error() {
	local what=$1 dir=$2 rc why=""; shift 2
	"$@" "$FSBENCH" run --size 4m --tests write "$dir" >"$T/out" 2>"$T/err"; rc=$?
	[ $rc -eq 1 ] || why="$why exit $rc, want 1;"
	one_line "$T/err" || why="$why stderr is not one 'fsbench: ' line;"
	grep -qF "$dir" "$T/err" || why="$why error does not name the dir;"
	if [ -z "$why" ]; then
		ok "runtime error: $what"
	else
		nok "runtime error: $what ($why)"; diag "$T/err"
	fi
}
dir_error "DIR missing" "$T/no-such-dir"
[ ! -e "$T/no-such-dir" ] && ok "missing DIR is not created" || nok "missing DIR is not created"
touch "$T/a-file"
dir_error "DIR is a file" "$T/a-file"
dir_error "DIR below a file" "$T/a-file/sub"

mkdir "$T/ro" && chmod 0555 "$T/ro"
if is_root; then
	as_nobody=""
	if command -v setpriv >/dev/null && setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null; then
		as_nobody="setpriv --reuid=65534 --regid=65534 --clear-groups"
	elif runuser -u nobody -- true 2>/dev/null; then
		as_nobody="runuser -u nobody --"
	fi
	# nobody must be able to reach the binary (and its directory) at all.
	if [ -n "$as_nobody" ] && $as_nobody test -x "$FSBENCH" && $as_nobody test -r "$T/ro"; then
		# shellcheck disable=SC2086
		dir_error "DIR not writable (mode 0555, as nobody)" "$T/ro" $as_nobody
		empty_dir "$T/ro" && ok "nothing created in the unwritable DIR" ||
			nok "nothing created in the unwritable DIR"
	else
		skip "DIR not writable" "cannot run $FSBENCH as nobody"
		skip "nothing created in the unwritable DIR" "cannot run as nobody"
	fi
else
	dir_error "DIR not writable (mode 0555)" "$T/ro"
	empty_dir "$T/ro" && ok "nothing created in the unwritable DIR" ||
		nok "nothing created in the unwritable DIR"
fi

# ---- a real run, tiny sizes ----
RUN=(run --size 4m --repeat 2 --min-time 0.05 --tests throughput --quiet)
D=$T/run1; O=$T/out1
mkdir "$D" "$O"
"$FSBENCH" "${RUN[@]}" --format json -o "$O/out.json" "$D" >"$T/out" 2>"$T/err"; rc=$?
if [ $rc -eq 0 ]; then ok "tiny run exits 0"; else nok "tiny run exits 0 (exit $rc)"; diag "$T/err"; fi
[ ! -s "$T/out" ] && ok "nothing on stdout with --output" || nok "nothing on stdout with --output"
[ ! -s "$T/err" ] && ok "nothing on stderr (--quiet, no TTY)" || { nok "nothing on stderr (--quiet, no TTY)"; diag "$T/err"; }
no_scratch_left "$D" && empty_dir "$D" && ok "no fsbench.* scratch entry left in DIR" ||
	{ nok "no fsbench.* scratch entry left in DIR"; ls -A "$D" | sed 's/^/#   /'; }
[ "$(ls -A "$O")" = "out.json" ] && ok "--output: out.json and no temporary file" ||
	{ nok "--output: out.json and no temporary file"; ls -A "$O" | sed 's/^/#   /'; }
check "json: six tests, each median > 0 (and min <= median <= max), runs of 2, latency_us" \
	pycheck "$O/out.json" '
ids = [t["id"] for t in d["tests"]]
assert sorted(ids) == sorted(["putc","write","rewrite","getc","read","seeks"]), ids
for t in d["tests"]:
    i = t["id"]
    assert t["median"] > 0, (i, "median", t["median"])
    assert 0 < t["min"] <= t["median"] <= t["max"], (i, t["min"], t["median"], t["max"])
    assert len(t["runs"]) == 2 and all(r > 0 for r in t["runs"]), (i, t["runs"])
    assert t["cv"] >= 0, (i, t["cv"])
    assert t["cpu_pct"] > 0, (i, "cpu_pct", t["cpu_pct"])
    assert t["work"] > 0, (i, "work", t["work"])
    lat = t["latency_us"]
    for k in ("max", "p50", "p99", "p999"):
        assert k in lat, (i, "latency_us lacks", k)
    assert 0 < lat["p50"] <= lat["p99"] <= lat["p999"] <= lat["max"], (i, lat)
    assert t["unit"] == ("ops/s" if i == "seeks" else "B/s"), (i, t["unit"])
'
check "json: document shape (kind, params echo the options)" pycheck "$O/out.json" '
assert d["format_version"] == 1 and d["tool"] == "fsbench" and d["kind"] == "run", d.get("kind")
p = d["params"]
assert p["size_bytes"] == 4 << 20, p["size_bytes"]
assert p["chunk_bytes"] == 8192 and p["repeat"] == 2 and p["cache"] == "drop", p
assert abs(p["min_time_s"] - 0.05) < 1e-9, p["min_time_s"]
assert d["host"]["cpus"] >= 1 and d["host"]["ram_bytes"] > 0, d["host"]
'
# A --size the user gave is run exactly (issue 26): write's work is
# --size, rewrite's and read's too, or passes over a file of exactly
# --size where the filesystem makes passes honest; never grown, and
# chosen says so; a run shorter
# than --min-time at that size says why (short_reason "given") instead of
# growing. Every other kept run lasted --min-time (elapsed_s is the mean
# run time when present).
check "json: work == --size for block tests, chosen given, short runs say why" pycheck "$O/out.json" '
for t in d["tests"]:
    if t["id"] == "write" or (t["id"] in ("rewrite", "read") and "file_bytes" not in t):
        assert t["work"] == 4 << 20, (t["id"], t["work"])
    if t["id"] in ("rewrite", "read") and "file_bytes" in t:
        assert t["file_bytes"] == 4 << 20, (t["id"], t["file_bytes"])
        assert t["chosen"]["how"] == "given", (t["id"], t.get("chosen"))
    if "elapsed_s" in t and "short_reason" not in t:
        assert t["elapsed_s"] >= 0.05, (t["id"], t["elapsed_s"])
'

# The text view says in one line how the work was chosen.
D=$T/run_chosen; mkdir "$D"
"$FSBENCH" run --size 4m --repeat 1 --min-time 0.05 --tests write --quiet "$D" >"$T/chosen.txt" 2>"$T/err"
grep -q "^Work: given for write\.$" "$T/chosen.txt" && ok "text: one line says the given --size was used" ||
	{ nok "text: one line says the given --size was used"; diag "$T/chosen.txt"; }

# Seeks on a filesystem in memory: a small block file grows to hold the
# work (passes from 512 MiB on), so the runs last --min-time. Capped at
# every chunk of --size's 4 MiB once, they ran 0.007 s "at the largest
# work possible" (and 0.046 s in the suite above, on tmpfs).
if is_root; then
	tmpdir R
	if mount_tmpfs "$R" size=1g; then
		"$FSBENCH" run --size 4m --repeat 2 --min-time 0.05 --tests seeks --quiet \
			--format json -o "$T/seeks.json" "$R" >"$T/out" 2>"$T/err"; rc=$?
		if [ $rc -eq 0 ] && [ ! -s "$T/err" ] && pycheck "$T/seeks.json" '
t = d["tests"][0]
assert t["elapsed_s"] >= 0.05 and t["work"] > 512, (t["elapsed_s"], t["work"])'; then
			ok "seeks on tmpfs: runs last --min-time (the file grows to hold the work)"
		else
			nok "seeks on tmpfs: runs last --min-time (the file grows to hold the work) (exit $rc)"
			diag "$T/err"
		fi
		no_scratch_left "$R" && ok "seeks on tmpfs: no scratch left" ||
			nok "seeks on tmpfs: no scratch left"
	else
		skip "seeks on tmpfs: runs last --min-time" "cannot mount a tmpfs"
		skip "seeks on tmpfs: no scratch left" "cannot mount a tmpfs"
	fi
else
	skip "seeks on tmpfs: runs last --min-time" "not root"
	skip "seeks on tmpfs: no scratch left" "not root"
fi

# ---- --repeat auto: 3 to 10 runs, the interval and the reason recorded ----
D=$T/auto; mkdir "$D"
"$FSBENCH" run --size 4m --repeat auto --min-time 0.02 --tests write,read --quiet \
	--format json -o "$T/auto.json" "$D" >"$T/out" 2>"$T/err"; rc=$?
[ $rc -eq 0 ] && ok "--repeat auto: exits 0" || { nok "--repeat auto: exits 0 (exit $rc)"; diag "$T/err"; }
check "--repeat auto: params say auto; 3 to 10 runs, ci95 around the mean, repeat_stop" \
	pycheck "$T/auto.json" '
assert d["params"]["repeat"] == "auto", d["params"]["repeat"]
for t in d["tests"]:
    n = len(t["runs"])
    assert 3 <= n <= 10, (t["id"], n)
    mean = sum(t["runs"]) / n
    assert t["ci95_low"] <= mean <= t["ci95_high"], (t["id"], t["ci95_low"], mean)
    assert t["repeat_stop"] in ("converged", "max-runs", "time-budget"), t["repeat_stop"]
    if t["repeat_stop"] == "max-runs":
        assert n == 10, (t["id"], n)
    if t["repeat_stop"] == "converged":
        assert (t["ci95_high"] - t["ci95_low"]) / 2 <= 0.05 * mean * 1.000001, t
'
"$FSBENCH" run --size 4m --repeat auto --min-time 0.02 --tests write --quiet "$D" \
	>"$T/out" 2>"$T/err"
grep -Eq '^ +mean .* ±[0-9.]+% \(95% CI, [0-9]+ runs, (converged|max-runs|time-budget)\)$' \
	"$T/out" && ok "--repeat auto: the text view shows the interval under the figure" ||
	{ nok "--repeat auto: the text view shows the interval under the figure"; diag "$T/out"; }

# ---- a scratch file goes after the last test that works on it ----
# As bonnie++ removes its I/O files before the file tests: char.dat is gone
# once getc is done (read runs without it), block.dat once read is (the
# file tests run without it). Seen while the run goes, test by test, from
# its JSON progress; the scratch directory is still there when it is seen.
# A given --size is read exactly: 256 MiB keeps read in sight of the polls.
D2=$T/release
mkdir "$D2"
"$FSBENCH" run --size 256m --files 1k --min-time 0.1 --repeat 3 \
	--tests putc,getc,read,seq-create --progress json --format json -o "$T/release.json" \
	"$D2" >/dev/null 2>"$T/release.prog" &
pid=$!
: >"$T/release.seen"
# Every look while the scratch directory is there says "TEST -", then the
# .dat files it saw: seq-create looked at, not only never seen (60 s at most).
n=3000
while [ $n -gt 0 ] && kill -0 $pid 2>/dev/null; do
	t=$(sed -n 's/.*"event":"test-start","test":"\([a-z-]*\)".*/\1/p' "$T/release.prog" | tail -1)
	for s in "$D2"/fsbench.*; do
		[ -d "$s" ] || continue
		echo "$t -"
		for f in "$s"/*.dat; do
			[ -e "$f" ] && echo "$t ${f##*/}"
		done
	done >>"$T/release.seen"
	sleep 0.02
	n=$((n - 1))
done
wait $pid; rc=$?
if [ $rc -eq 0 ] && grep -qx 'getc char.dat' "$T/release.seen" &&
	grep -qx 'read block.dat' "$T/release.seen" && ! grep -q '^read char.dat' "$T/release.seen" &&
	grep -qx 'seq-create -' "$T/release.seen" && ! grep -q '^seq-create [^-]' "$T/release.seen"; then
	ok "char.dat goes after getc, block.dat after read: the later tests run without them"
else
	nok "char.dat goes after getc, block.dat after read: the later tests run without them (exit $rc)"
	sort "$T/release.seen" | uniq -c | sed 's/^/#   /'
fi
no_scratch_left "$D2" && ok "the released files' run leaves no scratch" ||
	nok "the released files' run leaves no scratch"

# ---- two runs in the same DIR at once ----
D=$T/run2
mkdir "$D"
"$FSBENCH" "${RUN[@]}" --min-time 0.2 --format json -o "$T/a.json" "$D" 2>"$T/err-a" &
pa=$!
"$FSBENCH" "${RUN[@]}" --min-time 0.2 --format json -o "$T/b.json" "$D" 2>"$T/err-b" &
pb=$!
# Both must be inside DIR at the same time for this to mean anything.
both=0
for _ in $(seq 50); do
	[ "$(compgen -G "$D/fsbench.*" | wc -l)" -ge 2 ] && { both=1; break; }
	sleep 0.1
done
wait $pa; ra=$?
wait $pb; rb=$?
[ $both -eq 1 ] && ok "concurrent runs: two scratch dirs side by side" ||
	nok "concurrent runs: two scratch dirs side by side"
if [ $ra -eq 0 ] && [ $rb -eq 0 ]; then
	ok "concurrent runs in one DIR both exit 0"
else
	nok "concurrent runs in one DIR both exit 0 (exit $ra and $rb)"; diag "$T/err-a"; diag "$T/err-b"
fi
check "concurrent runs: both results complete" pycheck "$T/a.json" '
b = json.load(open(argv[0]))
for doc in (d, b):
    assert len(doc["tests"]) == 6 and all(t["median"] > 0 for t in doc["tests"]), doc["tests"]
assert d["setup"]["dir"] != b["setup"]["dir"], "same scratch dir"
' "$T/b.json"
empty_dir "$D" && ok "concurrent runs: nothing left in DIR" ||
	{ nok "concurrent runs: nothing left in DIR"; ls -A "$D" | sed 's/^/#   /'; }

# ---- --output is atomic ----
D=$T/run3; O=$T/out3
mkdir "$D" "$O"
echo old >"$O/r.json"
ino0=$(stat -c %i "$O/r.json")
"$FSBENCH" run --size 1m --repeat 1 --min-time 0.02 --tests write --quiet --format json \
	-o "$O/r.json" "$D" 2>"$T/err"; rc=$?
ino1=$(stat -c %i "$O/r.json")
if [ $rc -eq 0 ] && [ "$ino0" != "$ino1" ] && pycheck "$O/r.json" 'assert d["tests"][0]["id"] == "write"'; then
	ok "--output replaces an existing file by rename (new inode, new content)"
else
	nok "--output replaces an existing file by rename (exit $rc, inode $ino0 -> $ino1)"; diag "$T/err"
fi
[ "$(ls -A "$O")" = "r.json" ] && ok "--output: no temporary file left" ||
	{ nok "--output: no temporary file left"; ls -A "$O" | sed 's/^/#   /'; }
[ "$(stat -c %a "$O/r.json")" = 644 ] && ok "--output file is mode 0644" ||
	nok "--output file is mode 0644 (is $(stat -c %a "$O/r.json"))"

# Output that can never be written: a usage error (exit 2), found before any
# work (no scratch dir), one line, nothing touched. tests/cli/t1300 has more.
mkdir "$O/a-dir"
"$FSBENCH" run --size 1m --repeat 1 --min-time 0.02 --tests write --quiet --format json \
	-o "$O/a-dir" "$D" >"$T/out" 2>"$T/err"; rc=$?
if [ $rc -eq 2 ] && one_line "$T/err" && [ -d "$O/a-dir" ] && empty_dir "$O/a-dir"; then
	ok "--output onto a directory: exit 2, one line, directory untouched"
else
	nok "--output onto a directory: exit 2, one line, directory untouched (exit $rc)"; diag "$T/err"
fi
[ "$(ls -A "$O" | sort | tr '\n' ' ')" = "a-dir r.json " ] && ok "refused --output leaves no temporary file" ||
	{ nok "refused --output leaves no temporary file"; ls -A "$O" | sed 's/^/#   /'; }
empty_dir "$D" && ok "refused --output: no scratch dir" || nok "refused --output: no scratch dir"
"$FSBENCH" run --size 1m --repeat 1 --min-time 0.02 --tests write --quiet --format json \
	-o "$T/no-such-dir/r.json" "$D" >"$T/out" 2>"$T/err"; rc=$?
if [ $rc -eq 2 ] && one_line "$T/err" && empty_dir "$D" && [ ! -e "$T/no-such-dir" ]; then
	ok "--output in a missing dir: exit 2, one line, nothing made"
else
	nok "--output in a missing dir: exit 2, one line, nothing made (exit $rc)"; diag "$T/err"
fi

# ---- hostile label and directory name: nothing reaches the terminal raw ----
# ESC ] 0 ; ... BEL retitles a window, ESC [2J clears the screen, U+009B
# (C2 9B) and a raw 0x9b byte are CSI to some terminals.
evil=$'\e]0;pwned\a\e[2Jx\xc2\x9b2J\x9b,y'
D=$T/$'dir\e[2J\x9b'
mkdir "$D"
for fmt in text bonnie bonnie++ csv; do
	"$FSBENCH" run --size 1m --repeat 1 --min-time 0.01 --tests write,read --quiet \
		--label "$evil" --format $fmt "$D" >"$T/out" 2>"$T/err"; rc=$?
	if [ $rc -eq 0 ] && [ "$(grep -c $'\e' "$T/out" "$T/err" | awk -F: '{ n += $2 } END { print n }')" -eq 0 ] &&
		! LC_ALL=C grep -q $'\x9b' "$T/out" "$T/err" && grep -q 'x1b' "$T/out"; then
		ok "--format $fmt, hostile --label and DIR: no ESC, no CSI byte, escapes shown"
	else
		nok "--format $fmt, hostile --label and DIR: no ESC, no CSI byte, escapes shown (exit $rc)"
		LC_ALL=C cat -v "$T/out" | head -5 | sed 's/^/#   /'
	fi
done
# The bonnie++ CSV line has no quoting: the label's comma must not make a field.
"$FSBENCH" run --size 1m --repeat 1 --min-time 0.01 --tests write --quiet \
	--label "$evil" --format csv "$D" >"$T/out" 2>"$T/err"
[ "$(wc -l <"$T/out")" -eq 1 ] && [ "$(tr -cd , <"$T/out" | wc -c)" -eq 49 ] &&
	ok "csv: a comma in the label makes no field (50 fields, one line)" ||
	{ nok "csv: a comma in the label makes no field (50 fields, one line)"; diag "$T/out"; }
# An error quoting a hostile path: one line, no ESC.
bad=$T/$'missing\e]0;x\a'
"$FSBENCH" run --size 1m "$bad" >"$T/out" 2>"$T/err"; rc=$?
if [ $rc -eq 1 ] && one_line "$T/err" && [ "$(grep -c $'\e' "$T/err")" -eq 0 ]; then
	ok "error naming a hostile path: exit 1, one line, no ESC"
else
	nok "error naming a hostile path: exit 1, one line, no ESC (exit $rc)"; diag "$T/err"
fi

done_testing
