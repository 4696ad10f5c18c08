#!/bin/bash
# The bash completion, as `fsbench completion bash` prints it (the build
# installs that output): the script is sourced here and its function
# _fsbench driven as bash drives it (COMP_WORDS, COMP_CWORD; COMPREPLY
# read back). Checked:
#   - the commands of 'fsbench --help', and nothing hidden;
#   - for every command, every option of 'fsbench CMD --help' (long and
#     short forms), and no option that --help does not list;
#   - the words of each option with a fixed vocabulary are exactly those
#     the parser accepts (read from its "expected a, b or c" message);
#   - the --tests ids and families of 'fsbench run --help', comma lists,
#     the --phases, --format per command, files for FILE and directories
#     for DIR, the guest's inner command and its options, and the section
#     names of the INI file on the command line for 'matrix --only'.
# Root-free.
. "$(dirname "$0")/lib.sh"

[ -x "$FSBENCH" ] || { echo "Bail out! $FSBENCH not built"; exit 1; }
tmpdir T || exit 1

"$FSBENCH" completion bash >"$T/fsbench.bash" 2>"$T/err"; rc=$?
if [ $rc -eq 0 ] && [ ! -s "$T/err" ] && [ -s "$T/fsbench.bash" ] && bash -n "$T/fsbench.bash"; then
	ok "'fsbench completion bash' prints a bash script"
else
	nok "'fsbench completion bash' prints a bash script (exit $rc)"
	diag "$T/err"
	done_testing
	exit 0
fi
for args in "completion" "completion zsh" "completion bash bash"; do
	# shellcheck disable=SC2086
	"$FSBENCH" $args >"$T/out" 2>"$T/err"; rc=$?
	if [ $rc -eq 2 ] && one_line "$T/err" && [ ! -s "$T/out" ]; then
		ok "'fsbench $args': exit 2, one line"
	else
		nok "'fsbench $args': exit 2, one line (exit $rc)"
		diag "$T/err"
	fi
done

# shellcheck disable=SC1091
. "$T/fsbench.bash"
check "the script registers _fsbench for fsbench" \
	bash -c '. "$1"; complete -p fsbench | grep -q -- "-F _fsbench"' - "$T/fsbench.bash"

