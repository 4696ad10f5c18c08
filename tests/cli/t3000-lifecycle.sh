#!/bin/bash
# fsbench lifecycle: usage errors (exit 2) and refusals before anything is
# written (exit 1); as root, every phase on ext2, ext3, ext4 (64 MiB), xfs
# (512 MiB) and btrfs (256 MiB) images with --repeat 2; the views; --device
# on a loop device this script makes (refused with a filesystem, accepted
# with --destroy-data, refused when mounted, the root device always
# refused); mkfs and mount failing mid-run; SIGINT during write and SIGTERM
# during mkfs leave no mount and no loop device. Only what this script made
# is ever unmounted or detached.
. "$(dirname "$0")/lib.sh"

# umount_own DIR: unmount DIR only if something is mounted exactly there.
umount_own() {
	awk -v d="$1" '$2 == d { f = 1 } END { exit !f }' /proc/mounts && umount "$1"
}

# Nothing of ours left: no loop device backed by IMG, no mount under $T,
# no scratch directory in $T (fsbench's TMPDIR).
no_loop_of() { [ -z "$(losetup -j "$1" 2>/dev/null)" ]; }
no_mount_under() { ! awk -v d="$1/" 'index($2, d) == 1 { f = 1 } END { exit !f }' /proc/mounts; }
clean_after() {
	no_loop_of "$1" && no_mount_under "$T" && no_scratch_left "$T"
}

[ -x "$FSBENCH" ] || { echo "Bail out! $FSBENCH not built"; exit 1; }
tmpdir T || exit 1
export TMPDIR=$T

# lc_usage DESC ARGS...: exit 2, one line on stderr, no image made.
lc_usage() {
	local what=$1 rc; shift
	"$FSBENCH" lifecycle "$@" >"$T/out" 2>"$T/err"; rc=$?
	if [ $rc -eq 2 ] && one_line "$T/err" && [ ! -s "$T/out" ] && [ ! -e "$T/u.img" ]; then
		ok "usage: $what: exit 2, one line, nothing made"
	else
		nok "usage: $what: exit 2, one line, nothing made (exit $rc)"; diag "$T/err"
	fi
	rm -f "$T/u.img"
}

# ---------------- usage (no root needed) ----------------
"$FSBENCH" lifecycle --help >"$T/help" 2>&1
if [ $? -eq 0 ] && grep -q -- '--destroy-data' "$T/help" && grep -q -- '--refill' "$T/help"; then
	ok "--help: exit 0, documents the options"
else
	nok "--help: exit 0, documents the options"
fi
"$FSBENCH" lifecycle --version >"$T/version" 2>&1
check "--version: exit 0, names fsbench" grep -q '^fsbench [0-9]' "$T/version"
U=(--image "$T/u.img" --image-size 64m)
lc_usage "no --fs" "${U[@]}"
lc_usage "neither --image nor --device" --fs ext4
lc_usage "both --image and --device" --fs ext4 "${U[@]}" --device /dev/null
lc_usage "--image-size with --device" --fs ext4 --device /dev/null --image-size 1m
lc_usage "--fs a path, not a type" --fs ../../bin/sh "${U[@]}"
lc_usage "bad --image-size" --fs ext4 --image "$T/u.img" --image-size 12q
lc_usage "--image-size 0" --fs ext4 --image "$T/u.img" --image-size 0
lc_usage "bad --fill" --fs ext4 "${U[@]}" --fill blue
lc_usage "bad --refill" --fs ext4 "${U[@]}" --refill sometimes
lc_usage "unknown phase" --fs ext4 "${U[@]}" --phases mkfs,fly
lc_usage "empty --phases" --fs ext4 "${U[@]}" --phases ,
lc_usage "--repeat 0" --fs ext4 "${U[@]}" --repeat 0
lc_usage "--repeat x" --fs ext4 "${U[@]}" --repeat x
lc_usage "bad --copy-size" --fs ext4 "${U[@]}" --copy-size -1
lc_usage "bad --format" --fs ext4 "${U[@]}" --format bonnie+++
lc_usage "bad --progress" --fs ext4 "${U[@]}" --progress sometimes
lc_usage "unknown option" --fs ext4 "${U[@]}" --frobnicate
lc_usage "stray argument" --fs ext4 "${U[@]}" extra
lc_usage "--mkfs unterminated quote" --fs ext4 "${U[@]}" --mkfs "mkfs.ext4 -L 'x {dev}"
lc_usage "--mkfs trailing backslash" --fs ext4 "${U[@]}" --mkfs 'mkfs.ext4 {dev} \'
lc_usage "--mkfs {dev2} with one device" --fs ext4 "${U[@]}" --mkfs 'mkfs.ext4 {dev2}'
lc_usage "--mkfs empty" --fs ext4 "${U[@]}" --mkfs ' '

