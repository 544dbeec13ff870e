#!/bin/bash
# dlsched-oci-hook as a program: the container's state on stdin, exit
# statuses and messages, and its calls to dld, answered by dlconf's test
# double (fake-dld) on a private bus. /proc/PID/cgroup is faked with
# DLSCHED_OCI_HOOK_PROC.
# Environment: HOOK (the binary), FAKE_DLD, TOP.
set -u
. "$TOP/dlconf/test/tap.sh"

H=$HOOK
tmp=$(mktemp -d)
bus_pid= fake_pid=
trap 'kill $fake_pid $bus_pid 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"' EXIT
export DLSCHED_OCI_HOOK_PROC=$tmp/proc
ID=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
SCOPE=/deadline.slice/deadline-media.slice/libpod-$ID.scope
mkdir -p "$tmp/proc/4242" "$tmp/proc/4343"
echo "0::$SCOPE/container" > "$tmp/proc/4242/cgroup"
echo "0::/system.slice/podman.service" > "$tmp/proc/4343/cgroup"

# state STATUS PID NAME ANNOTATIONS-JSON-MEMBERS
state() {
	printf '{"ociVersion": "1.0.2", "id": "%s", "status": "%s", "pid": %s, "bundle": "/b",
	  "annotations": {"io.kubernetes.cri-o.ContainerName": "%s"%s}}' "$ID" "$1" "$2" "$3" "${4:+, $4}"
}
# hook STDIN ARGS...: runs the hook with STDIN.
hook() { local in=$1; shift; "$H" "$@" <<< "$in"; }

GOOD='"io.dlsched.runtime": "2ms", "io.dlsched.period": "20ms"'

# Without a bus.
export DBUS_SYSTEM_BUS_ADDRESS=unix:path=$tmp/nobus
expect "--help" 0 '^Usage: dlsched-oci-hook \[admit\|release\]' "$H" --help
expect "two verbs: exit 2" 2 'Usage' "$H" admit release
expect "unknown verb: exit 2" 2 '^dlsched-oci-hook: unknown verb "stop" \(admit, release\)$' hook "$(state created 4242 c1 "$GOOD")" stop
expect "empty state: exit 1" 1 "^dlsched-oci-hook: the container's state on stdin: empty state" sh -c "\"$H\" admit < /dev/null"
expect "not JSON: exit 1" 1 "^dlsched-oci-hook: the container's state on stdin: line 1, column 1: " hook "garbage"
expect "no pid while created: exit 1" 1 '\$.pid: missing, or 0, for a container that is created$' \
	hook '{"ociVersion": "1.0.2", "id": "abc", "status": "created", "annotations": {}}'
expect "duplicate annotation: exit 1" 1 'duplicate key "io.dlsched.runtime"' \
	hook "$(state created 4242 c1 '"io.dlsched.runtime": "2ms", "io.dlsched.runtime": "3ms"')"
expect "no io.dlsched.* annotation: exit 0, nothing to do" 0 '^$' hook "$(state created 4242 c1 '"a.b": "c"')"
expect "no annotations at all: exit 0" 0 '^$' hook '{"ociVersion": "1.0.2", "id": "abc", "status": "created", "pid": 1}'
expect "malformed annotations: exit 1, every problem, the container named" 1 \
	'^dlsched-oci-hook: c1: io.dlsched.runtime=2xs: not a time span \(expected systemd syntax such as 2ms or 500us\)
dlsched-oci-hook: c1: io.dlsched.threads=0: must be at least 1 \("all" for one per CPU\)
dlsched-oci-hook: c1: io.dlsched.peroid: unknown annotation \(known: [^)]*\)
dlsched-oci-hook: c1: malformed io.dlsched.\* annotations: the container does not start$' \
	hook "$(state created 4242 c1 '"io.dlsched.runtime": "2xs", "io.dlsched.threads": "0", "io.dlsched.peroid": "20ms"')"
expect "runtime > period: exit 1" 1 'c1: runtime 30ms, deadline 20ms, period 20ms: runtime is longer than the deadline' \
	hook "$(state created 4242 c1 '"io.dlsched.runtime": "30ms", "io.dlsched.period": "20ms"')"
expect "a cgroup in no scope: exit 1, cgroup manager named" 1 \
	'c1: the container.s cgroup /system.slice/podman.service is in no systemd scope: .*--cgroup-manager=systemd' \
	hook "$(state created 4343 c1 "$GOOD")"
expect "a process gone: exit 1" 1 "c1: cannot read $tmp/proc/4444/cgroup: No such file or directory" \
	hook "$(state created 4444 c1 "$GOOD")"
