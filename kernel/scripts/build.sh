#!/usr/bin/env bash
# Build the dlsched guest kernel: pristine linux-source-6.1 + kernel/series,
# configured from allnoconfig + kernel/config/base.config + guest.config
# (+ debug.config): only what the guest uses, each option with its reason.
#
#   build.sh [kernel|vmlinux|headers|config|source|base]     (default: kernel)
#   build.sh check-config FILE   does FILE satisfy the fragments?
#
# base: the pristine tree only; source: with the series applied; vmlinux:
# vmlinux only (for tree.sh check-builds).
#
# Environment: KERNEL_VARIANT=normal|debug, BUILD, DLSCHED_CACHE, JOBS.
# For a second tree next to the main one (tree.sh check-builds):
# KERNEL_SRC / KERNEL_OBJ (default build/linux, build/kobj-<variant>) and
# SERIES_UPTO=N, apply only the first N patches of the series (0: the
# pristine base, the stock kernel). KERNEL_EXTRA_PATCHES: patch files applied
# after the series (make check-mutants: one deliberate bug, kernel/mutants/).
# KERNEL_NAME: the image is build/bzImage-<name>, its release
# build/kernel.release-<name> (default: the variant), so a second tree does
# not overwrite the main kernel.
# Another kernel and series (make check-fixes: stock 6.12 and its fixes):
# KERNEL_TARBALL and KERNEL_PACKAGE (the Debian package that ships it),
# KERNEL_BASE_SRC (its pristine tree, default build/linux), KERNEL_OBJ_PREFIX
# (what a new base of it clears, default build/kobj-), KERNEL_SERIES_DIR
# (series, patches/; default kernel/) and KERNEL_FRAGMENTS (config
# fragments instead of base.config and guest.config; debug.config is added
# for the debug variant either way).
#
# The patched source is a git work tree (build/linux). Applying a changed
# series computes the new tree in a scratch index and checks it out over the
# old one, so only files whose content changed get a new mtime and only what
# they feed is recompiled. Objects go to build/kobj-<variant>; ccache keeps
# its cache outside the clone, so a fresh clone rebuilds from cache.
set -euo pipefail
. "$(dirname "$0")/../../scripts/common.sh"

VARIANT=${KERNEL_VARIANT:-normal}
case $VARIANT in normal|debug) ;; *) die "KERNEL_VARIANT must be normal or debug, not '$VARIANT'";; esac
MAIN_SRC=${KERNEL_BASE_SRC:-$BUILD/linux}
SRC=${KERNEL_SRC:-$MAIN_SRC}
KERNEL_PACKAGE=${KERNEL_PACKAGE:-linux-source-6.1}
OBJ_PREFIX=${KERNEL_OBJ_PREFIX:-$BUILD/kobj-}
OBJ=${KERNEL_OBJ:-$BUILD/kobj-$VARIANT}
SERIES_UPTO=${SERIES_UPTO:-}
EXTRA_PATCHES=${KERNEL_EXTRA_PATCHES:-}
NAME=${KERNEL_NAME:-$VARIANT}
[[ $NAME =~ ^[A-Za-z0-9][A-Za-z0-9_.-]*$ ]] || die "KERNEL_NAME must be a plain name, not '$NAME'"
SERIES_DIR=${KERNEL_SERIES_DIR:-$TOP/kernel}
JOBS=${JOBS:-$(nproc)}
# Our makes take their own -j: a parent make's jobserver (make -j2
# kernel-and-rootfs) does not reach this script, and its makes would warn.
unset MAKEFLAGS MFLAGS

