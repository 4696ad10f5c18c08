#!/bin/bash
# --data: what the written bytes are. A bad value is a usage error before
# any work. Every pattern through every writer (block, per-char, random,
# files) passes its own verification and is recorded (params.data, the
# text view's "Data written:" line, the bonnie++ method note). A chunk
# spoiled under a reader is caught for every pattern. As root, on btrfs
# over a loop device this script makes, the device shows what the data
# is: with compress=zstd, random data is written whole and compressible:50
# about half (write amplification), without compression both whole; and
# the lifecycle copy follows --data too (its write phase on compress=zstd).
. "$(dirname "$0")/lib.sh"

[ -x "$FSBENCH" ] || { echo "Bail out! $FSBENCH not built"; exit 1; }
tmpdir T || exit 1
D=$T/d
mkdir "$D"
if is_root; then
	mount_tmpfs "$D" size=256m || { echo "Bail out! cannot mount tmpfs"; exit 1; }
fi

# ---- usage errors: exit 2, one line, nothing made ----
for bad in bogus compressible compressible:101 dedupe:-1 zero:5 "random:" "dedupe:5%"; do
	"$FSBENCH" run --data "$bad" "$D" >"$T/out" 2>"$T/err"; rc=$?
	if [ $rc -eq 2 ] && one_line "$T/err" && grep -q "invalid --data '$bad'" "$T/err" &&
		no_scratch_left "$D" && [ ! -s "$T/out" ]; then
		ok "run --data '$bad': exit 2, one line, nothing made"
	else
		nok "run --data '$bad': exit 2, one line, nothing made (exit $rc)"; diag "$T/err"
	fi
done
"$FSBENCH" lifecycle --data compressible:200 --fs ext4 --image "$T/x.img" --image-size 64m \
	>"$T/out" 2>"$T/err"; rc=$?
if [ $rc -eq 2 ] && one_line "$T/err" && [ ! -e "$T/x.img" ]; then
	ok "lifecycle --data compressible:200: exit 2, one line, no image made"
else
	nok "lifecycle --data compressible:200: exit 2, one line, no image made (exit $rc)"
	diag "$T/err"
fi

# ---- every pattern, every writer and reader ----
ALL=(--tests throughput,random,files --size 4m --char-size 1m --seeks 256 --files 40:20k:1k
	--repeat 1 --min-time 0.02)
for data in random zero compressible:50 dedupe:50 compressible:0 dedupe:100; do
	"$FSBENCH" run --quiet --data "$data" "${ALL[@]}" --format json -o "$T/all.json" "$D" \
		2>"$T/all.err"; rc=$?
	if [ $rc -eq 0 ] && no_scratch_left "$D"; then
		ok "--data $data: every test writes and verifies it, exit 0, no scratch left"
	else
		nok "--data $data: every test writes and verifies it (exit $rc)"; diag "$T/all.err"
		continue
	fi
	check "--data $data: params.data recorded, 14 figures" pycheck "$T/all.json" '
assert d["params"]["data"] == argv[0], d["params"].get("data")
assert len(d["tests"]) == 14, [t["id"] for t in d["tests"]]
' "$data"
done
# Jobs: each with files of its own (its own data seed) or sharing one file
# (one seed: job 0 prepares every range); every range verifies.
for share in "" --shared-file --shared-dir; do
	"$FSBENCH" run --quiet --data dedupe:50 --jobs 3 $share "${ALL[@]}" --format json \
		-o "$T/jobs.json" "$D" 2>"$T/jobs.err"; rc=$?
	check "--data dedupe:50 --jobs 3 $share: every job verifies its data (exit $rc)" \
		test $rc -eq 0
done

# The views say it (HTML from the last JSON; text and bonnie++ from runs).
ONE=(--quiet --data dedupe:100 --tests write --size 4m --repeat 1 --min-time 0.02)
"$FSBENCH" run "${ONE[@]}" -f text "$D" >"$T/text" 2>"$T/err"
check "text view: the Data written line" grep -qx \
	"Data written: dedupe:100 (100% of the chunks repeat an earlier chunk)." "$T/text"
"$FSBENCH" run "${ONE[@]}" -f bonnie++ "$D" >"$T/bpp" 2>"$T/err"
check "bonnie++ view: the method note names the data" grep -q \
	"^# fsbench: cache drop, data dedupe:100, " "$T/bpp"
"$FSBENCH" report -o "$T/page.html" "$T/all.json" 2>"$T/err"
check "HTML: how measured names the data and what it means" grep -q \
	"Data written (<code>--data</code>): <strong>dedupe:100</strong>. <em>dedupe:100</em>: 100% of the chunks repeat an earlier chunk." "$T/page.html"