expect "no system bus: exit 1, the container does not start" 1 'c1: cannot connect to the system bus: the container does not start' \
	hook "$(state created 4242 c1 "$GOOD")"
expect "release without a bus: exit 0" 0 'c1: cannot connect to the system bus: nothing released' \
	hook "$(state stopped 0 c1 "$GOOD")"

# A bus, but no dld on it.
dbus-daemon --session --nofork --nopidfile --address="unix:path=$tmp/bus" > /dev/null 2>&1 &
bus_pid=$!
for _ in $(seq 50); do [ -S "$tmp/bus" ] && break; sleep 0.1; done
export DBUS_SYSTEM_BUS_ADDRESS=unix:path=$tmp/bus
expect "dld not running: exit 1" 1 'c1: dld is not running \(.*\): a container that requests deadline bandwidth does not start without it' \
	hook "$(state created 4242 c1 "$GOOD")"
expect "release, dld not running: exit 0" 0 'c1: dld is not running: nothing to release' hook "$(state stopped 0 c1 "$GOOD")"

# fake-dld answers.
"$FAKE_DLD" > "$tmp/fake.out" 2>&1 &
fake_pid=$!
for _ in $(seq 50); do grep -q ready "$tmp/fake.out" 2>/dev/null && break; sleep 0.1; done
expect "admitted: exit 0, silent" 0 '^$' hook "$(state created 4242 media-1 "$GOOD")"
expect "  AdmitContainer: ID, name, the init process's cgroup (the scope's container/ child), group, the request" 0 \
	"admit-container $ID media-1 $SCOPE/container '' 2000 20000 20000 1\$" cat "$tmp/fake.out"
expect "every key" 0 '^$' hook "$(state creating 4242 media-2 '"io.dlsched.runtime": "1ms", "io.dlsched.period": "10ms", "io.dlsched.deadline": "5ms", "io.dlsched.threads": "all", "io.dlsched.group": "media"')"
expect "  threads all sent as 0, the group named" 0 "admit-container $ID media-2 $SCOPE/container 'media' 1000 5000 10000 0\$" cat "$tmp/fake.out"
expect "verb admit" 0 '^$' hook "$(state running 4242 media-3 "$GOOD")" admit
expect "  admitted" 0 "admit-container $ID media-3 " cat "$tmp/fake.out"
expect "refused in a group whose on_refusal is fail: exit 1, dld's reason" 1 \
	'^dlsched-oci-hook: greedy-ctr: refused: the kernel refused the template for 1 thread of 50.00% of a CPU in /deadline.slice/deadline-media.slice/libpod-[0-9a-f]+.scope/container \(Device or resource busy\): 20.00% left in the group$' \
	hook "$(state created 4242 greedy-ctr "$GOOD")"
# Run by a runtime that logs JSON (crun --log-format=json --log PATH, as
# podman runs it), whose log podman shows: the refusal takes the place of
# the runtime's file, which the runtime keeps open.
cat > "$tmp/runtime" <<'RUNTIME'
#!/bin/bash
# runtime LOG HOOK: a stand-in for crun, its command line in the fake /proc.
mkdir -p "$DLSCHED_OCI_HOOK_PROC/$$"
printf '/usr/bin/crun\0--systemd-cgroup\0--log-format=json\0--log\0%s\0create\0x\0' "$1" \
	> "$DLSCHED_OCI_HOOK_PROC/$$/cmdline"
exec 3>> "$1"
echo '{"msg":"the runtime is running","level":"info"}' >&3
"$2"
rc=$?
echo '{"msg":"error executing hook","level":"error"}' >&3
exit $rc
RUNTIME
chmod +x "$tmp/runtime"
expect "refused under a JSON-logging runtime: exit 1" 1 'greedy-ctr: refused: ' \
	"$tmp/runtime" "$tmp/oci-log" "$H" <<< "$(state created 4242 greedy-ctr "$GOOD")"
expect "  the runtime's log holds the refusal, one JSON object, as podman reads it" 0 \
	'^\{"msg":"dlsched-oci-hook: greedy-ctr: refused: the kernel refused the template .* 20.00% left in the group","level":"error","time":"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z"\}$' \
	cat "$tmp/oci-log"
expect "malformed under it: every line in the one message" 1 'malformed' \
	"$tmp/runtime" "$tmp/oci-log2" "$H" <<< "$(state created 4242 c1 '"io.dlsched.runtime": "2xs", "io.dlsched.peroid": "20ms"')"
