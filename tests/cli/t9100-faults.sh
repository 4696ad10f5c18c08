#!/bin/bash
# Syscall-level fault injection (libfiu): EIO and ENOSPC injected at
# random points of randomized small runs, on the fault-injection build (build/fiu/fsbench:
# unsanitized, ASan and the preload do not mix, with the points of
# src/util/fault.h compiled in).
#
# Each run picks a seed, one to three tests among write, rewrite, read,
# seeks, putc, getc and the six files tests, small sizes and random
# options (chunk, char-io, cache, file sizes and directories, --sync,
# --links, repeat, min-time so that some work grows), where the report
# goes, and one failure point, enabled at random with a probability from
# 1/2 to 1/300 and failing with EIO or ENOSPC:
#   through libfiu's POSIX preload (fiu-run -x): open, read, write, pread,
#   pwrite, fsync, unlink, rename, fflush;
#   through fsbench's own points, which the preload cannot see: openat,
#   mkdirat, unlinkat, renameat, fstatat, linkat, symlinkat and the
#   scratch directory's mkdir.
# Every run must exit 0 (the fault hit nothing, or a grown attempt that
# ran out of space fell back with its warning) or exit 1 with one line
# naming the test and the operation (or the report that could not be
# written, and where it was kept), and leave nothing behind: no scratch
# dir, no temporary output file, no mount, no loop device, no process.
# Cleanup is never injected (util/fault.h). One more outcome is counted
# apart, not as a finding: an injected open() failing -o's check at
# startup, which every command reports as a refused -o, exit 2, before
# any work (the commands map every failure of that check to 2).
#
# FIU_RUNS runs (default 300) within FIU_SECONDS (default 120), at least
# FIU_MIN of them (default 200) even on a busy machine; FIU_SEED
# repeats a sweep's choices (libfiu draws its own random numbers, so the
# points that fail may differ). `make fuzz` runs a longer sweep. Runs on
# a small tmpfs of its own as root (fast, and real ENOSPC for grown work),
# else in a directory under TMPDIR. Skips when libfiu is missing. Every
# case says "syscall-level (libfiu)": the faults stop at the system call
# fsbench made, the filesystem below never sees them. The device-level
# faults, where the block layer itself runs out, are t9110's.
. "$(dirname "$0")/lib.sh"

FIU_BIN=$TOP/build/fiu/fsbench
RUNS=${FIU_RUNS:-300}
SECS=${FIU_SECONDS:-120}
# Fewer than RUNS within SECS (a busy machine) still passes from MIN on.
MIN=${FIU_MIN:-$((RUNS < 200 ? RUNS : 200))}
SEED=${FIU_SEED:-$(($(od -An -N2 -tu2 /dev/urandom)))}

if ! command -v fiu-run >/dev/null || [ ! -e /usr/lib/fiu/fiu_posix_preload.so ]; then
	skip "syscall-level faults (libfiu)" "libfiu is missing (apt-get install libfiu-dev fiu-utils)"
	done_testing
	exit 0
fi
if [ ! -x "$FIU_BIN" ]; then
	skip "syscall-level faults (libfiu)" "$FIU_BIN not built (make build/fiu/fsbench)"
	done_testing
	exit 0
fi

tmpdir T || exit 1
RUN=$T/run      # DIR of every run
OUT=$T/out      # where -o reports go
KEEP=$T/keep    # TMPDIR of the runs: fallback files land here
LOG=$T/log
mkdir "$RUN" "$OUT" "$KEEP" "$LOG"
# Every run's point and stderr, for whoever wants to read the messages.
ART=$TOP/build/test-artifacts
mkdir -p "$ART" && : >"$ART/faults.log"
if is_root && mount_tmpfs "$RUN" size=48m; then
	where="a 48 MiB tmpfs"
else
	where="a directory under ${TMPDIR:-/tmp}"
fi

POINTS=(
	posix/io/oc/open posix/io/rw/read posix/io/rw/write posix/io/rw/pread
	posix/io/rw/pwrite posix/io/sync/fsync posix/io/dir/unlink posix/io/dir/rename
	posix/stdio/fflush
	fsbench/io/openat fsbench/io/mkdirat fsbench/io/unlinkat fsbench/io/renameat
	fsbench/io/fstatat fsbench/io/linkat fsbench/io/symlinkat fsbench/io/mkdir
)
TESTS=(write rewrite read seeks putc getc seq-create seq-stat seq-delete rand-create
	rand-stat rand-delete)
FORMATS=(text json csv bonnie bonnie++)

