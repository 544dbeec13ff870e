#!/bin/bash
# dlconf as a program: exit statuses, one-line errors, and every verb against
# a stand-in for dld (fake-dld) on a private bus.
# Environment: DLCONF (the binary), FAKE_DLD, TOP.
set -u
. "$(dirname "$0")/tap.sh"

D=$DLCONF
tmp=$(mktemp -d)
trap 'kill $fake_pid $bus_pid 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"' EXIT

# Without a bus or daemon.
export DBUS_SYSTEM_BUS_ADDRESS=unix:path=$tmp/nobus
expect "--help exits 0" 0 'Verbs:' "$D" --help
expect "--version" 0 '^dlconf [0-9.]+$' "$D" --version
expect "admit --help" 0 'dlconf admit UNIT --runtime TIME' "$D" admit --help
expect "usage error: exit 2, one line" 2 "^dlconf: unknown verb 'frob' \(see dlconf --help\)$" "$D" frob
expect "bad time span: exit 2" 2 '^dlconf: --runtime=2xs: not a time span' "$D" admit x --runtime=2xs --period=10ms
expect "bad unit name: exit 2" 2 "^dlconf: show: 'a/b' is not a valid unit name$" "$D" show a/b
expect "no system bus: exit 4" 4 '^dlconf: cannot connect to the system bus: ' "$D" status
expect "check of the demo needs no daemon: exit 3 (one refused)" 3 'admitted demo-media.service.*refused  demo-greedy.service' \
	"$D" check --cpus=4 "$TOP"/policies/examples/demo.json "$TOP"/units/demo/demo-media.service{,.d/deadline.conf} \
	"$TOP"/units/demo/demo-control.service{,.d/deadline.conf} "$TOP"/units/demo/demo-greedy.service{,.d/deadline.conf}
echo '{ "groups": [ { "name": "x", "slice": "x.slice", "runtime_us": "lots", "period_us": 1000000 } ] }' > "$tmp/bad.json"
expect "check of a broken policy: exit 6, file and JSON path" 6 "$tmp/bad.json: \\\$.groups\\[0\\].runtime_us: " "$D" check "$tmp/bad.json"
expect "check of a missing file: exit 1" 1 "^dlconf: check: $tmp/none.json: No such file or directory$" "$D" check "$tmp/none.json"
mkfifo "$tmp/fifo.json"
expect "check of a FIFO: exit 6 at once, not a regular file" 6 "^$tmp/fifo.json: cannot read: not a regular file" \
	timeout 10 "$D" check "$tmp/fifo.json"
head -c 1048577 /dev/zero | tr '\0' ' ' > "$tmp/big.json"
expect "check of a file over the limit: exit 6, the limit named" 6 "^$tmp/big.json: cannot read: larger than the 1 MiB limit" \
	"$D" check "$tmp/big.json"
printf '{"groups": [], "groups": []}' > "$tmp/dup.json"
expect "check of a duplicate key: exit 6, its path" 6 "^$tmp/dup.json: \\\$.groups: invalid JSON: duplicate key \"groups\"" \
	"$D" check "$tmp/dup.json"
printf '{}\n{}' > "$tmp/two.json"
expect "check of two documents: exit 6, the line" 6 "^$tmp/two.json: line 2, column 1: invalid JSON: data after the end of the document" \
	"$D" check "$tmp/two.json"
out=$("$D" check --json --cpus=2 "$TOP"/policies/examples/demo.json "$TOP"/units/demo/demo-media.service{,.d/deadline.conf} 2>&1)
if python3 -c 'import json,sys; d=json.loads(sys.argv[1]); assert d["valid"] and d["verdicts"][0]["verdict"] == "admitted"' "$out" 2>/dev/null; then
	pass "check --json parses, verdict admitted"
else
	fail "check --json parses, verdict admitted" "$out"
fi