# comp LINE: what the completion offers for LINE, one per line, sorted. The
# word being completed is the last one, or the word "@" (then empty). As
# bash does with its COMP_WORDBREAKS, "--opt=value" is three words.
comp() {
	local w cword=-1
	local -a words=() split=()
	read -ra words <<<"$1"
	[[ $1 == *' ' ]] && words+=('')
	for w in "${words[@]}"; do
		if [[ $w == --*=* ]]; then
			split+=("${w%%=*}" "=")
			[[ -n ${w#*=} ]] && split+=("${w#*=}")
		elif [[ $w == @ ]]; then
			cword=${#split[@]}
			split+=('')
		else
			split+=("$w")
		fi
	done
	((cword >= 0)) || cword=$((${#split[@]} - 1))
	COMP_WORDS=("${split[@]}")
	COMP_CWORD=$cword
	COMP_LINE=$1
	COMP_POINT=${#1}
	COMPREPLY=()
	_fsbench 2>/dev/null
	((${#COMPREPLY[@]})) && printf '%s\n' "${COMPREPLY[@]}" | sort
}

# offers WHAT LINE WANT...: the completion of LINE is exactly the WANTs.
offers() {
	local what=$1 line=$2 got want; shift 2
	got=$(comp "$line" | tr '\n' ' ')
	want=$( (($#)) && printf '%s\n' "$@" | sort | tr '\n' ' ')
	if [ "$got" = "$want" ]; then
		ok "$what"
	else
		nok "$what"
		echo "#   '$line': offered '$got', want '$want'"
	fi
}

# ---- commands ----
"$FSBENCH" --help >"$T/help" 2>&1
cmds=$(sed -n '/^commands:/,/^$/s/^  \([a-z][a-z]*\)  .*/\1/p' "$T/help")
check "fsbench --help lists commands" test -n "$cmds"
# shellcheck disable=SC2086
offers "'fsbench <TAB>' offers the commands of --help, nothing hidden" "fsbench " $cmds
offers "'fsbench ma<TAB>' offers matrix" "fsbench ma" matrix

# ---- every option of every command's --help ----
# help_opts CMD: "--long" and "-s" of each option line of 'fsbench CMD --help'.
help_opts() {
	"$FSBENCH" "$1" --help |
		sed -En 's/^ {2,6}(-[A-Za-z], )?(--[a-z][a-z0-9-]*).*/\1\2/p' |
		sed 's/, / /' | tr ' ' '\n' | sort -u
}
for c in $cmds; do
	help_opts "$c" >"$T/want.$c"
	comp "fsbench $c -" >"$T/got.$c"
	missing=$(comm -23 "$T/want.$c" "$T/got.$c" | tr '\n' ' ')
	extra=$(comm -13 "$T/want.$c" "$T/got.$c" | tr '\n' ' ')
	if [ -s "$T/want.$c" ] && [ -z "$missing" ]; then
		ok "fsbench $c: every option of --help is completed ($(wc -l <"$T/want.$c"))"
	else
		nok "fsbench $c: every option of --help is completed"
		echo "#   not offered: $missing"
	fi
	if [ -z "$extra" ]; then
		ok "fsbench $c: only the options of --help are completed"
	else
		nok "fsbench $c: only the options of --help are completed"
		echo "#   offered, not in --help: $extra"
	fi
	comp "fsbench $c --" >"$T/long.$c"
	check "fsbench $c --<TAB>: the long options only" \
		cmp -s "$T/long.$c" <(grep -- '^--' "$T/want.$c")
done
# No command word: `fsbench [OPTIONS] [DIR]` is run.
comp "fsbench -" >"$T/got.bare"
check "fsbench -<TAB>: run's options" cmp -s "$T/got.bare" "$T/want.run"

# ---- each fixed vocabulary is the parser's ----
# context CMD: what a command line of CMD needs besides the option checked,
# so that the parser gets to the option's value (no work is done: the
# values are checked first).
context() {
	case $1 in
	lifecycle) echo "--fs ext4 --image $T/none.img" ;;
	matrix) echo "$T/none.ini" ;;
	compare) echo "$T/none.json" ;;
	guest) echo "-- run" ;;
	*) echo "" ;;
	esac
}
nvocab=0
tmpdir W || exit 1
for c in $cmds; do
	for o in $(grep -- '^--' "$T/want.$c"); do
		# Only the options whose value is one word of a vocabulary (the
		# script's own table says which): the parser is run with a bogus
		# one, which it refuses before doing anything.
		_fsbench_value "$c" "$o"
		[ "$_fsb_kind" = word ] || continue
		got=$(comp "fsbench $c $o " | tr '\n' ' ')
		# (In an empty directory of its own, should it ever not refuse.)
		# shellcheck disable=SC2046
		(cd "$W" && "$FSBENCH" "$c" "$o" __bogus__ $(context "$c")) >/dev/null 2>"$T/err"
		expected=$(sed -n "s/^fsbench: invalid $o '__bogus__': expected //p" "$T/err")
		[ -n "$expected" ] || continue
		nvocab=$((nvocab + 1))
		want=$(echo "$expected" | sed 's/, / /g; s/ or / /g; s/|/ /g' | tr ' ' '\n' |
			sort | tr '\n' ' ')
		if [ "$c $o" = "guest --format" ]; then
			# The guest's formats are those of run and of lifecycle.
			"$FSBENCH" guest --format __bogus__ -- lifecycle --fs ext4 --image x 2>&1 |
				sed -n "s/.*expected //p" | tr '|' '\n' >"$T/lc"
			want=$( (echo "$want" | tr ' ' '\n'; cat "$T/lc") | grep . | sort -u | tr '\n' ' ')
		fi
		if [ "$got" = "$want" ]; then
			ok "fsbench $c $o <TAB>: the words the parser accepts ($got)"
		else
			nok "fsbench $c $o <TAB>: the words the parser accepts"
			echo "#   offered '$got', the parser expects '$want'"
		fi
	done
done
check "vocabularies checked against the parser: at least 10 ($nvocab)" test "$nvocab" -ge 10

# ---- --tests, --phases: comma-separated lists ----
ids=$("$FSBENCH" run --help | sed -n '/^Tests/,/^$/s/^  \([a-z][a-z-]*\)  .*/\1/p')
comp "fsbench run --tests " >"$T/tests"
missing=""
for t in $ids throughput files; do
	grep -qx -- "$t" "$T/tests" || missing="$missing $t"
done
if [ "$(echo $ids | wc -w)" -ge 12 ] && [ -z "$missing" ]; then
	ok "run --tests <TAB>: every test id of run --help, and the families"
else
	nok "run --tests <TAB>: every test id of run --help, and the families"
	echo "#   not offered:$missing"
fi
check "run -t <TAB> is --tests'" cmp -s "$T/tests" <(comp "fsbench run -t ")
check "run --tests=<TAB> is --tests'" cmp -s "$T/tests" <(comp "fsbench run --tests=")
offers "run --tests write,re<TAB>: the next item, the ones given kept" \
	"fsbench run --tests write,re" write,read write,rewrite
offers "run --tests=seeks,write,s<TAB>: no item twice" \
	"fsbench run --tests=seeks,write,s" seeks,write,seq-create seeks,write,seq-delete \
	seeks,write,seq-stat
offers "fsbench --tests putc,g<TAB> (no command word)" "fsbench --tests putc,g" putc,getc
comp "fsbench lifecycle --phases " >"$T/phases"
check "lifecycle --phases <TAB>: mkfs, mount-umount, write, read, all" \
	test "$(grep -cxE 'mkfs|mount-umount|write|read|all' "$T/phases")" -eq 5

# ---- formats per command ----
offers "run --format <TAB>" "fsbench run --format " text bonnie bonnie++ csv json markdown
offers "lifecycle -f <TAB>" "fsbench lifecycle -f " text lifecycle json markdown
offers "matrix --format=<TAB>" "fsbench matrix --format=" text csv json
offers "compare --format j<TAB>" "fsbench compare --format j" json
offers "report --format <TAB>" "fsbench report --format " html markdown
offers "show --format <TAB>" "fsbench show --format " text bonnie bonnie++ lifecycle csv json markdown html

# ---- files and directories ----
mkdir "$T/dir1" "$T/dir2"
: >"$T/res1.json"
: >"$T/res2.json"
offers "compare FILE<TAB>: files" "fsbench compare $T/res" "$T/res1.json" "$T/res2.json"
offers "run -o FILE<TAB>: files" "fsbench run -o $T/res1" "$T/res1.json"
offers "run DIR<TAB>: directories only" "fsbench run --size 1m $T/" "$T/dir1" "$T/dir2"
offers "clean DIR<TAB>: directories only" "fsbench clean $T/d" "$T/dir1" "$T/dir2"
offers "fsbench DIR<TAB> (no command word): directories" "fsbench $T/di" "$T/dir1" "$T/dir2"
offers "lifecycle --image FILE<TAB>" "fsbench lifecycle --image $T/res2" "$T/res2.json"
offers "guest --modules DIR<TAB>" "fsbench guest --modules $T/dir" "$T/dir1" "$T/dir2"
offers "a value that is a number: nothing" "fsbench run --repeat "

# ---- guest: the command, then its options ----
offers "guest <TAB>: the commands a guest runs" "fsbench guest " run lifecycle
offers "guest --disk 1g -- <TAB>" "fsbench guest --disk 1g -- " run lifecycle
offers "guest -- run --ca<TAB>: run's options" "fsbench guest --disk 1g -- run --ca" --cache
offers "guest -- lifecycle --fill <TAB>" "fsbench guest -- lifecycle --fill " \
	0xff zero random none

# ---- matrix --only: the sections of the file on the command line ----
cat >"$T/m.ini" <<'EOF'
[global]
image_size = 64m
[ext2]
mkfs = mkfs.ext2 -q -F {dev}
  [xfs-big]
mkfs = mkfs.xfs -q -f {dev}
[btrfs/raid1]
devices = 2
EOF
offers "matrix FILE --only <TAB>: its setups, not [global]" "fsbench matrix $T/m.ini --only " \
	ext2 xfs-big btrfs/raid1
offers "matrix --only <TAB> FILE (the file after the cursor)" \
	"fsbench matrix --keep-images --only @ $T/m.ini" ext2 xfs-big btrfs/raid1
offers "matrix --only=ext2,<TAB>: the others" "fsbench matrix $T/m.ini --only=ext2," \
	ext2,xfs-big ext2,btrfs/raid1
offers "matrix --only <TAB> without a file: nothing" "fsbench matrix --only "
# A hostile matrix file: its section names are data, never run or
# expanded by the shell (compgen -W expanded $(...) and `...` in them,
# as root, at a TAB), and names that are not plain are not offered.
printf '[global]\n[$(touch %s)]\n[`touch %s`]\n[*]\n[a b]\n[ok-1]\n' \
	"$T/pwned1" "$T/pwned2" >"$T/evil.ini"
offers "matrix --only <TAB> of a hostile file: only its plain names" \
	"fsbench matrix $T/evil.ini --only " ok-1
offers "matrix --only=ok-1,<TAB> of a hostile file: nothing more" \
	"fsbench matrix $T/evil.ini --only=ok-1,"
check "matrix --only <TAB> of a hostile file: nothing in it ran" \
	test ! -e "$T/pwned1" -a ! -e "$T/pwned2"
offers "matrix --only <TAB> with a missing file: nothing" "fsbench matrix $T/nope.ini --only "

done_testing
