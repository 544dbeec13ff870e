#!/usr/bin/env bash
# Install (as root on Debian) or name the packages a stage needs.
#   deps.sh kernel|vm|userspace|bench|deb|all
set -euo pipefail
. "$(dirname "$0")/common.sh"
# man-db, groff-base: make check's host stage renders the man pages with
# man --warnings (tests/harness/treecheck man).
HOST_CHECK_PACKAGES=(man-db groff-base)
# make deb (scripts/mkdeb.sh): dpkg-buildpackage, debhelper and lintian,
# then the packages' Build-Depends as debian/control lists them (not
# part of all: make check needs none of them).
DEB_PACKAGES=(dpkg-dev debhelper lintian)

# need_build_deps: debian/control's Build-Depends, installed with apt-get
# build-dep (root on Debian) or named, as need_packages does.
need_build_deps() {
	(cd "$TOP" && dpkg-checkbuilddeps) 2>/dev/null && return 0
	if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
		note "installing the Build-Depends of debian/control"
		mkdir -p "$CACHE"
		(
			flock 9
			DEBIAN_FRONTEND=noninteractive apt-get build-dep -y -q --no-install-recommends "$TOP" >&2 ||
				{ apt-get update -q >&2 &&
				  DEBIAN_FRONTEND=noninteractive apt-get build-dep -y -q --no-install-recommends "$TOP" >&2; }
		) 9>"$CACHE/apt.lock" || die "apt-get build-dep $TOP failed"
	else
		echo "missing build dependencies; run as root:" >&2
		echo "  apt-get build-dep $TOP" >&2
		exit 1
	fi
}

case ${1:-all} in
kernel) need_packages "${KERNEL_BUILD_PACKAGES[@]}";;
vm) need_packages "${VM_PACKAGES[@]}";;
userspace) need_packages "${USERSPACE_PACKAGES[@]}" "${HOST_CHECK_PACKAGES[@]}";;
bench) need_packages "${BENCH_PACKAGES[@]}";;
deb) need_packages "${DEB_PACKAGES[@]}"; need_build_deps;;
all) need_packages "${KERNEL_BUILD_PACKAGES[@]}" "${VM_PACKAGES[@]}" "${USERSPACE_PACKAGES[@]}" "${HOST_CHECK_PACKAGES[@]}" "${BENCH_PACKAGES[@]}";;
*) die "usage: deps.sh kernel|vm|userspace|bench|deb|all";;
esac
