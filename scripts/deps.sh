#!/bin/sh
# Install the Debian packages fsbench needs, only those missing.
#   scripts/deps.sh build   - to build and run fsbench
#   scripts/deps.sh test    - also what `make test` needs
# Non-root users get the apt-get command to run instead.
set -eu
what=${1:-build}
pkgs="pkg-config libmount-dev libblkid-dev libjson-c-dev libinih-dev"
if [ "$what" = test ]; then
	pkgs="$pkgs libcmocka-dev bonnie++ e2fsprogs xfsprogs btrfs-progs util-linux procps python3 chromium qemu-system-x86 busybox-static mtd-utils kmod reiserfsprogs"
	# The fuzz harnesses (tests/fuzz): clang, and libFuzzer's runtime, which
	# Debian 12's clang only recommends.
	pkgs="$pkgs clang libclang-rt-14-dev"
	# Fault injection (tests/cli/t9100-faults.sh) and memcheck (t9200).
	pkgs="$pkgs libfiu-dev fiu-utils valgrind"
fi
if [ "$what" = bench ]; then
	pkgs="$pkgs bonnie++ fio fsmark xfsprogs e2fsprogs util-linux"
fi
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
	if command -v sudo >/dev/null 2>&1; then
		SUDO=sudo
	else
		echo "fsbench: missing packages:$missing (run: apt-get install$missing as root)" >&2
		exit 1
	fi
else
	SUDO=
fi
echo "fsbench: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >&2 || true
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing >&2
