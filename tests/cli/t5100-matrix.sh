#!/bin/bash
# fsbench matrix: usage errors and bad INI files (exit 2, one line naming
# FILE:LINE, nothing made); as root, a small matrix (ext2; ext4 with
# data=writeback and a lifecycle; btrfs RAID-1 over two devices) runs to
# completion with every row filled, its JSON is a matrix document and its
# CSV passes through bon_csv2txt and bon_csv2html; a setup whose mkfs tool
# is missing is skipped while the others run (exit 1); SIGINT during a
# setup exits 130. After each run no mount, no loop device backed by the
# work directory and no image remain. Only what this script made is ever
# unmounted or detached.
. "$(dirname "$0")/lib.sh"

[ -x "$FSBENCH" ] || { echo "Bail out! $FSBENCH not built"; exit 1; }
tmpdir T || exit 1
# fsbench lifecycle makes its mountpoint under TMPDIR: keep it in ours.
export TMPDIR=$T
W=$T/work
mkdir "$W"

# Only ours: loop devices backed by a file under $T, mounts under $T.
on_exit release_ours

# Nothing of ours left: no mount, no loop device, no image, no scratch dir.
nothing_left() {
	[ -z "$(our_mounts)" ] && [ -z "$(our_loops)" ] &&
		[ -z "$(find "$W" -name '*.img' 2>/dev/null)" ] && no_scratch_left "$W" &&
		no_scratch_left "$T"
}
why_left() {
	echo "#   mounts: $(our_mounts | tr '\n' ' ')"
	echo "#   loops: $(our_loops | tr '\n' ' ')"
	echo "#   files: $(find "$W" "$T" -maxdepth 2 -name 'fsbench.*' -o -name '*.img' | tr '\n' ' ')"
}

# ---------------- usage and bad files (no root needed) ----------------
"$FSBENCH" matrix --help >"$T/help" 2>&1
if [ $? -eq 0 ] && grep -q -- '--fail-fast' "$T/help" && grep -q 'image_size' "$T/help"; then
	ok "--help: exit 0, documents options and keys"
else
	nok "--help: exit 0, documents options and keys"
fi
"$FSBENCH" matrix --version >"$T/version" 2>&1
check "--version: exit 0, names fsbench" grep -q '^fsbench [0-9]' "$T/version"

# mx_usage DESC GREP ARGS...: exit 2, one line matching GREP, nothing made.
mx_usage() {
	local what=$1 pat=$2 rc; shift 2
	"$FSBENCH" matrix "$@" >"$T/out" 2>"$T/err"; rc=$?
	if [ $rc -eq 2 ] && one_line "$T/err" && grep -q -- "$pat" "$T/err" && [ ! -s "$T/out" ] &&
		no_scratch_left "$W"; then
		ok "usage: $what: exit 2, one line, nothing made"
	else
		nok "usage: $what: exit 2, one line, nothing made (exit $rc)"; diag "$T/err"
	fi
}
good=$T/good.ini
printf '[global]\nworkdir = %s\nrun = --size 4m\n[ext2]\n' "$W" >"$good"
mx_usage "no config" "configuration file is required"
mx_usage "two configs" "unexpected argument" "$good" "$good"
mx_usage "bad --format" "invalid --format" --format bonnie "$good"
mx_usage "bad --progress" "invalid --progress" --progress sometimes "$good"
mx_usage "unknown option" "unknown option" --frobnicate "$good"
mx_usage "--only names no setup" "'xfs' is no setup" --only ext2,xfs "$good"
mx_usage "missing file" "cannot read '$T/none.ini'" "$T/none.ini"

# bad_ini DESC WANT TEXT: the file TEXT is refused with exactly "FILE:WANT".
bad_ini() {
	local what=$1 want=$2 f=$T/bad.ini
	printf '%b' "$3" >"$f"
	mx_usage "$what" "^fsbench: $f:$want" "$f"
}
bad_ini "unknown key" "4: unknown key 'mkfs_opts' in \[ext2\]" \
	'[global]\nrun = --size 4m\n[ext2]\nmkfs_opts = -q\n'
