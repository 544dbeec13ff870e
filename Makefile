# dlsched: deadline CPU bandwidth management, kernel to shell.
#
#   make run            boot the guest with dld and the demo, interactively
#                       (DEMO=containers: and a podman container beside it)
#   make check          host tests, guest tests (cgroup v2 and v1 boots), the
#                       demo, a scripted make run session and make bench's
#                       QUICK smoke
#   make demo           the demo scenario, non-interactive, checked
#   make check-debug    kernel tests on the lockdep/KASAN kernel (slow)
#   make stress         the randomized stress on the debug kernel, 10 min per
#                       hierarchy (STRESS_SECONDS=)
#   make bench          patched against stock, guarantees, dld's latency and
#                       footprint, scale: build/bench/report.md (QUICK=1: short)
#   make deb            the Debian packages into build/deb/, lintian-checked
#
# See README.md for the rest, HACKING.md for how the pieces fit.

TOP := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
BUILD ?= $(TOP)/build
KERNEL_VARIANT ?= normal
# One id per top-level make: every stage it runs (TIMED, dlcheck's) goes
# into build/logs/timings.json under it.
ifndef DLSCHED_RUN_ID
DLSCHED_RUN_ID := $(shell date +%s.%N)
endif
TIMED := tests/harness/timings.py run
export TOP BUILD KERNEL_VARIANT DLSCHED_RUN_ID

# Userspace sub-projects (each with its own Makefile, see HACKING.md).
SUBDIRS := $(patsubst %/Makefile,%,$(wildcard libdld/Makefile dld/Makefile oci-hook/Makefile dlconf/Makefile tests/guest/Makefile bench/Makefile))
SUBMAKE = $(MAKE) -C $(1) O=$(BUILD)/$(1) HEADERS=$(BUILD)/headers/include KTREE=$(BUILD)/linux

.PHONY: all deps kernel headers kernel-config kernel-tree kernel-export kernel-checkpatch kernel-check-builds \
	userspace deb deb-check-reproducible rootfs kernel-and-rootfs image check check-full check-host check-guest check-debug check-mutants check-fixes stress bench run demo check-run clean \
	distclean

all: kernel userspace

deps:
	@scripts/deps.sh all

kernel:
	@$(TIMED) kernel -- kernel/scripts/build.sh kernel

headers:
	@$(TIMED) headers -- kernel/scripts/build.sh headers

kernel-config:
	@kernel/scripts/build.sh config

kernel-tree:
	@kernel/scripts/tree.sh import

kernel-export:
	@kernel/scripts/tree.sh export

kernel-checkpatch:
	@kernel/scripts/tree.sh check

# Every patch of the series builds on its own (slow: one build per patch).
# FROM=N starts at patch N, after a full run.
kernel-check-builds:
	@kernel/scripts/tree.sh check-builds $(FROM)

userspace: headers
	@scripts/deps.sh userspace
	@$(TIMED) userspace -- sh -c 'set -e; for d in $(SUBDIRS); do $(call SUBMAKE,$$d) all; done'

# The Debian packages (debian/, docs/packaging.md): dlsched, dlsched-oci-hook
# and dlsched-tests, built by dpkg-buildpackage from a copy of the tree
# (scripts/mkdeb.sh) into build/deb/, then lintian (an error or a warning
# fails). The guest tests in dlsched-tests build against the patched uapi
# headers, hence make headers.
deb: headers
	@scripts/deps.sh deb
	@$(TIMED) deb -- scripts/mkdeb.sh build $(BUILD)/deb

# Two builds of the same tree at two paths (build/deb-repro/a and b), with
# SOURCE_DATE_EPOCH from the commit: every .deb byte for byte the same.
deb-check-reproducible: headers
	@scripts/deps.sh deb
	@$(TIMED) deb-check-reproducible -- scripts/mkdeb.sh reproducible $(BUILD)/deb-repro

rootfs:
	@$(TIMED) rootfs -- vm/mkrootfs.sh

# Cold, the image's two slow inputs overlap: the kernel build is CPU-bound,
# debootstrap mostly waits on downloads and disk.
kernel-and-rootfs:
	@$(MAKE) --no-print-directory -j2 kernel rootfs

image: kernel-and-rootfs userspace
	@$(TIMED) image -- vm/mkimage.sh

