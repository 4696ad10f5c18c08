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
#     mount outside its directory;
#   - (root) what the real clean refuses the dry run refuses too, with the
#     same reason: a listed loop device mounted where clean does not
#     unmount (or a partition of it mounted so), a directory with a mount
#     inside that its marker does not list (a tmpfs, a bind mount of the
#     same filesystem: left as it is, that mount and its files too);
#     beside them a leftover clean can remove, whose loop device is
#     mounted on another leftover's listed mount; the dry run's lines are
#     the real run's with "would".
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

# ---- 4. the dry run decides what the real run does ----
if ! is_root; then
	skip "dry run and real run decide alike" "needs root"
elif ! command -v mkfs.ext4 >/dev/null; then
	skip "dry run and real run decide alike" "no mkfs.ext4"
else
	tmpdir R || exit 1
	# Released at exit, exactly what this section made: loop devices over
	# its images, then (first) mounts under $R.
	on_exit "for img in '$R'/fsbench.*/img; do for d in \$(losetup -j \"\$img\" -O NAME -n); do losetup -d \"\$d\"; done; done"
	on_exit "for m in \$(awk '\$5 ~ \"^$R/\" { print \$5 }' /proc/self/mountinfo | sort -r); do umount \"\$m\"; done"
	# marker DIR LINES...: a dead owner's marker (this shell's PID, another
	# start time) listing LINES.
	marker() {
		local d=$1
		shift
		mkdir -p "$d"
		printf 'fsbench-owner 1\npid=%s\nstart=1\nboot=%s\n' $$ "$(boot_id)" >"$d/.fsbench-owner"
		[ $# -eq 0 ] || printf '%s\n' "$@" >>"$d/.fsbench-owner"
	}
	# leftover_loop DIR VAR: an ext4 image in DIR that fsbench made, bound
	# to a loop device (into VAR); the marker lists both.
	leftover_loop() {
		local _d
		truncate -s 16m "$1/img" && mkfs.ext4 -q -F "$1/img" >/dev/null 2>&1 &&
			_d=$(losetup --find --show "$1/img") || return 1
		printf 'image=%s %s created=1\nloop=%s\n' "$1/img" "$(stat -c '%d:%i' "$1/img")" "$_d" \
			>>"$1/.fsbench-owner"
		printf -v "$2" '%s' "$_d"
	}
	# 1: its loop device mounted outside, where clean does not unmount.
	BUSY=$R/fsbench.$$.loopmt
	marker "$BUSY"
	mkdir "$R/elsewhere"
	leftover_loop "$BUSY" BUSYDEV && mount "$BUSYDEV" "$R/elsewhere" || exit 1
	# 1b: a partition of its loop device mounted outside (partx adds the
	# partition where the kernel does not scan the table itself).
	PART=$R/fsbench.$$.partmt
	PARTDEV=""
	if command -v partx >/dev/null; then
		marker "$PART"
		truncate -s 32m "$PART/img"
		# An MBR with one Linux partition from sector 2048 to the end.
		printf '\x83\x00\x00\x00\x00\x08\x00\x00\x00\xf8\x00\x00' |
			dd of="$PART/img" bs=1 seek=450 conv=notrunc status=none
		printf '\x55\xaa' | dd of="$PART/img" bs=1 seek=510 conv=notrunc status=none
		PARTDEV=$(losetup -P --find --show "$PART/img") || exit 1
		printf 'image=%s %s created=1\nloop=%s\n' "$PART/img" "$(stat -c '%d:%i' "$PART/img")" \
			"$PARTDEV" >>"$PART/.fsbench-owner"
		[ -b "${PARTDEV}p1" ] || partx -a "$PARTDEV" 2>/dev/null
		if wait_for 2 test -b "${PARTDEV}p1" && mkfs.ext4 -q -F "${PARTDEV}p1" >/dev/null 2>&1; then
			mkdir "$R/elsewhere2"
			mount "${PARTDEV}p1" "$R/elsewhere2" || exit 1
		else
			losetup -d "$PARTDEV"
			rm -rf "$PART"
			PARTDEV=""
		fi
	fi
	# 2: a tmpfs mounted inside, not listed in its marker.
	FOREIGN=$R/fsbench.$$.frgnmt
	marker "$FOREIGN" "mount=$FOREIGN/mnt"
	echo data >"$FOREIGN/block.dat"
	mkdir "$FOREIGN/sub" "$FOREIGN/mnt"
	mount -t tmpfs -o size=1m fsbench-test "$FOREIGN/sub" || exit 1
	echo theirs >"$FOREIGN/sub/file"
	# 2b: a bind mount inside of a directory on the same filesystem (no
	# other st_dev for nftw's FTW_MOUNT to stop at).
	BIND=$R/fsbench.$$.bindmt
	marker "$BIND"
	mkdir "$BIND/sub" "$R/victim"
	echo precious >"$R/victim/file"
	mount --bind "$R/victim" "$BIND/sub" || exit 1
	# ... and on its listed mount, which therefore stays, CHAIN's loop
	# device: in use too.
	CHAIN=$R/fsbench.$$.chains
	marker "$CHAIN"
	leftover_loop "$CHAIN" CHAINDEV && mount "$CHAINDEV" "$FOREIGN/mnt" || exit 1
	# 3: removable: NORMAL's loop device mounted on MNTDIR's listed mount.
	NORMAL=$R/fsbench.$$.normal
	MNTDIR=$R/fsbench.$$.mntdir
	marker "$NORMAL"
	marker "$MNTDIR" "mount=$MNTDIR/mnt"
	mkdir "$MNTDIR/mnt"
	leftover_loop "$NORMAL" NORMDEV && mount "$NORMDEV" "$MNTDIR/mnt" || exit 1
	snap() { (cd "$1" && find . -exec stat -c '%n %s %Y' {} + | sort | md5sum); }
	before_busy=$(snap "$BUSY")
	before_foreign=$(snap "$FOREIGN")

	dry=$("$FSBENCH" clean --dry-run "$R" 2>&1)
	drc=$?
	real=$("$FSBENCH" clean "$R" 2>&1)
	rc=$?

	why=""
	[ $drc -eq 1 ] || why="$why dry run exit $drc;"
	grep -qF "would detach loop device '$BUSYDEV'" <<<"$dry" && why="$why says it would detach;"
	grep -qF "would refuse loop device '$BUSYDEV': in use: mounted on '$R/elsewhere'" <<<"$dry" ||
		why="$why no refusal naming the mount;"
	grep -qF "would remove directory '$BUSY'" <<<"$dry" && why="$why says it would remove the dir;"
	grep -qF "would refuse directory '$BUSY'" <<<"$dry" || why="$why dir not refused;"
	[ -z "$why" ] && ok "dry run: a loop device mounted elsewhere: would refuse, naming the mount" ||
		{ nok "dry run: a loop device mounted elsewhere: would refuse, naming the mount ($why)"; sed 's/^/#   /' <<<"$dry"; }
	why=""
	[ $rc -eq 1 ] || why="$why exit $rc;"
	grep -qF "refused loop device '$BUSYDEV': in use: mounted on '$R/elsewhere'" <<<"$real" ||
		why="$why no refusal naming the mount;"
	[ "$(losetup -j "$BUSY/img" -O NAME -n)" = "$BUSYDEV" ] || why="$why not bound any more;"
	awk -v p="$R/elsewhere" '$5 == p { f = 1 } END { exit !f }' /proc/self/mountinfo ||
		why="$why not mounted any more;"
	[ "$before_busy" = "$(snap "$BUSY")" ] || why="$why its dir changed;"
	[ -z "$why" ] && ok "clean: refuses the same loop device, leaves it bound, mounted, its dir as it was" ||
		{ nok "clean: refuses the same loop device, leaves it bound, mounted, its dir as it was ($why)"; sed 's/^/#   /' <<<"$real"; }

	if [ -z "$PARTDEV" ]; then
		skip "a loop device whose partition is mounted elsewhere: refused alike" "no partx, or no partition"
	else
		why=""
		grep -qF "would detach loop device '$PARTDEV'" <<<"$dry" && why="$why dry run says it would detach;"
		grep -qF "would refuse loop device '$PARTDEV': in use: mounted on '$R/elsewhere2'" <<<"$dry" ||
			why="$why dry run: no refusal naming the mount;"
		grep -qF "refused loop device '$PARTDEV': in use: mounted on '$R/elsewhere2'" <<<"$real" ||
			why="$why no refusal naming the mount;"
		[ "$(losetup -j "$PART/img" -O NAME -n)" = "$PARTDEV" ] || why="$why not bound any more;"
		[ -z "$why" ] && ok "a loop device whose partition is mounted elsewhere: refused alike" ||
			{ nok "a loop device whose partition is mounted elsewhere: refused alike ($why)"; sed 's/^/#   /' <<<"$real"; }
	fi

	why=""
	grep -qF "would remove directory '$FOREIGN'" <<<"$dry" && why="$why says it would remove it;"
	grep -qF "would refuse directory '$FOREIGN': '$FOREIGN/sub' is mounted inside" <<<"$dry" ||
		why="$why no refusal naming the mount;"
	[ -z "$why" ] && ok "dry run: a directory with a foreign mount inside: would refuse, naming it" ||
		{ nok "dry run: a directory with a foreign mount inside: would refuse, naming it ($why)"; sed 's/^/#   /' <<<"$dry"; }
	why=""
	grep -qF "refused directory '$FOREIGN': '$FOREIGN/sub' is mounted inside" <<<"$real" ||
		why="$why no refusal naming the mount;"
	grep -qF "failed directory '$FOREIGN'" <<<"$real" && why="$why tried and failed;"
	awk -v p="$FOREIGN/sub" '$5 == p { f = 1 } END { exit !f }' /proc/self/mountinfo ||
		why="$why not mounted any more;"
	[ "$(cat "$FOREIGN/sub/file" 2>/dev/null)" = theirs ] || why="$why the mount's file changed;"
	grep -qF "unmounted mount '$FOREIGN/mnt'" <<<"$real" && why="$why its listed mount unmounted;"
	[ "$before_foreign" = "$(snap "$FOREIGN")" ] || why="$why the dir changed;"
	[ -z "$why" ] && ok "clean: refuses it the same, leaves the dir, the mount and its files as they were" ||
		{ nok "clean: refuses it the same, leaves the dir, the mount and its files as they were ($why)"; sed 's/^/#   /' <<<"$real"; }

	why=""
	grep -qF "would refuse directory '$BIND': '$BIND/sub' is mounted inside" <<<"$dry" ||
		why="$why dry run: no refusal naming the mount;"
	grep -qF "refused directory '$BIND': '$BIND/sub' is mounted inside" <<<"$real" ||
		why="$why no refusal naming the mount;"
	[ "$(cat "$R/victim/file" 2>/dev/null)" = precious ] || why="$why the bound directory's file is gone;"
	[ -z "$why" ] && ok "a bind mount inside from the same filesystem: refused alike, its files kept" ||
		{ nok "a bind mount inside from the same filesystem: refused alike, its files kept ($why)"; sed 's/^/#   /' <<<"$real"; }

	why=""
	grep -qF "would refuse loop device '$CHAINDEV': in use: mounted on '$FOREIGN/mnt'" <<<"$dry" ||
		why="$why dry run: no refusal;"
	grep -qF "refused loop device '$CHAINDEV': in use: mounted on '$FOREIGN/mnt'" <<<"$real" ||
		why="$why no refusal;"
	[ "$(losetup -j "$CHAIN/img" -O NAME -n)" = "$CHAINDEV" ] || why="$why not bound any more;"
	[ -z "$why" ] && ok "a loop device on the listed mount of a refused directory: refused alike" ||
		{ nok "a loop device on the listed mount of a refused directory: refused alike ($why)"; sed 's/^/#   /' <<<"$real"; }

	why=""
	grep -qF "unmounted mount '$MNTDIR/mnt'" <<<"$real" || why="$why no unmount;"
	grep -qF "detached loop device '$NORMDEV' (backing '$NORMAL/img')" <<<"$real" || why="$why no detach;"
	[ -e "$NORMAL" ] && why="$why $NORMAL left;"
	[ -e "$MNTDIR" ] && why="$why $MNTDIR left;"
	[ -z "$(losetup -j "$NORMAL/img")" ] || why="$why still bound;"
	[ -z "$why" ] && ok "clean: removes the leftover whose loop device is on another leftover's mount" ||
		{ nok "clean: removes the leftover whose loop device is on another leftover's mount ($why)"; sed 's/^/#   /' <<<"$real"; }

	# The dry run's lines are the real run's, "would" aside.
	norm() { sed -E 's/^would remove /removed /; s/^would unmount /unmounted /; s/^would detach /detached /; s/^would refuse /refused /' | sort; }
	if [ "$(norm <<<"$dry")" = "$(sort <<<"$real")" ]; then
		ok "the dry run's lines are the real run's (with 'would')"
	else
		nok "the dry run's lines are the real run's (with 'would')"
		diff <(norm <<<"$dry") <(sort <<<"$real") | sed 's/^/#   /'
	fi

	# ---- 5. what only looks like the marker's: held open, mounted over ----
	tmpdir R5 || exit 1
	on_exit "for img in '$R5'/fsbench.*/img; do for d in \$(losetup -j \"\$img\" -O NAME -n); do losetup -d \"\$d\"; done; done"
	on_exit "for m in \$(awk '\$5 ~ \"^$R5/\" { print \$5 }' /proc/self/mountinfo | sort -r); do umount \"\$m\"; done"
	R=$R5
	# 5a: its loop device held open by another process (no mount).
	HELD=$R/fsbench.$$.heldop
	marker "$HELD"
	leftover_loop "$HELD" HELDDEV || exit 1
	sleep 600 9<"$HELDDEV" &
	holder=$!
	on_exit "kill $holder"
	# 5b: its listed mount point with a bind mount of the disk on it.
	OVER=$R/fsbench.$$.overmt
	marker "$OVER" "mount=$OVER/mnt"
	mkdir "$OVER/mnt" "$R/victim"
	echo precious >"$R/victim/file"
	leftover_loop "$OVER" OVERDEV && mount --bind "$R/victim" "$OVER/mnt" || exit 1
	dry=$("$FSBENCH" clean --dry-run "$R" 2>&1)
	drc=$?
	real=$("$FSBENCH" clean "$R" 2>&1)
	rc=$?
	why=""
	[ $drc -eq 1 ] && [ $rc -eq 1 ] || why="$why exit $drc and $rc, want 1;"
	grep -qF "would refuse loop device '$HELDDEV': in use: held open by process $holder" <<<"$dry" ||
		why="$why dry run: no refusal naming the holder;"
	grep -qF "refused loop device '$HELDDEV': in use: held open by process $holder" <<<"$real" ||
		why="$why no refusal naming the holder;"
	[ "$(losetup -j "$HELD/img" -O NAME -n)" = "$HELDDEV" ] && [ -f "$HELD/img" ] ||
		why="$why detached or its image gone;"
	[ -z "$why" ] && ok "a loop device held open elsewhere: refused alike, left bound, its image kept" ||
		{ nok "a loop device held open elsewhere: refused alike ($why)"; sed 's/^/#   /' <<<"$dry$real"; }
	why=""
	grep -qF "would refuse mount '$OVER/mnt': mounted there is" <<<"$dry" ||
		why="$why dry run: no refusal of the mount;"
	grep -qF "refused mount '$OVER/mnt': mounted there is" <<<"$real" || why="$why no refusal of the mount;"
	awk -v p="$OVER/mnt" '$5 == p { f = 1 } END { exit !f }' /proc/self/mountinfo &&
		[ "$(cat "$OVER/mnt/file" 2>/dev/null)" = precious ] || why="$why the bind mount is gone;"
	[ -z "$why" ] && ok "a bind mount over a listed mount point: not its loop device's, refused alike, left" ||
		{ nok "a bind mount over a listed mount point: refused alike ($why)"; sed 's/^/#   /' <<<"$dry$real"; }
	kill $holder 2>/dev/null

	# 5c: a leftover on a filesystem remounted read-only: nothing can be
	# removed, and the dry run says so as the real run does.
	mkdir "$R/ro" && mount -t tmpfs -o size=1m fsbench-test "$R/ro" || exit 1
	marker "$R/ro/fsbench.$$.rdonly"
	mount -o remount,ro "$R/ro" || exit 1
	dry=$("$FSBENCH" clean --dry-run "$R/ro" 2>&1)
	drc=$?
	real=$("$FSBENCH" clean "$R/ro" 2>&1)
	rc=$?
	if [ $drc -eq $rc ] && grep -qF "would refuse directory '$R/ro/fsbench.$$.rdonly': on a read-only filesystem" <<<"$dry" &&
		grep -qF "refused directory '$R/ro/fsbench.$$.rdonly': on a read-only filesystem" <<<"$real"; then
		ok "a leftover on a read-only filesystem: dry run and real run refuse alike (exit $rc)"
	else
		nok "a leftover on a read-only filesystem: refused alike (exit $drc and $rc)"
		sed 's/^/#   /' <<<"$dry$real"
	fi
fi

done_testing