bad_ini "unknown section" "1: unknown section \[globals\]" '[globals]\nrun = x\n[ext2]\n'
bad_ini "bad size" "2: invalid image_size '12q'" '[global]\nimage_size = 12q\n[ext2]\nrun = a\n'
bad_ini "syntax" "3: syntax error" '[global]\nrun = a\n[ext2\n'
bad_ini "key set twice" "3: key 'run' set twice in \[ext2\] (first on line 2)" \
	'[ext2]\nrun = a\nrun = b\n'
bad_ini "template names one of two devices" "4: \[b\]: mkfs names 1 of its 2 devices" \
	'[b]\ntype = btrfs\ndevices = 2\nmkfs = mkfs.btrfs {dev}\nrun = a\n'
bad_ini "template names no device" "3: \[e\]: mkfs names no device: use {dev}\$" \
	'[e]\ntype = ext4\nmkfs = mkfs.ext4 /dev/null\nrun = a\n'
bad_ini "reserved run option" "2: run: option '--output'" '[global]\nrun = --output x\n[ext2]\n'
# Parsed by fsbench run itself before anything is made.
bad_ini "run option refused by run" "2: run: invalid --chunk" \
	'[global]\nrun = --size 4m --chunk 3k\n[ext2]\n'
bad_ini "unknown run option" "4: run: unknown option '--frob'" \
	'[global]\nrun = --size 4m\n[ext2]\nrun = --frob\n'
bad_ini "lifecycle option refused by lifecycle" "2: lifecycle: invalid --phases" \
	'[global]\nlifecycle = --phases fly\n[ext2]\n'
# run's own parser: the line's operand is named, not a stand-in target.
bad_ini "run with a DIR" "2: run: unexpected argument '/etc'\$" '[global]\nrun = /etc\n[ext2]\n'
bad_ini "lifecycle with an operand" "3: lifecycle: unexpected argument 'x'\$" \
	'[global]\nrun = --size 4m\nlifecycle = x\n[ext2]\n'
# The line reader: a bare CR ends a line (a long line after one once wrote
# past inih's buffer), binary content is refused at its line.
long=$(printf 'a%.0s' $(seq 5000))
bad_ini "bare CR, then 5000 characters" "3: line too long (at most 197 characters)" \
	"[global]\nrun = --size 4m\r$long\n[ext2]\n"
bad_ini "bare CR, then 1000 characters" "3: line too long (at most 197 characters)" \
	"[global]\nrun = --size 4m\r${long:0:1000}\n[ext2]\n"
bad_ini "NUL byte" "3: contains a NUL byte: not a text file" \
	'[global]\nrun = --size 4m\n[ext\0]\n'
bad_ini "escape sequence" "2: contains the control character 0x1b: not a text file" \
	'[global]\nrun = --size 4m \033[2J\n[ext2]\n'

if ! is_root; then
	skip "matrix on loop devices" "needs root (loop devices, mount)"
	done_testing
	exit 0
fi
for t in ext2 ext4 btrfs; do
	if ! grep -qw "$t" /proc/filesystems || ! command -v "mkfs.$t" >/dev/null; then
		skip "matrix on loop devices" "no $t in this kernel or no mkfs.$t"
		done_testing
		exit 0
	fi
done

# ---------------- a setup skipped, the others run (exit 1) ----------------
cat >"$T/skip.ini" <<EOF
[global]
workdir = $W
image_size = 64m
run = --size 4m --files 64 --repeat 1 --min-time 0.05 --tests write,read,seq-create
[ext2]
[nomkfs]
type = ext4
mkfs = mkfs.fsbench-missing -q {dev}
[ext2-again]
type = ext2
EOF
"$FSBENCH" matrix --progress never "$T/skip.ini" >"$T/skip.out" 2>"$T/skip.err"; rc=$?
if [ $rc -eq 1 ] && nothing_left; then
	ok "missing mkfs tool: exit 1, nothing left behind"
