#!/bin/sh
# Check the commit messages after the one that added this script:
#   scripts/check-commits.sh [REV]
# every commit reachable from REV (default HEAD) and not from the commit
# that added scripts/check-commits.sh must have a subject of at most 72
# characters that does not end in a period, then a blank line, then a
# non-empty body (why, and what was measured or tested). Merge commits
# are skipped. Prints one line per fault, "N commits checked" otherwise;
# exits 0 when none is at fault, 1 when one is, 2 when this is no git
# checkout.
cd "$(dirname "$0")/.." || exit 2
rev=${1:-HEAD}
if [ ! -e .git ] || ! git rev-parse --verify -q "$rev^{commit}" >/dev/null; then
	echo "check-commits: not a git checkout (or no $rev)" >&2
	exit 2
fi
base=$(git log --diff-filter=A --format=%H -n 1 "$rev" -- scripts/check-commits.sh)
# A shallow clone's oldest commit looks as if it added every file: only
# the commits after it are checked then.
[ "$(git rev-parse --is-shallow-repository 2>/dev/null)" != true ] ||
	echo "check-commits: shallow clone: only the commits it holds are checked" >&2
if [ -z "$base" ]; then
	# Not committed yet (the script is new in the working tree): nothing to check.
	echo "0 commits checked"
	exit 0
fi
bad=0 n=0
for c in $(git rev-list --no-merges "$base..$rev"); do
	n=$((n + 1))
	short=$(git rev-parse --short "$c")
	# The raw message: line 1 the subject, line 2 blank, line 3 on the body
	# (%s would join a first paragraph of several lines into one).
	msg=$(git log -1 --format=%B "$c")
	subject=$(printf '%s\n' "$msg" | sed -n 1p)
	len=$(printf '%s' "$subject" | wc -m)
	if [ "$len" -gt 72 ]; then
		echo "$short: subject of $len characters (at most 72): $subject"
		bad=1
	fi
	case $subject in
	*.) echo "$short: subject ends in a period: $subject"; bad=1 ;;
	esac
	line2=$(printf '%s\n' "$msg" | sed -n 2p)
	body=$(printf '%s\n' "$msg" | sed -n '3,$p' | tr -d ' \t\n')
	if [ -n "$line2" ]; then
		echo "$short: no blank line after the subject: $subject"
		bad=1
	elif [ -z "$body" ]; then
		echo "$short: no body (say why, and what was measured or tested): $subject"
		bad=1
	fi
done
[ "$bad" -eq 0 ] || exit 1
echo "$n commits checked"
