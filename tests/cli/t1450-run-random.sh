#!/bin/bash
# fsbench run: the random I/O tests (randread, randwrite) are opt-in: they
# run when named (by id or as the family "random") and are in neither the
# default suite nor the throughput family. As root also with --cache=direct
# on ext4 on a loop device this script makes.
. "$(dirname "$0")/lib.sh"

tmpdir T || exit 1
[ -x "$FSBENCH" ] || { echo "Bail out! $FSBENCH not built"; exit 1; }

# Both random figures, in ops/s, each of at most the file's blocks (4 KiB).
RANDOM_FIGURES='
blocks = d["params"]["size_bytes"] // 4096
ids = [t["id"] for t in d["tests"]]
assert ids == ["randread", "randwrite"], ids
for t in d["tests"]:
    i = t["id"]
    assert t["unit"] == "ops/s", (i, t["unit"])
    assert t["median"] > 0 and t["min"] > 0, (i, t["median"])
    assert 1 <= t["work"] <= blocks, (i, t["work"], blocks)
    lat = t["latency_us"]
    assert 0 < lat["p50"] <= lat["p99"] <= lat["max"], (i, lat)
'

# run_json NAME DIR ARGS...: fsbench run ... -f json -o $T/NAME.json DIR.
run_json() {
	local name=$1 dir=$2 rc; shift 2
	"$FSBENCH" run --quiet "$@" --format json -o "$T/$name.json" "$dir" 2>"$T/$name.err"; rc=$?
	if [ $rc -eq 0 ] && no_scratch_left "$dir"; then
		ok "$name: fsbench run $* exits 0, no scratch left"
	else
		nok "$name: fsbench run $* exits 0, no scratch left (exit $rc)"; diag "$T/$name.err"
		return 1
	fi
}

SMALL=(--size 4m --repeat 2 --min-time 0.02)
mkdir "$T/d"

for list in random randwrite,randread; do
	if run_json "$list" "$T/d" "${SMALL[@]}" --tests "$list"; then
		check "--tests $list: randread and randwrite, in ops/s, within the file's blocks" \
			pycheck "$T/$list.json" "$RANDOM_FIGURES"
	fi
done

# Neither the default suite nor the throughput family includes them.
NO_RANDOM='
ids = [t["id"] for t in d["tests"]]
assert ids == ["putc", "write", "rewrite", "getc", "read", "seeks"], ids
'
FAST=(--size 4m --repeat 1 --min-time 0.02 --char-size 1m --seeks 256)
if run_json default "$T/d" "${FAST[@]}" --files 0; then
	check "the default suite has no random test" pycheck "$T/default.json" "$NO_RANDOM"
fi
if run_json throughput "$T/d" "${FAST[@]}" --tests throughput; then
	check "--tests throughput has no random test" pycheck "$T/throughput.json" "$NO_RANDOM"
fi

# O_DIRECT on a disk filesystem: every block read is verified, so a pass
# means the data came back whole.
if is_root; then
	if make_fs ext4 256m; then
		if run_json direct "$FS_MNT" --size 16m --repeat 2 --min-time 0.05 --cache direct \
			--tests random; then
			check "ext4 on a loop device, --cache=direct: both random figures" \
				pycheck "$T/direct.json" "$RANDOM_FIGURES"
		fi
	else
		nok "make ext4 on a loop device"
	fi
else
	skip "ext4 on a loop device, --cache=direct" "needs root"
fi

done_testing
