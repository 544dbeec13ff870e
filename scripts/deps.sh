#!/usr/bin/env bash
# Install (as root on Debian) or name the packages a stage needs.
#   deps.sh kernel|vm|userspace|bench|all
set -euo pipefail
. "$(dirname "$0")/common.sh"
case ${1:-all} in
kernel) need_packages "${KERNEL_BUILD_PACKAGES[@]}";;
vm) need_packages "${VM_PACKAGES[@]}";;
userspace) need_packages "${USERSPACE_PACKAGES[@]}";;
bench) need_packages "${BENCH_PACKAGES[@]}";;
all) need_packages "${KERNEL_BUILD_PACKAGES[@]}" "${VM_PACKAGES[@]}" "${USERSPACE_PACKAGES[@]}" "${BENCH_PACKAGES[@]}";;
*) die "usage: deps.sh kernel|vm|userspace|bench|all";;
esac
