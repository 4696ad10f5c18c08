#!/bin/bash
# fsbench-mpi: the run's tests on every MPI rank at once (mpirun -np 4
# --oversubscribe on this one host), on tmpfs and on xfs over a loop
# device this script makes. Rank 0 alone writes one result: the ranks,
# the hosts, the MPI library, each figure the aggregate of all ranks (and
# jobs) over first start to last end, the per-member spread. A rank that
# fails makes every rank stop and remove its files, and rank 0 names the
# rank, its host and its error; SIGINT to mpirun leaves no scratch.
# --stonewall reaches the other ranks; --reorder reads another rank's file;
# what ranks killed by SIGKILL leave, fsbench clean removes.
# The plain fsbench links no MPI. Skipped without Open MPI or root.
. "$(dirname "$0")/lib.sh"

MPI_BIN=${FSBENCH_MPI:-$TOP/fsbench-mpi}
tmpdir T || exit 1

need_mpi "tmpfs and loop devices"

check "the plain fsbench links no MPI" bash -c "! ldd '$TOP/fsbench' | grep -qi mpi"
check "fsbench-mpi links Open MPI" bash -c "ldd '$MPI_BIN' | grep -q libmpi"

# mpirun as root, several ranks per core. When a rank exits non-zero or
# mpirun gets SIGINT, mpirun sends SIGTERM to every rank and SIGKILL
# odls_base_sigkill_timeout seconds later (default 1, see docs/mpi.md):
# the ranks' cleanup of these small files fits in the default, and mpirun
# waits that long before it exits, so the test keeps it.
MPIRUN=(mpirun --allow-run-as-root --oversubscribe)
mpi() {
	local np=$1
	shift
	timeout 300 "${MPIRUN[@]}" -np "$np" "$MPI_BIN" "$@" </dev/null
}
# This script's ranks: their command line names its temporary directory.
mpi_procs() { pgrep -f -- "$MPI_BIN run .*$T" || true; }

# The ranks' aggregate: members = ranks x jobs, each figure their work over
# first start to last end; the per-member spread; the run's facts.
MPI_FIGURES='
ranks, jobs = int(argv[0]), int(argv[1])
p = d["params"]
assert p["ranks"] == ranks and p["jobs"] == jobs and p["members"] == ranks * jobs, p
assert p["mpi_library"].startswith("Open MPI"), p["mpi_library"]
assert p["hosts"] and len(p["rank_hosts"].split(",")) == ranks, p
assert d["tests"], "no test"
for t in d["tests"]:
    i, n = t["id"], ranks * jobs
    pj = t["per_job"]
    assert pj["jobs"] == n and len(pj["runs"]) == n, (i, pj)
    assert pj["min"] <= pj["median"] <= pj["max"], (i, pj)
    for r, v in enumerate(t["runs"]):
        wall = (t["end_ns"][r] - t["start_ns"][r]) / 1e9
        assert wall > 0, (i, r)
        agg = n * t["work"] / wall
        assert abs(v - agg) <= 1e-6 * agg, (i, r, v, agg)
'

# run_mpi NAME NP DIR ARGS...: fsbench-mpi run, JSON on stdout.
run_mpi() {
	local name=$1 np=$2 dir=$3 rc
	shift 3
	mpi "$np" run --quiet "$@" --format json "$dir" >"$T/$name.json" 2>"$T/$name.err"
	rc=$?
	if [ $rc -eq 0 ] && no_scratch_left "$dir" && json_get "$T/$name.json" 1 >/dev/null; then
		ok "$name: $np ranks exit 0, one JSON document on stdout, no scratch left"
	else
		nok "$name: $np ranks exit 0, one JSON document, no scratch left (exit $rc)"
		diag "$T/$name.err"
		return 1
	fi
}

SMALL=(--size 64m --files 1k --repeat 1 --min-time 0.05 --char-size 4m --seeks 512)

mkdir "$T/tmpfs"
mount_tmpfs "$T/tmpfs" size=3g || exit 1
D=$T/tmpfs
if run_mpi tmpfs 4 "$D" "${SMALL[@]}"; then
	check "tmpfs: 4 ranks: aggregate of all ranks, per-rank spread, ranks, hosts, MPI library" \
		pycheck "$T/tmpfs.json" "$MPI_FIGURES" 4 1
fi
# Ranks x jobs: 2 ranks of 2 jobs are 4 members.
if run_mpi jobs 2 "$D" --size 16m --tests write,read,seq-create --files 256 --repeat 1 \
	--min-time 0.05 --jobs 2; then
	check "2 ranks x 2 jobs: 4 members, the aggregate of all" \
		pycheck "$T/jobs.json" "$MPI_FIGURES" 2 2