expect "  joined with '; '" 0 \
	'^\{"msg":"dlsched-oci-hook: c1: io.dlsched.runtime=2xs: not a time span \(expected systemd syntax such as 2ms or 500us\); io.dlsched.peroid: unknown annotation \(known: [^)]*\); malformed io.dlsched.\* annotations: the container does not start","level":"error",' \
	cat "$tmp/oci-log2"
expect "admitted under it: the runtime's log untouched" 0 '^\{"msg":"the runtime is running","level":"info"\}$' \
	bash -c "\"$tmp/runtime\" \"$tmp/oci-log3\" \"$H\" <<< '$(state created 4242 media-4 "$GOOD")' && head -n 1 '$tmp/oci-log3'"
expect "degraded: exit 0, the reason on stderr" 0 \
	'^dlsched-oci-hook: degraded-ctr: deadline request degraded, the container runs as normal tasks: group "media" already holds its maximum of 2 services$' \
	hook "$(state created 4242 degraded-ctr "$GOOD")"
expect "poststop: released" 0 '^$' hook "$(state stopped 0 media-1 "$GOOD")"
expect "  ReleaseContainer with the ID" 0 "release-container $ID\$" cat "$tmp/fake.out"
expect "release of a container dld does not know: exit 0" 0 '^$' \
	hook '{"ociVersion": "1.0.2", "id": "feedfeedfeed", "status": "stopped", "annotations": {"io.dlsched.runtime": "2ms"}}'
expect "  ReleaseContainer sent" 0 'release-container feedfeedfeed$' cat "$tmp/fake.out"
expect "name: 12 characters of the ID without a name annotation" 0 "admit-container $ID 0123456789ab " \
	bash -c "\"$H\" <<< '{\"ociVersion\": \"1.0.2\", \"id\": \"$ID\", \"status\": \"created\", \"pid\": 4242, \"annotations\": {$GOOD}}' && cat '$tmp/fake.out'"

# runtime-spec 1.1's process.scheduler in the bundle's config.json.
mkdir -p "$tmp/bundle"
bundle_state() {
	printf '{"ociVersion": "1.1.0", "id": "%s", "status": "created", "pid": 4242, "bundle": "%s",
	  "annotations": {"io.kubernetes.cri-o.ContainerName": "%s"%s}}' "$ID" "$tmp/bundle" "$1" "${2:+, $2}"
}
config() { printf '{"ociVersion": "1.1.0", "process": {"args": ["/w"], "scheduler": %s}}' "$1" > "$tmp/bundle/config.json"; }
config '{"policy": "SCHED_DEADLINE", "runtime": 2000000, "deadline": 10000000, "period": 20000000}'
expect "process.scheduler SCHED_DEADLINE, no annotation: exit 0" 0 '^$' hook "$(bundle_state sched-1)"
expect "  AdmitContainer with its runtime, deadline and period, one task" 0 \
	"admit-container $ID sched-1 $SCOPE/container '' 2000 10000 20000 1\$" cat "$tmp/fake.out"
expect "process.scheduler and annotations both: exit 1, the container does not start" 1 \
	'^dlsched-oci-hook: sched-2: both io.dlsched.\* annotations and process.scheduler ask for deadline bandwidth: give one; the container does not start$' \
	hook "$(bundle_state sched-2 "$GOOD")"
config '{"policy": "SCHED_DEADLINE", "runtime": 1500, "period": 20000000}'
expect "process.scheduler in fractions of a microsecond: exit 1" 1 \
	"^dlsched-oci-hook: sched-3: $tmp/bundle/config.json: \\\$.process.scheduler.runtime: 1500 ns is not a whole number of microseconds; malformed process.scheduler: the container does not start\$" \
	hook "$(bundle_state sched-3)"
config '{"policy": "SCHED_DEADLINE", "runtime": 30000000, "period": 20000000}'
expect "process.scheduler runtime > period: exit 1" 1 \
	'sched-4: .*: \$.process.scheduler: runtime 30000us, deadline 20000us, period 20000us: runtime is longer than the deadline; malformed process.scheduler' \
	hook "$(bundle_state sched-4)"
config '{"policy": "SCHED_FIFO", "priority": 10}'
expect "process.scheduler of another policy: exit 0, nothing asked" 0 '^$' \
	bash -c "\"$H\" <<< '$(bundle_state sched-5)' && ! grep -q sched-5 '$tmp/fake.out'"
echo '{"process": {"scheduler": ' > "$tmp/bundle/config.json"
expect "a config.json that is not JSON: exit 1" 1 'sched-6: .*config.json: line 2, column 1: .*malformed process.scheduler' \
	hook "$(bundle_state sched-6)"

tap_done
