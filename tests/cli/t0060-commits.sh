#!/bin/bash
# scripts/check-commits.sh: on a scratch repository, a good commit passes
# and each kind of bad message (subject over 72 characters, subject ending
# in a period, no blank line, no body) is named, exit 1; commits before
# the one adding the script are not checked. Then this repository's own
# commits since the script was added pass. A release tarball has no .git:
# that last check is skipped there.
. "$(dirname "$0")/lib.sh"

S=$TOP/scripts/check-commits.sh
command -v git >/dev/null || { skip "check-commits" "git is not installed"; done_testing; exit 0; }
tmpdir T || exit 1
R=$T/repo
G() { git -C "$R" -c user.name=t -c user.email=t@example.invalid -c commit.gpgsign=false "$@"; }
mkdir -p "$R/scripts" && git init -q "$R" || exit 1
# Before the script: a bad message that must not count.
echo a >"$R/a" && G add a && G commit -q -m "old commit." || exit 1
cp "$S" "$R/scripts/" && G add scripts && G commit -q -m "add the check" -m "Why." || exit 1
echo b >"$R/b" && G add b && G commit -q -m "a good subject" -m "A body saying why." || exit 1
"$R/scripts/check-commits.sh" >"$T/out" 2>&1
rc=$?
check "good commits after the adding one: exit 0" test "$rc" -eq 0
check "good commits: says how many it checked" grep -qx "1 commits checked" "$T/out"

long=$(printf 'x%.0s' $(seq 73))
echo c >"$R/c" && G add c && G commit -q -m "$long" -m "Body." &&
	echo d >"$R/d" && G add d && G commit -q -m "ends in a period." -m "Body." &&
	echo e >"$R/e" && G add e && G commit -q -m "no body here" &&
	echo f >"$R/f" && G add f && G commit -q -m "$(printf 'no blank line\nthen text')" || exit 1
"$R/scripts/check-commits.sh" >"$T/out" 2>&1
rc=$?
check "bad commits: exit 1" test "$rc" -eq 1
check "a subject of 73 characters is named" grep -q "subject of 73 characters" "$T/out"
check "a subject ending in a period is named" grep -q "subject ends in a period: ends in a period.$" "$T/out"
check "a commit with no body is named" grep -q "no body .*: no body here$" "$T/out"
check "a subject with no blank line after it is named" grep -q "no blank line after the subject: no blank line$" "$T/out"
check "the commit before the script is not checked" sh -c "! grep -q 'old commit' '$T/out'"
check "four faults, one line each" test "$(wc -l <"$T/out")" -eq 4

if [ -e "$TOP/.git" ]; then
	"$S" >"$T/own" 2>&1
	rc=$?
	if [ "$rc" -eq 0 ]; then ok "this repository's commits since the script: $(tail -n1 "$T/own")"; else nok "this repository's commits (exit $rc)"; diag "$T/own"; fi
else
	skip "this repository's commits" "no .git (a release tarball)"
fi
done_testing