if ! is_root; then
	skip "lifecycle on loop devices" "needs root (loop devices, mount)"
	done_testing
	exit 0
fi

# ---------------- refused before anything is written (exit 1) ----------------
# lc_refused DESC GREP ARGS...: exit 1, one line matching GREP, no image.
lc_refused() {
	local what=$1 pat=$2 rc; shift 2
	"$FSBENCH" lifecycle "$@" >"$T/out" 2>"$T/err"; rc=$?
	if [ $rc -eq 1 ] && one_line "$T/err" && grep -q -- "$pat" "$T/err" &&
		[ ! -e "$T/u.img" ] && clean_after "$T/u.img"; then
		ok "refused: $what: exit 1, one line, nothing written"
	else
		nok "refused: $what: exit 1, one line, nothing written (exit $rc)"; diag "$T/err"
	fi
	rm -f "$T/u.img"
}
lc_refused "unknown filesystem type" "not supported by the kernel" --fs nosuchfs "${U[@]}"
lc_refused "--type unknown to the kernel" "not supported by the kernel" --fs ext4 --type nosuchfs "${U[@]}"
lc_refused "missing mkfs tool" "mkfs program 'mkfs.nonexistent' not found" \
	--fs ext4 --mkfs 'mkfs.nonexistent -q {dev}' "${U[@]}"
lc_refused "no mkfs.TYPE for the type" "not found" --fs squashfs "${U[@]}"
lc_refused "xfs image under its minimum" "smaller than the xfs minimum" --fs xfs "${U[@]}"
lc_refused "btrfs image under its minimum" "smaller than the btrfs minimum" \
	--fs btrfs --image "$T/u.img" --image-size 100m
lc_refused "copy larger than the image" "cannot fit" --fs ext4 --image "$T/u.img" \
	--image-size 4m --copy-size 8m
lc_refused "image missing, no size" "give --image-size" --fs ext4 --image "$T/u.img"
lc_refused "image is a directory" "not a regular file" --fs ext4 --image "$T" --image-size 64m
lc_refused "image larger than the free space" "free" --fs ext4 --image "$T/u.img" --image-size 900t
lc_refused "--device not a block device" "not a block device" --fs ext4 --device "$T/help"

# ---------------- every phase on each filesystem ----------------
# lc_fs TYPE SIZE: fsbench lifecycle on a fresh image, JSON checked.
lc_fs() {
	local type=$1 size=$2 img="$T/$1.img" rc
	"$FSBENCH" lifecycle --fs "$type" --image "$img" --image-size "$size" --repeat 2 \
		--copy-size 4m --progress never --format json -o "$T/$type.json" \
		>"$T/$type.out" 2>"$T/$type.err"; rc=$?
	if [ $rc -eq 0 ] && [ ! -s "$T/$type.err" ] && [ ! -s "$T/$type.out" ] &&
		clean_after "$img"; then
		ok "$type $size: exit 0, no mount, loop device or scratch dir left"
	else
		nok "$type $size: exit 0, no mount, loop device or scratch dir left (exit $rc)"
		diag "$T/$type.err"
		return 1
	fi
	check "$type: every phase timed twice, > 0, device bytes known" pycheck "$T/$type.json" '
want = ["mkfs", "mkfs-mount", "mkfs-umount", "mount-umount", "write", "read"]
assert d["kind"] == "lifecycle", d["kind"]
ids = [t["id"] for t in d["tests"]]
assert ids == want, ids
for t in d["tests"]:
    assert t["unit"] == "s", (t["id"], t["unit"])
    assert len(t["runs"]) == 2 and min(t["runs"]) > 0, (t["id"], t["runs"])
    assert 0 < t["min"] <= t["median"] <= t["max"], (t["id"], t["min"], t["max"])
    assert "device" in t, (t["id"], "no device bytes")
'
	check "$type: write wrote >= the copy at the device, amplification > 0" pycheck "$T/$type.json" '
w = [t for t in d["tests"] if t["id"] == "write"][0]
assert w["device"]["write_bytes"] >= 4 << 20, w["device"]
assert w["write_amplification"] >= 1.0, w.get("write_amplification")
assert w["work"] == 4 << 20, w["work"]
r = [t for t in d["tests"] if t["id"] == "read"][0]
# cold: the whole copy came from the device (the read verified it)
assert r["device"]["read_bytes"] >= 4 << 20, r["device"]
m = [t for t in d["tests"] if t["id"] == "mkfs"][0]
assert m["device"]["write_bytes"] > 0, m["device"]
'
	check "$type: setup and params describe the run" pycheck "$T/$type.json" "
s, p = d['setup'], d['params']
assert s['fs_type'] == '$type' and s['label'] == '$type', s
assert s['fill'] == '0xff' and s['device'].startswith('/dev/loop'), s
assert p['copy_size_bytes'] == 4 << 20 and p['repeat'] == 2 and p['mkfs_repeat'] == 2, p
assert p['image'] == '$img' and p['refill_mkfs'] == 'each' and p['refill'] == 'once', p
assert p['mkfs_argv'].startswith('mkfs.$type ') and p['mkfs_argv'].endswith(s['device']), p
assert p['clock_res_ns'] >= 1, p
"
}

