#!/usr/bin/env bash
# The editing workflow for the series.
#   tree.sh import   build/kernel-tree: a git tree, one commit per patch (git am)
#   tree.sh export   write the tree's commits back to kernel/patches + series
#   tree.sh check    scripts/checkpatch.pl --strict over every patch
# KERNEL_TREE overrides the tree's location.
set -euo pipefail
. "$(dirname "$0")/../../scripts/common.sh"

TREE=${KERNEL_TREE:-$BUILD/kernel-tree}
SERIES_DIR=$TOP/kernel

series_patches() {
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$SERIES_DIR/series"
}

git_tree() { git -C "$TREE" "$@"; }

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
	while read -r p; do
		if out=$(cd "$BUILD/linux" && scripts/checkpatch.pl --strict --quiet "$SERIES_DIR/patches/$p" 2>&1); then
			echo "ok - checkpatch --strict $p"
		else
			echo "not ok - checkpatch --strict $p"
			echo "$out" | sed 's/^/# /'
			rc=1
		fi
	done < <(series_patches)
	exit $rc;;
*)
	die "usage: tree.sh import|export|check";;
esac