export CCACHE_DIR=${CCACHE_DIR:-$CACHE/ccache}
export CCACHE_BASEDIR=$BUILD
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-5G}
export CCACHE_COMPILERCHECK=content
# Depend mode: a miss compiles once, and the manifest comes from the -MD
# file Kbuild writes anyway. The default mode preprocesses every miss a
# second time, which made a cold kernel build 18% slower here.
export CCACHE_DEPEND=1
# The prefix map only renames __FILE__ strings; leaving it out of the hash lets
# clones at other paths share the cache (base_dir handles the -I paths).
export CCACHE_IGNOREOPTIONS='-fmacro-prefix-map=*'
KMAKE=(make -C "$SRC" O="$OBJ" -j"$JOBS" CC="ccache gcc" HOSTCC="ccache gcc"
       LOCALVERSION= KBUILD_BUILD_TIMESTAMP="Mon Jan  1 00:00:00 UTC 2024" KBUILD_BUILD_USER=dlsched
       KBUILD_BUILD_HOST=dlsched)

git_src() { git -C "$SRC" -c user.name=dlsched -c user.email=dlsched@localhost "$@"; }

# The tarball's identity: a new Debian upload means a new base.
tarball_id() { stat -c '%s-%Y' "$KERNEL_TARBALL"; }

ensure_base() {
	[ -r "$KERNEL_TARBALL" ] || need_packages "$KERNEL_PACKAGE"
	[ -r "$KERNEL_TARBALL" ] || die "$KERNEL_TARBALL not found"
	if [ -d "$SRC/.git" ] && [ "$(cat "$SRC/.dlsched-base" 2>/dev/null)" = "$(tarball_id)" ]; then
		return 0
	fi
	if [ "$SRC" != "$MAIN_SRC" ]; then
		clone_base
		return 0
	fi
	note "extracting $KERNEL_TARBALL"
	rm -rf "$SRC" "$SRC.tmp" "$OBJ_PREFIX"* "$SRC.index"
	mkdir -p "$SRC.tmp"
	tar -xJf "$KERNEL_TARBALL" -C "$SRC.tmp" --strip-components=1
	git -C "$SRC.tmp" init -q
	git -C "$SRC.tmp" config core.autocrlf false
	git -C "$SRC.tmp" config gc.auto 0
	git -C "$SRC.tmp" add -A -f
	git -C "$SRC.tmp" -c user.name=dlsched -c user.email=dlsched@localhost \
		commit -q -m "$KERNEL_PACKAGE $(make -s -C "$SRC.tmp" kernelversion 2>/dev/null)"
	git -C "$SRC.tmp" tag dlsched-base
	echo "# build outputs go to O=, never here" > "$SRC.tmp/.git/info/exclude"
	tarball_id > "$SRC.tmp/.dlsched-base"
	echo ".dlsched-base" >> "$SRC.tmp/.git/info/exclude"
	mv "$SRC.tmp" "$SRC"
}

# A second tree (KERNEL_SRC): a local clone of the main tree's base, which
# must exist (build.sh base); its objects are hard links, not shared.
clone_base() {
	[ -d "$MAIN_SRC/.git" ] && [ "$(cat "$MAIN_SRC/.dlsched-base" 2>/dev/null)" = "$(tarball_id)" ] ||
		die "$MAIN_SRC has no current base tree (build.sh base first)"
	note "cloning the base tree to $SRC"
	rm -rf "$SRC" "$SRC.tmp" "$OBJ"
	git clone -q --no-checkout "$MAIN_SRC" "$SRC.tmp"
	git -C "$SRC.tmp" config core.autocrlf false
	git -C "$SRC.tmp" config gc.auto 0
	git -C "$SRC.tmp" fetch -q "$MAIN_SRC" tag dlsched-base
	git -C "$SRC.tmp" checkout -q --detach dlsched-base
	cp "$MAIN_SRC/.git/info/exclude" "$SRC.tmp/.git/info/exclude"
	cp "$MAIN_SRC/.dlsched-base" "$SRC.tmp/.dlsched-base"
	mv "$SRC.tmp" "$SRC"
}

# The series' patches, or its first SERIES_UPTO.
series_patches() {
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$SERIES_DIR/series" |
		if [ -n "$SERIES_UPTO" ]; then head -n "$SERIES_UPTO"; else cat; fi
}