pick() { # pick VAR WORDS...: one of WORDS at random into VAR
	local _v=$1; shift
	local _a=("$@")
	printf -v "$_v" '%s' "${_a[RANDOM % ${#_a[@]}]}"
}

# A run's options: sets ARGS (array), TESTLIST, FMT, OUTFILE, POINT, ERRNO, PROB.
# (No "$(...)": a subshell would draw from a reseeded RANDOM.)
draw() {
	local n i t size chunk files fmax fmin fdirs csize mtime cache cio links
	ARGS=()
	n=$((1 + RANDOM % 3))
	TESTLIST=""
	for ((i = 0; i < n; i++)); do
		pick t "${TESTS[@]}"
		case ",$TESTLIST," in *",$t,"*) continue ;; esac
		TESTLIST=${TESTLIST:+$TESTLIST,}$t
	done
	pick size 64k 128k 256k 1m
	pick chunk 4k 8k 16k
	fmax=0 fmin=0 fdirs=0
	files=$((8 + RANDOM % 120))
	if ((RANDOM % 2)); then
		pick fmax 0 512 4k 20k
		[ "$fmax" != 0 ] && pick fmin 0 256
	fi
	((RANDOM % 3 == 0)) && fdirs=$((2 + RANDOM % 3))
	pick csize 4k 16k 64k
	pick mtime 0.001 0.001 0.005 0.02
	pick cache keep keep drop
	pick cio stdio syscall
	pick links hard soft
	ARGS+=(--tests "$TESTLIST" --seed "$((RANDOM * 32768 + RANDOM))" --size "$size"
		--chunk "$chunk" --files "$files:$fmax:$fmin:$fdirs" --char-size "$csize"
		--seeks "$((16 + RANDOM % 240))" --seekers "$((1 + RANDOM % 3))"
		--repeat "$((1 + RANDOM % 3))" --min-time "$mtime" --cache "$cache"
		--char-io "$cio")
	((RANDOM % 4 == 0)) && ARGS+=(--sync)
	# Links have no size.
	[ "$fmax" = 0 ] && ((RANDOM % 5 == 0)) && ARGS+=(--links "$links")
	pick FMT "${FORMATS[@]}"
	ARGS+=(--format "$FMT")
	OUTFILE=""
	if ((RANDOM % 2)); then
		OUTFILE=$OUT/r.$FMT
		ARGS+=(-o "$OUTFILE")
	fi
	# Three times in four a point the chosen work calls, else any.
	if ((RANDOM % 4)); then
		local cand=(posix/io/oc/open posix/io/rw/write posix/io/rw/read posix/io/sync/fsync
			fsbench/io/mkdir)
		case ",$TESTLIST," in *,write,* | *,rewrite,* | *,read,* | *,seeks,* | *,getc,*)
			cand+=(posix/io/rw/pwrite) ;;
		esac
		case ",$TESTLIST," in *,putc,*) [ "$cio" = stdio ] && cand+=(posix/stdio/fflush) ;; esac
		case ",$TESTLIST," in *,seq-*,* | *,rand-*,*)
			cand+=(fsbench/io/openat fsbench/io/mkdirat fsbench/io/unlinkat fsbench/io/fstatat
				posix/io/dir/rename)
			case " ${ARGS[*]} " in *" --links hard "*) cand+=(fsbench/io/linkat) ;;
			*" --links soft "*) cand+=(fsbench/io/symlinkat) ;; esac ;;
		esac
		[ -n "$OUTFILE" ] && cand+=(fsbench/io/openat fsbench/io/renameat)
		pick POINT "${cand[@]}"
	else
		pick POINT "${POINTS[@]}"
	fi
	pick ERRNO 5 28
	PROB=$(awk -v r=$RANDOM 'BEGIN { printf "%.5f", 10 ^ -(0.3 + 2.2 * r / 32767) }')
}

# What each run ended as.
n_clean=0 n_fell=0 n_failed=0 n_find=0 n_start=0
declare -A by_point_failed
findings=$LOG/findings
: >"$findings"

finding() { # finding I WHY: record a finding of run I
	n_find=$((n_find + 1))
	{
		echo "run $1: $2"
		echo "  fiu-run -x -f '' -c 'enable_random name=$POINT,probability=$PROB,failinfo=$ERRNO' \\"
		echo "    $FIU_BIN run ${ARGS[*]} DIR"
		sed 's/^/  stderr: /' "$LOG/err" | head -5
	} >>"$findings"
}