fi
# --reorder: every read-only test reads another rank's files, getc too,
# which compares every byte with the data its writer wrote (it compared
# them with its own rank's and failed every time); with 2 jobs a rank's
# job K reads job K of the other rank.
for j in 1 2; do
	if run_mpi "reorder-j$j" 3 "$D" --size 8m --tests putc,write,getc,read,seeks --seeks 512 \
		--char-size 4m --repeat 1 --min-time 0.05 --jobs $j --reorder; then
		check "--reorder, 3 ranks x $j jobs: putc, write, getc, read, seeks measured" \
			pycheck "$T/reorder-j$j.json" \
			'assert [t["id"] for t in d["tests"]] == ["putc", "write", "getc", "read", "seeks"]'
	fi
done
# mdtest's shared directory mode: every rank's names in one directory.
if run_mpi shared 4 "$D" --tests seq-create,seq-stat,seq-delete --files 256 --repeat 1 \
	--min-time 0.05 --shared-dir; then
	check "--shared-dir across ranks: the aggregate of all" \
		pycheck "$T/shared.json" "$MPI_FIGURES" 4 1
fi

# The views on rank 0's document: text names the ranks, CSV's concurrency
# field is ranks x jobs, compare accepts it.
mpi 2 run --quiet --size 8m --tests write,read --repeat 1 --min-time 0.05 --jobs 2 "$D" \
	>"$T/text" 2>"$T/text.err"
check "text: the ranks, hosts and MPI library" grep -q "ranks 2, .*mpi-library Open MPI" \
	<(tr '\n' ' ' <"$T/text" | tr -s ' ')
check "text: one report (rank 0's)" test "$(grep -c '^fsbench .*, run$' "$T/text")" -eq 1
mpi 2 run --quiet --size 8m --tests write,read --repeat 1 --min-time 0.05 --jobs 2 \
	--format csv "$D" >"$T/csv" 2>"$T/csv.err"
check "csv: bonnie++'s concurrency field (4th) is ranks x jobs" \
	bash -c "cut -d, -f4 '$T/csv' | grep -qx 4"
check "compare reads the MPI result" "$TOP/fsbench" compare "$T/tmpfs.json" "$T/jobs.json" \
	-o "$T/cmp.txt"
check "report reads the MPI result" "$TOP/fsbench" report "$T/tmpfs.json" -o "$T/report.html"

# --stonewall across ranks: the first rank to finish stops the others
# (only another rank's message can stop a rank of one job).
# When the ranks happen to end within the stop's flight time of each other
# (a loaded machine can line them up), none is cut: up to three tries.
# Runs of about a second (4 x 512 MiB on 2 cores): ranks a few percent
# apart end tens of ms apart, far more than the stop's few ms of flight
# (runs of 0.27 s failed three tries in a row once).
STONE=(--tests write --size 512m --repeat 1 --min-time 0.05 --stonewall --cache keep)
# cut_short: the run in stonewall.json was cut by --stonewall.
cut_short() {
	pycheck "$T/stonewall.json" \
		'assert d["tests"][0].get("stopped_by") == "stonewall", d["tests"][0]'
}
if run_mpi stonewall 4 "$D" "${STONE[@]}"; then
	try=1
	# Each retry must itself succeed; the last try's message is shown.
	while ! cut_short >/dev/null 2>&1 && [ $try -lt 3 ]; do
		try=$((try + 1))
		mpi 4 run --quiet "${STONE[@]}" --format json "$D" >"$T/stonewall.json" \
			2>"$T/stonewall.err" || break
	done
	check "--stonewall: another rank's finish cut the others short (try $try of 3)" cut_short
fi

# --stonewall with one job per rank is no idle option: the ranks are members.
mpi 2 run --size 8m --tests write --repeat 1 --min-time 0.05 --stonewall --progress never "$D" \
	>/dev/null 2>"$T/warn.err"
check "--stonewall with 2 ranks of one job: no 'does nothing' warning" \
	bash -c "! grep -q 'does nothing' '$T/warn.err'"

# A usage error: said once (by rank 0), exit 2; other commands refused.
mpi 4 run --bogus "$D" >"$T/usage.out" 2>"$T/usage.err"
rc=$?
check "usage error: exit 2, one line from rank 0" \
	bash -c "[ $rc -eq 2 ] && [ \$(grep -c '^fsbench: ' '$T/usage.err') -eq 1 ]"
mpi 2 clean "$D" >"$T/clean.out" 2>"$T/clean.err"
check "fsbench-mpi refuses other commands on several ranks" \
	grep -q "^fsbench: fsbench-mpi runs 'run' across ranks; use fsbench for 'clean'" \
	"$T/clean.err"

