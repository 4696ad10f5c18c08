#!/bin/bash
# Many clients over MPI (issue 12), checked against fsbench itself and
# against fio, figures printed in one run. Never a timed test: run it by
# hand on a quiet machine. On a machine of few cores, ranks share them:
# the figures say what the aggregation does, not how a cluster scales.
#
#  1. fsbench-mpi with 1, 2, 4 ranks against as many independent fsbench
#     processes started together, each with the same fixed work (--repeat
#     1, --min-time 0.01), aggregated the same way: all work over the
#     first start to the last end, from the start_ns and end_ns of their
#     JSON (CLOCK_MONOTONIC, one host). Block read of SIZE per rank on xfs
#     over a loop device and on a tmpfs, seq-create of FILES per rank on
#     the tmpfs. Target: within 5%. The ranks pass a start gate; the
#     processes have none, so each starts its timed run when its own
#     setup (for read: writing the file, and with --cache drop a sync and
#     a drop of the kernel's caches) is done. The table prints how much of
#     the processes' first start to last end all N of them were timing at
#     once ("overlap"): where it is far from 100%, the two sides did not
#     do the same thing at the same time and the difference says so.
#     mpirun runs with --bind-to none: with no more ranks than cores Open
#     MPI binds rank r to core r, the processes float, and a reader pinned
#     to core 0 of this 2-core VM reads the loop device measurably slower
#     (docs/mpi.md, "Binding").
#  2. The fences: what one barrier and one measured run's set of
#     collectives (setup barrier, cache settle, start gate, end barrier,
#     the reduces and the gather) cost, through the MPI group alone and
#     with 2 local jobs per rank composed with it (build/bench/mpi-barrier).
#  3. Block write and read with 1, 2, 4 ranks (psync, 8 KiB I/Os, SIZE per
#     rank) against fio with the same numjobs, bs, size, ioengine and the
#     options of bench/scale.sh that make fio do the same work (a fresh
#     file per job, end_fsync for writes, the page cache invalidated before
#     reads, no fadvise hint). IOR and mdtest are not packaged in Debian.
#
# Every comparison takes ROUNDS rounds, the tools taking turns; medians
# are compared. Exit 0 when every target is met, 1 when one is missed, 2
# when something could not run. Root only (tmpfs, loop device, mount);
# everything it makes is released at exit, nothing else touched.
#
# Environment:
#   FSBENCH, FSBENCH_MPI  the binaries (default ./fsbench, ./fsbench-mpi)
#   SIZE    block size per rank (default 512m: a read of 128m lasts
#           some 60 ms here, where one slow I/O moves the figure by tens
#           of percent)
#   FILES   seq-create files per rank (default 100k)
#   RANKS   rank counts (default "1 2 4")
#   ROUNDS  rounds (default 3)
#   PARTS   which parts (default "1 2 3")
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
FSBENCH=${FSBENCH:-$TOP/fsbench}
FSBENCH_MPI=${FSBENCH_MPI:-$TOP/fsbench-mpi}
BARRIER=$TOP/build/bench/mpi-barrier
SIZE=${SIZE:-512m}
FILES=${FILES:-100k}
RANKS=${RANKS:-1 2 4}
ROUNDS=${ROUNDS:-3}
PARTS=${PARTS:-1 2 3}

BENCH=mpi
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" -eq 0 ] || die "needs root (tmpfs, loop device, mount)"
[ -x "$FSBENCH" ] || die "no $FSBENCH (run make)"
[ -x "$FSBENCH_MPI" ] || die "no $FSBENCH_MPI (run make mpi)"
for t in mpirun fio mkfs.xfs losetup mount python3; do
	command -v "$t" >/dev/null || die "needs $t"
done
make -s -C "$TOP" build/bench/mpi-barrier >/dev/null || die "cannot build $BARRIER"
part() { [[ " $PARTS " == *" $1 "* ]]; }
MPIRUN=(mpirun --allow-run-as-root --oversubscribe --bind-to none)

