#!/bin/bash
# The device's own capability and the automatic caveats, each made to
# happen here: the raw device under a run's filesystem (a loop device made
# here) read-only, and each figure as a share of it; a lifecycle on an
# image, whose device may be written; --no-device-capability; a tmpfs run
# (RAM-backed); runs cut short by space; a noisy figure forced by a
# competing writer, whose bytes the device counters also show; btrfs
# -o compress=zstd with random data; this machine being a VM; compare
# saying which caveats differ; the HTML and bonnie++ views. Root only.
. "$(dirname "$0")/lib.sh"

[ -x "$FSBENCH" ] || { echo "Bail out! $FSBENCH not built"; exit 1; }
if ! is_root; then
	skip "device capability and caveats" "needs root (loop devices, mounts)"
	done_testing
	exit 0
fi
tmpdir T || exit 1
QUICK="--files 0 --min-time 0.05 --repeat 3 --quiet"

# ---------------- run on ext4 over a loop device: read-only ----------------
make_fs ext4 256m || { echo "Bail out! cannot make ext4 on a loop device"; exit 1; }
EXT_DEV=$FS_DEV EXT_MNT=$FS_MNT EXT_IMG=$FS_IMG
"$FSBENCH" run --tests write,read,seeks,randread --size 16m $QUICK --format json \
	-o "$T/ext4.json" "$EXT_MNT" 2>"$T/ext4.err"; rc=$?
[ $rc -eq 0 ] && ok "run on ext4 over a loop device exits 0" ||
	{ nok "run on ext4 over a loop device exits 0 (exit $rc)"; diag "$T/ext4.err"; }
check "run: the device measured read-only (no write figures), its figures and how" \
	pycheck "$T/ext4.json" '
c = d["device_capability"]
assert c["device"] == argv[0], c
assert c["seq_read_Bps"] > 0 and c["rand_read_iops"] > 0, c
assert "seq_write_Bps" not in c and "rand_write_iops" not in c, c
h = c["how"]
assert h["engine"] in ("io_uring", "psync") and h["seq_block_bytes"] == 1 << 20, h
assert h["rand_block_bytes"] == 4096 and 0 < h["seconds"] <= 2, h
if h["engine"] == "io_uring":
    assert h["seq_depth"] == 16 and h["rand_depth"] == 32, h
assert d["params"]["device_capability"] == "on, read-only", d["params"]
' "$EXT_DEV"
check "run: read, seeks and randread as a share of the device; write has none (not measured)" \
	pycheck "$T/ext4.json" '
t = {x["id"]: x for x in d["tests"]}
c = d["device_capability"]
for i, dev in (("read", c["seq_read_Bps"]), ("randread", c["rand_read_iops"]),
               ("seeks", c["rand_read_iops"])):
    assert abs(t[i]["device_fraction"] - t[i]["median"] / dev) < 1e-6 * t[i]["device_fraction"], i
assert t["seeks"].get("device_fraction_rough") is True
assert "device_fraction" not in t["write"]
'
"$FSBENCH" run --tests read --size 16m $QUICK "$EXT_MNT" >"$T/ext4.txt" 2>&1
if grep -Eq '^  ext4 block read: [0-9]+% of the device$' "$T/ext4.txt" &&
	grep -q "^The device $EXT_DEV itself: sequential read " "$T/ext4.txt"; then
	ok "text view: \"ext4 block read: N% of the device\" and the device's own line"
else
	nok "text view: \"ext4 block read: N% of the device\" and the device's own line"
	diag "$T/ext4.txt"
fi
"$FSBENCH" run --tests read --size 16m $QUICK --no-device-capability --format json \
	-o "$T/nocap.json" "$EXT_MNT" 2>"$T/nocap.err"
check "--no-device-capability: not measured, and the reason recorded" pycheck "$T/nocap.json" '
assert "device_capability" not in d
assert d["params"]["device_capability"] == "off: --no-device-capability", d["params"]
assert "device_fraction" not in d["tests"][0]
'

# ---------------- lifecycle on an image: the device may be written ----------------
"$FSBENCH" lifecycle --fs ext4 --image "$T/lc.img" --image-size 64m --repeat 1 \
	--phases mount-umount --quiet --format json -o "$T/lc.json" 2>"$T/lc.err"; rc=$?