else
	nok "missing mkfs tool: exit 1, nothing left behind (exit $rc)"; diag "$T/skip.err"; why_left
fi
check "missing mkfs tool: one line says the setup is skipped" \
	grep -qx "fsbench: matrix: nomkfs: mkfs program 'mkfs.fsbench-missing' not found (in PATH, /sbin, /usr/sbin): setup skipped" "$T/skip.err"
if grep -q '^ext2       |' "$T/skip.out" && grep -q '^ext2-again |' "$T/skip.out" &&
	grep -q "^  nomkfs: skipped: mkfs program 'mkfs.fsbench-missing' not found" "$T/skip.out" &&
	grep -q '^               nomkfs: *mkfs.fsbench-missing -q {dev} *mount -t ext4' "$T/skip.out"; then
	ok "missing mkfs tool: the others have their rows, the skipped one its reason"
else
	nok "missing mkfs tool: the others have their rows, the skipped one its reason"; diag "$T/skip.out"
fi
"$FSBENCH" matrix --fail-fast --progress never --format json -o "$T/ff.json" "$T/skip.ini" \
	>/dev/null 2>"$T/ff.err"; rc=$?
if [ $rc -eq 1 ] && nothing_left && pycheck "$T/ff.json" '
st = [(s["label"], s["status"], len(s["results"])) for s in d["setups"]]
assert st == [("ext2", "ok", 1), ("nomkfs", "skipped", 0), ("ext2-again", "skipped", 0)], st
assert d["setups"][2]["error"] == "not run: --fail-fast", d["setups"][2]
'; then
	ok "--fail-fast: stops after the skipped setup, lists the rest"
else
	nok "--fail-fast: stops after the skipped setup, lists the rest (exit $rc)"; diag "$T/ff.err"
fi

# ---------------- a step that fails: its name and its first error ----------------
printf '[global]\nworkdir = %s\nimage_size = 64m\nrun = --size 4m --files 64 --repeat 1\n[badmkfs]\ntype = ext2\nmkfs = false {dev}\n' \
	"$W" >"$T/fail.ini"
"$FSBENCH" matrix --progress never "$T/fail.ini" >"$T/fail.out" 2>"$T/fail.err"; rc=$?
if [ $rc -eq 1 ] && nothing_left &&
	grep -qx "  badmkfs: failed: mkfs: mkfs failed: 'false' exited with status 1" "$T/fail.out" &&
	grep -qx "fsbench: mkfs failed: 'false' exited with status 1" "$T/fail.err"; then
	ok "a failed step: exit 1, the report says the step and its error, nothing left"
else
	nok "a failed step: exit 1, the report says the step and its error, nothing left (exit $rc)"
	diag "$T/fail.out"; diag "$T/fail.err"; why_left
fi
# The tool's own reason is in the report's line, not only in what it
# printed after (mkfs.xfs: its reason, then 40 lines of usage).
printf '[global]\nworkdir = %s\nimage_size = 64m\nrun = --size 4m --files 64 --repeat 1\n[xfs]\n' \
	"$W" >"$T/small.ini"
if command -v mkfs.xfs >/dev/null; then
	"$FSBENCH" matrix --progress never "$T/small.ini" >"$T/small.out" 2>"$T/small.err"; rc=$?
	if [ $rc -eq 1 ] && nothing_left &&
		grep -q "^  xfs: failed: mkfs: mkfs failed: 'mkfs.xfs' exited with status 1: .*larger than" \
			"$T/small.out"; then
		ok "an xfs image too small: the report's line carries mkfs.xfs's reason"
	else
		nok "an xfs image too small: the report's line carries mkfs.xfs's reason (exit $rc)"
		diag "$T/small.out"; why_left
	fi
else
	skip "an xfs image too small" "no mkfs.xfs"
fi

