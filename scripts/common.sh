# Shared by the project's shell scripts: locations and prerequisite checks.
# shellcheck shell=bash

TOP=${TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
BUILD=${BUILD:-$TOP/build}
CACHE=${DLSCHED_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/dlsched}
KERNEL_TARBALL=${KERNEL_TARBALL:-/usr/src/linux-source-6.1.tar.xz}

die() { echo "error: $*" >&2; exit 1; }
note() { echo "==> $*" >&2; }

# need_packages PKG...: install what is missing (root on Debian) or print
# the exact apt-get line and stop.
need_packages() {
	local missing=() p
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
			missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
		note "installing ${missing[*]}"
		# One apt-get at a time: make kernel-and-rootfs installs for both
		# at once on a bare machine, and dpkg's lock would fail the second.
		mkdir -p "$CACHE"
		# Refresh the lists only when an install from the current ones fails.
		(
			flock 9
			DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >&2 ||
				{ apt-get update -q >&2 &&
				  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >&2; }
		) 9>"$CACHE/apt.lock" || die "apt-get install ${missing[*]} failed"
	else
		echo "missing packages; run as root:" >&2
		echo "  apt-get install ${missing[*]}" >&2
		exit 1
	fi
}

KERNEL_BUILD_PACKAGES=(linux-source-6.1 build-essential flex bison bc libelf-dev libssl-dev ccache cpio kmod git python3 rsync)
VM_PACKAGES=(qemu-system-x86 debootstrap e2fsprogs python3)
# gcc-multilib, libc6-dev-i386: the static i386 program of the 32-bit ABI
# test (tests/guest/helpers/abi32.c, built with the guest tests).
USERSPACE_PACKAGES=(build-essential pkg-config libjson-c-dev libsystemd-dev python3 gcc-multilib libc6-dev-i386)
# gnuplot-nox: make bench's plots (bench/report.py).
BENCH_PACKAGES=(gnuplot-nox)