lc_fs ext2 64m
lc_fs ext3 64m
lc_fs ext4 64m
lc_fs xfs 512m
lc_fs btrfs 256m

# ---------------- views, reuse, --phases, --mkfs ----------------
E4=$T/ext4.img
# Reusing an image with a filesystem on it takes --destroy-data.
"$FSBENCH" lifecycle --fs ext4 --image "$E4" --destroy-data --repeat 2 --copy-size 1m --label 'my ext4' \
	--format lifecycle >"$T/life.out" 2>"$T/life.err"
if [ $? -eq 0 ] && python3 - "$T/life.out" <<'EOF'
import re, sys
text = open(sys.argv[1]).read()
heads = ["Mkfs my ext4", "Mount my ext4", "Umount my ext4", "Mount/umount my ext4",
         "Copy 1MiB file to my ext4", "Read 1MiB from my ext4"]
lines = text.splitlines()
pos = [lines.index(h) for h in heads]
assert pos == sorted(pos), pos
for p in pos:
    reals = lines[p + 1:p + 4]
    # Each line names the step it timed and which run it is.
    step = {"Mkfs": "mkfs", "Mount": "mount", "Umount": "umount", "Mount/umount": "mount+umount",
            "Copy": "mount+copy+umount", "Read": "mount+read+umount"}[lines[p].split(" ")[0]]
    tails = ["%s, highest of 2" % step, "%s, median" % step, "%s, lowest" % step]
    assert all(re.fullmatch(r"real\t\d+m\d+\.\d{3}(\d{3})?s\t" + re.escape(w), l)
               for l, w in zip(reals, tails)), reals
    secs = [int(l[5:].split("m")[0]) * 60 + float(l.split("\t")[1].split("m")[1][:-1]) for l in reals]
    assert secs[0] >= secs[1] >= secs[2] > 0, secs   # highest, median, lowest
    assert lines[p + 4].startswith("device\tread "), lines[p + 4]
assert "write amplification\t" in text
EOF
then
	ok "--format lifecycle: reference layout, highest/median/lowest, device lines (reused image)"
else
	nok "--format lifecycle: reference layout"; diag "$T/life.err"; diag "$T/life.out"
fi

"$FSBENCH" lifecycle --fs ext4 --image "$E4" --destroy-data --repeat 1 --copy-size 1m --phases read \
	--format json -o "$T/read.json" 2>"$T/read.err"
check "--phases read alone: only read, its file written untimed, exit 0" pycheck "$T/read.json" '
assert [t["id"] for t in d["tests"]] == ["read"], [t["id"] for t in d["tests"]]
'
"$FSBENCH" lifecycle --fs ext4 --image "$E4" --destroy-data --repeat 1 --copy-size 1m --phases mount-umount,mkfs \
	--format json -o "$T/sub.json" 2>"$T/sub.err"
check "--phases mount-umount,mkfs: mkfs expands to its three timings, report order" \
	pycheck "$T/sub.json" '
assert [t["id"] for t in d["tests"]] == ["mkfs", "mkfs-mount", "mkfs-umount", "mount-umount"], d["tests"]
'

# The template is split without a shell: the label keeps its ; and $.
"$FSBENCH" lifecycle --fs ext4 --image "$E4" --destroy-data --repeat 1 --phases mkfs --refill once \
	--mkfs "mkfs.ext4 -q -F -L 'a;b\$x' {dev}" --format json -o "$T/lbl.json" 2>"$T/lbl.err"
if [ $? -eq 0 ] && [ "$(blkid -o value -s LABEL "$E4")" = 'a;b$x' ]; then
	ok "--mkfs with quotes and metacharacters: passed as one word, no shell"
else
	nok "--mkfs with quotes and metacharacters"; diag "$T/lbl.err"
fi

