#!/bin/bash
# No two of dld's source files depend on each other, directly or in a
# cycle: calls only go downward (main -> bus -> manager -> {service, apply}
# -> {systemd client, threads, kernelfs, admission model, ...}). Read from
# the objects' symbols: who defines a function, who calls it.
# Usage: test-layout.sh OBJDIR
set -u
# The plan goes first (the harness reads TAP documents by their plan):
# the points are collected, then printed after it.
out=""
emit() { out+="$1"$'\n'; }
dir=$1
n=0 failed=0
defs=$(for o in "$dir"/*.o; do
	nm -g --defined-only "$o" | awk -v f="$(basename "$o" .o)" '$2 == "T" { print $3, f }'
done | sort)
edges=$(for o in "$dir"/*.o; do
	f=$(basename "$o" .o)
	nm -u "$o" | awk '{ print $2 }' | sort | join - <(echo "$defs") | awk -v f="$f" '$2 != f { print f, $2 }'
done | sort -u)
n=$((n + 1))
if [ "$(wc -l <<< "$edges")" -ge 20 ]; then
	emit "ok $n - $(wc -l <<< "$edges") dependencies between $(ls "$dir"/*.o | wc -l) objects"
else
	emit "not ok $n - too few dependencies found: $(wc -l <<< "$edges")"; failed=1
fi
n=$((n + 1))
if loop=$(tsort <<< "$edges" 2>&1 >/dev/null) && [ -z "$loop" ]; then
	emit "ok $n - no dependency cycle between dld's source files"
else
	emit "not ok $n - a dependency cycle:"; emit "$(sed 's/^/# /' <<< "$loop")"; failed=1
fi
for pair in "manager bus" "service manager" "apply manager" "apply service" "service bus" "systemd-client service" "threads service"; do
	n=$((n + 1))
	if grep -qx "$pair" <<< "$edges"; then
		emit "not ok $n - ${pair% *} does not call into ${pair#* } (it does)"; failed=1
	else
		emit "ok $n - ${pair% *} does not call into ${pair#* }"
	fi
done
echo "TAP version 13"
echo "1..$n"
printf '%s' "$out"
[ $failed -eq 0 ]