[ $rc -eq 0 ] && ok "lifecycle on an image exits 0" ||
	{ nok "lifecycle on an image exits 0 (exit $rc)"; diag "$T/lc.err"; }
check "lifecycle --image: written too (sequential and random writes), before the fill" \
	pycheck "$T/lc.json" '
c = d["device_capability"]
assert c["seq_write_Bps"] > 0 and c["rand_write_iops"] > 0 and c["seq_read_Bps"] > 0, c
assert d["params"]["device_capability"] == "on", d["params"]
assert d["setup"]["fill"] == "0xff"
'
"$FSBENCH" lifecycle --fs ext4 --image "$T/lc.img" --destroy-data --repeat 1 \
	--phases mount-umount --quiet >"$T/lc.txt" 2>&1
grep -q "^The device /dev/loop[0-9]* itself: sequential read .*, write " "$T/lc.txt" &&
	grep -q '^Caveats:$' "$T/lc.txt" && ok "lifecycle view: the device's figures, then the caveats" ||
	{ nok "lifecycle view: the device's figures, then the caveats"; diag "$T/lc.txt"; }

# The device's writes come before the fill: with one fill (--refill once)
# and an mkfs that neither discards nor touches the image's end, that end
# is still erased flash (0xff) afterwards, not the measurement's random data.
rm -f "$T/ff.img"
"$FSBENCH" lifecycle --fs ext4 --image "$T/ff.img" --image-size 64m --refill once --repeat 1 \
	--phases mkfs --mkfs "mkfs.ext4 -q -F -E nodiscard {dev}" --quiet --format json \
	-o "$T/ff.json" 2>"$T/ff.err"
check "lifecycle: the device written first, then filled: the image's last 8 MiB are 0xff" \
	pycheck "$T/ff.json" '
assert d["device_capability"]["seq_write_Bps"] > 0, d.get("device_capability")
b = open(argv[0], "rb").read()[-8 << 20:]
assert b.count(255) > 0.95 * len(b), b.count(255) / len(b)
' "$T/ff.img"

# ---------------- a matrix setup: its own device, written before the fill ----------------
cat >"$T/m.ini" <<EOF
[global]
image_size = 300m
workdir = $T
run = --size 8m --files 0 --min-time 0.05 --tests write,read
[ext4]
mkfs = mkfs.ext4 -q -F {dev}
EOF
chmod 600 "$T/m.ini"
"$FSBENCH" matrix --format json -o "$T/m.json" "$T/m.ini" 2>"$T/m.err"
check "matrix: the setup's device measured with writes before its fill, write and read as shares" \
	pycheck "$T/m.json" '
r = d["setups"][0]["results"][0]
c = r["device_capability"]
assert c["seq_write_Bps"] > 0 and c["rand_write_iops"] > 0 and c["seq_read_Bps"] > 0, c
assert r["params"]["device_capability"] == "on", r["params"]
t = {x["id"]: x for x in r["tests"]}
assert t["write"]["device_fraction"] > 0 and t["read"]["device_fraction"] > 0, t
assert r["caveats"], r.keys()
'
"$FSBENCH" matrix "$T/m.ini" >"$T/m.txt" 2>&1
grep -Eq '^  ext4 block write: [0-9]+% of the device$' "$T/m.txt" && grep -q '^Caveats:$' "$T/m.txt" &&
	ok "matrix view: \"ext4 block write: N% of the device\", then the caveats" ||
	{ nok "matrix view: \"ext4 block write: N% of the device\", then the caveats"; diag "$T/m.txt"; }

# ---------------- a tmpfs run: RAM-backed, no device ----------------
mkdir "$T/tmpfs" && mount_tmpfs "$T/tmpfs" size=128m || { echo "Bail out! no tmpfs"; exit 1; }
"$FSBENCH" run --tests write,read --size 8m $QUICK --label tmpfs --format json \
	-o "$T/tmpfs.json" "$T/tmpfs" 2>"$T/tmpfs.err"
check "tmpfs run: the ram-backed caveat with its evidence; the device not measured, and why" \
	pycheck "$T/tmpfs.json" '