# spoil NAME FILE ACTION WANT ARGS...: run 4 ranks with ARGS; once FILE
# (a path below the scratch dir) exists, ACTION ($F is its path); the run
# must fail (exit 1), rank 0's first line matching WANT, leaving no
# scratch and no rank behind.
spoil() {
	local name=$1 file=$2 action=$3 want=$4 pid rc F=
	shift 4
	# mpirun itself in the background: $pid is its own (SIGINT goes to it).
	"${MPIRUN[@]}" -np 4 "$MPI_BIN" run --quiet "$@" "$D" </dev/null >"$T/$name.out" \
		2>"$T/$name.err" &
	pid=$!
	for _ in $(seq 600); do
		F=$(compgen -G "$D/fsbench.*/$file" | head -n1) && [ -n "$F" ] && break
		sleep 0.05
	done
	if [ -z "$F" ]; then
		nok "$name: $file appeared"
		wait $pid
		return
	fi
	sleep 0.3
	# (a swap finds no file while a rank makes it again: try again)
	for _ in 1 2 3 4 5; do
		eval "$action" 2>/dev/null && break
	done
	wait $pid
	rc=$?
	if [ $rc -ne 0 ] && { [ -z "$want" ] || head -n1 "$T/$name.err" | grep -qE "$want"; }; then
		ok "$name: exit $rc, rank 0 says: $(head -n1 "$T/$name.err")"
	else
		nok "$name: exit non-zero and '$want' (exit $rc)"
		diag "$T/$name.err"
	fi
	check "$name: no scratch left (every rank's files removed)" no_scratch_left "$D"
	# (mpirun may reap its ranks a moment after its own exit: 5 s at most)
	check "$name: no rank left" wait_for 5 eval 'test -z "$(mpi_procs)"'
}

LONG=(--tests read --size 256m --repeat 40 --min-time 0.1 --cache keep)
# A directory in place of rank 2's file, in one step (lib.sh's
# dir_in_place; a rank's open between an rm and a mkdir failed with
# ENOENT): rank 2 fails, all stop.
spoil "a rank that fails" rank-2/block.dat 'dir_in_place "$F" "$D"' \
	"^fsbench: rank 2 on [^:]*: read: cannot (open|read) '.*/rank-2/block.dat'.*Is a directory" \
	"${LONG[@]}"
# --reorder on one host: rank 1 reads rank 2's file (the next rank's).
spoil "--reorder: a rank reads another's file" rank-2/block.dat 'dir_in_place "$F" "$D"' \
	"^fsbench: rank 1 on [^:]*: read: cannot (open|read) '.*/rank-2/block.dat'.*Is a directory" \
	"${LONG[@]}" --reorder
# SIGINT to mpirun mid-run: mpirun's SIGTERM to every rank, each cleans up.
spoil "SIGINT to mpirun" rank-3/block.dat 'kill -INT $pid' "" "${LONG[@]}"

# SIGTERM to one rank alone (not through mpirun): every rank stops at the
# next fence, and rank 0 says which one a signal stopped.
term_rank3() {
	local c
	for c in $(pgrep -P $pid); do
		if tr '\0' '\n' <"/proc/$c/environ" 2>/dev/null | grep -qx OMPI_COMM_WORLD_RANK=3; then
			kill -TERM "$c"
		fi
	done
}
spoil "SIGTERM to rank 3" rank-3/block.dat term_rank3 \
	"^fsbench: rank 3 on [^:]*: stopped by Terminated" "${LONG[@]}"

# SIGKILL to every rank mid-run (what nothing can clean up after): the
# scratch directory (rank 0's marker, every rank-N inside) is left, and
# fsbench clean removes all of it.
"${MPIRUN[@]}" -np 4 "$MPI_BIN" run --quiet "${LONG[@]}" "$D" </dev/null >/dev/null \
	2>"$T/kill.err" &
pid=$!
for _ in $(seq 600); do
	compgen -G "$D/fsbench.*/rank-3/block.dat" >/dev/null && break
	sleep 0.05
done
# Only this mpirun's children: the ranks of this test.
pkill -KILL -P $pid
wait $pid
# Rank 0, whose pid the marker names, gone and reaped (clean leaves the
# files of a pid that still exists, a zombie included).
owner=$(sed -n 's/^pid=//p' "$D"/fsbench.*/.fsbench-owner 2>/dev/null | head -n1)
for _ in $(seq 200); do
	[ -n "$owner" ] && [ -e "/proc/$owner" ] || break
	sleep 0.05
done
check "SIGKILL to every rank: the scratch directory is left" \
	bash -c "compgen -G '$D/fsbench.*/rank-3' >/dev/null"
"$TOP/fsbench" clean "$D" >"$T/clean.out" 2>&1
if no_scratch_left "$D"; then
	ok "fsbench clean removes what the killed ranks left (every rank-N)"
else
	nok "fsbench clean removes what the killed ranks left (every rank-N)"
	diag "$T/clean.out"
	ps -o pid,ppid,stat,cmd -p "$owner" | sed 's/^/#   /' 
fi

# On xfs over a loop device (this script's own; released at exit).
if make_fs xfs 1g; then
	if run_mpi xfs 4 "$FS_MNT" "${SMALL[@]}"; then
		check "xfs: 4 ranks: aggregate of all ranks, per-rank spread, ranks, hosts" \
			pycheck "$T/xfs.json" "$MPI_FIGURES" 4 1
	fi
	check "xfs: nothing left on the filesystem" empty_dir "$FS_MNT"
else
	nok "make xfs on a loop device"
fi

done_testing