# Whatever a run left: nothing in RUN, only the report in OUT, nothing in
# KEEP, no process of the build, no mount or loop device of ours.
leftovers() {
	local what="" i
	[ -z "$(ls -A "$RUN" | grep -vx 'lost+found')" ] || what="$what $(ls -A "$RUN" | head -3 | tr '\n' ' ');"
	[ -z "$(ls -A "$OUT" | grep -v '^r\.')" ] || what="$what in -o's directory: $(ls -A "$OUT" | grep -v '^r\.' | head -3 | tr '\n' ' ');"
	[ -z "$(ls -A "$KEEP")" ] || what="$what in TMPDIR: $(ls -A "$KEEP" | head -3 | tr '\n' ' ');"
	# Seekers die with fsbench (PR_SET_PDEATHSIG): give the signal a
	# moment. Only processes naming this script's own directory count.
	for ((i = 0; i < 100; i++)); do
		pgrep -f "^$FIU_BIN .*$RUN" >/dev/null || break
		sleep 0.02
	done
	pids=$(pgrep -f "^$FIU_BIN .*$RUN")
	if [ -n "$pids" ]; then
		what="$what a process still runs;"
		for p in $pids; do kill -9 "$p" 2>/dev/null; done
	fi
	[ "$(findmnt -rn -o TARGET | grep -c "^$T/run/")" -eq 0 ] || what="$what a mount;"
	[ -z "$(losetup -l -n -O BACK-FILE 2>/dev/null | grep "^$T/")" ] || what="$what a loop device;"
	printf '%s' "$what"
}