c = {x["id"]: x for x in d["caveats"]}
assert d["setup"]["ram_backed"] is True and d["setup"]["ram_backed_why"] == "tmpfs", d["setup"]
assert "tmpfs" in c["ram-backed"]["text"] and c["ram-backed"]["evidence"], c
assert d["params"]["device_capability"].startswith("off: "), d["params"]
assert "device_capability" not in d
'
"$FSBENCH" run --tests write --size 8m $QUICK --cache keep --format json \
	-o "$T/keep.json" "$T/tmpfs" 2>/dev/null
check "--cache keep with a working set that fits in RAM: the cache-fits caveat" \
	pycheck "$T/keep.json" 'assert "cache-fits" in [x["id"] for x in d["caveats"]], d["caveats"]'

# A loop device whose backing file lives on tmpfs is memory too.
mkdir "$T/ramimg" && mount_tmpfs "$T/ramimg" size=200m || { echo "Bail out! no tmpfs"; exit 1; }
truncate -s 160m "$T/ramimg/img" && loop_attach "$T/ramimg/img" RDEV && mkfs.ext4 -q -F "$RDEV" &&
	mkdir "$T/ramimg/mnt" && mount "$RDEV" "$T/ramimg/mnt" && on_exit "umount '$T/ramimg/mnt'" ||
	{ echo "Bail out! cannot make ext4 over a tmpfs image"; exit 1; }
"$FSBENCH" run --tests write --size 8m $QUICK --no-device-capability --format json \
	-o "$T/ramloop.json" "$T/ramimg/mnt" 2>/dev/null
check "ext4 on a loop device over a tmpfs file: RAM-backed, said so" pycheck "$T/ramloop.json" '
assert d["setup"]["ram_backed_why"] == argv[0].split("/")[-1] + " over a file on tmpfs", d["setup"]
assert "ram-backed" in [x["id"] for x in d["caveats"]], d["caveats"]
' "$RDEV"
if [ "$(stat -f -c %T "$(dirname "$EXT_IMG")")" = tmpfs ]; then
	skip "ext4 on a loop device over a disk file: not RAM-backed" "the test images are on tmpfs here"
else
	check "ext4 on a loop device over a disk file: not RAM-backed" pycheck "$T/ext4.json" '
assert "ram_backed" not in d["setup"], d["setup"]
'
fi

# ---------------- this machine is a VM ----------------
check "this machine (a KVM guest with a reporting balloon) is found to be a VM" \
	pycheck "$T/tmpfs.json" '
h = d["host"]
assert h["virtualization"] not in (None, "none"), h
ids = [x["id"] for x in d["caveats"]]
assert "vm" in ids or "emulation" in ids, ids
if h.get("balloon_free_page_reporting"):
    assert "balloon" in ids, ids
'

# ---------------- runs cut short by space ----------------
# A given --size is written exactly, so the run that grows into the space
# is per-char write with its --char-size left out.
mkdir "$T/small" && mount_tmpfs "$T/small" size=24m || { echo "Bail out! no tmpfs"; exit 1; }
"$FSBENCH" run --tests putc --size 1m --min-time 2 --repeat 1 --files 0 --quiet \
	--format json -o "$T/short.json" "$T/small" 2>/dev/null
check "a run cut short by space: the short-space caveat names the test" pycheck "$T/short.json" '
c = [x for x in d["caveats"] if x["id"] == "short-space"]
assert c and "per-char write" in c[0]["text"] and "space" in c[0]["evidence"], d["caveats"]
'
"$FSBENCH" run --tests putc --size 1m --min-time 2 --repeat 1 --files 0 --quiet \
	"$T/small" >"$T/short.txt" 2>/dev/null
grep -q '^  - per-char write ran shorter than --min-time: the free space ran out (short_reason space' \
	"$T/short.txt" && ok "text view: the short-space caveat, one line with its evidence" ||
	{ nok "text view: the short-space caveat, one line with its evidence"; diag "$T/short.txt"; }