# Apply the series to the pristine base in a scratch index and check the
# result out over the work tree; unchanged files are left alone.
apply_series() {
	local idx=$SRC.index p tree head_tree commit
	rm -f "$idx"
	GIT_INDEX_FILE=$idx git_src read-tree dlsched-base
	while read -r p; do
		[ -f "$SERIES_DIR/patches/$p" ] || die "series names $p, but $SERIES_DIR/patches/$p does not exist"
		if ! GIT_INDEX_FILE=$idx git_src apply --cached --whitespace=nowarn "$SERIES_DIR/patches/$p"; then
			rm -f "$idx"
			die "patch does not apply: $SERIES_DIR/patches/$p"
		fi
	done < <(series_patches)
	for p in $EXTRA_PATCHES; do
		if ! GIT_INDEX_FILE=$idx git_src apply --cached --whitespace=nowarn "$p"; then
			rm -f "$idx"
			die "extra patch does not apply over the series: $p"
		fi
	done
	tree=$(GIT_INDEX_FILE=$idx git_src write-tree)
	rm -f "$idx"
	head_tree=$(git_src rev-parse 'HEAD^{tree}')
	if [ "$tree" != "$head_tree" ]; then
		commit=$(echo "dlsched series applied" | git_src commit-tree "$tree" -p dlsched-base)
		note "checking out the patched tree ($(series_patches | wc -l) patches)"
		git_src checkout -q -f --detach "$commit"
	fi
	# Anything edited by hand in build/linux is discarded: the series is the truth.
	git_src diff --quiet || git_src checkout -q -f HEAD -- .
}

fragments() {
	if [ -n "${KERNEL_FRAGMENTS:-}" ]; then
		printf '%s\n' $KERNEL_FRAGMENTS
	else
		echo "$TOP/kernel/config/base.config"
		echo "$TOP/kernel/config/guest.config"
	fi
	[ "$VARIANT" = debug ] && echo "$TOP/kernel/config/debug.config"
	return 0
}