# ---------------- the small matrix: JSON, then CSV ----------------
cat >"$T/m.ini" <<EOF
# ext2; ext4 data=writeback with a lifecycle; btrfs RAID-1 over two devices
[global]
workdir = $W
image_size = 300m
run = --size 8m --files 256 --repeat 2 --min-time 0.05

[ext2]
mkfs = mkfs.ext2 -q -F {dev}

[ext4-wb]
type = ext4
options = data=writeback
lifecycle = --repeat 2 --copy-size 2m

[btrfs-raid1]
devices = 2
mkfs = mkfs.btrfs -q -f -m raid1 -d raid1 {devs}
EOF
# The lifecycle's mountpoint is in the matrix's work directory: no TMPDIR.
TMPDIR=/nonexistent "$FSBENCH" matrix --progress never --format json -o "$T/m.json" "$T/m.ini" \
	>"$T/m.out" 2>"$T/m.err"; rc=$?
if [ $rc -eq 0 ] && [ ! -s "$T/m.out" ] && ! grep -v '^fsbench: warning: ' "$T/m.err" | grep -q . &&
	nothing_left; then
	ok "json: exit 0, no error, nothing left behind"
else
	nok "json: exit 0, no error, nothing left behind (exit $rc)"; diag "$T/m.err"; why_left
fi
check "json: a matrix document, 3 setups, each ok with results" pycheck "$T/m.json" '
assert d["format_version"] == 1 and d["tool"] == "fsbench" and d["kind"] == "matrix", d.get("kind")
assert "kernel" in d["host"], d["host"]
labels = [s["label"] for s in d["setups"]]
assert labels == ["ext2", "ext4-wb", "btrfs-raid1"], labels
for s in d["setups"]:
    assert s["status"] == "ok", (s["label"], s.get("error"))
    assert s["results"], s["label"]
    assert s["config"]["image_size"] == 300 << 20, s["config"]
c = d["setups"][2]["config"]
assert c["devices"] == 2 and c["mkfs"].endswith("{devs}") and c["type"] == "btrfs", c
assert d["setups"][1]["config"]["options"] == "data=writeback", d["setups"][1]["config"]
'
check "json: every row filled: each setup ran all 12 tests twice, > 0" pycheck "$T/m.json" '
want = ["putc", "write", "rewrite", "getc", "read", "seeks", "seq-create", "seq-stat",
        "seq-delete", "rand-create", "rand-stat", "rand-delete"]
for s in d["setups"]:
    r = s["results"][0]
    assert r["kind"] == "run" and r["setup"]["label"] == s["label"], r["setup"]
    assert r["setup"]["fs_type"] == s["config"]["type"], r["setup"]
    ids = [t["id"] for t in r["tests"]]
    assert ids == want, (s["label"], ids)
    for t in r["tests"]:
        assert len(t["runs"]) == 2 and t["median"] > 0, (s["label"], t["id"], t["runs"])
    assert r["params"]["size_bytes"] == 8 << 20 and r["params"]["files"] == 256, r["params"]
assert "data=writeback" in d["setups"][1]["results"][0]["setup"]["mount_options"]
assert "," in d["setups"][2]["results"][0]["setup"]["device"]   # both loop devices
'
check "json: the lifecycle ran on ext4-wb only, every phase twice" pycheck "$T/m.json" '
assert [len(s["results"]) for s in d["setups"]] == [1, 2, 1]
l = d["setups"][1]["results"][1]
assert l["kind"] == "lifecycle" and l["setup"]["fs_type"] == "ext4", l["setup"]
ids = [t["id"] for t in l["tests"]]
assert ids == ["mkfs", "mkfs-mount", "mkfs-umount", "mount-umount", "write", "read"], ids
for t in l["tests"]:
    assert len(t["runs"]) == 2 and min(t["runs"]) > 0, (t["id"], t["runs"])
assert l["params"]["copy_size_bytes"] == 2 << 20, l["params"]
'

