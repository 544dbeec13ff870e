#!/usr/bin/env bash
# The editing workflow for the series.
#   tree.sh import   build/kernel-tree: a git tree, one commit per patch (git am)
#   tree.sh export   write the tree's commits back to kernel/patches + series
#   tree.sh check    scripts/checkpatch.pl --strict over every patch
#   tree.sh check-builds [FIRST]
#                    every patch builds on its own: vmlinux of the base, then
#                    of each prefix of the series, incrementally in
#                    build/linux-series + build/kobj-series (normal config);
#                    TAP, not ok on a build error or a warning the base
#                    build did not have. Logs in build/logs/check-builds/.
#                    FIRST: start at that patch, after an earlier full run.
# KERNEL_TREE overrides the tree's location.
set -euo pipefail
. "$(dirname "$0")/../../scripts/common.sh"

TREE=${KERNEL_TREE:-$BUILD/kernel-tree}
SERIES_DIR=$TOP/kernel

series_patches() {
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$SERIES_DIR/series"
}

git_tree() { git -C "$TREE" "$@"; }

# build_prefix N LOG: vmlinux of the base plus the first N patches, in the
# check-builds tree (its own source and objects; the heavy lock per build).
build_prefix() {
	KERNEL_SRC=$BUILD/linux-series KERNEL_OBJ=$BUILD/kobj-series SERIES_UPTO=$1 \
		KERNEL_VARIANT=normal "$TOP/kernel/scripts/build.sh" vmlinux > "$2" 2>&1
}

# The warnings in a build log, without what moves when code moves (tree
# path, line and column, offsets), one of each.
build_warnings() {
	grep -i 'warning:' "$1" |
		sed -E -e "s#$BUILD/linux-series/##g" -e 's#(\.\./)+linux-series/##g' \
			-e 's#:[0-9]+(:[0-9]+)?:#:#g' -e 's#\+0x[0-9a-f]+(/0x[0-9a-f]+)?##g' |
		sort -u || true
}

cmd=${1:-}
case $cmd in
import)
	"$TOP/kernel/scripts/build.sh" source
	if [ -d "$TREE/.git" ]; then
		ahead=$(git_tree rev-list --count dlsched-base..HEAD 2>/dev/null || echo 0)
		if [ "${FORCE:-0}" != 1 ] && [ -n "$(git_tree status --porcelain --untracked-files=no)" ]; then
			die "$TREE has uncommitted changes; commit and export them, or FORCE=1"
		fi
		note "resetting $TREE (had $ahead commits) to the series"
	else
		note "cloning $BUILD/linux to $TREE"
		git clone -q --shared --no-checkout "$BUILD/linux" "$TREE"
		git_tree config gc.auto 0
	fi
	git_tree fetch -q "$BUILD/linux" tag dlsched-base
	git_tree checkout -q -f -B dlsched dlsched-base
	while read -r p; do
		git_tree -c user.name="${GIT_AUTHOR_NAME:-dlsched}" -c user.email="${GIT_AUTHOR_EMAIL:-dlsched@localhost}" \
			am -q --keep-cr "$SERIES_DIR/patches/$p" ||
			{ git_tree am --abort; die "patch does not apply: kernel/patches/$p"; }
	done < <(series_patches)
	note "$TREE: branch dlsched, $(git_tree rev-list --count dlsched-base..HEAD) commits on dlsched-base"
	note "edit, commit (git commit --fixup / rebase -i), then: make kernel-export";;
export)
	[ -d "$TREE/.git" ] || die "no kernel tree at $TREE (make kernel-tree)"
	[ -z "$(git_tree status --porcelain --untracked-files=no)" ] || die "$TREE has uncommitted changes"
	tmp=$(mktemp -d)
	git_tree format-patch -q --zero-commit --no-signature --no-numbered -o "$tmp" dlsched-base..HEAD
	rm -f "$SERIES_DIR"/patches/*.patch
	mkdir -p "$SERIES_DIR/patches"
	{
		sed -n '1,/^$/p' "$SERIES_DIR/series" | grep '^#' || true
		for f in "$tmp"/*.patch; do
			[ -e "$f" ] || continue
			cp "$f" "$SERIES_DIR/patches/"
			basename "$f"
		done
	} > "$SERIES_DIR/series.new"
	mv "$SERIES_DIR/series.new" "$SERIES_DIR/series"
	rm -rf "$tmp"
	note "exported $(series_patches | wc -l) patches to kernel/patches";;
check)
	"$TOP/kernel/scripts/build.sh" base
	rc=0
	n=$(series_patches | wc -l)
	echo "TAP version 13"
	if [ "$n" -eq 0 ]; then
		echo "1..0 # SKIP the series is empty"
		exit 0
	fi
	echo "1..$n"
	# The base tree has no history to look a Fixes: id up in; the ids
	# were checked against mainline (kernel/fixes-6.12/README.md).
	while read -r p; do
		if out=$(cd "$BUILD/linux" && scripts/checkpatch.pl --strict --quiet --ignore UNKNOWN_COMMIT_ID \
			"$SERIES_DIR/patches/$p" 2>&1); then
			echo "ok - checkpatch --strict $p"
		else
			echo "not ok - checkpatch --strict $p"
			echo "$out" | sed 's/^/# /'
			rc=1
		fi
	done < <(series_patches)
	exit $rc;;
check-builds)
	first=${2:-1}
	[[ $first =~ ^[1-9][0-9]*$ ]] || die "check-builds [FIRST]: FIRST is a patch number, not '$first'"
	"$TOP/kernel/scripts/build.sh" base
	logs=$BUILD/logs/check-builds
	n=$(series_patches | wc -l)
	echo "TAP version 13"
	echo "1..$n"
	# From patch 1 the base is built for its warnings; a later start
	# reuses them (the earlier patches are taken as checked).
	if [ "$first" -eq 1 ] || [ ! -f "$logs/base.warnings" ]; then
		rm -rf "$logs"
		mkdir -p "$logs"
		if ! build_prefix 0 "$logs/0000-base.log"; then
			echo "Bail out! the base tree does not build: $logs/0000-base.log"
			exit 1
		fi
		build_warnings "$logs/0000-base.log" > "$logs/base.warnings"
	fi
	echo "# base: $(wc -l < "$logs/base.warnings") warnings ($logs/base.warnings)"
	rc=0 i=0
	while read -r p; do
		i=$((i + 1))
		log=$logs/${p%.patch}.log
		if [ "$i" -lt "$first" ]; then
			echo "ok $i - $p builds # SKIP starting at patch $first"
			continue
		fi
		# Let a queued guest run or build take the machine between two builds.
		sleep 2
		start=$SECONDS
		if ! build_prefix "$i" "$log"; then
			echo "not ok $i - $p builds"
			grep -v '^==>' "$log" | tail -n 30 | sed 's/^/# /'
			rc=1
		elif new=$(build_warnings "$log" | grep -vxF -f "$logs/base.warnings"); then
			echo "not ok $i - $p builds (new warnings)"
			echo "$new" | sed 's/^/# /'
			rc=1
		else
			echo "ok $i - $p builds ($((SECONDS - start)) s with waits for the machine)"
		fi
	done < <(series_patches)
	exit $rc;;
*)
	die "usage: tree.sh import|export|check|check-builds [FIRST]";;
esac
