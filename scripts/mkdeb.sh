#!/usr/bin/env bash
# dlsched's Debian packages (debian/, docs/packaging.md), built from a copy
# of the work tree so that the tree stays as it is.
#
#   mkdeb.sh build [OUT]          dpkg-buildpackage -us -uc -b; the .debs, the
#                                 .buildinfo and the .changes into OUT
#                                 (build/deb), then lintian on the .changes:
#                                 an error or a warning fails
#   mkdeb.sh reproducible [OUT]   two builds at two paths (OUT/a, OUT/b;
#                                 build/deb-repro), their .debs compared
#                                 byte for byte
#   mkdeb.sh version              the packages' version
#
# The version is the programs' (DLD_VERSION in dld/types.h, which dlconf's
# DLCONF_VERSION must equal), +git, the commit's date (UTC) and its short
# hash: 0.1+git20261207.d010e74, with .dirty after it when the work tree
# has changes git does not ignore. SOURCE_DATE_EPOCH is the commit's date,
# and so is the changelog's. The copy holds the files git tracks or would
# track (ignored ones left out), with debian/changelog written anew.
#
# The guest tests (dlsched-tests) build against the patched kernel's uapi
# headers: make deb runs make headers first and hands build/ over
# (DLSCHED_KERNEL_BUILD, debian/kernel-inputs). Without build/headers,
# debian/rules makes them itself from linux-source-6.1, as in a chroot.
set -euo pipefail
. "$(dirname "$0")/common.sh"

MAINTAINER="dlsched maintainers <maintainers@users.noreply.a-seed-76569d49.example>"

git_top() { git -C "$TOP" "$@"; }

upstream_version() {
	local dld dlconf
	dld=$(sed -n 's/^#define DLD_VERSION "\(.*\)"$/\1/p' "$TOP/dld/types.h")
	dlconf=$(sed -n 's/^#define DLCONF_VERSION "\(.*\)"$/\1/p' "$TOP/dlconf/dlconf.c")
	[ -n "$dld" ] || die "no DLD_VERSION in dld/types.h"
	[ "$dld" = "$dlconf" ] || die "dld says version $dld, dlconf $dlconf"
	echo "$dld"
}

commit_epoch() { git_top log -1 --format=%ct; }

version() {
	local v
	v="$(upstream_version)+git$(date -u -d "@$(commit_epoch)" +%Y%m%d).$(git_top rev-parse --short=7 HEAD)"
	[ -z "$(git_top status --porcelain --untracked-files=normal)" ] || v=$v.dirty
	echo "$v"
}

# copy_tree DIR: the files git tracks or would track, as they are in the work tree.
copy_tree() {
	local dir=$1
	rm -rf "$dir"
	mkdir -p "$dir"
	(cd "$TOP" && git ls-files -z --cached --others --exclude-standard |
		while IFS= read -r -d '' f; do
			# A tracked file deleted in the work tree is left out.
			if [ -e "$f" ] || [ -L "$f" ]; then printf '%s\0' "$f"; fi
		done | tar --null --no-recursion -T - -cf -) | tar -C "$dir" -xf -
}

write_changelog() {
	local dir=$1 ver=$2 what
	what="Build of commit $(git_top log -1 --format='%h (%cs)')"
	[ "${ver%.dirty}" = "$ver" ] || what="$what,
    with the work tree's uncommitted changes"
	{
		echo "dlsched ($ver) unstable; urgency=medium"
		echo
		echo "  * $what."
		echo
		echo " -- $MAINTAINER  $(LC_ALL=C date -u -R -d "@$(commit_epoch)")"
	} > "$dir/debian/changelog"
}

# build_into OUT TREE VERSION: one build of a copy of TREE (made by
# copy_tree), its results in OUT, its log in OUT.log.
build_into() {
	local out=$1 tree=$2 ver=$3 work src log start kernel=()
	work=$out.work
	src=$work/dlsched-$ver
	log=$out.log
	rm -rf "$out" "$work"
	mkdir -p "$out" "$work"
	cp -a "$tree" "$src"
	write_changelog "$src" "$ver"
	start=$SECONDS
	note "dpkg-buildpackage dlsched $ver in $src (log: $log)"
	# The project's uapi headers, if make headers made them.
	[ ! -f "$BUILD/headers/include/linux/sched.h" ] || kernel=(DLSCHED_KERNEL_BUILD="$BUILD")
	# Nothing from the caller's make or the project's variables: the
	# top-level Makefile exports TOP and BUILD, which the sub-projects
	# would take for the copy's.
	if ! (cd "$src" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u TOP -u BUILD -u KERNEL_VARIANT \
		-u O -u HEADERS -u KTREE -u CC -u CFLAGS -u CPPFLAGS -u LDFLAGS -u DLSCHED_KERNEL_BUILD "${kernel[@]}" \
		SOURCE_DATE_EPOCH="$(commit_epoch)" TZ=UTC LC_ALL=C.UTF-8 \
		dpkg-buildpackage -us -uc -b -Jauto) > "$log" 2>&1; then
		tail -n 40 "$log" >&2
		die "dpkg-buildpackage failed (the whole log: $log)"
	fi
	mv "$work"/*.deb "$work"/*.buildinfo "$work"/*.changes "$out/"
	rm -rf "$work"
	note "built in $((SECONDS - start)) s: $(cd "$out" && echo *.deb)"
}

cmd=${1:-build}
case $cmd in
version)
	version;;
build)
	out=${2:-$BUILD/deb}
	ver=$(version)
	copy_tree "$out.tree"
	build_into "$out" "$out.tree" "$ver"
	rm -rf "$out.tree"
	note "lintian"
	lintian --fail-on error,warning "$out"/*.changes ||
		die "lintian: errors or warnings in $out"
	note "packages in $out";;
reproducible)
	out=${2:-$BUILD/deb-repro}
	ver=$(version)
	# One copy of the tree for both builds: an edit in between changes neither.
	copy_tree "$out/tree"
	build_into "$out/a" "$out/tree" "$ver"
	build_into "$out/b" "$out/tree" "$ver"
	(cd "$out/a" && ls -1 -- *.deb) > "$out/a.list"
	(cd "$out/b" && ls -1 -- *.deb) > "$out/b.list"
	cmp -s "$out/a.list" "$out/b.list" ||
		die "the two builds made different packages: $(diff "$out/a.list" "$out/b.list" | tr '\n' ' ')"
	bad=0
	while read -r deb; do
		if cmp -s "$out/a/$deb" "$out/b/$deb"; then
			echo "identical: $deb ($(stat -c %s "$out/a/$deb") bytes, sha256 $(sha256sum < "$out/a/$deb" | cut -c1-16))"
		else
			echo "DIFFERENT: $deb (diffoscope $out/a/$deb $out/b/$deb)"
			bad=1
		fi
	done < "$out/a.list"
	[ "$bad" -eq 0 ] || die "the two builds differ"
	note "$(wc -l < "$out/a.list") .debs byte for byte identical";;
*)
	die "usage: mkdeb.sh build [OUT] | reproducible [OUT] | version";;
esac
