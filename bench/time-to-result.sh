#!/bin/bash
# Time to a result (issue 13, "a faster honest answer"): how long the
# default suite takes to give its figures, and how much of that time is
# measurement, against bonnie++ at the same size. Never a timed test: run
# it by hand on a quiet machine.
#
# For each filesystem (a tmpfs, and xfs on a loop device over an image)
# and each tool, ROUNDS rounds (the tools take turns, the first to go
# alternating by round), median of the rounds (and, for the wall time,
# the lowest and highest round):
#   - fsbench run (the default suite: --size SIZE, --files FILES, every
#     other option its default): the wall time of the command; the timed
#     time, the sum over its tests of every kept run's end - start (the
#     JSON's start_ns/end_ns, CLOCK_MONOTONIC); the timed share (timed /
#     wall); the figures it gives (tests with a median, of 12);
#   - bonnie++ -d DIR -s SIZE -r SIZE/2 -n FILES/1024 -u root -q: the wall
#     time, and the figures it leaves without a number ("+++++", "+++" or
#     empty in its CSV line, of its 12: six I/O and six file figures).
#     -r says half the size is the RAM, because bonnie++ otherwise refuses
#     a file smaller than twice the machine's memory.
# With FSBENCH_BASE (another fsbench binary, e.g. one built from an older
# commit) that binary is measured too, in the same rounds, as a column
# "before".
#
# Prints one table and the commands used. Exit 0 when the fsbench binary
# meets the goal on the tmpfs (wall <= 30 s, timed share >= 60%, 12
# figures), 1 when it misses it, 2 when something could not run. Root only
# (tmpfs, loop device, mount); everything it makes (a scratch directory,
# a tmpfs mounted in it, an image, its loop device and mount) is released
# at exit, nothing else touched.
#
# Environment:
#   FSBENCH       the binary (default ./fsbench, built with make)
#   FSBENCH_BASE  a second binary to compare with (default: none)
#   SIZE          --size, in MiB (default 1024, fsbench's default 1g);
#                 "auto" leaves --size and --files out, so that fsbench
#                 chooses them (bonnie++ then runs at 1024 MiB, 16384
#                 files, fsbench's defaults)
#   FILES         --files (default 16384, fsbench's default; bonnie++ -n
#                 takes it in units of 1024)
#   ROUNDS        rounds (default 3)
#   PAUSE         seconds to wait before each run (default 0). On a VM whose
#                 memory is balloon-managed with free page reporting, pages
#                 freed stay fast to reuse for about 2 s, then go back to
#                 the host and cost a slow first touch again (2.5 s a GiB
#                 on this project's VM): with PAUSE=10 every run starts as
#                 a lone run on an idle machine does; without, a run reuses
#                 what the run before it freed at its exit.
#   FSES          which filesystems (default "tmpfs xfs")
#   TMPDIR        where the scratch directory and the image go (default /tmp)
set -u -o pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
FSBENCH=${FSBENCH:-$TOP/fsbench}
FSBENCH_BASE=${FSBENCH_BASE:-}
SIZE=${SIZE:-1024}
FILES=${FILES:-16384}
# What fsbench is given: nothing with SIZE=auto (it chooses), else both.
FSB_GIVEN=(--size "${SIZE}m" --files "$FILES")
if [ "$SIZE" = auto ]; then
	FSB_GIVEN=()
	SIZE=1024 FILES=16384
fi
ROUNDS=${ROUNDS:-3}
PAUSE=${PAUSE:-0}
FSES=${FSES:-tmpfs xfs}

BENCH=time-to-result
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" -eq 0 ] || die "needs root (tmpfs, loop device, mount)"
[ -x "$FSBENCH" ] || die "no $FSBENCH (run make)"
[ -z "$FSBENCH_BASE" ] || [ -x "$FSBENCH_BASE" ] || die "no $FSBENCH_BASE"
for t in bonnie++ mkfs.xfs losetup mount jq; do
	command -v "$t" >/dev/null || die "needs $t"
