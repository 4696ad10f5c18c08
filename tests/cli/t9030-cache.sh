#!/bin/bash
# Hostile: the cache modes disturb nothing fsbench was not given (issue 25,
# item 3). Under strace, as root, on an ext4 this script makes: the default
# mode and --cache direct call no sync(2) and never open
# /proc/sys/vm/drop_caches; only --cache drop-all (root only: a usage
# error otherwise) opens it. The result proves each eviction (the resident
# share of the test's file, cache_resident, in JSON and the text view),
# marks stat tests whose metadata stayed warm (metadata_cold, and a caveat);
# a matrix unmounts and mounts its own filesystem for cold stat tests;
# compare says when two inputs used different cache modes.
. "$(dirname "$0")/lib.sh"

[ -x "$FSBENCH" ] || { echo "Bail out! $FSBENCH not built"; exit 1; }
tmpdir T || exit 1

# ---------------- drop-all is root's (no root needed) ----------------
if is_root && command -v setpriv >/dev/null; then
	setpriv --reuid=65534 --regid=65534 --clear-groups "$FSBENCH" run --cache drop-all \
		--tests read /tmp >"$T/nr.out" 2>"$T/nr.err"; rc=$?
	if [ $rc -eq 2 ] && one_line "$T/nr.err" && grep -q 'drop-all: needs root' "$T/nr.err"; then
		ok "--cache drop-all without root: usage error (exit 2), one line"
	else
		nok "--cache drop-all without root: usage error (exit 2), one line (exit $rc)"
		diag "$T/nr.err"
	fi
else
	skip "--cache drop-all without root: usage error" "needs root and setpriv"
fi

if ! is_root || ! command -v strace >/dev/null || ! command -v mkfs.ext4 >/dev/null; then
	skip "the cache modes under strace" "needs root, strace and mkfs.ext4"
	done_testing
	exit 0
fi

make_fs ext4 256m || { echo "Bail out! cannot make an ext4"; exit 1; }
SMALL=(--size 16m --char-size 4m --files 256 --repeat 1 --min-time 0.05
	--tests read,getc,files --no-device-capability)

# LeakSanitizer cannot run under ptrace: leaks are checked elsewhere.
# traced NAME ARGS...: fsbench run ARGS under strace (sync, syncfs,
# openat, umount2, mount) into $T/NAME.st, its JSON in $T/NAME.json.
traced() {
	local name=$1 rc; shift
	ASAN_OPTIONS=${ASAN_OPTIONS/detect_leaks=1/detect_leaks=0} strace -f -qq -o "$T/$name.st" -e trace=sync,syncfs,openat,umount2,mount \
		"$FSBENCH" run --quiet "$@" --format json -o "$T/$name.json" "$FS_MNT" \
		2>"$T/$name.err"; rc=$?
	if [ $rc -eq 0 ] && no_scratch_left "$FS_MNT"; then
		ok "$name: fsbench run $* under strace: exit 0"
	else
		nok "$name: fsbench run $* under strace: exit 0 (exit $rc)"; diag "$T/$name.err"
	fi
}
no_global() {
	! grep -q '[^a-z_]sync()' "$T/$1.st" && ! grep -q 'drop_caches' "$T/$1.st"
}

# What the result says of the cold cache: the resident share of read's and
# getc's file, small after the eviction; how the stat tests went.
COLD='
meta = argv[0]
by = {t["id"]: t for t in d["tests"]}
for i in ("read", "getc"):
    r = by[i].get("cache_resident")
    assert r is not None and 0 <= r <= 0.05, (i, r)
for i in ("seq-stat", "rand-stat"):
    assert by[i].get("metadata_cold") == meta, (i, by[i].get("metadata_cold"))
warm = [c for c in d["caveats"] if c["id"] == "metadata-warm"]
assert bool(warm) == (meta == "warm"), warm
'

traced default "${SMALL[@]}"
if no_global default; then
	ok "default: no sync(), no open of /proc/sys/vm/drop_caches"
else
	nok "default: no sync(), no open of /proc/sys/vm/drop_caches"
	grep 'sync()\|drop_caches' "$T/default.st" | head -5 | sed 's/^/#   /'
fi
check "default: syncfs(2) of the filesystem under test instead" grep -q 'syncfs(' "$T/default.st"
check "default: resident share in the result, stat tests marked warm, a caveat" \
	pycheck "$T/default.json" "$COLD" warm
"$FSBENCH" run --quiet --size 16m --repeat 1 --min-time 0.05 --tests read --files 0 \
	--no-device-capability "$FS_MNT" >"$T/text.out" 2>"$T/text.err"
