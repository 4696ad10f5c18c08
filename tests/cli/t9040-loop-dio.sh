#!/bin/bash
# A buffered loop device passed off as the device (issue 25, item 4). On an
# ext4 on a loop device attached without --direct-io (dio 0), `run --cache
# direct` records the loop device (setup.loop: device, backing_file, dio
# false, the backing file's resident share before the tests and after
# each), caveats that the test figures and the device capability ("device
# itself") may be the host's page cache and that O_DIRECT stops at the loop
# device, and the text view no longer says "page cache bypassed"; a report
# made from the JSON derives the caveats again; lifecycle --device on a
# buffered loop device records it and caveats it too. Attached with
# --direct-io=on: dio true, no resident share, no such caveat. Root only:
# this script makes its own images, loop devices and mounts and releases
# exactly those.
. "$(dirname "$0")/lib.sh"

[ -x "$FSBENCH" ] || { echo "Bail out! $FSBENCH not built"; exit 1; }
if ! is_root || ! command -v losetup >/dev/null || ! command -v mkfs.ext4 >/dev/null; then
	skip "buffered and direct loop devices" "needs root, losetup and mkfs.ext4"
	done_testing
	exit 0
fi

# The image must sit on a disk's filesystem: a loop device over a file in
# memory is storage in memory, which another caveat (ram-backed) states.
if ! disk_tmpdir T; then
	skip "buffered and direct loop devices" "no directory on a disk's filesystem"
	done_testing
	exit 0
fi

# loop_fs NAME LOSETUP-ARGS...: a sparse image $T/NAME.img on a loop device
# attached with those arguments, an ext4 on it mounted on $T/NAME; sets
# DEV. Unmounted, then detached, at exit.
loop_fs() {
	local name=$1 img=$T/$1.img
	shift
	truncate -s 128m "$img" || return 1
	DEV=$(losetup --find --show "$@" "$img") || return 1
	on_exit "detach_own '$DEV' '$img'"
	mkfs.ext4 -q -F "$DEV" >/dev/null 2>&1 || return 1
	mkdir "$T/$name" && mount -t ext4 "$DEV" "$T/$name" || return 1
	on_exit "umount '$T/$name'"
}

SMALL=(--cache direct --tests write,read --size 8m --repeat 1 --min-time 0.05 --quiet)

# runs NAME: fsbench run SMALL on $T/NAME, as JSON ($T/NAME.json) and as
# the text view ($T/NAME.txt); both must exit 0 and leave nothing.
runs() {
	local name=$1 rc1 rc2
	"$FSBENCH" run "${SMALL[@]}" --format json -o "$T/$name.json" "$T/$name" \
		2>"$T/$name.err"; rc1=$?
	"$FSBENCH" run "${SMALL[@]}" "$T/$name" >"$T/$name.txt" 2>>"$T/$name.err"; rc2=$?
	if [ $rc1 -eq 0 ] && [ $rc2 -eq 0 ] && no_scratch_left "$T/$name"; then
		ok "$name: run --cache direct, JSON and text: exit 0, nothing left"
	else
		nok "$name: run --cache direct, JSON and text: exit 0, nothing left ($rc1, $rc2)"
		diag "$T/$name.err"
	fi
}

