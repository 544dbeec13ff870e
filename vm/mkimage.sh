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
for dir in dld oci-hook dlconf tests/guest bench kernel/fixes-6.12/tests; do
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

# Containers (units/CONTAINERS.md, tests 68 and 69, make run DEMO=containers):
# podman's configuration (no network, no registry, overlay storage), and
# two images as tarballs the guest imports (podman import, no registry),
# each a program and the shared libraries ldd names, taken from the
# guest's own Debian packages in the stage: dld's (dld in a container,
# 6 MB) and the demo worker's (a containerised media worker, 2 MB).
install -D -m 0644 -t "$stage/etc/containers" "$TOP"/vm/guest/containers/{containers,storage,registries}.conf
# The podman package enables its API service and socket, the restart of
# containers and the auto-update (a registry query) at boot: none of them
# is wanted in a test guest, where they ran in the background of every test.
rm -f "$stage"/etc/systemd/system/default.target.wants/podman{,-auto-update,-restart}.service \
	"$stage"/etc/systemd/system/sockets.target.wants/podman.socket \
	"$stage"/etc/systemd/system/timers.target.wants/podman-auto-update.timer
install -d "$stage/usr/lib/dlsched/containers"
# image_tar NAME PROGRAM (a path in the stage): $stage/usr/lib/dlsched/containers/NAME.tar
image_tar() {
	local name=$1 prog=$2 root=$BUILD/images/$1 lib d
	rm -rf "$root"
	mkdir -p "$root"/{etc,run,tmp}
	install -D -m 0755 "$stage$prog" "$root$prog"
	# ldd names the host's paths; the stage is the same Debian release,
	# and its files are the ones copied (the loader's line has no "=>").
	for lib in $(ldd "$stage$prog" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'); do
		[ -e "$stage$lib" ] || die "image $name: $lib is not in the guest's root"
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$stage$lib" "$root$lib"
	done
	# Debian's merged /usr: /lib and /lib64 are links into /usr.
	for d in lib lib64; do
		if [ -d "$root/$d" ]; then
			mkdir -p "$root/usr/$d"
			cp -a "$root/$d/." "$root/usr/$d/"
			rm -rf "${root:?}/$d"
			ln -s "usr/$d" "$root/$d"
		fi
	done
	printf 'root:x:0:0:root:/:%s\n' "$prog" > "$root/etc/passwd"
	printf 'root:x:0:\n' > "$root/etc/group"
	printf 'ID=dlsched-%s\nNAME="dlsched %s"\n' "$name" "$name" > "$root/etc/os-release"
	tar -C "$root" --owner=0 --group=0 --numeric-owner --sort=name --mtime=@0 \
		-cf "$stage/usr/lib/dlsched/containers/$name.tar" .
}
image_tar dld /usr/sbin/dld
image_tar demo-worker /usr/lib/dlsched/demo/dlsched-demo-worker

# Guest configuration: root without password on the serial console, a
# fixed identity, no network.
echo dlsched > "$stage/etc/hostname"
printf '127.0.0.1\tlocalhost\n127.0.1.1\tdlsched\n' > "$stage/etc/hosts"
echo '/dev/vda / ext4 defaults 0 0' > "$stage/etc/fstab"
sed -i 's/^root:[^:]*:/root::/' "$stage/etc/shadow"
python3 -c 'import uuid; print(uuid.uuid4().hex)' > "$stage/etc/machine-id"
# First-boot set-up would prompt on the console.
ln -sf /dev/null "$stage/etc/systemd/system/systemd-firstboot.service"
# Every daemon-reload runs every generator, and the tests reload about 70
# times a boot: under TCG each of these costs 0.1-0.2 s and generates
# nothing here (no encrypted, verity, GPT-auto or hibernation disks, no
# rc.local, no SysV script without a native unit, no systemd.run= or
# systemd.mask= on the command line). Masked, a reload takes 1.3 s instead
# of 2.3. dlsched's own generator, fstab's and getty's (the console login)
# stay.
install -d "$stage/etc/systemd/system-generators"
for gen in cryptsetup debug gpt-auto hibernate-resume integritysetup rc-local run \
	system-update sysv veritysetup; do
	ln -sf /dev/null "$stage/etc/systemd/system-generators/systemd-$gen-generator"
done

size_mb=$(( $(du -sm "$stage" | cut -f1) + 768 ))
rm -f "$img.tmp"
mke2fs -q -F -t ext4 -L dlsched -d "$stage" "$img.tmp" "${size_mb}M"
mv "$img.tmp" "$img"
note "guest image: $img (${size_mb} MiB)"
