#!/bin/bash
# The device's own capability on a loop device over a mostly sparse image
# (issue 25 item 5): its reads go only where the backing file holds data
# (a hole is read without any I/O, so a figure from holes is the CPU's),
# too little data makes the figures short, said with a reason, and each
# figure is the median of rounds whose spread is recorded, shown and read
# back; a baseline spread over 20% is caveated. Root only.
. "$(dirname "$0")/lib.sh"

[ -x "$FSBENCH" ] || { echo "Bail out! $FSBENCH not built"; exit 1; }
if ! is_root; then
	skip "device capability from holes" "needs root (loop devices, mounts)"
	done_testing
	exit 0
fi
tmpdir T || exit 1
QUICK="--tests read --size 4m --files 0 --min-time 0.05 --repeat 1 --quiet"

# The bytes of the file that hold data, by SEEK_DATA/SEEK_HOLE, as the
# kernel says, independently of fsbench.
cat >"$T/data.py" <<'EOF'
import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
end, pos, total = os.fstat(fd).st_size, 0, 0
while pos < end:
    try:
        d = os.lseek(fd, pos, os.SEEK_DATA)
    except OSError:
        break
    pos = os.lseek(fd, d, os.SEEK_HOLE)
    total += pos - d
print(total)
EOF

# sparse_ext4 NAME: ext4 on a sparse 256 MiB image in $T/NAME, mounted on
# $T/NAME.mnt; its device in DEV. mkfs writes under 1 MiB, the rest are
# holes, and stay so (noinit_itable: no background zeroing of the inode
# tables, which would fill the image at its own pace).
sparse_ext4() {
	truncate -s 256m "$T/$1" && loop_attach "$T/$1" DEV && mkfs.ext4 -q -F "$DEV" &&
		mkdir "$T/$1.mnt" && mount -o noinit_itable "$DEV" "$T/$1.mnt" &&
		on_exit "umount '$T/$1.mnt'"
}
sparse_ext4 a || { echo "Bail out! cannot make ext4 on a loop device"; exit 1; }
FS_IMG=$T/a FS_MNT=$T/a.mnt
before=$(python3 "$T/data.py" "$FS_IMG")
"$FSBENCH" run $QUICK --format json -o "$T/a.json" "$FS_MNT" 2>"$T/a.err"; rc=$?
after=$(python3 "$T/data.py" "$FS_IMG")
alloc=$(($(stat -c '%b * %B' "$FS_IMG")))
[ $rc -eq 0 ] && ok "run on ext4 over a sparse image exits 0" ||
	{ nok "run on ext4 over a sparse image exits 0 (exit $rc)"; diag "$T/a.err"; }
check "the reads covered only the backing file's data: no more than it holds, its name said" \
	pycheck "$T/a.json" '
c = d["device_capability"]
data = c["data"]
before, after, alloc = map(int, argv[:3])
assert data["from"] == "the backing file'"'"'s data (%s)" % argv[3], data
assert before <= data["bytes"] <= after and data["bytes"] <= alloc, (data, before, after, alloc)
assert data["bytes"] < (64 << 20) and data["ranges"] >= 1, data
assert data["read_bytes"] > 0, data
' "$before" "$after" "$alloc" "$FS_IMG"
check "too little data: the figures short with the reason, and the device-short caveat" \
	pycheck "$T/a.json" '
c = d["device_capability"]
assert "hold data, under 16.0 MiB" in c["short_reason"], c
assert "device-short" in [x["id"] for x in d["caveats"]], d["caveats"]
'
check "each figure the median of 3 rounds, every round and the spread recorded" \
	pycheck "$T/a.json" '
c = d["device_capability"]
assert c["how"]["rounds"] == 3, c["how"]
for k in ("seq_read_Bps", "rand_read_iops"):
    r = c["rounds"][k]
    assert len(r) == 3 and sorted(r)[1] == c[k], (k, r, c[k])
    assert abs(c["spread"][k] - (max(r) - min(r)) / c[k]) < 1e-9, c["spread"]