# --mkfs none: the first mount is the mkfs (the filesystem is already there).
"$FSBENCH" lifecycle --fs ext4 --image "$E4" --destroy-data --repeat 2 --mkfs none --fill none --phases mkfs \
	--format json -o "$T/none.json" 2>"$T/none.err"
check "--mkfs none: no mkfs timing, first mount and umount timed" pycheck "$T/none.json" '
assert [t["id"] for t in d["tests"]] == ["mkfs-mount", "mkfs-umount"], d["tests"]
assert d["params"]["mkfs"] == "none" and d["setup"]["fill"] == "none", d["params"]
'

"$FSBENCH" lifecycle --fs ext4 --image "$E4" --destroy-data --repeat 2 --copy-size 1m --options noatime \
	--phases mount-umount --quiet >"$T/text.out" 2>"$T/text.err"
if [ $? -eq 0 ] && grep -q '^mount-umount' "$T/text.out" && grep -q 'noatime' "$T/text.out" &&
	[ ! -s "$T/text.err" ]; then
	ok "default text view with --options noatime"
else
	nok "default text view with --options noatime"; diag "$T/text.err"; diag "$T/text.out"
fi

# ---------------- failures mid-run ----------------
"$FSBENCH" lifecycle --fs ext4 --image "$T/f.img" --image-size 64m --repeat 1 \
	--mkfs 'mkfs.ext4 -q -F -b 999 {dev}' >"$T/out" 2>"$T/err"; rc=$?
if [ $rc -eq 1 ] && head -n 1 "$T/err" | grep -q "^fsbench: mkfs failed: 'mkfs.ext4' exited with status 1: .*invalid block size" &&
	grep -q 'invalid block size' "$T/err" && [ ! -e "$T/f.img" ] && clean_after "$T/f.img"; then
	ok "mkfs failing: exit 1, fsbench line with the tool's reason, then its stderr, loop detached, image removed"
else
	nok "mkfs failing (exit $rc)"; diag "$T/err"
fi
"$FSBENCH" lifecycle --fs ext4 --image "$E4" --destroy-data --repeat 1 --phases mount-umount \
	--options no_such_option >"$T/out" 2>"$T/err"; rc=$?
if [ $rc -eq 1 ] && grep -q "^fsbench: cannot mount '/dev/loop[0-9]*' on '" "$T/err" &&
	[ -e "$E4" ] && clean_after "$E4"; then
	ok "mount failing: exit 1, one error naming device and mountpoint, loop detached, image kept"
else
	nok "mount failing (exit $rc)"; diag "$T/err"
fi

# ---------------- signals ----------------
# wait_mounted IMG: wait until the loop device of IMG is mounted; echo it.
wait_mounted() {
	local dev i
	for ((i = 0; i < 3000; i++)); do
		dev=$(losetup -j "$1" -n -O NAME 2>/dev/null | head -n 1)
		if [ -n "$dev" ] && awk -v d="$dev" '$1 == d { f = 1 } END { exit !f }' /proc/mounts; then
			echo "$dev"
			return 0
		fi
		sleep 0.01
	done
	return 1
}

"$FSBENCH" lifecycle --fs ext4 --image "$T/sig.img" --image-size 256m --phases write \
	--repeat 200 --copy-size 96m --progress never >"$T/out" 2>"$T/err" &
pid=$!
on_exit "kill -9 $pid"
if dev=$(wait_mounted "$T/sig.img"); then
	kill -INT $pid
	wait $pid; rc=$?
	if [ $rc -eq 130 ] && ! awk -v d="$dev" '$1 == d { f = 1 } END { exit !f }' /proc/mounts &&
		clean_after "$T/sig.img" && [ ! -s "$T/out" ]; then
		ok "SIGINT during write: exit 130, unmounted, loop device detached, scratch removed"
	else
		nok "SIGINT during write (exit $rc)"; diag "$T/err"
	fi
else
	kill -9 $pid; wait $pid
	nok "SIGINT during write: the write phase never mounted"; diag "$T/err"
fi

"$FSBENCH" lifecycle --fs xfs --image "$T/xfs.img" --destroy-data --phases mkfs --repeat 20 \
	--progress never >"$T/out" 2>"$T/err" &
pid=$!
on_exit "kill -9 $pid"
child=
for ((i = 0; i < 3000; i++)); do
	child=$(pgrep -P $pid -x mkfs.xfs) && break
	sleep 0.01
done
kill -TERM $pid
wait $pid; rc=$?
if [ $rc -eq 143 ] && [ -n "$child" ] && ! kill -0 "$child" 2>/dev/null &&
	clean_after "$T/xfs.img" && [ -e "$T/xfs.img" ]; then
	ok "SIGTERM during mkfs: exit 143, mkfs reaped, loop detached, existing image kept"