"$FSBENCH" matrix --progress never --format csv -o "$T/m.csv" "$T/m.ini" \
	>"$T/c.out" 2>"$T/c.err"; rc=$?
if [ $rc -eq 0 ] && [ "$(wc -l <"$T/m.csv")" -eq 3 ] && nothing_left &&
	awk -F, 'NF != 50 { exit 1 }' "$T/m.csv" &&
	[ "$(cut -d, -f3 "$T/m.csv" | tr '\n' ' ')" = "ext2 ext4-wb btrfs-raid1 " ]; then
	ok "csv: exit 0, one 50-field line per setup, nothing left behind"
else
	nok "csv: exit 0, one 50-field line per setup, nothing left behind (exit $rc)"
	diag "$T/c.err"; diag "$T/m.csv"; why_left
fi
if bon_csv2txt <"$T/m.csv" >"$T/m.txt" 2>"$T/b.err" && [ ! -s "$T/b.err" ] &&
	grep -q '^btrfs-ra' "$T/m.txt" && grep -q '^ext4-wb' "$T/m.txt"; then
	ok "csv: bon_csv2txt reads it without error"
else
	nok "csv: bon_csv2txt reads it without error"; diag "$T/b.err"
fi
if bon_csv2html <"$T/m.csv" >"$T/m.html" 2>"$T/h.err" && [ ! -s "$T/h.err" ] &&
	grep -q 'btrfs-raid1' "$T/m.html"; then
	ok "csv: bon_csv2html reads it without error"
else
	nok "csv: bon_csv2html reads it without error"; diag "$T/h.err"
fi

# ---------------- SIGINT / SIGTERM during a setup ----------------
# stderr without the progress lines' carriage returns and erase codes.
said() { tr '\r' '\n' <"$1" | sed 's/\x1b\[K//g'; }

# stop_case SIG WANT STEP ARGS...: start the matrix, wait for the progress
# line STEP (a setup at a step), send SIG; exit WANT, no report, nothing left.
stop_case() {
	local sig=$1 want=$2 step=$3 pid rc n=600 label
	shift 3
	label=${step#*] }
	label=${label%%:*}
	"$FSBENCH" matrix --progress always "$@" "$T/m.ini" >"$T/i.out" 2>"$T/i.err" &
	pid=$!
	while [ $n -gt 0 ] && ! said "$T/i.err" | grep -qF "$step"; do
		sleep 0.1; n=$((n - 1))
	done
	sleep 1
	kill -s "$sig" $pid 2>/dev/null
	wait $pid; rc=$?
	if [ $rc -eq "$want" ] && [ ! -s "$T/i.out" ] && nothing_left; then
		ok "$sig during '$step': exit $want, no report, nothing left behind"
	else
		nok "$sig during '$step': exit $want, no report, nothing left behind (exit $rc)"
		said "$T/i.err" | grep -v ' run [0-9]' | sed 's/^/#   /' | tail -5; why_left
	fi
	# The runner's progress lines name the setup: "[2/3] ext4-wb putc  run 1/2".
	if said "$T/i.err" | grep -F "${step%%:*} " | grep -q "^[^ ]* [^ ]* [a-z-]* *run [0-9]"; then
		ok "$sig: the runner's progress lines carry the setup"
	else
		nok "$sig: the runner's progress lines carry the setup"
		said "$T/i.err" | tail -5 | sed 's/^/#   /'
	fi
	if said "$T/i.err" | grep -q "^fsbench: matrix: stopped by signal $((want - 128)) during setup '$label'"; then
		ok "$sig: says which setup it stopped"
	else
		nok "$sig: says which setup it stopped"
		said "$T/i.err" | grep -v ' run [0-9]' | tail -5 | sed 's/^/#   /'
	fi
}
stop_case INT 130 "[2/3] ext4-wb: fsbench run"
# Over two devices, during the lifecycle-free btrfs run suite.
stop_case TERM 143 "[1/1] btrfs-raid1: fsbench run" --only btrfs-raid1

done_testing