# A bus, but no dld on it.
dbus-daemon --session --nofork --nopidfile --address="unix:path=$tmp/bus" > /dev/null 2>&1 &
bus_pid=$!
for _ in $(seq 50); do [ -S "$tmp/bus" ] && break; sleep 0.1; done
export DBUS_SYSTEM_BUS_ADDRESS=unix:path=$tmp/bus
expect "dld not running: exit 4, one line" 4 '^dlconf: dld is not reachable on the system bus \(is dld.service running\?\): [^
]*$' "$D" status
expect "release with dld not running: exit 4" 4 'not reachable' "$D" release demo-media
expect "prepare with dld not running: exit 0, the unit starts as a normal service" 0 \
	'^demo-media.service: not admitted before its start \(dld is not reachable.*\): it starts as a normal service$' \
	"$D" prepare demo-media

# fake-dld answers.
"$FAKE_DLD" > "$tmp/fake.out" 2>&1 &
fake_pid=$!
for _ in $(seq 50); do grep -q ready "$tmp/fake.out" 2>/dev/null && break; sleep 0.1; done
# The test double serves the API of dld/org.dlsched.Dld1.xml, member for member.
want=$(python3 "$TOP/dld/test/api-listing.py" "$TOP/dld/org.dlsched.Dld1.xml" org.dlsched.Dld1.Manager)
got=$(busctl --address="unix:path=$tmp/bus" introspect org.dlsched.Dld1 /org/dlsched/Dld1 org.dlsched.Dld1.Manager 2>&1 |
	awk -f "$TOP/dld/test/api-listing.awk" | LC_ALL=C sort)
if [ -n "$want" ] && [ "$got" = "$want" ]; then
	pass "fake-dld's API is the XML's ($(wc -l <<< "$want") members)"
else
	fail "fake-dld's API is the XML's" "$(diff <(echo "$want") <(echo "$got"))"
fi
expect "status" 0 'System budget: 50.00% of each CPU \(500ms every 1s\) on 4 CPUs = 200.00%.*media \(deadline-media.slice\): reserved 120.00%.*demo-greedy.service +degraded' "$D" status
expect "status: no colour or bars into a pipe" 0 '^[^█]*$' "$D" status
expect "status --color=always: bars" 0 '█' "$D" status --color=always
expect "list" 0 'UNIT +GROUP +STATE.*demo-media.service +media +admitted +10ms +40ms +40ms +all +100.00% +1/1 +dropin' "$D" list
expect "list --no-legend" 0 '^demo-media.service' "$D" list --no-legend
expect "show" 0 'Reason: EBUSY: the reservation' "$D" show demo-greedy
expect "prepare: dld's verdict, exit 0" 0 '^demo-media.service: admitted$' env INVOCATION_ID=0123abcd "$D" prepare demo-media
grep -q '^PrepareUnit demo-media.service 0123abcd$' "$tmp/fake.out" && pass "  sends the unit and \$INVOCATION_ID" \
	|| fail "  sends the unit and \$INVOCATION_ID" "$(cat "$tmp/fake.out")"
expect "prepare: a refusal is an answer, exit 0" 0 '^demo-greedy.service: degraded: EBUSY: the template' "$D" prepare demo-greedy
expect "prepare: an error is printed, exit 0" 0 'not admitted before its start .*not in its activation' "$D" prepare demo-control
expect "prepare: no request" 0 '^other.service: none$' "$D" prepare other
expect "prepare: a bad unit name is a usage error" 2 "is not a valid unit name" "$D" prepare a/b
expect "prepare: one unit" 2 '' "$D" prepare a b
"$D" prepare slow > /dev/null 2>&1 &
p=$!
for _ in $(seq 50); do grep -q '^PrepareUnit slow.service' "$tmp/fake.out" && break; sleep 0.05; done
expect "prepare waits for dld as SCHED_BATCH (a template leaves it alone)" 0 "policy: SCHED_BATCH" chrt -p "$p"
wait "$p"
expect "show of an unknown unit: exit 1" 1 '^dlconf: nope.service: dld follows no unit nope.service$' "$D" show nope
# Containers (AdmitContainer): by name and ID in list, status and show.
expect "list: a container by name and short ID" 0 'media-ctr \(container 0123456789ab\) +media +admitted +2ms +20ms +20ms +1 +10.00% +2/3 +container' "$D" list
expect "status: a container in its group" 0 'media-ctr \(container 0123456789ab\) admitted runtime 2ms' "$D" status
expect "show of a container by name" 0 'Container: media-ctr, ID 0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef' "$D" show media-ctr
expect "show of a container by short ID: its scope" 0 'Scope: libpod-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef.scope' "$D" show 0123456789ab
expect "show of a container: the source" 0 'Source: container \(io.dlsched.\* annotations, OCI hook\)' "$D" show media-ctr
for verb in status list "show demo-media"; do
	out=$("$D" $verb --json 2>&1)
	if python3 -c 'import json,sys; json.loads(sys.argv[1])' "$out" 2>/dev/null; then
		pass "$verb --json is JSON"
	else
		fail "$verb --json is JSON" "$out"
	fi
