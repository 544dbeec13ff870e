#!/usr/bin/env bash
# Boot the guest: build/bzImage-<variant> (or KERNEL_IMAGE) on build/guest.img.
#
#   boot.sh run                    interactive, root on the serial console
#                                  (Ctrl-a x quits)
#   boot.sh check LOG RESULTS      unattended: console to LOG, the tests'
#                                  results port to RESULTS; killed after
#                                  GUEST_TIMEOUT seconds (exit 124)
#
# Environment: BOOT_ARGS (appended to the kernel command line), TESTS (glob
# list of guest tests), VCPUS (a number, or "host": one per host CPU, at
# most 4; default 4 in check mode, "host" in run mode), GUEST_MEM (MiB, at
# least 512, default 2048), QEMU_ACCEL (tcg by default; kvm only when asked
# for: KVM guests hang on the machines this was written on), GUEST_TIMEOUT
# (seconds, default 1500), KERNEL_IMAGE (a bzImage to boot instead of
# build/bzImage-<variant>: make check-mutants boots the stock and mutant
# kernels this way), QEMU_MONITOR (check mode: a path for a QEMU monitor
# socket), QEMU_VCPU_FIFO (check mode: a priority 1-99; the vCPU threads
# run SCHED_FIFO at it on the host, so that the host cannot take them away
# for its other work, RT throttling permitting). A bad value stops it
# before anything runs.
set -euo pipefail
. "$(dirname "$0")/../scripts/common.sh"

mode=${1:-run}
case $mode in run|check) ;; *) die "usage: boot.sh run | boot.sh check LOG RESULTS";; esac
variant=${KERNEL_VARIANT:-normal}
mem=${GUEST_MEM:-2048}
guest_timeout=${GUEST_TIMEOUT:-1500}
[[ $mem =~ ^[1-9][0-9]*$ ]] && [ "$mem" -ge 512 ] ||
	die "GUEST_MEM must be a number of MiB, 512 or more, not '$mem'"
[[ $guest_timeout =~ ^[1-9][0-9]*$ ]] ||
	die "GUEST_TIMEOUT must be a number of seconds, not '$guest_timeout'"
kernel=${KERNEL_IMAGE:-$BUILD/bzImage-$variant}
img=$BUILD/guest.img
[ -f "$kernel" ] || die "$kernel missing (make kernel)"
[ -f "$img" ] || die "$img missing (make image)"
need_packages "${VM_PACKAGES[@]}"

accel=${QEMU_ACCEL:-tcg}
# tsc=reliable under TCG: the guest's TSC is the host's, synchronized, but
# the boot-time check sees warps between vCPU threads and marks it unstable.
# The scheduler clock then runs per CPU, lags CLOCK_MONOTONIC after a vCPU
# stall and catches up in jumps that are charged to the running task:
# deadline tasks were throttled early and sched_wait_interval() deadlines
# came up to 80 ms early (tests 40, 46). With it: no early throttling in 5
# runs of test 40, sched_wait_interval() wake-ups within 1 ms.
tsc_args=""
case $accel in
tcg) accel_args=(-accel tcg,thread=multi -cpu max); tsc_args=" tsc=reliable";;
kvm) accel_args=(-accel kvm -cpu host);;
*) die "QEMU_ACCEL must be tcg or kvm";;
esac

append="root=/dev/vda rw console=ttyS0,115200 panic=-1 dlsched.mode=$mode$tsc_args"
[ -n "${TESTS:-}" ] && append+=" dlsched.tests=$(echo "$TESTS" | tr ' ' ',')"
[ -n "${BOOT_ARGS:-}" ] && append+=" $BOOT_ARGS"

# The tests boot 4 vCPUs: admission control scales with the CPU count. The
# demo (make run, make demo) boots one per host CPU: under TCG each vCPU is
# a host thread, and with more of them than host CPUs the host preempts
# them for whole timeslices while guest time runs on; the guest charges
# that time to whatever task was running, so a deadline task loses runtime
# it never had and misses deadlines no scheduler could have kept.
host_cpus=$(nproc)
vcpus=${VCPUS:-$([ "$mode" = run ] && echo host || echo 4)}
[ "$vcpus" = host ] && vcpus=$(( host_cpus < 4 ? host_cpus : 4 ))
[[ $vcpus =~ ^[1-9][0-9]*$ ]] || die "VCPUS must be a number or \"host\", not '$vcpus'"
qemu=(qemu-system-x86_64 "${accel_args[@]}" -machine q35
      -smp "$vcpus" -m "$mem"
      -kernel "$kernel" -append "$append"
      -drive "file=$img,if=virtio,format=raw,snapshot=on"
      -device virtio-rng-pci -nic none -no-reboot)

# vcpu_fifo PRIO PARENT N: once QEMU (a child of PARENT, through timeout)
# has its N vCPU threads ("CPU k/TCG"), makes them SCHED_FIFO at PRIO.
vcpu_fifo() {
	local q t n=0 try
	for ((try = 0; try < 600 && n < $3; try++)); do
		sleep 0.1
		q=$(pgrep -f -n "^qemu-system-x86_64 .*-name dlsched" || true)
		[ -n "$q" ] || continue
		n=0
		for t in /proc/"$q"/task/*; do
			grep -q '^CPU [0-9]*/TCG$' "$t/comm" 2>/dev/null || continue
			chrt -f -p "$1" "${t##*/}" && n=$((n + 1))
		done
	done
	note "vCPU threads SCHED_FIFO $1: $n of $3"
}

case $mode in
run)
	echo "Booting ${KERNEL_IMAGE:-$(cat "$BUILD/kernel.release-$variant")} (Ctrl-a x quits; changes are discarded)" >&2
	exec "${qemu[@]}" -nographic -serial mon:stdio;;
check)
	log=${2:?console log path}
	results=${3:?results path}
	rm -f "$log" "$results"
	mkdir -p "$CACHE"
	exec {heavy_lock}>"$CACHE/heavy.lock"
	flock -n "$heavy_lock" ||
		{ note "waiting for another kernel build or guest run on this machine"; flock "$heavy_lock"; }
	# The results port is a file chardev: whatever the guest wrote before a
	# hang or a timeout is still there for the host to read.
	# QEMU_MONITOR=PATH: a monitor socket, to look into a hung guest
	# (e.g. "sendkey alt-sysrq-w": blocked tasks' stacks on the console).
	monitor=none
	[ -z "${QEMU_MONITOR:-}" ] || monitor="unix:$QEMU_MONITOR,server=on,wait=off"
	if [ -n "${QEMU_VCPU_FIFO:-}" ]; then
		[[ $QEMU_VCPU_FIFO =~ ^[1-9][0-9]?$ ]] || die "QEMU_VCPU_FIFO must be a priority 1-99, not '$QEMU_VCPU_FIFO'"
		qemu+=(-name dlsched,debug-threads=on)
		vcpu_fifo "$QEMU_VCPU_FIFO" "$$" "$vcpus" &
	fi
	timeout -k 10 "$guest_timeout" "${qemu[@]}" -display none -monitor "$monitor" \
		-serial "file:$log" \
		-device virtio-serial-pci \
		-chardev "file,id=results,path=$results" \
		-device virtserialport,chardev=results,name=dlsched.results;;
esac
