#!/bin/bash
# Every MESSAGE_ID of dld-messages.h is a random (version 4) 128-bit id, as
# `systemd-id128 new` makes them, used once, with an entry in the journal
# catalog that journalctl accepts (journalctl -x explains each entry).
set -u
# The plan goes first (the harness reads TAP documents by their plan):
# the points are collected, then printed after it.
out=""
emit() { out+="$1"$'\n'; }
header=$1 catalog=$2
n=0 failed=0
check() {
	n=$((n + 1))
	if eval "$2"; then emit "ok $n - $1"; else emit "not ok $n - $1"; failed=$((failed + 1)); fi
}
mapfile -t ids < <(sed -n 's/^#define DLD_MESSAGE_[A-Z_]* *"\([0-9a-f]*\)".*/\1/p' "$header")
check "dld-messages.h defines eight ids" '[ ${#ids[@]} -eq 8 ]'
check "no id used twice" '[ "$(printf "%s\n" "${ids[@]}" | sort -u | wc -l)" -eq ${#ids[@]} ]'
for id in "${ids[@]}"; do
	check "$id: 32 hex digits, version 4, RFC 4122 variant" '[[ $id =~ ^[0-9a-f]{12}4[0-9a-f]{3}[89ab][0-9a-f]{15}$ ]]'
	check "$id: a catalog entry with a Subject" 'grep -A1 -x -- "-- $id" "$catalog" | grep -q "^Subject: "'
done
check "the catalog has no entry for an unknown id" \
	'[ "$(grep -c "^-- " "$catalog")" -eq ${#ids[@]} ]'
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/usr/lib/systemd/catalog" "$root/var/lib/systemd/catalog"
cp "$catalog" "$root/usr/lib/systemd/catalog/"
check "journalctl indexes the catalog" 'journalctl --root="$root" --update-catalog 2>/dev/null'
check "journalctl lists all eight entries" '[ "$(journalctl --root="$root" --list-catalog 2>/dev/null | grep -c " dld: ")" -eq 8 ]'
echo "TAP version 13"
echo "1..$n"
printf '%s' "$out"
[ $failed -eq 0 ]