done
out=$("$D" status --json)
if python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert d["system"]["cpus"] == 4 and d["system"]["runtime_usec"] == 500000
assert [g["name"] for g in d["groups"]] == ["media", "control"]
assert d["services"][1]["state"] == "degraded" and d["services"][1]["reason"].startswith("EBUSY")
assert "container_id" not in d["services"][0]
assert d["services"][2]["container_name"] == "media-ctr" and d["services"][2]["source"] == "container"' "$out"; then
	pass "status --json has the daemon's values under the documented names"
else
	fail "status --json has the daemon's values under the documented names" "$out"
fi
expect "admit" 0 '^$' "$D" admit demo-media --runtime=2ms --period=10ms
expect "  sent as microseconds, deadline 0 = the period" 0 'admit demo-media.service 2000 0 10000 1$' cat "$tmp/fake.out"
expect "admit with a deadline" 0 '^$' "$D" admit demo-media.service --runtime=1ms --deadline=5ms --period=10ms
expect "  deadline sent" 0 'admit demo-media.service 1000 5000 10000 1$' cat "$tmp/fake.out"
expect "admit --threads=all" 0 '^$' "$D" admit demo-media.service --runtime=1ms --period=10ms --threads=all
expect "  sent as 0 threads" 0 'admit demo-media.service 1000 0 10000 0$' cat "$tmp/fake.out"
expect "admit --threads=3" 0 '^$' "$D" admit demo-media.service --runtime=1ms --period=10ms --threads=3
expect "  3 threads sent" 0 'admit demo-media.service 1000 0 10000 3$' cat "$tmp/fake.out"
expect "admit refused: exit 3, one line" 3 '^dlconf: demo-greedy.service: refused: EBUSY: the reservation for 2 threads of 8000 us every 40000 us does not fit in group "media": 20.00% left$' \
	"$D" admit demo-greedy --runtime=8ms --period=40ms --threads=2
expect "admit not allowed: exit 5" 5 '^dlconf: locked.service: permission denied \(Access denied\)$' \
	"$D" admit locked --runtime=1ms --period=10ms
expect "admit of a stopped unit: exit 1" 1 '^dlconf: stopped.service: stopped.service is not running: nothing to admit$' \
	"$D" admit stopped --runtime=1ms --period=10ms
expect "release" 0 '^$' "$D" release demo-media
expect "release of an unknown unit: exit 1" 1 'dld follows no unit x.service' "$D" release x
expect "reload" 0 '^$' "$D" reload
kill "$fake_pid"; wait "$fake_pid" 2>/dev/null
FAKE_DLD_BROKEN_POLICY=1 "$FAKE_DLD" > "$tmp/fake.out" 2>&1 &
fake_pid=$!
for _ in $(seq 50); do grep -q ready "$tmp/fake.out" 2>/dev/null && break; sleep 0.1; done
expect "reload of a broken policy: exit 6, dld's reason" 6 '^dlconf: reload: /etc/dld/policies.d/60-bad.json: \$.groups\[0\].runtime_us: must be a number; the previous policy stays in force$' \
	"$D" reload

tap_done
