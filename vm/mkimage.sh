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

# Containers (units/CONTAINERS.md, test 68): podman's configuration (no
# network, no registry, overlay storage), and dld's own image for "dld in
# a container": dld and the shared libraries it loads, taken from the
# guest's own Debian packages in the stage, as a tarball the guest imports
# (podman import, no registry). About 3 MB.
install -D -m 0644 -t "$stage/etc/containers" "$TOP"/vm/guest/containers/{containers,storage,registries}.conf
dld_root=$BUILD/dld-image
rm -rf "$dld_root"
mkdir -p "$dld_root"/{etc/dld/policies.d,run/dld,tmp,usr/sbin}
cp "$stage/usr/sbin/dld" "$dld_root/usr/sbin/dld"
# ldd names the host's paths; the stage is the same Debian release, and its
# files are the ones copied (the dynamic loader's line has no "=>").
for lib in $(ldd "$stage/usr/sbin/dld" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'); do
	[ -e "$stage$lib" ] || die "dld's image: $lib is not in the guest's root"
	mkdir -p "$dld_root$(dirname "$lib")"
	cp -L "$stage$lib" "$dld_root$lib"
done
# Debian's merged /usr: /lib and /lib64 are links into /usr.
for d in lib lib64; do
	if [ -d "$dld_root/$d" ]; then
		mkdir -p "$dld_root/usr/$d"
		cp -a "$dld_root/$d/." "$dld_root/usr/$d/"
		rm -rf "${dld_root:?}/$d"
		ln -s "usr/$d" "$dld_root/$d"
	fi
done
printf 'root:x:0:0:root:/:/usr/sbin/dld\n' > "$dld_root/etc/passwd"
printf 'root:x:0:\n' > "$dld_root/etc/group"
printf 'ID=dlsched-dld\nNAME="dld, the deadline bandwidth daemon"\n' > "$dld_root/etc/os-release"
install -d "$stage/usr/lib/dlsched/containers"
tar -C "$dld_root" --owner=0 --group=0 --numeric-owner --sort=name -cf "$stage/usr/lib/dlsched/containers/dld-image.tar" .

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
