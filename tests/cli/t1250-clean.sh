#!/bin/bash
# What a SIGKILL leaves, and `fsbench clean`:
#   - run killed during seeks: the seekers die with it, the scratch dir
#     stays (with its owner marker); the next run in DIR warns and names
#     `fsbench clean DIR`; clean --dry-run lists it, clean removes it, a
#     second clean finds nothing;
#   - lifecycle --image killed while its filesystem is mounted (root): the
#     mount, the loop device, the image and the scratch dir stay; clean
#     unmounts, detaches exactly that loop device, removes the image it
#     created and the scratch dir;
#   - look-alikes clean must refuse, report and leave as they are: no
#     marker, the marker of a live process (this shell), a marker naming a
#     mount outside its directory.
. "$(dirname "$0")/lib.sh"

[ -x "$FSBENCH" ] || { echo "Bail out! $FSBENCH not built"; exit 1; }

# running PID: the process exists and is no zombie.
running() { [ -e "/proc/$1" ] && [[ $(ps -o stat= -p "$1" 2>/dev/null) != Z* ]]; }
none_running() { local p; for p in "$@"; do running "$p" && return 1; done; return 0; }
scratch_of() { compgen -G "$1/fsbench.*" | head -n1; }
# start_time PID: field 22 of /proc/PID/stat (after the last ')').
start_time() { sed 's/.*) //' "/proc/$1/stat" | cut -d' ' -f20; }
boot_id() { cat /proc/sys/kernel/random/boot_id; }

# ---- 1. run killed by SIGKILL during seeks ----
tmpdir D || exit 1
"$FSBENCH" run --progress never --tests seeks --size 256m --chunk 512 --seeks 50000000 --seekers 3 \
	--repeat 5 --min-time 30 "$D" >/dev/null 2>"$D.err" &
pid=$!
on_exit "kill -KILL $pid; rm -f '$D.err'"
if wait_for 20 has_children $pid 3; then
	kids=$(pgrep -P $pid | tr '\n' ' ')
	kill -KILL $pid
	wait $pid 2>/dev/null
	# The seekers: gone within a second, not seeking on as orphans.
	if wait_for 1 none_running $kids; then
		ok "seeks, SIGKILL: the seekers ($kids) die with fsbench"
	else
		nok "seeks, SIGKILL: the seekers ($kids) die with fsbench"
		ps -o pid,ppid,stat,args -p "$(echo $kids | tr ' ' ,)" | sed 's/^/#   /'
	fi
	for k in $kids; do kill -KILL "$k" 2>/dev/null; done
	S=$(scratch_of "$D")
	if [ -n "$S" ] && [ -f "$S/.fsbench-owner" ] && grep -qx "pid=$pid" "$S/.fsbench-owner"; then
		ok "seeks, SIGKILL: the scratch dir stays, its marker names pid $pid"
	else
		nok "seeks, SIGKILL: the scratch dir stays, its marker names pid $pid"
		ls -la "$D" "$S" 2>&1 | sed 's/^/#   /'
	fi

	# The next run in DIR says what is there and how to remove it.
	"$FSBENCH" run --progress never --tests write --size 1m --repeat 1 --min-time 0.01 \
		"$D" >/dev/null 2>"$D.err"
	rc=$?
	if [ $rc -eq 0 ] && grep -q "^fsbench: warning: '$S' was left by an fsbench process" "$D.err" &&
		grep -qF "'fsbench clean $D'" "$D.err"; then
		ok "next run in DIR warns about '$(basename "$S")' and names 'fsbench clean DIR'"
	else
		nok "next run in DIR warns about the stale scratch dir and names 'fsbench clean DIR' (exit $rc)"
		diag "$D.err"
	fi

	# --dry-run lists, removes nothing.
	out=$("$FSBENCH" clean --dry-run "$D" 2>&1)
	rc=$?
	if [ $rc -eq 0 ] && grep -qF "would remove directory '$S' (left by pid $pid)" <<<"$out" && [ -d "$S" ]; then
		ok "clean --dry-run lists the scratch dir and leaves it"
	else
		nok "clean --dry-run lists the scratch dir and leaves it (exit $rc)"
		sed 's/^/#   /' <<<"$out"
	fi
	out=$("$FSBENCH" clean "$D" 2>&1)
	rc=$?
	if [ $rc -eq 0 ] && grep -qF "removed directory '$S'" <<<"$out" && no_scratch_left "$D"; then
		ok "clean DIR removes it"
	else
		nok "clean DIR removes it (exit $rc)"
		sed 's/^/#   /' <<<"$out"
	fi
	out=$("$FSBENCH" clean "$D" 2>&1)
	rc=$?
	if [ $rc -eq 0 ] && [ "$out" = "nothing to clean" ]; then
		ok "a second clean finds nothing"
	else
		nok "a second clean finds nothing (exit $rc)"
		sed 's/^/#   /' <<<"$out"
	fi
else
	kill -KILL $pid 2>/dev/null
	wait $pid 2>/dev/null
	nok "seeks never started 3 seekers"
	diag "$D.err"
fi

# ---- 2. lifecycle --image killed by SIGKILL while mounted ----
if ! is_root; then
	skip "lifecycle, SIGKILL: clean unmounts, detaches, removes" "needs root"
elif ! command -v mkfs.ext4 >/dev/null; then
	skip "lifecycle, SIGKILL: clean unmounts, detaches, removes" "no mkfs.ext4"