done
((FILES % 1024 == 0)) || die "FILES must be a multiple of 1024 (bonnie++ -n counts in 1024s)"

W=$(mktemp -d "${TMPDIR:-/tmp}/fsb-ttr.XXXXXX") || die "no temp dir"
undo "rm -rf '$W'"
mkdir "$W/tmpfs" "$W/xfs" "$W/res"
if [[ " $FSES " == *" tmpfs "* ]]; then
	mount -t tmpfs -o size=8g fsb-ttr "$W/tmpfs" || die "cannot mount a tmpfs"
	undo "umount '$W/tmpfs'"
fi
if [[ " $FSES " == *" xfs "* ]]; then
	truncate -s 8g "$W/img" || die "cannot make $W/img"
	DEV=$(attach_loop "$W/img") || die "cannot attach $W/img"
	undo "detach_loop '$DEV' '$W/img'"
	mkfs.xfs -q -f "$DEV" || die "mkfs.xfs $DEV failed"
	mount -t xfs "$DEV" "$W/xfs" || die "cannot mount $DEV"
	undo "umount '$W/xfs'"
fi

now() { date +%s.%N; }
elapsed() { echo "$2 - $1" | bc -l; }

# fsb TOOL BIN FS: one fsbench run; appends "wall timed figures" to res/TOOL.FS.
fsb() {
	local tool=$1 bin=$2 fs=$3 t0 t1 timed figs
	t0=$(now)
	"$bin" run --quiet "${FSB_GIVEN[@]}" --format json -o "$W/f.json" \
		"$W/$fs" 2>"$W/err" || { cat "$W/err" >&2; die "$bin run on $fs failed"; }
	t1=$(now)
	timed=$(jq '[.tests[] | [.start_ns, .end_ns] | transpose[] | .[1] - .[0]] | add / 1e9' \
		"$W/f.json") || die "cannot read $bin's JSON"
	figs=$(jq '[.tests[] | select(.median != null)] | length' "$W/f.json")
	echo "$(elapsed "$t0" "$t1") $timed $figs" >>"$W/res/$tool.$fs"
	jq -r '.tests[] | select(.median != null) | "\(.id) \(.median)"' "$W/f.json" \
		>>"$W/res/$tool.$fs.figs"
}

# bon FS: one bonnie++ run; appends "wall - figures" to res/bonnie.FS.
bon() {
	local fs=$1 t0 t1 line missing
	t0=$(now)
	line=$(bonnie++ -d "$W/$fs" -s "$SIZE" -r $((SIZE / 2)) -n $((FILES / 1024)) -u root -q \
		2>"$W/err" | tail -n 1) || { cat "$W/err" >&2; die "bonnie++ on $fs failed"; }
	t1=$(now)
	# 1.98 layout: I/O figures at fields 10, 12, ... 20; file figures at
	# 27, 29, ... 37 (1-based), each followed by its %CPU.
	missing=$(echo "$line" | awk -F, '{
		n = 0
		for (i = 10; i <= 20; i += 2) if ($i == "" || $i ~ /^\+\+\+/) n++
		for (i = 27; i <= 37; i += 2) if ($i == "" || $i ~ /^\+\+\+/) n++
		print 12 - n }')
	echo "$(elapsed "$t0" "$t1") - $missing" >>"$W/res/bonnie.$fs"
}

TOOLS="fsbench bonnie"
[ -n "$FSBENCH_BASE" ] && TOOLS="before $TOOLS"
run_tool() {
	sleep "$PAUSE"
	case $1 in
	fsbench) fsb fsbench "$FSBENCH" "$2" ;;
	before) fsb before "$FSBENCH_BASE" "$2" ;;
	bonnie) bon "$2" ;;
	esac
}