# ---------------- a competing writer: noisy, and the device saw its bytes ----------------
# Half a second on, half a second off, over the runs: some runs share the
# machine, some do not. On: a writer of the same device (the same 32 MiB,
# rewritten with O_DIRECT, so the filesystem never fills) and two CPU
# hogs (the test's writes go to the page cache first: on a host-cached VM
# the CPU is what they compete for), each ended by timeout(1); killed,
# the loop ends them at once (timeout passes the TERM on), so nothing holds
# the filesystem when it is unmounted.
(
	trap 'kill $(jobs -p) 2>/dev/null; wait; exit 0' TERM
	end=$((SECONDS + 90))
	while [ $SECONDS -lt $end ]; do
		timeout 0.5 sh -c 'while :; do :; done' &
		timeout 0.5 sh -c 'while :; do :; done' &
		timeout 0.5 sh -c 'while :; do dd if=/dev/zero of="$1" bs=1M count=32 \
			oflag=direct conv=notrunc status=none; done' sh "$EXT_MNT/competitor" 2>/dev/null
		wait
		sleep 0.5
	done
) &
COMP=$!
on_exit "kill $COMP; wait $COMP; rm -f '$EXT_MNT/competitor'"
noisy=0
for attempt in 1 2 3; do
	"$FSBENCH" run --tests write --size 16m --files 0 --min-time 0.3 --repeat 6 --quiet \
		--no-device-capability --format json -o "$T/noisy.json" "$EXT_MNT" 2>/dev/null
	if pycheck "$T/noisy.json" '
c = [x for x in d["caveats"] if x["id"] == "noisy"]
assert c and "block write is noisy" in c[0]["text"] and "over 6 runs" in c[0]["evidence"]
' >/dev/null; then
		noisy=1
		break
	fi
done
kill $COMP 2>/dev/null; wait $COMP 2>/dev/null
[ $noisy -eq 1 ] && ok "a competing writer on and off: block write noisy, with its runs as evidence" ||
	{ nok "a competing writer on and off: block write noisy, with its runs as evidence"; \
	  pycheck "$T/noisy.json" 'print("#  ", d["caveats"], [x["runs"] for x in d["tests"]])'; }

# Four readers of the raw device (O_DIRECT, harmless) during a read test:
# the device reads far more than the test did.
READERS=()
for k in 1 2 3 4; do
	( end=$((SECONDS + 60)); while [ $SECONDS -lt $end ]; do
		dd if="$EXT_DEV" of=/dev/null bs=1M count=200 iflag=direct status=none 2>/dev/null
	done ) &
	READERS+=($!)
	on_exit "kill $!"
done
"$FSBENCH" run --tests read --size 16m --files 0 --min-time 0.3 --repeat 3 --quiet \
	--no-device-capability --format json -o "$T/other.json" "$EXT_MNT" 2>/dev/null
kill "${READERS[@]}" 2>/dev/null; wait "${READERS[@]}" 2>/dev/null
check "other processes reading the device during block read: the other-io caveat, bytes as evidence" \
	pycheck "$T/other.json" '
c = [x for x in d["caveats"] if x["id"] == "other-io"]
assert c and "read from the device during block read" in c[0]["text"], d["caveats"]
assert "device read" in c[0]["evidence"] and "the test read" in c[0]["evidence"], c
'

# ---------------- btrfs -o compress=zstd with random data ----------------
if grep -qw btrfs /proc/filesystems && command -v mkfs.btrfs >/dev/null; then
	tmpdir B || exit 1
	truncate -s 512m "$B/img" && loop_attach "$B/img" BDEV && mkfs.btrfs -q -f "$BDEV" >/dev/null &&
		mkdir "$B/mnt" && mount -t btrfs -o compress=zstd "$BDEV" "$B/mnt" &&
		on_exit "umount '$B/mnt'" || { echo "Bail out! cannot make btrfs"; exit 1; }
	"$FSBENCH" run --tests write --size 8m $QUICK --format json -o "$T/btrfs.json" \
		"$B/mnt" 2>/dev/null
	check "btrfs compress=zstd, random data: the compress-random caveat" pycheck "$T/btrfs.json" '
c = [x for x in d["caveats"] if x["id"] == "compress-random"]
assert c and "compress=zstd" in c[0]["text"], d["caveats"]
'
	check "ext4 (no compression): no compression caveat" pycheck "$T/ext4.json" '
assert not [x for x in d["caveats"] if x["id"].startswith("compress")], d["caveats"]
'
else
	skip "btrfs compress=zstd caveat" "no btrfs here"
	skip "no compression caveat" "no btrfs here"