# The last stage is make bench's QUICK smoke (bench/run.py --smoke, about
# 3 min): in make check's own image, the stock kernel if build/stock has
# it, else the patched one in its place; it checks that the bench runs,
# not its figures.
# make check is the gate (CI runs it); make check-full runs every guest
# test on both hierarchies at full length (docs/testing.md, "Tiers").
check: image
	@scripts/deps.sh bench
	@TIER=gate tests/harness/dlcheck all

check-full: image
	@scripts/deps.sh bench
	@TIER=full tests/harness/dlcheck all

check-host: userspace
	@tests/harness/dlcheck host

# TESTS='1*' runs a subset of the guest tests; CGROUPS='v2' one hierarchy;
# TIER=full the full tier's tests and lengths.
check-guest: image
	@tests/harness/dlcheck guest

# The pipeline and bandwidth tests on the debug kernel (lockdep, KASAN; a
# splat fails the run). Slow, so not part of make check. TESTS= to widen.
check-debug:
	@$(MAKE) --no-print-directory check-guest KERNEL_VARIANT=debug \
		TESTS='$(or $(TESTS),0* 1*)' BOOT_TIMEOUT=$(or $(BOOT_TIMEOUT),600)

# The randomized stress (guest test 29, tests/guest/helpers/dlstress.c) on
# the debug kernel, a boot per hierarchy, STRESS_SECONDS (600) each: an
# unexpected errno, a splat or leaked bandwidth fails it. STRESS_ARGS adds
# dlstress options (comma-joined). make check runs it for 60 s on the
# normal kernel, in its cgroup v2 boot.
stress:
	@$(MAKE) --no-print-directory image KERNEL_VARIANT=debug
	@KERNEL_VARIANT=debug STRESS_SECONDS='$(STRESS_SECONDS)' STRESS_ARGS='$(STRESS_ARGS)' \
		BOOT_TIMEOUT=$(or $(BOOT_TIMEOUT),600) tests/harness/dlcheck stress

# The mainline fixes on the current LTS: Debian's linux-source-6.12 built
# stock and with kernel/fixes-6.12 (normal and debug variants), each booted
# with the reproducers of kernel/fixes-6.12/tests; a verdict per bug in
# build/logs/check-fixes.md. FIXES_VARIANTS=normal leaves the debug kernels
# out. Not part of make check (kernel/fixes-6.12/README.md gives its time).
check-fixes: image
	@tests/harness/dlcheck fixes

# Can every kernel test fail? Tests 0* 1* 24* 28* 30* 4* on the stock kernel (the same
# tree without the series, build/stock) and on each kernel/mutants/*.patch
# applied over the series; report in build/mutants/report.md. Slow (about
# 45 min), not part of make check. MUTANTS='a b' runs a subset.
check-mutants:
	@scripts/deps.sh userspace
	@tests/harness/mutants all

# What the series costs and what it guarantees (bench/README.md): the
# patched and the stock kernel (build/stock, built if missing) booted
# alternately, 3 rounds, one vCPU per host CPU; dld's latency and
# footprint; the scale of policy validation. build/bench/report.md,
# results.json and PNG plots. About 30 min; QUICK=1 runs every part briefly
# in one round (a few minutes; make check runs it as a smoke).
# FOOT_CYCLES=N: part 4's start/stop cycles of 20 services (20; about 7 s
# each under TCG, so 1000 take about 2 hours).
bench: kernel userspace
	@scripts/deps.sh bench
	@QUICK='$(QUICK)' FOOT_CYCLES='$(FOOT_CYCLES)' bench/run.py

# DEMO=containers: the demo runs a podman container beside its services
# (dlsched.demo=containers, vm/guest/dlsched-demo-setup).
run: image
	@BOOT_ARGS="$(strip $(BOOT_ARGS) $(if $(DEMO),dlsched.demo=$(DEMO)))" vm/boot.sh run

demo: image
	@tests/harness/dlcheck demo

# make run, scripted (part of make check): the console shows the demo,
# takes a typed command, and poweroff ends the session.
check-run: image
	@tests/harness/dlcheck run

clean:
	rm -rf $(BUILD)/dld $(BUILD)/dlconf $(BUILD)/tests $(BUILD)/rootfs $(BUILD)/guest.img $(BUILD)/logs

distclean:
	rm -rf $(BUILD)
