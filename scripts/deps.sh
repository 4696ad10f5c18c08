#!/bin/sh
# Install the Debian packages fsbench needs, only those missing.
#   scripts/deps.sh build   - to build and run fsbench (`make`, `make run`, `make install`)
#   scripts/deps.sh unit    - also what the unit tests need (`make unit-test`)
#   scripts/deps.sh test    - also what every test needs (`make test`, `make cli-test`)
#   scripts/deps.sh fuzz    - also clang and libFuzzer (`make fuzz`, `make fuzz-build`)
#   scripts/deps.sh bench   - also the peers `make bench` compares with
#   scripts/deps.sh mpi     - also Open MPI, for fsbench-mpi (`make mpi`)
#   scripts/deps.sh guest   - what `make guest-kernel` needs: depmod (kmod),
#                             and apt's lists knowing linux-image-amd64
# Non-root users get the apt-get command to run instead. FSBENCH_DEPS=no
# turns this off: a package build (debian/rules), whose Build-Depends
# dpkg-buildpackage has checked, never installs anything from here.
set -eu
[ "${FSBENCH_DEPS:-}" = no ] && exit 0
what=${1:-build}
case $what in
build | unit | test | fuzz | bench | guest | mpi) ;;
*)
	echo "usage: scripts/deps.sh build|unit|test|fuzz|bench|guest|mpi" >&2
	exit 2
	;;
esac
pkgs="pkg-config libmount-dev libblkid-dev libjson-c-dev libinih-dev liburing-dev"
if [ "$what" = unit ] || [ "$what" = test ]; then
	pkgs="$pkgs libcmocka-dev"
	# tests/unit/test_pattern.c measures --data with zstd and zlib.
	pkgs="$pkgs libzstd-dev zlib1g-dev"
fi
if [ "$what" = test ]; then
	pkgs="$pkgs bonnie++ e2fsprogs xfsprogs btrfs-progs util-linux procps python3 chromium qemu-system-x86 busybox-static mtd-utils kmod reiserfsprogs"
	# A filesystem without sparse files for the null engine (t9015): mkfs.vfat.
	pkgs="$pkgs dosfstools"
	# Other tools' results made in the test and read by compare (t5200-import.sh).
	pkgs="$pkgs fio"
	# The man page's test (t0100-help-man.sh): groff -ww, man -l, col.
	pkgs="$pkgs groff-base man-db bsdextrautils"
	# The format check (t0050-format.sh).
	pkgs="$pkgs clang-format"
	# The Debian package's test (t9500-deb.sh): dpkg-buildpackage and
	# readelf (dpkg-dev, binutils), dh (debhelper), lintian.
	pkgs="$pkgs dpkg-dev binutils debhelper lintian"
fi
if [ "$what" = test ] || [ "$what" = mpi ] || [ "$what" = bench ]; then
	# fsbench-mpi (make mpi) and its tests (t1600-mpi.sh): mpicc, mpirun.
	pkgs="$pkgs libopenmpi-dev openmpi-bin"
fi
if [ "$what" = test ] || [ "$what" = fuzz ]; then
	# The fuzz harnesses (tests/fuzz): clang, and libFuzzer's runtime, which
	# Debian 12's clang only recommends.
	pkgs="$pkgs clang libclang-rt-14-dev"
	# Fault injection (tests/cli/t9100-faults.sh) and memcheck (t9200).
	pkgs="$pkgs libfiu-dev fiu-utils valgrind"
fi
if [ "$what" = bench ]; then
	# and what the scripts themselves call (bench/*.sh: GNU time, jq, bc, python3).
	pkgs="$pkgs bonnie++ fio fsmark xfsprogs e2fsprogs util-linux time jq bc python3"
fi
if [ "$what" = guest ]; then
	# Only what fetching the kernel takes (apt-get download and dpkg -x
	# come with apt and dpkg); booting it needs the test list's qemu and
	# busybox as well.
	pkgs="kmod"
fi

# apt's lists: a fresh container has none, so apt-cache knows no
# linux-image-amd64 and apt-get cannot install anything before an update.
lists_ok=1
if [ "$what" = guest ] && ! apt-cache show linux-image-amd64 >/dev/null 2>&1; then
	lists_ok=0
fi
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && [ "$lists_ok" -eq 1 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
	if command -v sudo >/dev/null 2>&1; then
		SUDO=sudo
	else
		if [ -n "$missing" ]; then
			echo "fsbench: missing packages:$missing (run: apt-get update && apt-get install$missing as root)" >&2
		else
			echo "fsbench: apt's lists do not know linux-image-amd64 (run: apt-get update as root)" >&2
		fi
		exit 1
	fi
else
	SUDO=
fi
export DEBIAN_FRONTEND=noninteractive
if [ -n "$missing" ]; then
	echo "fsbench: installing$missing" >&2
	$SUDO apt-get update -qq >&2 || true
	# shellcheck disable=SC2086
	$SUDO apt-get install -y -qq --no-install-recommends $missing >&2
elif [ "$lists_ok" -eq 0 ]; then
	echo "fsbench: updating apt's lists (linux-image-amd64 unknown)" >&2
	$SUDO apt-get update -qq >&2
fi