# ---------------- attached without --direct-io ----------------
loop_fs buffered || { echo "Bail out! cannot make an ext4 on a loop device"; exit 1; }
BUF=${DEV#/dev/}
if [ "$(cat "/sys/block/$BUF/loop/dio")" != 0 ]; then
	echo "Bail out! losetup without --direct-io gave $DEV dio $(cat "/sys/block/$BUF/loop/dio")"
	exit 1
fi
runs buffered
check "buffered: JSON setup.loop names $BUF, its image, dio false and a resident share" \
	pycheck "$T/buffered.json" '
lo = d["setup"]["loop"]
assert lo["device"] == argv[0] and lo["dio"] is False, lo
assert lo["backing_file"] == argv[1], lo
assert 0 <= lo["backing_resident"] <= 1, lo
for t in d["tests"]:
    r = t.get("loop_backing_resident")
    assert r is not None and 0 <= r <= 1, (t["id"], r)
' "$BUF" "$T/buffered.img"
check "buffered: caveats loop-buffered (figures and device capability) and loop-direct" \
	pycheck "$T/buffered.json" '
c = {c["id"]: c for c in d["caveats"]}
assert "loop-buffered" in c and "loop-direct" in c, sorted(c)
b, o = c["loop-buffered"]["text"], c["loop-direct"]["text"]
assert b.startswith(argv[0] + " is a loop device without direct I/O"), b
assert "test figures" in b and "device capability" in b and "page cache" in b, b
assert "O_DIRECT stops at the loop device " + argv[0] in o, o
assert "dio 0" in c["loop-buffered"]["evidence"], c["loop-buffered"]
' "$BUF"
check "buffered: the text view's caveats name $BUF and O_DIRECT" \
	grep -q "^  - --cache direct: O_DIRECT stops at the loop device $BUF," "$T/buffered.txt"
check "buffered: the text view's caveat names the device capability" \
	grep -q "^  - $BUF is a loop device without direct I/O: the test figures and the device capability (\"device itself\")" "$T/buffered.txt"
check "buffered: the text view does not say the page cache was bypassed" \
	bash -c '! grep -q "page cache bypassed" "$1" &&
		grep -q "O_DIRECT, which stops at the buffered loop device $2:" "$1" &&
		grep -q "^Loop backing file in the page cache after each test: write" "$1"' \
	_ "$T/buffered.txt" "$BUF"
if "$FSBENCH" report --format markdown -o "$T/buffered.md" "$T/buffered.json" 2>"$T/md.err" &&
	grep -q "stops at the loop device $BUF, whose own reads" "$T/buffered.md"; then
	ok "buffered: a report read from the JSON gives the caveat again"
else
	nok "buffered: a report read from the JSON gives the caveat again"; diag "$T/md.err"
fi

# lifecycle on a buffered loop device given with --device: the same record
# and caveat (the loop devices lifecycle makes itself ask for direct I/O).
LIMG=$T/lc.img
truncate -s 64m "$LIMG" || exit 1
LDEV=$(losetup --find --show "$LIMG") || { echo "Bail out! cannot attach a loop device"; exit 1; }
on_exit "detach_own '$LDEV' '$LIMG'"
if "$FSBENCH" lifecycle --fs ext4 --device "$LDEV" --destroy-data --repeat 1 --copy-size 1m \
	--quiet --format json -o "$T/lc.json" 2>"$T/lc.err"; then
	ok "lifecycle --device on a buffered loop device: exit 0"
else
	nok "lifecycle --device on a buffered loop device: exit 0"; diag "$T/lc.err"
fi
check "lifecycle: setup.loop dio false, the loop-buffered caveat names ${LDEV#/dev/}" \
	pycheck "$T/lc.json" '
lo = d["setup"]["loop"]
assert lo["device"] == argv[0] and lo["dio"] is False and lo["backing_file"] == argv[1], lo
c = [x for x in d["caveats"] if x["id"] == "loop-buffered"]
assert c and c[0]["text"].startswith(argv[0] + " is a loop device"), d["caveats"]
' "${LDEV#/dev/}" "$LIMG"

# ---------------- attached with --direct-io=on ----------------
loop_fs direct --direct-io=on || { echo "Bail out! cannot make an ext4 on a loop device"; exit 1; }
DIO=${DEV#/dev/}
if [ "$(cat "/sys/block/$DIO/loop/dio")" != 1 ]; then
	skip "direct: no loop caveat with --direct-io=on" "the filesystem of $T refused direct I/O"
else
	runs direct
	check "direct: JSON setup.loop says dio true, no resident share, no loop caveat" \
		pycheck "$T/direct.json" '
lo = d["setup"]["loop"]
assert lo["device"] == argv[0] and lo["dio"] is True, lo
assert "backing_resident" not in lo, lo
assert not [t["id"] for t in d["tests"] if "loop_backing_resident" in t]
ids = [c["id"] for c in d["caveats"]]
assert "loop-buffered" not in ids and "loop-direct" not in ids, ids
' "$DIO"
	check "direct: the text view says the page cache was bypassed, no loop caveat" \
		bash -c 'grep -q "O_DIRECT, page cache bypassed" "$1" &&
			! grep -q "loop device without direct I/O\|O_DIRECT stops at" "$1"' \
		_ "$T/direct.txt"
fi

done_testing
