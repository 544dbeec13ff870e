#!/usr/bin/env bash
# Install (as root on Debian) or name the packages a stage needs.
#   deps.sh kernel|vm|userspace|bench|all
set -euo pipefail
. "$(dirname "$0")/common.sh"
# man-db, groff-base: make check's host stage renders the man pages with
# man --warnings (tests/harness/treecheck man).
HOST_CHECK_PACKAGES=(man-db groff-base)
case ${1:-all} in
kernel) need_packages "${KERNEL_BUILD_PACKAGES[@]}";;
vm) need_packages "${VM_PACKAGES[@]}";;
userspace) need_packages "${USERSPACE_PACKAGES[@]}" "${HOST_CHECK_PACKAGES[@]}";;
bench) need_packages "${BENCH_PACKAGES[@]}";;
all) need_packages "${KERNEL_BUILD_PACKAGES[@]}" "${VM_PACKAGES[@]}" "${USERSPACE_PACKAGES[@]}" "${HOST_CHECK_PACKAGES[@]}" "${BENCH_PACKAGES[@]}";;
*) die "usage: deps.sh kernel|vm|userspace|bench|all";;
esac
