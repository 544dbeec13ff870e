#!/usr/bin/env bash
# Make build/guest.img: the cached base rootfs plus the project's programs,
# units, policies and tests, configured for the serial console, as an ext4
# image built with mke2fs -d (no loop mounts, no root needed beyond the
# base's debootstrap).
set -euo pipefail
. "$(dirname "$0")/../scripts/common.sh"

need_packages "${VM_PACKAGES[@]}"
base=$("$TOP/vm/mkrootfs.sh")
stage=$BUILD/rootfs
img=$BUILD/guest.img

rm -rf "$stage"
mkdir -p "$stage"
tar -C "$stage" --numeric-owner -xf "$base"

# The project's own files, each sub-project installing itself.
# bench/ installs make bench's guest programs and 95-bench.sh, which skips
# unless the kernel command line asks for the bench.
for dir in dld dlconf tests/guest bench; do
	[ -f "$TOP/$dir/Makefile" ] || continue
	make -s -C "$TOP/$dir" O="$BUILD/$dir" HEADERS="$BUILD/headers/include" \
		KTREE="$BUILD/linux" DESTDIR="$stage" install
done
# The journal catalogs the sub-projects installed (journalctl -x): indexed
# here, as the package's postinst would (same systemd as the guest's).
journalctl --root="$stage" --update-catalog
install -D -m 0755 "$TOP/vm/guest/dlsched-run-tests" "$stage/usr/lib/dlsched/run-tests"
install -D -m 0644 "$TOP/vm/guest/dlsched-tests.service" "$stage/etc/systemd/system/dlsched-tests.service"
install -D -m 0644 "$TOP/vm/guest/autologin.conf" "$stage/etc/systemd/system/serial-getty@ttyS0.service.d/autologin.conf"
ln -sf /etc/systemd/system/dlsched-tests.service "$stage/etc/systemd/system/multi-user.target.wants/dlsched-tests.service"
# Units a sub-project asks to have enabled in the guest (one per line).
if [ -f "$stage/usr/lib/dlsched/guest-enable" ]; then
	while read -r unit; do
		[ -n "$unit" ] || continue
		src=$(ls "$stage"/etc/systemd/system/"$unit" "$stage"/usr/lib/systemd/system/"$unit" 2>/dev/null | head -n 1 || true)
		[ -n "$src" ] || die "guest-enable names $unit, which is not installed"
		ln -sf "/${src#"$stage"/}" "$stage/etc/systemd/system/multi-user.target.wants/$unit"
	done < "$stage/usr/lib/dlsched/guest-enable"
fi

# Guest configuration: root without password on the serial console, a
# fixed identity, no network.
echo dlsched > "$stage/etc/hostname"
printf '127.0.0.1\tlocalhost\n127.0.1.1\tdlsched\n' > "$stage/etc/hosts"
echo '/dev/vda / ext4 defaults 0 0' > "$stage/etc/fstab"
sed -i 's/^root:[^:]*:/root::/' "$stage/etc/shadow"
python3 -c 'import uuid; print(uuid.uuid4().hex)' > "$stage/etc/machine-id"
# First-boot set-up would prompt on the console.
ln -sf /dev/null "$stage/etc/systemd/system/systemd-firstboot.service"

size_mb=$(( $(du -sm "$stage" | cut -f1) + 768 ))
rm -f "$img.tmp"
mke2fs -q -F -t ext4 -L dlsched -d "$stage" "$img.tmp" "${size_mb}M"
mv "$img.tmp" "$img"
note "guest image: $img (${size_mb} MiB)"
