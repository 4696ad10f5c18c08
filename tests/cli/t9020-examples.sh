#!/bin/bash
# Every shipped example (examples/*.ini) runs to the end, scaled down from
# the command line (matrix --set, as the man page documents) and with the
# setups that boot a QEMU guest left out (--only the host setups: every
# host setup of every example runs): exit 0, every setup "ok" with a
# result for each suite it names, the overrides in the document, nothing
# left behind. btrfs-raid1-vs-xfs is scaled as it ships (the file half of
# each image, RAID-1): its rewrite fits only under the copy-on-write rule
# btrfs really needs (an extent's worth more, not a second copy). Then
# --set's refusals: exit 2, one line naming the key, nothing made.
. "$(dirname "$0")/lib.sh"

[ -x "$FSBENCH" ] || { echo "Bail out! $FSBENCH not built"; exit 1; }
tmpdir T || exit 1
export TMPDIR=$T
W=$T/work
mkdir "$W"
EX=$TOP/examples

# ---------------- --set refusals (no root needed) ----------------
# set_usage DESC GREP SET: exit 2 before any work, one line matching GREP.
set_usage() {
	local what=$1 pat=$2 rc
	"$FSBENCH" matrix --set "workdir=$W" --set "$3" "$EX/ext2-vs-ext3.ini" >"$T/out" 2>"$T/err"
	rc=$?
	if [ $rc -eq 2 ] && one_line "$T/err" && grep -q -- "$pat" "$T/err" && [ ! -s "$T/out" ] &&
		no_scratch_left "$W"; then
		ok "--set $what: exit 2, one line naming it, nothing made"
	else
		nok "--set $what: exit 2, one line naming it, nothing made (exit $rc)"
		diag "$T/err"
	fi
}
set_usage "unknown key" "--set 'imagesize=1g': unknown key 'imagesize'" imagesize=1g
set_usage "bad size" "--set 'image_size=lots': invalid image_size 'lots'" image_size=lots
set_usage "a setup's key without its setup" "key 'mkfs' is a setup's" mkfs=none
set_usage "no such setup" "'Ext4' is no setup of" Ext4.run=--size=1m
set_usage "a bad run word" "--set 'run+=--size': run: " run+=--size
set_usage "+= on a size" "'+=' appends words to run or lifecycle" image_size+=1g
set_usage "no '='" "expected KEY=VALUE" image_size
# A [global] key replaces a setup's own line too: said, naming them.
"$FSBENCH" matrix --set "workdir=$W" --set 'run=--size 1m' --set image_size=lots \
	"$EX/btrfs-compression.ini" >"$T/out" 2>"$T/err"
check "--set run= names the setups whose own run it replaces" \
	grep -qF "warning: --set run=...: [plain/compr50], [zstd/compr50] set their own run; it is replaced there too" "$T/err"
set_usage "an image too small for any filesystem" "invalid image_size '1k': expected a size of at least 1m" image_size=1k
set_usage "a newline in mount options" "control character 0x0a in the value of 'options'" $'Ext2.options=noatime\nro'

if ! is_root; then
	skip "examples" "needs root (loop devices, mounts)"
	done_testing
	exit 0
fi

# Only ours: loop devices backed by a file under $T, mounts under $T.
on_exit release_ours

# host_setups FILE: its setups without guest = yes, comma-separated.
host_setups() {
	awk '/^\[/ { s = substr($0, 2, length($0) - 2); if (s != "global") order[++n] = s; next }
	     /^guest *= *yes/ { g[s] = 1 }
	     END { for (i = 1; i <= n; i++) if (!g[order[i]]) printf "%s%s", (k++ ? "," : ""), order[i] }' "$1"
}

# scale NAME: the --set words that scale that example down. Sizes keep
# each example's proportion of file to image where it matters (the
# RAID-1 rewrite); xfs needs 300 MiB images.
scale() {
	case $1 in
	btrfs-raid1-vs-xfs) echo "image_size=512m|run+=--size 256m --files 1k" ;;
	btrfs-compression) echo "image_size=256m|run+=--size 32m" ;;
	ext2-vs-ext3) echo "image_size=256m|run+=--size 64m --files 1k" ;;
	flash-lifecycle) echo "image_size=320m|lifecycle+=--copy-size 4m" ;;
	*) echo "image_size=512m|run+=--size 64m --files 1k|lifecycle+=--copy-size 4m" ;;
	esac
}

n=0
for ini in "$EX"/*.ini; do
	name=$(basename "$ini" .ini)
	only=$(host_setups "$ini")
	sets=("--set" "workdir=$W" "--set" "repeat=1")
	IFS='|' read -ra items <<<"$(scale "$name")"
	for i in "${items[@]}"; do sets+=("--set" "$i"); done
	n=$((n + 1))
	start=$SECONDS
	"$FSBENCH" matrix "${sets[@]}" --only "$only" --progress never --format json \
		-o "$T/$name.json" "$ini" >"$T/$name.out" 2>"$T/$name.err"
	rc=$?
	if [ $rc -eq 0 ] && ! grep -v '^fsbench: warning: ' "$T/$name.err" | grep -q .; then
		ok "$name ($only, scaled: ${items[*]}): exit 0, no error ($((SECONDS - start)) s)"
	else
		nok "$name ($only, scaled: ${items[*]}): exit 0, no error (exit $rc)"
		diag "$T/$name.err"
	fi
	check "$name: every host setup ok, with a result for each suite it names" \
		pycheck "$T/$name.json" '
want = argv[0].split(",")
got = [s["label"] for s in d["setups"]]
assert got == want, "setups %r, want %r" % (got, want)
for s in d["setups"]:
    assert s["status"] == "ok", "%s: %s: %s" % (s["label"], s["status"], s.get("error"))
    kinds = [r["kind"] for r in s["results"]]
    want_kinds = [k for k in ("run", "lifecycle") if s["config"].get(k)]
    assert kinds == want_kinds, "%s: results %r, want %r" % (s["label"], kinds, want_kinds)
    for r in s["results"]:
        assert r["tests"], "%s: %s has no tests" % (s["label"], r["kind"])
assert d["overrides"] == argv[1:], "overrides %r" % d["overrides"]
' "$only" "workdir=$W" "repeat=1" "${items[@]}"
	if [ -z "$(our_mounts)" ] && [ -z "$(our_loops)" ] && no_scratch_left "$W"; then
		ok "$name: no mount, loop device or image left"
	else
		nok "$name: no mount, loop device or image left"
		release_ours
	fi
done
check "every example was run ($n)" test "$n" -ge 4

done_testing