fi

# ---------------- compare, HTML, bonnie++ ----------------
# The markdown views end with the caveats too (a list item each).
"$FSBENCH" report --format markdown -o - "$T/tmpfs.json" >"$T/tmpfs.md" 2>/dev/null
check "markdown: the caveats at the end, the storage-is-memory one among them" \
	bash -c "sed -n '/^## Caveats\$/,\$p' '$T/tmpfs.md' | grep -q '^- the storage is memory (tmpfs)'"
"$FSBENCH" compare "$T/ext4.json" "$T/tmpfs.json" >"$T/cmp.txt" 2>&1
# With TMPDIR on a tmpfs the ext4 image is in RAM too: then both inputs
# carry the storage-is-memory caveat, each with its own evidence (a loop
# device over a file on tmpfs, tmpfs itself), so each is listed as
# differing.
EXT_RAM=$(python3 -c 'import json,sys; print("yes" if json.load(open(sys.argv[1]))["setup"].get("ram_backed") else "no")' "$T/ext4.json")
if [ "$EXT_RAM" = yes ]; then
	grep -q '^  - ext4: the storage is memory' "$T/cmp.txt"; ext_line=$?
else
	! grep -q '^  - ext4: the storage is memory' "$T/cmp.txt"; ext_line=$?
fi
if grep -q '^Caveats that differ between the inputs:$' "$T/cmp.txt" &&
	grep -q '^  - tmpfs: the storage is memory (tmpfs)' "$T/cmp.txt" && [ "$ext_line" -eq 0 ] &&
	grep -q '^Caveats of every input:$' "$T/cmp.txt" &&
	grep -Eq '^  ext4: .*block read [0-9]+%' "$T/cmp.txt"; then
	ok "compare: the caveats that differ (tmpfs's memory; ext4's too if its image is in RAM: $EXT_RAM), those shared, and ext4's shares of its device"
else
	nok "compare: the caveats that differ (tmpfs's memory; ext4's too if its image is in RAM: $EXT_RAM), those shared, and ext4's shares of its device"
	sed -n '/^Caveats/,$p' "$T/cmp.txt" | diag /dev/stdin
fi
"$FSBENCH" compare --format json "$T/ext4.json" "$T/tmpfs.json" >"$T/cmp.json" 2>/dev/null
check "compare JSON: each input's caveats, those not every input has marked as differing" \
	pycheck "$T/cmp.json" '
src = {i["label"]: i["sources"][0] for i in d["inputs"]}
c = {x["id"]: x for x in src["tmpfs"]["caveats"]}
ext = [x["id"] for x in src["ext4"]["caveats"]]
# The tmpfs memory caveat differs either way: ext4 lacks it, or (its image
# in RAM) has it with other evidence, listed apart as in the text view.
assert c["ram-backed"]["differs"] is True, c
assert ("ram-backed" in ext) == (argv[0] == "yes"), ext
assert c["vm"]["differs"] is False, c
' "$EXT_RAM"
"$FSBENCH" report "$T/ext4.json" "$T/tmpfs.json" -o "$T/r.html" 2>/dev/null
grep -q '<h2>Caveats</h2>' "$T/r.html" && grep -q '<h2>The devices themselves</h2>' "$T/r.html" &&
	grep -q 'the storage is memory (tmpfs)' "$T/r.html" &&
	ok "HTML: a devices table and a caveats section" ||
	nok "HTML: a devices table and a caveats section"
"$FSBENCH" run --tests write --size 8m $QUICK --format bonnie++ "$T/tmpfs" >"$T/bpp.txt" 2>/dev/null
commas=$(tail -n 1 "$T/bpp.txt" | tr -cd , | wc -c)
if [ "$commas" -eq 49 ] && tail -n 1 "$T/bpp.txt" | grep -q '^1\.98,' &&
	grep -q '^Caveats:$' "$T/bpp.txt"; then
	ok "bonnie++ view: caveats before the CSV line, which keeps its 50 fields and stays last"
else
	nok "bonnie++ view: caveats before the CSV line ($commas commas)"
	diag "$T/bpp.txt"
fi
done_testing