# ---- a spoiled chunk is caught, for every pattern ----
# spoil_data DATA ACTION WANT: a read run with --data DATA (lib.sh's spoil);
# once its block.dat is whole, ACTION ($F the file) spoils it.
SIZE=$((8 << 20))
spoil_data() {
	spoil "--data $1, spoiled" block.dat "$2" "$3" \
		--data "$1" --tests read --size 8m --repeat 40 --min-time 0.1
}
# Chunk 128 (a dedupe group's first: never a copy) over chunk 0 (8 KiB chunks).
MOVE='dd if="$F" of="$F" bs=8192 skip=128 seek=0 count=1 conv=notrunc status=none'
for data in random compressible:50 dedupe:50; do
	spoil_data "$data" "$MOVE" \
		"^fsbench: read: data mismatch in '.*/block.dat' at offset 0: chunk from another offset"
done
# One byte of another chunk's copy in a dedupe file: its 4 KiB stamp.
spoil_data dedupe:50 'printf "\x01" | dd of="$F" bs=1 seek=$((8192 * 5 + 4096)) conv=notrunc status=none' \
	"^fsbench: read: data mismatch in '.*/block.dat' at offset 40960: torn chunk"
spoil_data zero 'printf x | dd of="$F" bs=1 seek=$((8192 * 3 + 100)) conv=notrunc status=none' \
	"^fsbench: read: data mismatch in '.*/block.dat' at offset 24576: not zero data"

# ---- what the device sees: btrfs with and without compress=zstd ----
if ! is_root || ! command -v mkfs.btrfs >/dev/null; then
	skip "btrfs compress=zstd: device bytes follow --data" "needs root and mkfs.btrfs"
	done_testing
	exit 0
fi
if ! make_fs btrfs 1G; then
	nok "make btrfs on a loop device"
	done_testing
	exit 0
fi
# wa_of DATA OPTS: the block write's write amplification on btrfs mounted
# with OPTS (remounted), 64 MiB of DATA.
wa_of() {
	mount -o remount,"$2" "$FS_MNT" || return 1
	"$FSBENCH" run --quiet --data "$1" --tests write --size 64m --repeat 1 --min-time 0.05 \
		--format json -o "$T/wa.json" "$FS_MNT" 2>"$T/wa.err" || return 1
	json_get "$T/wa.json" 'd["tests"][0].get("write_amplification", -1)'
}
declare -A WA
for setup in "random compress=zstd" "compressible:50 compress=zstd" "zero compress=zstd" \
	"random compress=no" "compressible:50 compress=no"; do
	set -- $setup
	WA[$setup]=$(wa_of "$1" "$2") || { nok "--data $1 on btrfs -o $2"; diag "$T/wa.err"; }
done
echo "# btrfs write amplification: $(for k in "${!WA[@]}"; do printf '%s=%s; ' "$k" "${WA[$k]}"; done)"
# between LO HI X: LO <= X <= HI.
between() { python3 -c 'import sys; a, b, x = map(float, sys.argv[1:]); sys.exit(not a <= x <= b)' "$@"; }
check "btrfs compress=zstd, random: written whole (WA ${WA[random compress=zstd]} >= 0.95)" \
	between 0.95 1.5 "${WA[random compress=zstd]}"
check "btrfs compress=zstd, compressible:50: about half (WA ${WA[compressible:50 compress=zstd]})" \
	between 0.40 0.65 "${WA[compressible:50 compress=zstd]}"
check "btrfs compress=zstd, zero: almost nothing (WA ${WA[zero compress=zstd]} < 0.1)" \
	between 0 0.1 "${WA[zero compress=zstd]}"
check "btrfs compress=no, random: whole (WA ${WA[random compress=no]})" \
	between 0.95 1.5 "${WA[random compress=no]}"
check "btrfs compress=no, compressible:50: whole (WA ${WA[compressible:50 compress=no]})" \
	between 0.95 1.5 "${WA[compressible:50 compress=no]}"

# The lifecycle copy: compressible:75 on compress=zstd writes about a quarter.
"$FSBENCH" lifecycle --fs btrfs --options compress=zstd --image "$T/lc.img" --image-size 256m \
	--phases write,read --repeat 1 --copy-size 16m --data compressible:75 --progress never \
	--format json -o "$T/lc.json" >"$T/lc.out" 2>"$T/lc.err"; rc=$?
if [ $rc -eq 0 ]; then
	ok "lifecycle --data compressible:75 on btrfs compress=zstd: write and read (verified), exit 0"
	check "lifecycle: params.data, the write's WA below 0.45" pycheck "$T/lc.json" '
assert d["params"]["data"] == "compressible:75", d["params"].get("data")
w = [t for t in d["tests"] if t["id"] == "write"][0]
assert 0 < w["write_amplification"] < 0.45, w.get("write_amplification")
'
	"$FSBENCH" lifecycle --fs btrfs --image "$T/lc2.img" --image-size 256m --phases write,read \
		--repeat 1 --copy-size 4m --data zero --progress never -f lifecycle -o "$T/lc.txt" 2>"$T/err"
	check "lifecycle view: the copy's data under write and read" \
		test "$(grep -cx "data	zero" "$T/lc.txt")" -eq 2
else
	nok "lifecycle --data compressible:75 on btrfs compress=zstd (exit $rc)"; diag "$T/lc.err"
fi
done_testing
