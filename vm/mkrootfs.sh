#!/usr/bin/env bash
# Bootstrap the guest's base rootfs (Debian bookworm minbase + vm/packages)
# into the cache, keyed by the package list. Prints the tarball's path.
set -euo pipefail
. "$(dirname "$0")/../scripts/common.sh"

SUITE=bookworm
packages=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$TOP/vm/packages" | tr -s ' \n' ',' | sed 's/,$//')
key=$(printf '%s\n%s\n' "$SUITE" "$packages" | sha256sum | cut -c1-16)
base=$CACHE/rootfs/base-$SUITE-$key.tar

if [ -f "$base" ]; then
	echo "$base"
	exit 0
fi
[ "$(id -u)" -eq 0 ] || die "debootstrap needs root (the base rootfs is cached in $CACHE/rootfs afterwards)"
need_packages "${VM_PACKAGES[@]}"
mirror=$(python3 "$TOP/vm/aptmirror.py" --suite "$SUITE") ||
	die "cannot find a $SUITE mirror in this machine's apt sources"
tmp=$CACHE/rootfs/tmp-$key
rm -rf "$tmp"
mkdir -p "$tmp"
note "debootstrap $SUITE from $mirror ($packages)"
start=$SECONDS
if ! debootstrap --variant=minbase --include="$packages" "$SUITE" "$tmp" "$mirror" > "$CACHE/rootfs/debootstrap.log" 2>&1; then
	tail -n 20 "$CACHE/rootfs/debootstrap.log" >&2
	die "debootstrap failed (log: $CACHE/rootfs/debootstrap.log)"
fi
# Package caches and lists are not needed in the guest.
rm -rf "$tmp"/var/cache/apt/archives/*.deb "$tmp"/var/lib/apt/lists/*
tar -C "$tmp" --numeric-owner -cf "$base.tmp" .
mv "$base.tmp" "$base"
rm -rf "$tmp"
note "base rootfs in $((SECONDS - start)) s: $base"
echo "$base"