else
	nok "SIGTERM during mkfs (exit $rc)"; diag "$T/err"
fi

# ---------------- --device ----------------
DIMG=$T/dev.img
truncate -s 64m "$DIMG"
loop_attach "$DIMG" DEV || { echo "Bail out! cannot attach a loop device"; exit 1; }
mkfs.ext4 -q -F "$DEV"

"$FSBENCH" lifecycle --fs ext4 --device "$DEV" --repeat 1 >"$T/out" 2>"$T/err"; rc=$?
if [ $rc -eq 1 ] && one_line "$T/err" && grep -q 'rule: signature' "$T/err" &&
	grep -q -- '--destroy-data' "$T/err" && [ "$(blkid -o value -s TYPE "$DEV")" = ext4 ]; then
	ok "--device with a filesystem: refused (rule: signature, names --destroy-data), untouched"
else
	nok "--device with a filesystem refused (exit $rc)"; diag "$T/err"
fi

"$FSBENCH" lifecycle --fs ext4 --device "$DEV" --destroy-data --repeat 1 --copy-size 1m \
	--format json -o "$T/dev.json" >"$T/out" 2>"$T/err"; rc=$?
if [ $rc -eq 0 ] && [ -n "$(losetup -j "$DIMG")" ] && no_mount_under "$T"; then
	ok "--device --destroy-data: accepted, exit 0, our loop device left attached"
else
	nok "--device --destroy-data accepted (exit $rc)"; diag "$T/err"
fi
check "--device: every phase, setup names the device, fill none" pycheck "$T/dev.json" "
assert len(d['tests']) == 6, [t['id'] for t in d['tests']]
assert d['setup']['device'] == '$DEV' and d['setup']['fill'] == 'none', d['setup']
w = [t for t in d['tests'] if t['id'] == 'write'][0]
assert w['device']['write_bytes'] >= 1 << 20, w['device']
"

mkdir -p "$T/m"
if mount "$DEV" "$T/m"; then
	on_exit "umount_own '$T/m'"
	"$FSBENCH" lifecycle --fs ext4 --device "$DEV" --repeat 1 >"$T/out" 2>"$T/err"; rc=$?
	if [ $rc -eq 1 ] && grep -q 'rule: mounted' "$T/err"; then
		ok "--device mounted: refused (rule: mounted)"
	else
		nok "--device mounted: refused (exit $rc)"; diag "$T/err"
	fi
	"$FSBENCH" lifecycle --fs ext4 --device "$DEV" --destroy-data --repeat 1 >"$T/out" 2>"$T/err"; rc=$?
	if [ $rc -eq 1 ] && one_line "$T/err" && grep -q 'rule: mounted); unmount it first' "$T/err" &&
		! grep -q -- '--destroy-data' "$T/err" && [ -d "$T/m/lost+found" ]; then
		ok "--device mounted, --destroy-data: still refused, told to unmount it first"
	else
		nok "--device mounted, --destroy-data: refused (exit $rc)"; diag "$T/err"
	fi
	umount "$T/m"
else
	skip "--device mounted" "cannot mount the test device"
	skip "--device mounted, --destroy-data" "cannot mount the test device"
fi

# The device holding / is refused (never with --destroy-data here: a test
# must not even risk it).
ROOTDEV=$(findmnt -n -o SOURCE / 2>/dev/null)
if [ -b "$ROOTDEV" ]; then
	"$FSBENCH" lifecycle --fs ext4 --device "$ROOTDEV" --repeat 1 >"$T/out" 2>"$T/err"; rc=$?
	if [ $rc -eq 1 ] && one_line "$T/err" && grep -q 'rule: root device' "$T/err"; then
		ok "--device $ROOTDEV (holds /): refused by the root rule"
	else
		nok "--device $ROOTDEV (holds /): refused by the root rule (exit $rc)"; diag "$T/err"
	fi
else
	skip "--device of /" "/ is not on a block device here"
fi

"$FSBENCH" lifecycle --fs ext4 --image "$DIMG" --repeat 1 >"$T/out" 2>"$T/err"; rc=$?
if [ $rc -eq 1 ] && grep -q "backs loop device '$DEV'" "$T/err"; then
	ok "--image already attached to a loop device: refused"
else
	nok "--image already attached to a loop device: refused (exit $rc)"; diag "$T/err"
fi

no_scratch_left "$T" && ok "no scratch directory left in TMPDIR" || nok "no scratch directory left"
done_testing