W=$(mktemp -d "${TMPDIR:-/tmp}/fsb-mpi.XXXXXX") || die "no temp dir"
undo "rm -rf '$W'"
mkdir "$W/tmpfs" "$W/xfs" "$W/res"
mount -t tmpfs -o size=4g fsb-mpi "$W/tmpfs" || die "cannot mount a tmpfs"
undo "umount '$W/tmpfs'"
truncate -s 4g "$W/img" || die "cannot make $W/img"
DEV=$(attach_loop "$W/img") || die "cannot attach $W/img"
undo "detach_loop '$DEV' '$W/img'"
mkfs.xfs -q -f "$DEV" || die "mkfs.xfs $DEV failed"
mount -t xfs "$DEV" "$W/xfs" || die "cannot mount $DEV"
undo "umount '$W/xfs'"
CMDS=$W/commands
: >"$CMDS"
log_cmd() { grep -qxF -- "$*" "$CMDS" || echo "$*" >>"$CMDS"; }

# A test's figure in a fsbench JSON.
fsb_get() {
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
t = [t for t in d["tests"] if t["id"] == sys.argv[2]][0]
print(eval(sys.argv[3]))' "$@"
}

# The fixed work of part 1 and 3: args TEST -> the options.
args_of() {
	case $1 in
	read | write) echo --tests "$1" --size "$SIZE" --chunk 8k --cache drop --files 0 ;;
	seq-create) echo --tests seq-create --files "$FILES" ;;
	esac
}

# mpi_fig PART FS TEST N -> appends fsbench-mpi's aggregate to res/mpiPART.FS.TEST.N
mpi_fig() {
	local part=$1 fs=$2 test=$3 n=$4 args
	read -ra args <<<"$(args_of "$test") --repeat 1 --min-time 0.01"
	log_cmd "mpirun --bind-to none -np $n fsbench-mpi run ${args[*]} DIR"
	"${MPIRUN[@]}" -np "$n" "$FSBENCH_MPI" run --quiet "${args[@]}" --format json "$W/$fs" \
		</dev/null >"$W/m.json" 2>"$W/err" || { cat "$W/err" >&2; die "fsbench-mpi failed"; }
	fsb_get "$W/m.json" "$test" 't["median"]' >>"$W/res/mpi$part.$fs.$test.$n"
	cut -d' ' -f1 /proc/loadavg >>"$W/res/load$part.$fs.$test.$n"
	# The ranks' overlap: all start at the gate with the same work, so
	# the slowest rank's run spans the run and the fastest one's is the
	# part all of them share.
	fsb_get "$W/m.json" "$test" \
		'(lambda r: min(r) / max(r))([x[0] for x in t["per_job"]["runs"]] if "per_job" in t else [1])' \
		>>"$W/res/rov$part.$fs.$test.$n"
	fsb_get "$W/m.json" "$test" \
		'__import__("statistics").median([x[0] for x in t["per_job"]["runs"]] if "per_job" in t else t["runs"])' \
		>>"$W/res/rmed$part.$fs.$test.$n"
}
# procs_fig FS TEST N -> appends the aggregate of N processes to res/procs.FS.TEST.N
procs_fig() {
	local fs=$1 test=$2 n=$3 args k pids=()
	read -ra args <<<"$(args_of "$test") --repeat 1 --min-time 0.01"
	log_cmd "$n x fsbench run ${args[*]} DIR (started together)"
	rm -f "$W"/p*.json
	for ((k = 1; k <= n; k++)); do
		"$FSBENCH" run --quiet "${args[@]}" --format json -o "$W/p$k.json" "$W/$fs" \
			2>"$W/err.$k" &
		pids+=($!)
	done
	for ((k = 1; k <= n; k++)); do
		wait "${pids[$((k - 1))]}" || { cat "$W/err.$k" >&2; die "fsbench process $k failed"; }
	done
	# The aggregate; the share of first start to last end in which every
	# process was in its timed run, and the one before the last started.
	python3 -c 'import json, statistics, sys
ts = [[t for t in json.load(open(f))["tests"] if t["id"] == sys.argv[2]][0] for f in sys.argv[3:]]
work = sum(t["work"] for t in ts)
first = min(t["start_ns"][0] for t in ts)
last = max(t["end_ns"][0] for t in ts)
both = min(t["end_ns"][0] for t in ts) - max(t["start_ns"][0] for t in ts)
skew = max(t["start_ns"][0] for t in ts) - first
print(work / ((last - first) / 1e9))
print(max(both, 0) / (last - first), skew / (last - first),
      statistics.median(t["median"] for t in ts), file=open(sys.argv[1], "a"))' \
		"$W/res/overlap.$fs.$test.$n" "$test" "$W"/p*.json >>"$W/res/procs.$fs.$test.$n" ||
		die "cannot read the processes' output"
	cut -d' ' -f1 /proc/loadavg >>"$W/res/load1.$fs.$test.$n"
}
# fio_fig FS TEST N -> appends fio's group bandwidth to res/fio.FS.TEST.N
fio_fig() {
	local fs=$1 test=$2 n=$3 args
	args=(--name=mpi --directory="$W/$fs" --rw="$test" --bs=8k --size="$SIZE" --numjobs="$n"
		--ioengine=psync --fallocate=none --unlink=1 --invalidate=1 --fadvise_hint=0
		--group_reporting)
	[ "$test" = write ] && args+=(--end_fsync=1)
	log_cmd "fio ${args[*]/$W\/$fs/DIR} --output-format=json"
	fio "${args[@]}" --output-format=json >"$W/fio.json" 2>"$W/err" ||
		{ cat "$W/err" >&2; die "fio failed"; }
	python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0][sys.argv[2]]
