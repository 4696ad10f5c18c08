#!/bin/bash
# The repository describes itself: no file in it cites a path outside it
# (the design notes, reference reports and lab notes kept beside the
# project while it was written: '../shared/...', 'shared/...',
# 'reference/...'), or this machine's work tree ('/work/'). The reports
# are described in docs/references.md, the design in docs/DESIGN.md.
# Root-free; reads the files git tracks (every file, outside git).
. "$(dirname "$0")/lib.sh"

cd "$TOP" || exit 1
tmpdir T || exit 1
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	git ls-files -z >"$T/files"
else
	find . -path ./build -prune -o -path ./.git -prune -o -type f -print0 >"$T/files"
fi
# This test names the patterns it looks for.
self=tests/cli/$(basename "$0")

# cites PATTERN WHERE...: lines of the listed files (minus this one) that
# match PATTERN (grep -E), as "file:line: text".
cites() {
	local pat=$1
	xargs -0 grep -nIE -- "$pat" <"$T/files" 2>/dev/null | grep -v "^\(\./\)\?$self:"
}

pat='(^|[^[:alnum:]_-])(reference|shared)/|/work/'
cites "$pat" >"$T/hits"
if [ ! -s "$T/hits" ]; then
	ok "no file cites reference/, shared/ or /work/"
else
	nok "no file cites reference/, shared/ or /work/ ($(wc -l <"$T/hits") lines)"
	diag "$T/hits"
fi

done_testing
