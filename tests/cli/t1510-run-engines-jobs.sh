#!/bin/bash
# fsbench run --engine psync|io_uring --iodepth N: write, rewrite, read,
# seeks, randread and randwrite through both engines, with jobs, every
# block verified (on tmpfs, and as root on ext4 over a loop device with
# --cache=direct). A block corrupted under a reader is caught, through
# either engine: one line naming the job, the file and the offset, exit 1,
# nothing left. A job whose file cannot be opened (a directory in its
# place: root ignores permission bits) stops every job: one line names
# that job, and every job's files are gone.
. "$(dirname "$0")/lib.sh"

[ -x "$FSBENCH" ] || { echo "Bail out! $FSBENCH not built"; exit 1; }
tmpdir T || exit 1
D=$T/d
mkdir "$D"
if is_root; then
	mount_tmpfs "$D" size=256m || { echo "Bail out! cannot mount tmpfs"; exit 1; }
fi

BLOCK=(--tests write,rewrite,read,seeks,randread,randwrite --size 4m --repeat 1 --min-time 0.05
	--seeks 1024)

# run_ok NAME DIR ARGS...: exit 0, no scratch left, the JSON in $T/NAME.json.
run_ok() {
	local name=$1 dir=$2 rc; shift 2
	"$FSBENCH" run --quiet "$@" --format json -o "$T/$name.json" "$dir" 2>"$T/$name.err"; rc=$?
	if [ $rc -eq 0 ] && no_scratch_left "$dir"; then
		ok "$name: fsbench run $* exits 0, no scratch left"
	else
		nok "$name: fsbench run $* exits 0, no scratch left (exit $rc)"; diag "$T/$name.err"
		return 1
	fi
}
ENGINE_CHECK='
eng, depth = argv[0], int(argv[1])
assert d["params"]["engine"] == eng and d["params"]["iodepth"] == depth, d["params"]
ids = [t["id"] for t in d["tests"]]
assert ids == ["write", "rewrite", "read", "seeks", "randread", "randwrite"], ids
for t in d["tests"]:
    assert t["median"] > 0 and t["latency_us"]["p50"] > 0, t["id"]
'

for eng in psync io_uring; do
	for depth in 1 8; do
		if run_ok "$eng-$depth" "$D" "${BLOCK[@]}" --engine "$eng" --iodepth "$depth" \
			--jobs 2 --shared-file; then
			check "$eng at depth $depth, 2 jobs on a shared file: every block verified" \
				pycheck "$T/$eng-$depth.json" "$ENGINE_CHECK" "$eng" "$depth"
		fi
	done
done
if is_root; then
	if make_fs ext4 256m; then
		for eng in psync io_uring; do
			if run_ok "ext4-$eng" "$FS_MNT" "${BLOCK[@]}" --size 8m --engine "$eng" \
				--iodepth 16 --jobs 2 --cache direct; then
				check "ext4, O_DIRECT, $eng at depth 16, 2 jobs: every block verified" \
					pycheck "$T/ext4-$eng.json" "$ENGINE_CHECK" "$eng" 16
			fi
		done
	else
		nok "make ext4 on a loop device"
	fi
else
	skip "ext4 on a loop device, O_DIRECT, both engines" "needs root"
fi

# ---- the space comes back when fsbench exits ----
# A ring holds its registered file until the kernel tears the ring down,
# in a worker, after the ring is closed: unless fsbench unregisters the
# file first, the removed files' space on the tmpfs was still taken right
# after fsbench exited (512 MiB of a 768 MiB tmpfs in a CI run; the next
# run found too little space).
if is_root; then
	before=$(used_kib "$D")
	if run_ok "io_uring-space" "$D" --tests randread --engine io_uring --iodepth 16 \
		--size 16m --jobs 8 --repeat 1 --min-time 0.05; then
		after=$(used_kib "$D")
		[ "$after" -le $((before + 1024)) ] &&
			ok "io_uring, 8 jobs: the tmpfs' space is back when fsbench exits ($before KiB used before, $after after)" ||
			nok "io_uring, 8 jobs: the tmpfs' space is back when fsbench exits ($before KiB used before, $after after)"
	fi
	# Stopped in its run, the seeks test ends its seekers (each
	# with a ring of its own): they quit and release their rings, rather
	# than being killed, which left the rings to the kernel's worker
	# (131072 KiB still taken after exit, 4 in 4 runs).
	before=$(used_kib "$D")
	"$FSBENCH" run --progress always --tests seeks --engine io_uring --iodepth 64 \
		--seekers 3 --size 128m --chunk 512 --seeks 50000000 --repeat 5 --min-time 30 \
		"$D" >/dev/null 2>"$T/err" &
	pid=$!
	if wait_for 30 has_children $pid 3; then
		sleep 0.3
		kill -INT $pid
		wait $pid; rc=$?
		after=$(used_kib "$D")
		[ $rc -eq 130 ] && [ "$after" -le $((before + 1024)) ] &&
			ok "io_uring seeks, SIGINT: exit 130, the space back at once ($after KiB used)" ||
			{ nok "io_uring seeks, SIGINT: exit 130, the space back at once (exit $rc, $after KiB used, $before before)"; diag "$T/err"; }
	else
		kill -KILL $pid; wait $pid
		nok "io_uring seeks: never saw its seekers"; diag "$T/err"
	fi