# Every value the fragments ask for must be in the final .config ("is not
# set" is also satisfied by a symbol that does not exist): olddefconfig
# drops an option whose dependencies are missing without a word.
check_config() {
	awk -v cfg="$1" '
	# The fragments, a later one overriding an earlier one: want[sym] is
	# the line asked for, "" for "is not set".
	FILENAME != cfg {
		if (match($0, /^CONFIG_[A-Za-z0-9_]+=/))
			want[substr($0, 1, RLENGTH - 1)] = $0
		else if ($0 ~ /^# CONFIG_[A-Za-z0-9_]+ is not set$/)
			want[$2] = ""
		next
	}
	/^CONFIG_/ { have[substr($0, 1, index($0, "=") - 1)] = $0 }
	/^# CONFIG_[A-Za-z0-9_]+ is not set$/ { off[$2] = $0 }
	END {
		for (sym in want) {
			# (Testing "in" first: reading have[sym] would create it.)
			set = sym in have
			if (want[sym] == "" && set) {
				print "config: " sym " should be unset" > "/dev/stderr"
				bad = 1
			} else if (want[sym] != "" && (!set || have[sym] != want[sym])) {
				got = set ? have[sym] : (sym in off) ? off[sym] : "unset"
				print "config: requested \047" want[sym] "\047, got \047" got "\047" > "/dev/stderr"
				bad = 1
			}
		}
		exit bad
	}' $(fragments) "$1"
}

configure() {
	local gen=${KERNEL_OBJ:+$OBJ.kconfig} stamp
	gen=${gen:-$BUILD/kconfig-$VARIANT}
	# What the configuration depends on: the Kconfig files, the configs
	# directories and kconfig itself, not the C code (a mutant or a
	# one-line patch re-runs no allnoconfig), and how this function makes it.
	stamp=$( { git_src ls-tree -r HEAD | grep -E '/Kconfig[^/]*$|^[^	]*	Kconfig|/configs/|	scripts/kconfig/'
		   cat $(fragments); declare -f configure check_config; } | sha256sum | cut -c1-16)
	if [ -f "$OBJ/.config" ] && [ "$(cat "$OBJ/.dlsched-config" 2>/dev/null)" = "$stamp" ]; then
		return 0
	fi
	note "configuring ($VARIANT)"
	mkdir -p "$gen" "$OBJ"
	# allnoconfig starting from the fragments' values (KCONFIG_ALLCONFIG;
	# a later fragment overrides): every default is computed for the
	# configuration asked for, 64-bit from the start, and every option
	# nobody asked for is off. (allnoconfig first and the fragments merged
	# after left the options that exist only on 64-bit at their defaults.)
	cat $(fragments) > "$gen/fragments.config"
	make -s -C "$SRC" O="$gen" HOSTCC="ccache gcc" KCONFIG_ALLCONFIG="$gen/fragments.config" allnoconfig >/dev/null
	make -s -C "$SRC" O="$gen" HOSTCC="ccache gcc" olddefconfig >/dev/null
	# A part of the series may lack symbols the fragments ask for (the full
	# series is checked by every normal build).
	[ -n "$SERIES_UPTO" ] || check_config "$gen/.config" ||
		die "kernel config does not satisfy kernel/config fragments"
	# Only a changed config is copied, so an unchanged one triggers nothing.
	cmp -s "$gen/.config" "$OBJ/.config" || cp "$gen/.config" "$OBJ/.config"
	echo "$stamp" > "$OBJ/.dlsched-config"
}

prepare() {
	need_packages "${KERNEL_BUILD_PACKAGES[@]}"
	mkdir -p "$BUILD" "$CCACHE_DIR"
	ensure_base
	apply_series
}

cmd=${1:-kernel}
# check-config FILE: does FILE satisfy the fragments (no tree, no lock)?
if [ "$cmd" = check-config ]; then
	[ -r "${2:-}" ] || die "usage: build.sh check-config CONFIG-FILE"
	check_config "$2"
	exit
fi
mkdir -p "$CACHE" "$BUILD" "$(dirname "$SRC")"
# The work tree belongs to one build at a time.
exec {tree_lock}>"$(dirname "$SRC")/.$(basename "$SRC").lock"
flock "$tree_lock"
# One heavy job at a time per machine: parallel kernel builds and guest boots
# on two cores only slow each other down.
case $cmd in
kernel|vmlinux)
	exec {heavy_lock}>"$CACHE/heavy.lock"
	flock -n "$heavy_lock" ||
		{ note "waiting for another kernel build or guest run on this machine"; flock "$heavy_lock"; };;
esac
case $cmd in
base)
	need_packages "${KERNEL_BUILD_PACKAGES[@]}"
	ensure_base;;
source)
	prepare;;
config)
	prepare; configure;;
kernel)
	prepare; configure
	note "building bzImage ($VARIANT, -j$JOBS)"
	"${KMAKE[@]}" -s bzImage
	cp "$OBJ/arch/x86/boot/bzImage" "$BUILD/bzImage-$NAME.tmp"
	mv "$BUILD/bzImage-$NAME.tmp" "$BUILD/bzImage-$NAME"
	cp "$OBJ/include/config/kernel.release" "$BUILD/kernel.release-$NAME"
	note "kernel $(cat "$BUILD/kernel.release-$NAME") -> $BUILD/bzImage-$NAME";;
vmlinux)
	prepare; configure
	note "building vmlinux ($(series_patches | wc -l) patches, $VARIANT, -j$JOBS)"
	"${KMAKE[@]}" -s vmlinux;;
headers)
	prepare; configure
	"${KMAKE[@]}" -s headers_install INSTALL_HDR_PATH="$BUILD/headers"
	note "uapi headers -> build/headers/include";;
*)
	die "unknown command '$cmd'";;
esac
