#!/bin/sh
# The layer rule of docs/DESIGN.md, checked on the #include lines of src/:
# cli -> core -> workloads -> engines/device -> stats/util, and report sees
# the result model (report, stats, util). A layer includes only its own
# headers and those of the layers below it; core sees of report only the
# result model and its serialisations (result.h, json.h, matrix.h). Also
# no include cycle between the files of report/ (X -> Y when X.c or X.h
# includes report/Y.h), so that each part can be read, tested and moved
# on its own. Prints each violation; exits 1 if there is any.
# Usage: scripts/check-layers.sh [SRC_DIR]   (default: src)
src=${1:-src}
bad=0

allowed() { # allowed LAYER -> the layers (dirs) it may include
	case $1 in
	cli) echo "cli core report util stats" ;;
	core) echo "core workloads engines device stats util report/result.h report/json.h report/matrix.h" ;;
	workloads) echo "workloads engines device stats util" ;;
	engines) echo "engines stats util" ;;
	device) echo "device stats util" ;;
	stats) echo "stats util" ;;
	util) echo "util" ;;
	report) echo "report stats util" ;;
	*) echo "" ;;
	esac
}

for dir in "$src"/*/; do
	layer=$(basename "$dir")
	ok=$(allowed "$layer")
	for f in "$dir"*.c "$dir"*.h; do
		[ -f "$f" ] || continue
		sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f" |
			while read -r inc; do
				case $inc in */*) ;; *) continue ;; esac
				top=${inc%%/*}
				hit=
				for a in $ok; do
					[ "$a" = "$top" ] || [ "$a" = "$inc" ] && hit=1
				done
				[ -n "$hit" ] || echo "check-layers: $f includes \"$inc\": $layer may include only $ok"
			done
	done
done >"${TMPDIR:-/tmp}/check-layers.$$"
if [ -s "${TMPDIR:-/tmp}/check-layers.$$" ]; then
	cat "${TMPDIR:-/tmp}/check-layers.$$"
	bad=1
fi
rm -f "${TMPDIR:-/tmp}/check-layers.$$"

# report/'s include graph, one "FROM TO" pair a line, into tsort: it names
# the files of a cycle on stderr.
pairs=$(for f in "$src"/report/*.c "$src"/report/*.h; do
	[ -f "$f" ] || continue
	from=$(basename "$f" | sed 's/\.[ch]$//')
	sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"report\/\([^"]*\)\.h".*/\1/p' "$f" |
		while read -r to; do
			[ "$to" = "$from" ] || echo "$from $to"
		done
done)
loop=$(printf '%s\n' "$pairs" | tsort 2>&1 >/dev/null)
if [ -n "$loop" ]; then
	echo "check-layers: an include cycle in $src/report:"
	printf '%s\n' "$loop" | sed 's/^/  /'
	bad=1
fi
[ $bad -eq 0 ] && echo "check-layers: no include against the layer rule, no cycle in $src/report"
exit $bad
