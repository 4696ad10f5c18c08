#!/bin/bash
# The C sources are formatted with the repository's .clang-format (kernel
# style, 100 columns): `clang-format --dry-run` on every tracked .c/.h file
# reports nothing. Fix with: clang-format -i FILE (package clang-format).
. "$(dirname "$0")/lib.sh"

cd "$TOP" || exit 1
if ! command -v clang-format >/dev/null 2>&1; then
	skip "sources formatted with .clang-format" "clang-format is not installed"
	done_testing
	exit 0
fi
tmpdir T || exit 1
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	git ls-files -- 'src/*.[ch]' 'tests/unit/*.[ch]' 'tests/fuzz/*.[ch]' 'bench/*.[ch]' >"$T/files"
else
	find src tests/unit tests/fuzz bench -name '*.[ch]' >"$T/files"
fi
check "there are C sources to check" test -s "$T/files"
xargs clang-format --dry-run <"$T/files" >"$T/out" 2>&1
if [ -s "$T/out" ]; then
	nok "sources formatted with .clang-format ($(grep -c 'warning:' "$T/out") places)"
	grep 'warning:' "$T/out" | cut -d: -f1,2 | sort -u | head -20 | diag /dev/stdin
else
	ok "sources formatted with .clang-format ($(wc -l <"$T/files") files)"
fi
done_testing
