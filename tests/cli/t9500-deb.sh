#!/bin/bash
# The Debian package, built as from a release: `make dist` (in a checkout:
# `git archive` of the tracked files as they are in the working tree, so
# that uncommitted changes are tested too; untracked files are not in it),
# unpacked in a temporary directory (never here: the package build's
# `make clean` would remove build/ under the running suite), then
# `dpkg-buildpackage -us -uc -b` with DEB_BUILD_OPTIONS=nocheck (the
# package build does not run this suite). Checked:
#   - the tarball: fsbench-VERSION/, its VERSION file (version, commit);
#   - the build honours nocheck, and `debian/rules clean` (make clean)
#     leaves every file of the tarball as it was and removes the build;
#   - the package's version is the Makefile's and debian/changelog's;
#   - Depends names exactly the packages of the libraries the binary
#     links (readelf NEEDED -> dpkg -S), plus nothing else;
#   - installed in a scratch root (dpkg -x): `fsbench --version` names the
#     tarball's commit, a short run works, the man page (compressed)
#     renders, the bash completion is what the binary prints, the example
#     matrix files and the docs are there;
#   - fsbench-mpi_VERSION.deb (when mpicc is here; the build profile
#     nompi leaves it out): usr/bin/fsbench-mpi linking Open MPI, Depends
#     on fsbench of the same version and openmpi-bin, its man page a link
#     to fsbench's; fsbench itself links no MPI;
#   - lintian (-I -E --pedantic) reports nothing but what
#     debian/fsbench.lintian-overrides overrides, each override with a
#     comment above it.
# Skips when dpkg-buildpackage or debhelper is missing (scripts/deps.sh
# test installs them). About a minute.
. "$(dirname "$0")/lib.sh"

need=""
for tool in dpkg-buildpackage dh dpkg-deb dpkg-parsechangelog readelf; do
	command -v "$tool" >/dev/null 2>&1 || need="$need $tool"
done
if [ -n "$need" ]; then
	skip "the .deb builds, installs and runs" "missing:$need (packages dpkg-dev debhelper binutils)"
	done_testing
	exit 0
fi
tmpdir T || exit 1
ver=$(sed -n 's/^VERSION *:= *//p' "$TOP/Makefile")
arch=$(dpkg --print-architecture)

# ---- the release tarball ----
rev=HEAD
if [ -e "$TOP/.git" ]; then
	# The working tree's tracked files as a commit (no ref, nothing changed).
	rev=$(git -C "$TOP" stash create 2>/dev/null)
	rev=${rev:-HEAD}
fi
make -s -C "$TOP" dist DIST_DIR="$T" DIST_REV="$rev" >"$T/dist.log" 2>&1
tarball=$T/fsbench-$ver.tar.gz
if [ -f "$tarball" ]; then
	ok "make dist makes fsbench-$ver.tar.gz"
else
	nok "make dist makes fsbench-$ver.tar.gz"
	diag "$T/dist.log"
	done_testing
	exit 0
fi
mkdir "$T/src" "$T/ref" "$T/root"
tar -xzf "$tarball" -C "$T/src" && tar -xzf "$tarball" -C "$T/ref"
S=$T/src/fsbench-$ver
commit=$(sed -n 2p "$S/VERSION" 2>/dev/null)
if [ "$(sed -n 1p "$S/VERSION" 2>/dev/null)" = "$ver" ] && [ -n "$commit" ] &&
	[ -f "$S/debian/control" ] && [ ! -e "$S/build" ] &&
	[ "$(tar -tzf "$tarball" | grep -cv "^fsbench-$ver/")" -eq 0 ]; then
	ok "the tarball holds fsbench-$ver/ with debian/ and VERSION ($ver, $commit), no build/"
else
	nok "the tarball holds fsbench-$ver/ with debian/ and VERSION, no build/"
fi

# ---- the package build ----
(cd "$S" && DEB_BUILD_OPTIONS=nocheck dpkg-buildpackage -us -uc -b) >"$T/build.log" 2>&1
rc=$?
deb=$T/src/fsbench_${ver}_$arch.deb
if [ $rc -eq 0 ] && [ -f "$deb" ]; then
	ok "dpkg-buildpackage -us -uc -b builds fsbench_${ver}_$arch.deb"
else
	nok "dpkg-buildpackage -us -uc -b builds fsbench_${ver}_$arch.deb (exit $rc)"
	tail -20 "$T/build.log" | diag /dev/stdin
	done_testing
	exit 0