else
	tmpdir L || exit 1
	IMG=$L/img
	# Whatever happens below, what the killed run left is released at exit:
	# only mounts under $L and loop devices over $IMG, both ours.
	on_exit "for m in \$(awk '\$5 ~ \"^$L/\" { print \$5 }' /proc/self/mountinfo | sort -r); do umount \"\$m\"; done; for d in \$(losetup -j '$IMG' -O NAME -n); do losetup -d \"\$d\"; done"
	TMPDIR=$L "$FSBENCH" lifecycle --progress never --fs ext4 --image "$IMG" --image-size 64m \
		--phases write --repeat 50 >/dev/null 2>"$L/err" &
	pid=$!
	mounted() { awk -v p="$L/" '$5 ~ "^" p "fsbench\\..*/mnt$" { f = 1 } END { exit !f }' /proc/self/mountinfo; }
	# Stop it while its filesystem is mounted, so the kill lands there.
	caught=""
	for try in $(seq 200); do
		wait_for 10 mounted || break
		kill -STOP $pid
		if mounted; then caught=1; break; fi
		kill -CONT $pid
	done
	kill -KILL $pid 2>/dev/null
	wait $pid 2>/dev/null
	LOOP=$(losetup -j "$IMG" -O NAME -n)
	S=$(scratch_of "$L")
	if [ -n "$caught" ] && [ -n "$LOOP" ] && mounted && [ -d "$S" ] && [ -f "$IMG" ]; then
		ok "lifecycle, SIGKILL: mount, loop device $LOOP, image and scratch dir stay"
		out=$("$FSBENCH" clean "$L" 2>&1)
		rc=$?
		why=""
		[ $rc -eq 0 ] || why="$why exit $rc;"
		grep -qF "unmounted mount '$S/mnt'" <<<"$out" || why="$why no unmount;"
		grep -qF "detached loop device '$LOOP' (backing '$IMG')" <<<"$out" || why="$why no detach;"
		[ "$(grep -c '^detached' <<<"$out")" -eq 1 ] || why="$why not exactly one detach;"
		grep -qF "removed image '$IMG'" <<<"$out" || why="$why image not removed;"
		grep -qF "removed directory '$S' (left by pid $pid)" <<<"$out" || why="$why dir not removed;"
		[ -z "$why" ] && ok "clean unmounts, detaches exactly $LOOP, removes the image and the scratch dir" ||
			{ nok "clean unmounts, detaches exactly $LOOP, removes the image and the scratch dir ($why)"; sed 's/^/#   /' <<<"$out"; }
		why=""
		[ -z "$(losetup -j "$IMG")" ] || why="$why losetup -j IMAGE not empty;"
		mounted && why="$why still mounted;"
		grep -qF "$L/" /proc/self/mountinfo && why="$why a mount under the test dir;"
		[ -e "$IMG" ] && why="$why image still there;"
		no_scratch_left "$L" || why="$why scratch dir still there;"
		[ -z "$why" ] && ok "afterwards: no loop device over the image, no mount, nothing left" ||
			nok "afterwards: no loop device over the image, no mount, nothing left ($why)"
	else
		nok "lifecycle, SIGKILL: mount, loop device, image and scratch dir stay (caught=$caught loop=$LOOP dir=$S)"
		diag "$L/err"
	fi
fi

# ---- 3. look-alikes: refused, reported, left as they are ----
tmpdir Q || exit 1
# No marker.
mkdir "$Q/fsbench.123.abcdef"
echo data >"$Q/fsbench.123.abcdef/block.dat"
# The marker of a live process: this shell.
LIVE=$Q/fsbench.$$.livesh
mkdir "$LIVE"
printf 'fsbench-owner 1\npid=%s\nstart=%s\nboot=%s\n' $$ "$(start_time $$)" "$(boot_id)" \
	>"$LIVE/.fsbench-owner"
# A dead owner (this shell's PID, another start time: a reused PID) whose
# marker lists a mount outside its directory (as root, a real one).
OUT=$Q/fsbench.$$.outmnt
mkdir "$OUT" "$Q/elsewhere"
is_root && mount_tmpfs "$Q/elsewhere" size=1m
printf 'fsbench-owner 1\npid=%s\nstart=1\nboot=%s\nmount=%s\n' $$ "$(boot_id)" "$Q/elsewhere" \
	>"$OUT/.fsbench-owner"
before=$(cd "$Q" && find . -exec stat -c '%n %s %Y' {} + | sort | md5sum)
out=$("$FSBENCH" clean "$Q" 2>&1)
rc=$?
after=$(cd "$Q" && find . -exec stat -c '%n %s %Y' {} + | sort | md5sum)
[ $rc -eq 1 ] && ok "look-alikes: clean exits 1 (something refused)" ||
	{ nok "look-alikes: clean exits 1 (exit $rc)"; sed 's/^/#   /' <<<"$out"; }
[ "$before" = "$after" ] && ok "look-alikes: all left exactly in place" ||
	{ nok "look-alikes: all left exactly in place"; sed 's/^/#   /' <<<"$out"; }
grep -qF "refused directory '$Q/fsbench.123.abcdef': no marker" <<<"$out" &&
	ok "look-alikes: no marker: reported" || nok "look-alikes: no marker: reported"
grep -qF "in use directory '$LIVE': pid $$ still runs" <<<"$out" &&
	ok "look-alikes: live owner: reported" || nok "look-alikes: live owner: reported"
grep -qF "refused mount '$Q/elsewhere': mount point outside the directory" <<<"$out" &&
	grep -qF "refused directory '$OUT'" <<<"$out" &&
	ok "look-alikes: mount outside the dir: reported" || nok "look-alikes: mount outside the dir: reported"
if is_root; then
	awk -v p="$Q/elsewhere" '$5 == p { f = 1 } END { exit !f }' /proc/self/mountinfo &&
		ok "look-alikes: the mount outside is still mounted" ||
		nok "look-alikes: the mount outside is still mounted"
fi

done_testing