say "default suite, ${FSB_GIVEN[*]:-sizes left out}, --files $FILES, $ROUNDS rounds on: $FSES, ${PAUSE} s pause before each run"
for ((r = 1; r <= ROUNDS; r++)); do
	for fs in $FSES; do
		order=$TOOLS
		# The first to go alternates: a tool is not always the one after a rest.
		((r % 2)) || order=$(echo "$TOOLS" | tr ' ' '\n' | tac | tr '\n' ' ')
		for tool in $order; do
			run_tool "$tool" "$fs"
		done
	done
	say "round $r/$ROUNDS done"
done

# median FILE COL: the median of a column of numbers.
median() {
	awk -v c="$2" '{ print $c }' "$1" | sort -g | awk '{ v[NR] = $1 } END {
		if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# lowest FILE COL, highest FILE COL
lowest() { awk -v c="$2" '{ print $c }' "$1" | sort -g | head -n 1; }
highest() { awk -v c="$2" '{ print $c }' "$1" | sort -g | tail -n 1; }

status=0
printf '\n%-8s %-8s %9s %13s %9s %7s %8s\n' fs tool "wall s" "range" "timed s" share figures
for fs in $FSES; do
	for tool in $TOOLS; do
		f=$W/res/$tool.$fs
		wall=$(median "$f" 1)
		range=$(printf '%.1f-%.1f' "$(lowest "$f" 1)" "$(highest "$f" 1)")
		if [ "$tool" = bonnie ]; then
			printf '%-8s %-8s %9.1f %13s %9s %7s %5s/12\n' "$fs" bonnie++ "$wall" "$range" \
				- - "$(median "$f" 3)"
			continue
		fi
		timed=$(median "$f" 2)
		share=$(echo "100 * $timed / $wall" | bc -l)
		figs=$(median "$f" 3)
		printf '%-8s %-8s %9.1f %13s %9.1f %6.0f%% %5s/12\n' "$fs" "$tool" "$wall" \
			"$range" "$timed" "$share" "$figs"
		if [ "$fs" = tmpfs ] && [ "$tool" = fsbench ]; then
			awk -v w="$wall" -v s="$share" -v f="$figs" \
				'BEGIN { exit !(w <= 30 && s >= 60 && f == 12) }' || status=1
		fi
	done
done
# Each figure of fsbench against before's: its median over the rounds
# inside before's [min, max] widened by 5% each way.
if [ -n "$FSBENCH_BASE" ]; then
	printf '\n%-8s %-14s %12s %25s %s\n' fs test median "before [min, max]" inside
	for fs in $FSES; do
		for id in $(awk '{ print $1 }' "$W/res/before.$fs.figs" | sort -u); do
			grep "^$id " "$W/res/fsbench.$fs.figs" | awk '{ print $2 }' >"$W/a" || true
			grep "^$id " "$W/res/before.$fs.figs" | awk '{ print $2 }' >"$W/b"
			if [ ! -s "$W/a" ]; then
				printf '%-8s %-14s %12s %25s %s\n' "$fs" "$id" - - "no figure"
				continue
			fi
			m=$(median "$W/a" 1) lo=$(lowest "$W/b" 1) hi=$(highest "$W/b" 1)
			in=$(awk -v m="$m" -v lo="$lo" -v hi="$hi" \
				'BEGIN { print (m >= lo * 0.95 && m <= hi * 1.05) ? "yes" : "NO" }')
			printf '%-8s %-14s %12.4g %12.4g %12.4g %s\n' "$fs" "$id" "$m" "$lo" "$hi" "$in"
		done
	done
fi

echo
echo "commands (DIR: the tmpfs or the xfs mount):"
echo "  fsbench run --quiet ${FSB_GIVEN[*]} --format json -o FILE DIR"
echo "  bonnie++ -d DIR -s $SIZE -r $((SIZE / 2)) -n $((FILES / 1024)) -u root -q"
echo "goal (tmpfs): wall <= 30 s, timed share >= 60%, 12/12 figures: $([ $status = 0 ] && echo met || echo missed)"
exit $status