fi
# The unit tests print "# unit: ..." lines (tests/run-all.sh).
if grep -q 'dh_auto_build' "$T/build.log" && ! grep -q '^# unit:' "$T/build.log"; then
	ok "DEB_BUILD_OPTIONS=nocheck: no test ran in the package build"
else
	nok "DEB_BUILD_OPTIONS=nocheck: no test ran in the package build"
fi
(cd "$S" && debian/rules clean) >"$T/clean.log" 2>&1
if diff -r "$T/ref/fsbench-$ver" "$S" >"$T/diff" 2>&1; then
	ok "debian/rules clean: the tree is the tarball again (build removed, nothing else)"
else
	nok "debian/rules clean: the tree is the tarball again (build removed, nothing else)"
	diag "$T/diff"
fi
chver=$(cd "$S" && dpkg-parsechangelog -S Version)
pkgver=$(dpkg-deb -f "$deb" Version)
if [ "$chver" = "$ver" ] && [ "$pkgver" = "$ver" ]; then
	ok "the package, debian/changelog and the Makefile say version $ver"
else
	nok "the package ($pkgver), debian/changelog ($chver) and the Makefile ($ver) agree"
fi

# ---- installed in a scratch root ----
dpkg -x "$deb" "$T/root"
R=$T/root
bin=$R/usr/bin/fsbench
out=$("$bin" --version 2>&1)
if [ "$out" = "fsbench $ver (git $commit)" ]; then
	ok "the packaged fsbench --version: '$out'"
else
	nok "the packaged fsbench --version: '$out', want 'fsbench $ver (git $commit)'"
fi
mkdir "$T/work"
"$bin" run --tests write --size 1m --files 0 --min-time 0.01 --repeat 1 --format json \
	-o "$T/run.json" "$T/work" >"$T/run.out" 2>"$T/run.err"
rc=$?
if [ $rc -eq 0 ] &&
	pycheck "$T/run.json" "assert d['version'] == argv[0] and [t['id'] for t in d['tests']] == ['write'], d.get('version')" "$ver" &&
	empty_dir "$T/work"; then
	ok "the packaged fsbench runs: run --tests write --size 1m (JSON version $ver)"
else
	nok "the packaged fsbench runs: run --tests write --size 1m (exit $rc)"
	diag "$T/run.err"
fi

# Depends: exactly the packages of the libraries the binary links.
needed=$(readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
want=""
for lib in $needed; do
	path=$(ldconfig -p | awk -v l="$lib" '$1 == l && /x86-64|x32|AArch64|64bit/ { print $NF; exit }')
	[ -n "$path" ] || path=$(ldconfig -p | awk -v l="$lib" '$1 == l { print $NF; exit }')
	p=$(dpkg -S "$(realpath "$path")" 2>/dev/null | head -n1 | cut -d: -f1)
	[ -n "$p" ] || p=$(dpkg -S "$path" 2>/dev/null | head -n1 | cut -d: -f1)
	want="$want $p"
done
want=$(echo $want | tr ' ' '\n' | sort -u | tr '\n' ' ')
got=$(dpkg-deb -f "$deb" Depends | tr ',' '\n' | sed 's/^ *//; s/ .*//' | grep . | sort -u | tr '\n' ' ')
if [ -n "$needed" ] && [ "$got" = "$want" ]; then
	ok "Depends: exactly the libraries linked ($got)"
else
	nok "Depends: exactly the libraries linked"
	echo "#   Depends: '$got'; the binary links: $(echo $needed) ('$want')"
fi

man=$R/usr/share/man/man1/fsbench.1.gz
if [ -f "$man" ] && [ ! -e "$R/usr/share/man/man1/fsbench.1" ] &&
	zcat "$man" | groff -man -Tutf8 -ww >/dev/null 2>"$T/groff" && [ ! -s "$T/groff" ] &&
	zcat "$man" | cmp -s - "$S/man/fsbench.1"; then
	ok "the man page: usr/share/man/man1/fsbench.1.gz, man/fsbench.1 compressed, renders"
else
	nok "the man page: usr/share/man/man1/fsbench.1.gz, man/fsbench.1 compressed, renders"
	diag "$T/groff"
fi
comp=$R/usr/share/bash-completion/completions/fsbench
"$bin" completion bash >"$T/completion" 2>&1
if [ -s "$comp" ] && cmp -s "$comp" "$T/completion" && bash -n "$comp"; then
	ok "the bash completion: usr/share/bash-completion/completions/fsbench, what the binary prints"
else
	nok "the bash completion: usr/share/bash-completion/completions/fsbench, what the binary prints"
fi
missing=""
for f in "$S"/examples/*.ini; do
	cmp -s "$f" "$R/usr/share/doc/fsbench/examples/${f##*/}" || missing="$missing examples/${f##*/}"
done
for f in README.md docs/*.md; do
	for g in "$S/$f"; do
		d=$R/usr/share/doc/fsbench/${g##*/}
		{ [ -f "$d" ] && cmp -s "$g" "$d"; } || { [ -f "$d.gz" ] && zcat "$d.gz" | cmp -s "$g" -; } ||
			missing="$missing ${g#"$S"/}"
	done