else
	skip "io_uring: the space comes back when fsbench exits" "needs root (a tmpfs)"
fi

# ---- a ring the locked-memory limit refuses: one line that says what to do ----
if is_root && command -v setpriv >/dev/null && command -v prlimit >/dev/null; then
	prlimit --memlock=0:0 -- setpriv --inh-caps=-ipc_lock --bounding-set=-ipc_lock -- \
		"$FSBENCH" run --quiet --engine io_uring --tests randread --size 4m --repeat 1 \
		--min-time 0.01 "$D" >/dev/null 2>"$T/memlock.err"
	rc=$?
	# (A kernel that does not charge a ring to the limit runs it: exit 0.)
	if [ $rc -eq 0 ]; then
		skip "io_uring under a locked-memory limit of 0" "this kernel sets the ring up anyway"
	else
		[ $rc -eq 1 ] && one_line "$T/memlock.err" && grep -q "ulimit -l" "$T/memlock.err" &&
			ok "io_uring under a locked-memory limit of 0: exit 1, one line naming ulimit -l" ||
			{ nok "io_uring under a locked-memory limit of 0: exit 1, one line naming ulimit -l (exit $rc)"; diag "$T/memlock.err"; }
	fi
	check "io_uring under a locked-memory limit of 0: no scratch left" no_scratch_left "$D"
else
	skip "io_uring under a locked-memory limit of 0" "needs root, setpriv and prlimit"
fi

# ---- spoiling a job's file while the jobs run ----
# lib.sh's spoil, on job 1's files.
SIZE=$((8 << 20))
# A chunk of zeros at offset 0 of job 1's file: the next run reads it.
ZERO='dd if=/dev/zero of="$F" bs=4096 count=1 conv=notrunc status=none'
LONG=(--repeat 40 --min-time 0.1 --size 8m --jobs 3)
spoil "read, psync, a zeroed chunk" job-1/block.dat "$ZERO" \
	"^fsbench: job 1: read: data mismatch in '.*/job-1/block.dat' at offset 0: not fsbench data" \
	--tests read "${LONG[@]}"
spoil "read, io_uring depth 8, a zeroed chunk" job-1/block.dat "$ZERO" \
	"^fsbench: job 1: read: data mismatch in '.*/job-1/block.dat' at offset 0: not fsbench data" \
	--tests read --engine io_uring --iodepth 8 "${LONG[@]}"
spoil "randread, io_uring depth 8, a zeroed block" job-1/random.dat "$ZERO" \
	"^fsbench: job 1: randread: data mismatch in '.*/job-1/random.dat' at offset 0: not fsbench data" \
	--tests randread --engine io_uring --iodepth 8 --block-size 4k "${LONG[@]}"
spoil "rewrite, io_uring depth 4, a zeroed chunk" job-1/block.dat "$ZERO" \
	"^fsbench: job 1: rewrite: data mismatch in '.*/job-1/block.dat' at offset 0: not fsbench data" \
	--tests rewrite --engine io_uring --iodepth 4 "${LONG[@]}"
spoil "seeks, a zeroed file" job-1/block.dat \
	'dd if=/dev/zero of="$F" bs=1M count=8 conv=notrunc status=none' \
	"^fsbench: job 1: seeks: seeker [0-9] found a data mismatch in '.*/job-1/block.dat'" \
	--tests seeks --seeks 20000 "${LONG[@]}"
# A directory where job 1's file must be opened: its next setup fails
# (or the read of what it opened, if the swap fell between its prepare and
# its open). The swap is one step (lib.sh's dir_in_place): with an rm then
# a mkdir, the job's open could come between them (ENOENT: 1 in 60 runs
# of this case under load).
spoil "a job that fails" job-1/block.dat 'dir_in_place "$F" "$D"' \
	"^fsbench: job 1: read: cannot (open|read) '.*/job-1/block.dat'.*: Is a directory" \
	--tests read "${LONG[@]}"

done_testing