assert "seq_write_Bps" not in c["rounds"], c["rounds"]
'
# The text view on a fresh image of its own: the run above left its test's
# data on the first one.
sparse_ext4 t || { echo "Bail out! cannot make ext4 on a loop device"; exit 1; }
"$FSBENCH" run $QUICK "$T/t.mnt" >"$T/a.txt" 2>&1
if grep -q '^Median of the rounds; their range: sequential read .* (spread [0-9]*%), 4 KiB random read ' "$T/a.txt" &&
	grep -q "^Read only where the device holds data: .* in [0-9]* ranges\?, the backing file's data ($T/t)\.$" "$T/a.txt" &&
	grep -q '^Short: only .* hold data, under 16.0 MiB' "$T/a.txt"; then
	ok "text view: the rounds' range and spread, the data read, and why it is short"
else
	nok "text view: the rounds' range and spread, the data read, and why it is short"
	grep -A4 '^The device' "$T/a.txt" | diag /dev/stdin
fi

# 48 MiB written into the filesystem: now enough data, and still only data.
dd if=/dev/urandom of="$FS_MNT/data" bs=1M count=48 oflag=direct status=none && sync
before=$(python3 "$T/data.py" "$FS_IMG")
"$FSBENCH" run $QUICK --format json -o "$T/b.json" "$FS_MNT" 2>"$T/b.err"; rc=$?
after=$(python3 "$T/data.py" "$FS_IMG")
alloc=$(($(stat -c '%b * %B' "$FS_IMG")))
check "48 MiB of data: not short, the data read within the backing file's" \
	pycheck "$T/b.json" '
c = d["device_capability"]
before, after, alloc = map(int, argv[:3])
assert "short_reason" not in c, c
assert before <= c["data"]["bytes"] <= min(after, alloc), (c["data"], before, after, alloc)
assert c["data"]["bytes"] >= 48 << 20, c["data"]
assert "device-short" not in [x["id"] for x in d["caveats"]], d["caveats"]
' "$before" "$after" "$alloc"

# A baseline whose rounds lie far apart: the file read back says so.
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
c = d["device_capability"]
c["rounds"]["seq_read_Bps"] = [1e9, 1.5e9, 2e9]
c["seq_read_Bps"] = 1.5e9
json.dump(d, open(sys.argv[2], "w"))
c["seq_read_Bps"] = 3e9
json.dump(d, open(sys.argv[3], "w"))' "$T/b.json" "$T/wide.json" "$T/bad.json"
"$FSBENCH" compare "$T/wide.json" >"$T/wide.txt" 2>&1
grep -q 'the device.s own sequential read varied by 67% over its rounds: "% of the device" is unreliable' \
	"$T/wide.txt" && ok "a file whose device rounds spread 67%: the device-spread caveat" ||
	{ nok "a file whose device rounds spread 67%: the device-spread caveat"; diag "$T/wide.txt"; }
"$FSBENCH" report -o "$T/wide.html" "$T/wide.json" 2>/dev/null
grep -q '<td class="num">1.40 GiB/s (spread 67%)</td>' "$T/wide.html" &&
	ok "HTML: the device's figure with its rounds' spread" ||
	{ nok "HTML: the device's figure with its rounds' spread"; grep -i 'spread' "$T/wide.html" | diag /dev/stdin; }
"$FSBENCH" compare "$T/bad.json" >/dev/null 2>"$T/bad.err"; rc=$?
if [ $rc -ne 0 ] && grep -q 'device_capability.seq_read_Bps is outside its rounds' "$T/bad.err" &&
	[ "$(wc -l <"$T/bad.err")" -eq 1 ]; then
	ok "a file whose device figure is outside its rounds: refused in one line"
else
	nok "a file whose device figure is outside its rounds: refused in one line (exit $rc)"
	diag "$T/bad.err"
fi
done_testing