done
[ -f "$R/usr/share/doc/fsbench/copyright" ] || missing="$missing copyright"
if [ -z "$missing" ]; then
	ok "the examples, README.md, docs/*.md and the copyright are in usr/share/doc/fsbench"
else
	nok "the examples, README.md, docs/*.md and the copyright are in usr/share/doc/fsbench"
	echo "#   missing or different:$missing"
fi

# ---- fsbench-mpi, its own package ----
mdeb=$T/src/fsbench-mpi_${ver}_$arch.deb
if command -v mpicc >/dev/null 2>&1; then
	mkdir "$T/mroot"
	dpkg -x "$mdeb" "$T/mroot" 2>"$T/mdeb.err"
	mbin=$T/mroot/usr/bin/fsbench-mpi
	mdep=$(dpkg-deb -f "$mdeb" Depends 2>/dev/null)
	if [ -x "$mbin" ] && readelf -d "$mbin" | grep -q 'NEEDED.*libmpi' &&
		! readelf -d "$bin" | grep -q 'NEEDED.*libmpi' &&
		echo "$mdep" | grep -q "fsbench (= $ver)" && echo "$mdep" | grep -q 'openmpi-bin' &&
		echo "$mdep" | grep -q 'libopenmpi' &&
		[ "$(readlink "$T/mroot/usr/share/man/man1/fsbench-mpi.1.gz")" = fsbench.1.gz ] &&
		[ "$(dpkg-deb -c "$mdeb" | grep -c 'usr/share/doc/fsbench-mpi/copyright')" -eq 1 ]; then
		ok "fsbench-mpi_${ver}_$arch.deb: usr/bin/fsbench-mpi with Open MPI, Depends on fsbench (= $ver) and openmpi-bin, man page linked; fsbench links no MPI"
	else
		nok "fsbench-mpi_${ver}_$arch.deb: usr/bin/fsbench-mpi with Open MPI, Depends on fsbench (= $ver) and openmpi-bin"
		echo "#   Depends: '$mdep'"
		diag "$T/mdeb.err"
	fi
else
	skip "fsbench-mpi's package" "mpicc is not installed (scripts/deps.sh test installs Open MPI)"
fi

# ---- lintian ----
if command -v lintian >/dev/null 2>&1; then
	changes=$T/src/fsbench_${ver}_$arch.changes
	# Its temporary files (mldbm-elf-*, which it leaves) go in T, not /tmp.
	mkdir "$T/lintian.tmp"
	TMPDIR=$T/lintian.tmp lintian -I -E --pedantic --show-overrides "$changes" \
		>"$T/lintian" 2>"$T/lintian.err"
	if ! grep -E '^[EWIPXC]: ' "$T/lintian" >"$T/tags" && ! grep -v 'root privileges' "$T/lintian.err" | grep -q .; then
		ok "lintian -I -E --pedantic: no tag but the overridden ones ($(grep -c '^O: ' "$T/lintian") overridden)"
	else
		nok "lintian -I -E --pedantic: no tag but the overridden ones"
		diag "$T/tags"
		diag "$T/lintian.err"
	fi
	# Every override documented: the line above each one is a comment.
	bad=$(awk '/^[^#[:space:]]/ && prev !~ /^#/ { print FILENAME ":" FNR } { prev = $0 }' \
		"$S"/debian/*lintian-overrides 2>/dev/null)
	if ! compgen -G "$S/debian/*lintian-overrides" >/dev/null; then
		nok "every lintian override has a comment (no debian/*lintian-overrides to read)"
	elif [ -z "$bad" ]; then
		ok "every lintian override has a comment"
	else
		nok "every lintian override has a comment (not: $bad)"
	fi
else
	skip "lintian: no tag but the overridden ones" "lintian is not installed"
fi

done_testing