check "text view: 'Resident after eviction (mincore): read 0.x%'" \
	grep -Eq '^Resident after eviction \(mincore\): read [0-4]\.[0-9]%\.$' "$T/text.out"

traced direct "${SMALL[@]}" --cache direct
if no_global direct; then
	ok "direct: no sync(), no open of drop_caches (per-char and stat tests too)"
else
	nok "direct: no sync(), no open of drop_caches (per-char and stat tests too)"
	grep 'sync()\|drop_caches' "$T/direct.st" | head -5 | sed 's/^/#   /'
fi
check "direct: resident share in the result, stat tests marked warm" \
	pycheck "$T/direct.json" "$COLD" warm

traced dropall "${SMALL[@]}" --cache drop-all
check "drop-all: /proc/sys/vm/drop_caches is opened" grep -q 'drop_caches' "$T/dropall.st"
check "drop-all: still no sync() (syncfs of the filesystem under test)" \
	eval "! grep -q '[^a-z_]sync()' '$T/dropall.st'"
check "drop-all: stat tests marked drop-all, no warm caveat" \
	pycheck "$T/dropall.json" "$COLD" drop-all

"$FSBENCH" compare "$T/default.json" "$T/dropall.json" >"$T/cmp.out" 2>"$T/cmp.err"
check "compare: says the inputs used different cache modes (the work table)" \
	grep -q '^  read: cache drop (.*), drop-all (.*)' "$T/cmp.out"
"$FSBENCH" compare "$T/default.json" "$T/direct.json" >"$T/cmp2.out" 2>&1
check "compare: drop against direct is a difference too" \
	grep -q '^  read: cache drop (.*), direct (.*)' "$T/cmp2.out"

# A share outside 0..1 is refused by the reader, naming the field.
python3 - "$T/default.json" "$T/bad.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
for t in d["tests"]:
    if "cache_resident" in t:
        t["cache_resident"] = 2.5
json.dump(d, open(sys.argv[2], "w"))
EOF
"$FSBENCH" compare "$T/bad.json" >/dev/null 2>"$T/bad.err"; rc=$?
if [ $rc -eq 1 ] && one_line "$T/bad.err" && grep -q 'cache_resident' "$T/bad.err"; then
	ok "a cache_resident of 2.5 is refused, naming the field"
else
	nok "a cache_resident of 2.5 is refused, naming the field (exit $rc)"; diag "$T/bad.err"
fi

# ---------------- a matrix remounts its own filesystem ----------------
W=$T/work
mkdir "$W"
cat >"$T/m.ini" <<EOF
[global]
workdir = $W
image_size = 128m
run = --size 8m --files 256 --repeat 1 --min-time 0.05 --tests read,files --no-device-capability
[ext4]
EOF
ASAN_OPTIONS=${ASAN_OPTIONS/detect_leaks=1/detect_leaks=0} strace -f -qq -o "$T/mx.st" -e trace=sync,openat,umount2,mount \
	"$FSBENCH" matrix --progress never --format json -o "$T/mx.json" "$T/m.ini" \
	>"$T/mx.out" 2>"$T/mx.err"; rc=$?
if [ $rc -eq 0 ] && [ -z "$(losetup -j "$W"/*.img 2>/dev/null)" ] &&
	! awk -v d="$W/" 'index($2, d) == 1 { f = 1 } END { exit !f }' /proc/mounts; then
	ok "matrix: exit 0, no mount or loop device left"
else
	nok "matrix: exit 0, no mount or loop device left (exit $rc)"; diag "$T/mx.err"
fi
# One umount2 at the end; the stat tests' remounts add one each.
n=$(grep -c "umount2(\"$W/" "$T/mx.st")
if [ "$n" -ge 3 ]; then
	ok "matrix: the stat tests unmount and mount the setup's filesystem ($n umount2)"
else
	nok "matrix: the stat tests unmount and mount the setup's filesystem ($n umount2)"
fi
check "matrix: no sync(), no drop_caches" \
	eval "! grep -q '[^a-z_]sync()\|drop_caches' '$T/mx.st'"
check "matrix: stat tests marked remount, no warm caveat" pycheck "$T/mx.json" '
runs = [r for s in d["setups"] for r in s["results"] if r.get("kind") == "run"]
assert runs, d["setups"]
for r in runs:
    by = {t["id"]: t for t in r["tests"]}
    for i in ("seq-stat", "rand-stat"):
        assert by[i].get("metadata_cold") == "remount", (i, by[i].get("metadata_cold"))
    assert not [c for c in r["caveats"] if c["id"] == "metadata-warm"], r["caveats"]
'

done_testing