# ---- fixed cases first: a point always failing ----
# always DESC PATTERN POINTS ERRNO ARGS...: every point of POINTS (blank
# separated) fails every time with ERRNO; exit 1 with one error line
# matching PATTERN (PATTERN "": exit 0, no error line), nothing left behind.
always() {
	local what=$1 pat=$2 points=$3 e=$4 rc why="" left p ctl=(); shift 4
	for p in $points; do ctl+=(-c "enable name=$p,failinfo=$e"); done
	TMPDIR=$KEEP timeout 60 fiu-run -x -f "" "${ctl[@]}" \
		"$FIU_BIN" run --repeat 1 --min-time 0.001 --cache keep --size 256k "$@" "$RUN" \
		>"$LOG/stdout" 2>"$LOG/err"
	rc=$?
	if [ -z "$pat" ]; then
		[ $rc -eq 0 ] || why="$why exit $rc, want 0;"
		[ "$(grep -vc '^fsbench: warning: ' "$LOG/err")" -eq 0 ] || why="$why an error line;"
	else
		[ $rc -eq 1 ] || why="$why exit $rc, want 1;"
		[ "$(grep -vc '^fsbench: warning: ' "$LOG/err")" -eq 1 ] || why="$why not one error line;"
		grep -v '^fsbench: warning: ' "$LOG/err" | grep -Eq -- "$pat" ||
			why="$why the line does not match '$pat';"
	fi
	left=$(leftovers)
	[ -z "$left" ] || why="$why left behind:$left"
	what="syscall-level (libfiu): $what"
	if [ -z "$why" ]; then ok "$what"; else nok "$what ($why)"; diag "$LOG/err"; fi
	rm -rf "${RUN:?}"/* "$RUN"/.[!.]* 2>/dev/null
}
always "every unlink(2) fails: cleanup is not injected, the scratch dir goes, exit 0" "" \
	posix/io/dir/unlink 5 --tests write,putc --char-size 16k
always "every unlink(2) and fsync(2) fail: rewrite fails, its torn file and scratch dir go" \
	"^fsbench: rewrite: cannot flush '.*': Input/output error\$" \
	"posix/io/dir/unlink posix/io/sync/fsync" 5 --tests rewrite
always "every open(2) fails: no scratch directory, one line" \
	"^fsbench: run: cannot create a scratch directory in '$RUN': Input/output error\$" \
	posix/io/oc/open 5 --tests write
always "every unlinkat fails: seq-delete says what it could not remove, the set still goes" \
	"^fsbench: seq-delete: cannot remove '.*/files.set': Input/output error\$" \
	fsbench/io/unlinkat 5 --tests seq-delete --files 32

# ---- the randomized sweep ----
RANDOM=$SEED
start=$(date +%s)
i=0
while ((i < RUNS)) && (($(date +%s) - start < SECS)); do
	i=$((i + 1))
	draw
	rm -f "$OUT"/r.*
	TMPDIR=$KEEP timeout 60 fiu-run -x -f "" \
		-c "enable_random name=$POINT,probability=$PROB,failinfo=$ERRNO" \
		"$FIU_BIN" run "${ARGS[@]}" "$RUN" >"$LOG/stdout" 2>"$LOG/err"
	rc=$?
	{ echo "== run $i: exit $rc, $POINT p=$PROB errno=$ERRNO, --tests $TESTLIST"
	  cat "$LOG/err"; } >>"$ART/faults.log" 2>/dev/null
	errs=$(grep -v '^fsbench: warning: ' "$LOG/err")
	nerr=$(printf '%s' "$errs" | grep -c '')
	# A report kept after the final write failed: check it, then remove it.
	kept=$(printf '%s\n' "$errs" | sed -n "s/.*(the result is in '\(.*\)')\$/\1/p")
	if [ -n "$kept" ]; then
		case $kept in
		*/fsbench-result.*) [ -s "$kept" ] || finding $i "the fallback file '$kept' is missing or empty"
			rm -f "$kept" ;;
		esac
	fi
	if [ $rc -eq 0 ]; then
		if [ "$nerr" -ne 0 ]; then
			finding $i "exit 0 with an error line"
		elif grep -q 'out of space\( at .*\)\? while growing' "$LOG/err"; then
			n_fell=$((n_fell + 1))
		else
			n_clean=$((n_clean + 1))
		fi
		if [ -n "$OUTFILE" ] && [ ! -s "$OUTFILE" ]; then
			finding $i "exit 0 and no report in $OUTFILE"
		elif [ -z "$OUTFILE" ] && [ ! -s "$LOG/stdout" ]; then
			finding $i "exit 0 and no report on standard output"
		fi
	elif [ $rc -eq 1 ]; then
		names="${TESTLIST//,/|}"
		if [ "$nerr" -ne 1 ]; then
			finding $i "exit 1 with $nerr error lines, want 1"
		elif printf '%s\n' "$errs" | grep -Eq "^fsbench: ($names): .*(cannot [a-z]|data mismatch|unexpected|found [0-9]+ of|seeker [0-9]+ (failed|died))" ||
			printf '%s\n' "$errs" | grep -Eq "^fsbench: run: cannot create a scratch directory in '.*': " ||
			printf '%s\n' "$errs" | grep -Eq "^fsbench: cannot write .*: .*\((the result is (in '.*'|on standard output)|and no copy of the result could be kept)\)\$"; then
			n_failed=$((n_failed + 1))
			by_point_failed[$POINT]=$((${by_point_failed[$POINT]:-0} + 1))
		else
			finding $i "exit 1, but the line names neither a selected test and its operation nor the report"
		fi
	elif [ $rc -eq 2 ] && [ -n "$OUTFILE" ] && [ "$POINT" = posix/io/oc/open ] && [ "$nerr" -eq 1 ] &&
		printf '%s\n' "$errs" | grep -q "^fsbench: cannot write '$OUTFILE': "; then
		n_start=$((n_start + 1))
	else
		finding $i "exit $rc"
	fi
	left=$(leftovers)
	if [ -n "$left" ]; then
		finding $i "left behind:$left"
		rm -rf "${RUN:?}"/* "$RUN"/.[!.]* "$OUT"/.[!.]* "$KEEP"/* "$KEEP"/.[!.]* 2>/dev/null
	fi
done
secs=$(($(date +%s) - start))

echo "# syscall-level fault injection (libfiu): $i runs in $secs s on $where (seed $SEED, FIU_SEED=$SEED to repeat)"
printf '#   %-44s %5d\n' "exit 0, the fault hit nothing" $n_clean \
	"exit 0, a grown attempt fell back (warning)" $n_fell \
	"exit 1, one line naming test and operation" $n_failed \
	"exit 2 at startup, -o could not be checked" $n_start \
	"findings" $n_find
for p in "${POINTS[@]}"; do
	printf '#     exit 1 through %-28s %5d\n' "$p" "${by_point_failed[$p]:-0}"
done

if ((i >= MIN)); then
	ok "syscall-level (libfiu): $i randomized runs with one injected failure point each (at least $MIN)"
else
	nok "syscall-level (libfiu): $i randomized runs within $SECS s, want at least $MIN"
fi
if ((n_failed > 0)); then
	ok "syscall-level (libfiu): faults were injected: $n_failed runs failed through them"
else
	nok "syscall-level (libfiu): faults were injected: no run failed (is the preload working?)"
fi
if ((n_find == 0)); then
	ok "syscall-level (libfiu): every run exited 0, or 1 with one line naming the test and the operation, and left nothing behind"
else
	nok "syscall-level (libfiu): every run exited 0, or 1 with one line, and left nothing behind: $n_find findings"
	sed 's/^/#   /' "$findings" | head -60
fi

done_testing