assert j["io_bytes"] > 0, "fio did no I/O"
print(j["bw_bytes"])' "$W/fio.json" "$test" >>"$W/res/fio.$fs.$test.$n" ||
		die "cannot read fio's output"
}

if part 1; then
	say "1: fsbench-mpi against independent processes, ranks $RANKS; $ROUNDS rounds"
	for ((r = 1; r <= ROUNDS; r++)); do
		for c in xfs:read tmpfs:read tmpfs:seq-create; do
			fs=${c%%:*} test=${c#*:}
			for n in $RANKS; do
				if ((r % 2)); then
					mpi_fig 1 "$fs" "$test" "$n"; procs_fig "$fs" "$test" "$n"
				else
					procs_fig "$fs" "$test" "$n"; mpi_fig 1 "$fs" "$test" "$n"
				fi
			done
		done
		say "1: round $r/$ROUNDS done"
	done
fi

if part 2; then
	say "2: the fences, ranks $RANKS"
	for n in $RANKS; do
		for j in 1 2; do
			log_cmd "mpirun -np $n build/bench/mpi-barrier --jobs $j --rounds 2000"
			"${MPIRUN[@]}" -np "$n" "$BARRIER" --jobs "$j" --rounds 2000 </dev/null \
				>>"$W/res/fences" 2>"$W/err" || { cat "$W/err" >&2; die "mpi-barrier failed"; }
		done
	done
fi

if part 3; then
	say "3: block write/read against fio, ranks $RANKS; $ROUNDS rounds"
	for ((r = 1; r <= ROUNDS; r++)); do
		for fs in tmpfs xfs; do
			for test in write read; do
				for n in $RANKS; do
					if ((r % 2)); then
						mpi_fig 3 "$fs" "$test" "$n"; fio_fig "$fs" "$test" "$n"
					else
						fio_fig "$fs" "$test" "$n"; mpi_fig 3 "$fs" "$test" "$n"
					fi
				done
			done
		done
		say "3: round $r/$ROUNDS done"
	done
fi

python3 - "$W/res" "$PARTS" "$RANKS" <<'PYEOF'
import os, statistics, sys
res, parts, ranks = sys.argv[1], sys.argv[2].split(), sys.argv[3].split()
def vals(name):
    p = os.path.join(res, name)
    return [float(l) for l in open(p) if l.strip()] if os.path.exists(p) else []
missed = 0
def verdict(good):
    global missed
    missed += not good
    return "ok" if good else "MISSED"
if "1" in parts:
    print("\n1. fsbench-mpi against N processes started together (median of rounds)")
    print("%-22s %5s  %11s %10s  %7s  %9s  %9s  %5s  %-7s  %s" % ("test", "ranks", "fsbench-mpi",
          "processes", "diff", "spread", "overlap", "skew", "load", "target within 5%"))
    def spread(v):
        return (max(v) - min(v)) / statistics.median(v)
    for fs, test, unit, scale in (("xfs", "read", "MiB/s", 2**20), ("tmpfs", "read", "MiB/s", 2**20),
                                  ("tmpfs", "seq-create", "/s", 1)):
        for n in ranks:
            a, b = vals("mpi1.%s.%s.%s" % (fs, test, n)), vals("procs.%s.%s.%s" % (fs, test, n))
            if not a or not b:
                continue
            ma, mb = statistics.median(a), statistics.median(b)
            ovs = [l.split() for l in open(os.path.join(res, "overlap.%s.%s.%s" % (fs, test, n)))]
            ov = statistics.median(float(x[0]) for x in ovs)
            sk = statistics.median(float(x[1]) for x in ovs)
            rov = statistics.median(vals("rov1.%s.%s.%s" % (fs, test, n)))
            diff = ma / mb - 1
            ld = vals("load1.%s.%s.%s" % (fs, test, n)) or [float("nan")]
            why = []
            if max(spread(a), spread(b)) > 0.1:
                why.append("spread")
            if sk > 0.05:
                why.append("skew")
            print("%-22s %5s  %11.0f %10.0f  %+6.1f%%  %9s  %9s  %4.0f%%  %-7s  %s%s" % (
                  "%s %s (%s)" % (test, fs, unit), n, ma / scale, mb / scale, 100 * diff,
                  "%.0f/%.0f%%" % (100 * spread(a), 100 * spread(b)),
                  "%.0f/%.0f%%" % (100 * rov, 100 * ov), 100 * sk,
                  "%.1f-%.1f" % (min(ld), max(ld)),
                  verdict(abs(diff) <= 0.05), " (%s)" % ", ".join(why) if why else ""))
    print("""ranks: mpirun --bind-to none, every rank behind a start gate. processes: started
together, no gate: each times its run when its own setup is done.
spread: (max - min) / median of the rounds, ranks/processes. Where it passes 10%
(marked "spread"), one side's rounds vary more than twice the target: agreement
within 5% is neither shown nor ruled out by that row.
overlap: the median share of the first start to the last end in which all of
them were timing at once, ranks/processes (the ranks': their slowest rank's
rate over their fastest's, as they start together).
skew: the processes' median share of the first start to the last end that
passed before the last of them started (the ranks leave the gate within some
0.1 ms of each other when each has a core).
Above 5% (marked "skew") the two sides did not do the same work at the same
time, and the difference is partly that.
load: the 1-minute load average after each measurement of the row, min-max (it
counts this script's own processes too, up to the rank count).""")
    print("\n1b. The members' own rates: the median rank's against the median process's")
    print("(each the median of rounds; not an aggregate, no target)")
    print("%-22s %5s  %11s %10s  %7s" % ("test", "ranks", "rank", "process", "diff"))
    for fs, test, unit, scale in (("xfs", "read", "MiB/s", 2**20), ("tmpfs", "read", "MiB/s", 2**20),
                                  ("tmpfs", "seq-create", "/s", 1)):
        for n in ranks:
            a = vals("rmed1.%s.%s.%s" % (fs, test, n))
            p = os.path.join(res, "overlap.%s.%s.%s" % (fs, test, n))
            if not a or not os.path.exists(p):
                continue
            ma = statistics.median(a)
            mb = statistics.median(float(l.split()[2]) for l in open(p))
            print("%-22s %5s  %11.0f %10.0f  %+6.1f%%" % ("%s %s (%s)" % (test, fs, unit), n,
                  ma / scale, mb / scale, 100 * (ma / mb - 1)))
if "2" in parts and os.path.exists(os.path.join(res, "fences")):
    print("\n2. The fences (mean per barrier, and per measured run's set of collectives)")
    print("%5s %4s  %12s  %16s" % ("ranks", "jobs", "barrier us", "per run us"))
    for l in open(os.path.join(res, "fences")):
        kv = dict(x.split("=") for x in l.split())
        print("%5s %4s  %12s  %16s" % (kv["ranks"], kv["jobs"], kv["barrier_us"],
              kv["run_fences_us"]))
if "3" in parts:
    print("\n3. Block write/read, psync, 8 KiB I/Os: fsbench-mpi ranks against fio numjobs "
          "(MiB/s, median of rounds)")
    print("%-6s %-5s %5s  %12s %10s  %6s" % ("fs", "test", "ranks", "fsbench-mpi", "fio", "ratio"))
    for fs in ("tmpfs", "xfs"):
        for test in ("write", "read"):
            for n in ranks:
                a, b = vals("mpi3.%s.%s.%s" % (fs, test, n)), vals("fio.%s.%s.%s" % (fs, test, n))
                if not a or not b:
                    continue
                ma, mb = statistics.median(a), statistics.median(b)
                print("%-6s %-5s %5s  %12.0f %10.0f  %6.3f" % (fs, test, n, ma / 2**20,
                      mb / 2**20, ma / mb))
sys.exit(1 if missed else 0)
PYEOF
rc=$?
echo
echo "Commands (DIR: the tmpfs, or xfs on $DEV; $ROUNDS rounds each):"
sed 's/^/  /' "$CMDS"
exit $rc
