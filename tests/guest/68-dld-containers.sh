#!/bin/bash
# Podman containers asking for deadline bandwidth with io.dlsched.*
# annotations (units/CONTAINERS.md): the OCI hook has dld put a task
# template in the cgroup of the container's init before the workload runs,
# so that its threads are SCHED_DEADLINE from their start (podman exec
# included, while there is room); two containers admitted, a
# third refused in a group whose on_refusal is "fail" (podman run fails,
# the reason on its stderr, a journal entry naming it), the containers'
# threads SCHED_DEADLINE with the requested parameters (seen from the host
# and from inside), kill -9 of dld while they run loses and doubles
# nothing, stopping and removing a container gives back exactly its
# bandwidth, malformed annotations fail the container with one clear line
# each; a group admits containers only when its policy says so; a bundle
# with the OCI spec's process.scheduler, run by runc and by crun, is
# admitted as annotations would be. The image is ct-image.tar (tests/guest/Makefile: the static
# helpers/ct-worker), imported once per boot; no network, no registry.
. /usr/lib/dlsched/60-dld-lib.inc

CT_IMAGE=localhost/dlsched-ct:latest
CT_TAR=/usr/lib/dlsched/containers/ct-image.tar
command -v podman >/dev/null || skip_all "podman is not installed in the guest"
dld_require
# podman's storage: overlay (containers.conf), vfs on a kernel without it.
PODMAN=(podman)
grep -qw overlay /proc/filesystems || modprobe -q overlay 2>/dev/null
grep -qw overlay /proc/filesystems || PODMAN=(podman --storage-driver=vfs)
pm() { "${PODMAN[@]}" "$@"; }

T68_NAMES=(t68-a t68-b t68-c t68-d t68-e t68-f t68-dld)
# --ignore: one name missing must not keep the others.
t68_remove_containers() { pm rm -f -i -t 0 "${T68_NAMES[@]}" >/dev/null 2>&1; }
t68_cleanup() {
	t68_remove_containers
	dld_cleanup
}
trap t68_cleanup EXIT
t68_remove_containers

plan 115

# The containers' slices are in groups that hold 25% of each CPU (media,
# fail) and 5% (control, degrade); each admitted container reserves 10% of
# each CPU (2ms/20ms, one thread per CPU): two fit in media, a third not.
# "plain" (5%) does not say "containers": true: it admits none.
DLD_TEST_POLICY='{
  "system": { "sched_dl_runtime_us": 400000, "sched_dl_period_us": 1000000,
              "sched_rt_runtime_us": 550000, "sched_rt_period_us": 1000000 },
  "groups": [
    { "name": "media", "slice": "deadline-media.slice", "runtime_us": 250000, "period_us": 1000000,
      "max_request_percent": 15, "max_services": 3, "on_refusal": "fail", "containers": true },
    { "name": "control", "slice": "deadline-control.slice", "runtime_us": 5000, "period_us": 100000,
      "on_refusal": "degrade", "containers": true },
    { "name": "plain", "slice": "deadline-plain.slice", "runtime_us": 50000, "period_us": 1000000 }
  ]
}'
apply_test_policy 68-test
media=/deadline.slice/deadline-media.slice
base_media=$(idle_total $media)
base_pool=$(knob sched_dl_total_bw)
one_bw=$(( NCPUS * $(bw 2000 20000) ))

# The image: imported once per boot (a one-off, like a pull).
t0=$SECONDS
if ! pm image exists "$CT_IMAGE"; then
	out=$(pm import --quiet "$CT_TAR" "$CT_IMAGE" 2>&1) || { fail "podman import $CT_TAR" "$out"; done_testing; }
fi
diag "image $CT_IMAGE ready in $((SECONDS - t0)) s (${PODMAN[*]})"
ok "the test image is there, nothing pulled" pm image exists "$CT_IMAGE"

# ct_run NAME SLICE THREADS ANNOTATION...: podman run -d of ct-worker;
# the container's ID in $ct_id, podman's exit status in $ct_rc, its stderr
# in $ct_err.
ct_run() {
	local name=$1 slice=$2 threads=$3 a args=()
	shift 3
	for a in "$@"; do args+=(--annotation "$a"); done
	ct_err=$(mktemp)
	ct_id=$(pm run -d --name "$name" --network=none --pull=never --cgroup-parent="$slice" \
		"${args[@]}" "$CT_IMAGE" /ct-worker "$threads" 2>"$ct_err")
	ct_rc=$?
	ct_err_text=$(cat "$ct_err")
	rm -f "$ct_err"
}

ct_pid() { pm inspect -f '{{.State.Pid}}' "$1" 2>/dev/null; }

# The cgroup of a container's init from the host's /proc/PID/cgroup (the
# scope, or crun's container/ below it), and the scope.
ct_cgroup() {
	local line
	if [ "$DLSCHED_CGROUP" = v2 ]; then
		line=$(grep '^0::' "/proc/$1/cgroup")
	else
		line=$(grep -E '^[0-9]+:([^:]*,)?cpu(,[^:]*)?:' "/proc/$1/cgroup")
	fi
	echo "${line#*:*:}"
}
ct_scope() {
	local cg
	cg=$(ct_cgroup "$1")
	echo "${cg%%.scope*}.scope"
}

# tasks_sched PID: one "policy runtime/deadline/period" line per thread of
# PID (the policy alone for a policy without parameters).
tasks_sched() {
	local t
	for t in /proc/"$1"/task/*; do
		chrt -p "${t##*/}" | awk '/policy:/ { sub(/.*policy: /, ""); p = $0 } /parameters/ { q = " " $NF } END { print p q }'
	done
}

all_deadline() {
	local t n=0
	for t in /proc/"$1"/task/*; do
		[ "$(policy_of "${t##*/}")" = 6 ] || return 1
		n=$((n + 1))
	done
	[ "$n" -eq "$2" ]
}

# hook_lines ID: the hook's lines in the journal about container ID.
hook_lines() {
	journalctl -o cat --no-pager --since "@$DLD_TEST_START" SYSLOG_IDENTIFIER=dlsched-oci-hook "CONTAINER_ID=$1"
}

# container_entry MESSAGE_ID NAME: the last such journal entry of the container.
container_entry() {
	journalctl -o json --no-pager --since "@$DLD_TEST_START" "MESSAGE_ID=$1" "DLD_CONTAINER_NAME=$2" | tail -n 1
}

# --- a: 2ms/20ms, one thread per CPU, in media -----------------------------
t0=$SECONDS
ct_run t68-a deadline-media.slice 3 io.dlsched.runtime=2ms io.dlsched.period=20ms io.dlsched.threads=all
diag "podman run t68-a took $((SECONDS - t0)) s"
is "t68-a: podman run succeeds" "$ct_rc" 0
is "t68-a: nothing on podman's stderr" "$ct_err_text" ""
a_id=$ct_id
a_pid=$(ct_pid t68-a)
a_scope=$(ct_scope "$a_pid")
is "t68-a: the container runs in its scope in media" "$a_scope" "$media/libpod-$a_id.scope"
wait_for 10 '[ "$(service_state t68-a)" = admitted ]'
is "t68-a: dld admitted it" "$(service_state t68-a)" admitted
a_cg=$(ct_cgroup "$a_pid")
is "t68-a: its init's cgroup has the template: one task per CPU" "$(cgfile "$a_cg" cpu.dl_template)" "$NCPUS 2000 20000 20000"
is "t68-a: no per-CPU reservation in the scope" "$(cgfile "$a_scope" cpu.dl_runtime_us)" -1
is "media allocated = t68-a's reservation" "$(cgfile $media cpu.dl_total_bw)" "$(( base_media + one_bw ))"
is "system pool unchanged by a reservation inside a group" "$(knob sched_dl_total_bw)" "$base_pool"
wait_until 10 all_deadline "$a_pid" 3
ok "t68-a: its 3 threads (2 made after the admission) run SCHED_DEADLINE" all_deadline "$a_pid" 3
is "t68-a: each with the requested runtime/deadline/period" "$(tasks_sched "$a_pid" | sort -u)" \
	"SCHED_DEADLINE 2000000/20000000/20000000"
wait_until 5 sh -c "[ \$(${PODMAN[*]} logs t68-a 2>/dev/null | grep -c 'policy 6') -ge 3 ]"
inside=$(pm logs t68-a 2>/dev/null | awk '/policy 6/ { print $6, $8, $10, $12, $14 }' | sort -u)
is "t68-a: inside, sched_getattr() of each thread says the same" "$inside" "6 2000000 20000000 20000000 0x0"
is "t68-a: inside, 3 threads saw it" "$(pm logs t68-a 2>/dev/null | grep 'policy 6' | awk '{print $2}' | sort -u | wc -l)" 3
is "t68-a: inside, no thread ever saw another policy (SCHED_DEADLINE from their start)" \
	"$(pm logs t68-a 2>/dev/null | grep -c -v 'policy 6')" 0
entry=$(container_entry $DLD_MSG_ADMITTED t68-a)
is "t68-a: admission entry: the container's ID" "$(echo "$entry" | jq -r .DLD_CONTAINER_ID)" "$a_id"
is "t68-a: admission entry: UNIT= the scope" "$(echo "$entry" | jq -r .UNIT)" "libpod-$a_id.scope"
is "t68-a: admission entry: source" "$(echo "$entry" | jq -r .DLD_SOURCE)" container
is "t68-a: admission entry: request" "$(echo "$entry" | jq -r '[.DLD_RUNTIME_USEC,.DLD_DEADLINE_USEC,.DLD_PERIOD_USEC]|join("/")')" 2000/20000/20000
like "t68-a: admission message names the container" "$(echo "$entry" | jq -r .MESSAGE)" "container t68-a \\(${a_id:0:12}\\)"
like "dlconf list shows it by name and ID" "$(dlconf list 2>&1)" "t68-a \\(container ${a_id:0:12}\\)"
like "dlconf status lists it by name and ID" "$(dlconf status --color=never 2>&1)" "t68-a \\(container ${a_id:0:12}\\)"
like "dlconf show by name" "$(dlconf show t68-a 2>&1)" "$a_id"
like "dlconf show by ID" "$(dlconf show "${a_id:0:12}" 2>&1)" "t68-a"

# --- b: 2ms/10ms/20ms (a deadline), one thread per CPU ---------------------
ct_run t68-b deadline-media.slice 2 io.dlsched.runtime=2ms io.dlsched.deadline=10ms io.dlsched.period=20ms io.dlsched.threads=all
is "t68-b: podman run succeeds" "$ct_rc" 0
b_id=$ct_id
b_pid=$(ct_pid t68-b)
b_scope=$(ct_scope "$b_pid")
wait_for 10 '[ "$(service_state t68-b)" = admitted ]'
is "t68-b: admitted" "$(service_state t68-b)" admitted
is "t68-b: admission entry: its ID" "$(container_entry "$DLD_MSG_ADMITTED" t68-b | jq -r .DLD_CONTAINER_ID)" "$b_id"
wait_until 10 all_deadline "$b_pid" 2
is "t68-b: threads with runtime/deadline/period 2/10/20 ms" "$(tasks_sched "$b_pid" | sort -u)" \
	"SCHED_DEADLINE 2000000/10000000/20000000"
is "t68-b: its template" "$(cgfile "$(ct_cgroup "$b_pid")" cpu.dl_template)" "$NCPUS 2000 10000 20000"
held_media=$(( base_media + 2 * one_bw ))
is "media allocated = both reservations" "$(cgfile $media cpu.dl_total_bw)" "$held_media"

# --- c: a third does not fit media (on_refusal fail): podman run fails -----
ct_run t68-c deadline-media.slice 2 io.dlsched.runtime=2ms io.dlsched.period=20ms io.dlsched.threads=all
ok "t68-c: podman run fails" test "$ct_rc" -ne 0
diag "t68-c: podman run exit $ct_rc: $ct_err_text"
# podman shows the error in crun's log, where the hook put its lines in
# place of crun's "error executing hook"; they are in the journal too.
like "t68-c: podman's stderr has the hook's refusal and dld's reason" "$ct_err_text" \
	'^Error: OCI runtime error: crun: dlsched-oci-hook: t68-c: refused: the kernel refused the template .*left in the group'
c_id=$(pm inspect -f '{{.Id}}' t68-c 2>/dev/null)
like "t68-c: the hook's refusal line in the journal" "$(hook_lines "$c_id")" "^t68-c: refused: "
ok "t68-c: the container does not run" sh -c "[ \"\$(${PODMAN[*]} inspect -f '{{.State.Running}}' t68-c 2>/dev/null)\" != true ]"
entry=$(container_entry $DLD_MSG_REFUSED t68-c)
is "t68-c: refusal entry names the container" "$(echo "$entry" | jq -r .DLD_CONTAINER_NAME)" t68-c
like "t68-c: refusal entry: its ID" "$(echo "$entry" | jq -r .DLD_CONTAINER_ID)" '^[0-9a-f]{64}$'
is "t68-c: refusal entry: EBUSY" "$(echo "$entry" | jq -r '.ERRNO + " " + .DLD_ERRNO_NAME')" "16 EBUSY"
is "t68-c: refusal entry: by the kernel's admission" "$(echo "$entry" | jq -r .DLD_REFUSED_BY)" admission
is "t68-c: refusal entry: action fail" "$(echo "$entry" | jq -r .DLD_ACTION)" fail
is "t68-c: refusal entry: group media" "$(echo "$entry" | jq -r .DLD_GROUP)" media
is "media allocation unchanged by the refusal" "$(cgfile $media cpu.dl_total_bw)" "$held_media"
is "t68-c: dld does not keep it" "$(service_state t68-c)" none
# What an operator sees at this point (units/CONTAINERS.md quotes a run).
while IFS= read -r line; do diag "dlconf list: $line"; done < <(dlconf list 2>&1)
while IFS= read -r line; do diag "journalctl -t dlsched-oci-hook: $line"; done < <(hook_lines "$c_id")
diag "refusal entry: $(echo "$entry" | jq -r '.MESSAGE')"
diag "refusal entry: $(echo "$entry" | jq -r '["DLD_CONTAINER_NAME=" + .DLD_CONTAINER_NAME, "ERRNO=" + .ERRNO,
	"DLD_ERRNO_NAME=" + .DLD_ERRNO_NAME, "DLD_REFUSED_BY=" + .DLD_REFUSED_BY, "DLD_GROUP=" + .DLD_GROUP,
	"DLD_ACTION=" + .DLD_ACTION] | join(" ")')"
pm rm -f -t 0 t68-c >/dev/null 2>&1

# --- e: the policy's max_request_percent (15%) holds for containers too ---
ct_run t68-e deadline-media.slice 1 io.dlsched.runtime=4ms io.dlsched.period=20ms
ok "t68-e: 20% of a CPU: podman run fails" test "$ct_rc" -ne 0
entry=$(container_entry "$DLD_MSG_REFUSED" t68-e)
is "t68-e: refused by the policy" "$(echo "$entry" | jq -r .DLD_REFUSED_BY)" policy
is "t68-e: the reason" "$(echo "$entry" | jq -r .DLD_REASON)" \
	'the request (20.00% of a CPU) is larger than group "media" allows (max_request_percent 15.00%)'
pm rm -f -t 0 t68-e >/dev/null 2>&1

# --- f: a group without "containers": true admits no container ------------
ct_run t68-f deadline-plain.slice 1 io.dlsched.runtime=1ms io.dlsched.period=20ms
is "t68-f: podman run succeeds (the group degrades)" "$ct_rc" 0
entry=$(container_entry "$DLD_MSG_REFUSED" t68-f)
is "t68-f: refused by the policy" "$(echo "$entry" | jq -r .DLD_REFUSED_BY)" policy
is "t68-f: the reason" "$(echo "$entry" | jq -r .DLD_REASON)" \
	'group "plain" does not admit containers (its policy has no "containers": true)'
is "t68-f: its threads run SCHED_OTHER" "$(tasks_sched "$(ct_pid t68-f)" | awk '{print $1}' | sort -u)" SCHED_OTHER
is "t68-f: no template in its cgroup" "$(cgfile "$(ct_cgroup "$(ct_pid t68-f)")" cpu.dl_template)" none
is "t68-f: the group holds nothing" "$(cgfile /deadline.slice/deadline-plain.slice cpu.dl_total_bw)" 0
pm rm -f -t 0 t68-f >/dev/null 2>&1

# --- d: refused in control (on_refusal degrade): runs as normal tasks ------
ct_run t68-d deadline-control.slice 2 io.dlsched.runtime=2ms io.dlsched.period=20ms io.dlsched.threads=all
is "t68-d: podman run succeeds (degrade)" "$ct_rc" 0
d_pid=$(ct_pid t68-d)
like "t68-d: the hook's line in the journal" "$(hook_lines "$ct_id")" "^t68-d: deadline request degraded, the container runs as normal tasks: "
sleep 0.5
is "t68-d: its threads run SCHED_OTHER" "$(tasks_sched "$d_pid" | awk '{print $1}' | sort -u)" SCHED_OTHER
is "t68-d: dld says degraded" "$(service_state t68-d)" degraded
pm rm -f -t 0 t68-d >/dev/null 2>&1

# --- kill -9 of dld while the containers run -------------------------------
# dld comes back to a policy whose media group no longer admits containers
# (on_refusal: fail): what it admitted stays as it was, and the new policy
# only decides the next container.
write_policy 68-test "$(sed 's/"on_refusal": "fail", "containers": true/"on_refusal": "fail"/' <<< "$DLD_TEST_POLICY")"
old=$(systemctl show -P MainPID dld)
ok "kill -9 dld" kill -9 "$old"
wait_until 20 sh -c "p=\$(systemctl show -P MainPID dld); [ \"\$p\" != 0 ] && [ \"\$p\" != $old ] && systemctl is-active --quiet dld"
ok "systemd restarted dld" systemctl is-active --quiet dld
wait_for 10 '[ "$(service_state t68-a)" = admitted ]'
is "after kill -9: t68-a found again" "$(service_state t68-a)" admitted
is "after kill -9: t68-b found again" "$(service_state t68-b)" admitted
is "after kill -9: media allocation counted once" "$(cgfile $media cpu.dl_total_bw)" "$held_media"
is "after kill -9: pool counted once" "$(knob sched_dl_total_bw)" "$base_pool"
is "after kill -9: t68-a's template in place" "$(cgfile "$a_cg" cpu.dl_template)" "$NCPUS 2000 20000 20000"
ok "after kill -9: t68-a's threads still SCHED_DEADLINE" all_deadline "$a_pid" 3
is "after kill -9: t68-b's threads unchanged" "$(tasks_sched "$b_pid" | sort -u)" \
	"SCHED_DEADLINE 2000000/10000000/20000000"
like "after kill -9: dld lists each container once" "$(dlconf list 2>&1 | grep -c '(container ')" '^2$'
is "after kill -9: t68-a still runs, though media admits no container now" \
	"$(pm inspect -f '{{.State.Running}}' t68-a 2>&1)" true
apply_test_policy 68-test
is "after the test policy is back: t68-a admitted" "$(service_state t68-a)" admitted

# --- podman exec: the template admits the new process while it has room,
# and a process beyond it runs as a normal task; the container stays admitted.
# (crun's own helper process passes through the cgroup first and may hold
# the room a moment: the kernel then admits the exec'd process once the
# helper's bandwidth is back.)
ok "podman exec -d into t68-a" pm exec -d t68-a /ct-worker 1
if [ "$NCPUS" -ge 4 ]; then
	want="nr_tasks 4 nr_over 0 " what="the exec'd process found room: SCHED_DEADLINE"
else
	want="nr_tasks $NCPUS nr_over $(( 4 - NCPUS )) " what="the exec'd process found no room: a normal task"
fi
wait_for 10 '[ "$(cgfile "$a_cg" cpu.dl_template_stat | tr "\n" " ")" = "$want" ]'
is "  $what" "$(cgfile "$a_cg" cpu.dl_template_stat | tr '\n' ' ')" "$want"
is "  t68-a stays admitted" "$(service_state t68-a)" admitted
is "  no refusal of t68-a" "$(journalctl -o json --no-pager --since "@$DLD_TEST_START" MESSAGE_ID=$DLD_MSG_REFUSED \
	DLD_CONTAINER_NAME=t68-a | wc -l)" 0

# --- stop: exactly the container's bandwidth comes back --------------------
t0=$SECONDS
ok "podman stop t68-a" pm stop -t 5 t68-a
diag "podman stop t68-a took $((SECONDS - t0)) s"
wait_for 10 '[ "$(cgfile $media cpu.dl_total_bw)" = "$(( held_media - one_bw ))" ]'
is "after stop: media allocation less t68-a's exactly" "$(cgfile $media cpu.dl_total_bw)" "$(( held_media - one_bw ))"
is "after stop: dld forgot t68-a" "$(service_state t68-a)" none
wait_for 10 '[ -n "$(container_entry $DLD_MSG_RELEASED t68-a)" ]'
entry=$(container_entry "$DLD_MSG_RELEASED" t68-a)
is "after stop: release entry of t68-a" "$(echo "$entry" | jq -r .DLD_CONTAINER_ID)" "$a_id"
# The poststop hook comes after the scope's cgroup went, which dld may
# have learnt first from systemd (the scope inactive): either reason.
diag "t68-a released: $(echo "$entry" | jq -r .DLD_REASON)"
[ -n "$entry" ] || diag "dld on t68-a: $(journalctl -o cat --no-pager --since "@$DLD_TEST_START" -u dld | grep -F -e "$a_id" -e t68-a | tail -n 8)"
like "after stop: released when the container stopped" "$(echo "$entry" | jq -r .DLD_REASON)" "^(the container stopped|the container's cgroup is gone)$"
ok "after stop: t68-a's record is gone from /run/dld" test ! -e "/run/dld/containers/$a_id.conf"
ok "podman rm -f t68-b" pm rm -f -t 2 t68-b
wait_for 10 '[ "$(cgfile $media cpu.dl_total_bw)" = "$base_media" ]'
is "after rm: media allocation back to its value" "$(cgfile $media cpu.dl_total_bw)" "$base_media"
is "after rm: pool back to its value" "$(knob sched_dl_total_bw)" "$base_pool"
is "after rm: dld forgot t68-b" "$(service_state t68-b)" none

# --- malformed annotations: the container does not start -------------------
# bad_run WANT-LINES ANNOTATION...: podman run fails, the hook's lines in
# the journal and podman's stderr have each wanted line (after
# "dlsched-oci-hook: t68-c: "), and nothing runs.
bad_run() {
	local want=$1 line missing="" id lines
	shift
	ct_run t68-c deadline-media.slice 1 "$@"
	id=$(pm inspect -f '{{.Id}}' t68-c 2>/dev/null)
	lines=$(hook_lines "$id")
	while IFS= read -r line; do
		[ -n "$line" ] || continue
		grep -qxF -- "t68-c: $line" <<<"$lines" || missing+="[journal: $line] "
		grep -qF -- "$line" <<<"$ct_err_text" || missing+="[stderr: $line] "
	done <<<"$want"
	if [ "$ct_rc" -ne 0 ] && [ -z "$missing" ] && grep -qxF "t68-c: malformed io.dlsched.* annotations: the container does not start" <<<"$lines"; then
		pass "malformed: $*"
	else
		fail "malformed: $*" "podman exit $ct_rc, missing lines: ${missing:-none}; the hook's lines: $lines; podman's stderr: $ct_err_text"
	fi
	bad_stderr+=$ct_err_text$'\n'
	pm rm -f -t 0 t68-c >/dev/null 2>&1
}
bad_stderr=""
NOT_SPAN="not a time span (expected systemd syntax such as 2ms or 500us)"
RANGE="time span out of range (microsecond resolution, at most 584542 years)"
NOT_COUNT="not a thread count (expected a number from 1 to 1024, or \"all\" for one per CPU)"
KNOWN="(known: io.dlsched.runtime, io.dlsched.period, io.dlsched.deadline, io.dlsched.threads, io.dlsched.group)"
bad_run "io.dlsched.runtime=2xs: $NOT_SPAN
io.dlsched.period=600000 years: $RANGE
io.dlsched.deadline=0: must be greater than zero
io.dlsched.threads=0: must be at least 1 (\"all\" for one per CPU)
io.dlsched.group=media/x: not a group name (letters, digits, '_' and '-', at most 64)" \
	io.dlsched.runtime=2xs "io.dlsched.period=600000 years" io.dlsched.deadline=0 io.dlsched.threads=0 io.dlsched.group=media/x
bad_run "io.dlsched.runtime=99999999999999999999s: $RANGE
io.dlsched.period=ms: $NOT_SPAN
io.dlsched.threads=1025: more than the limit of 1024 threads
io.dlsched.peroid: unknown annotation $KNOWN
io.dlsched.Runtime: annotation keys are lowercase $KNOWN" \
	io.dlsched.runtime=99999999999999999999s io.dlsched.period=ms io.dlsched.threads=1025 io.dlsched.peroid=20ms io.dlsched.Runtime=1ms
bad_run "io.dlsched.runtime=-2ms: $NOT_SPAN
io.dlsched.deadline=: empty value (an annotation cannot reset a key: leave it out)
io.dlsched.threads=0x10: $NOT_COUNT
io.dlsched.period=20ms : leading or trailing whitespace" \
	io.dlsched.runtime=-2ms io.dlsched.deadline= io.dlsched.threads=0x10 "io.dlsched.period=20ms "
bad_run "runtime 30ms, deadline 20ms, period 20ms: runtime is longer than the deadline" \
	io.dlsched.runtime=30ms io.dlsched.period=20ms
bad_run "runtime 1s, deadline 5s, period 5s: period is longer than the kernel's maximum of 4194304us" \
	io.dlsched.runtime=1s io.dlsched.period=5s
bad_run "runtime 10us, deadline 50us, period 50us: period is shorter than the kernel's minimum of 100us" \
	io.dlsched.runtime=10us io.dlsched.period=50us
bad_run "io.dlsched.period is missing: a request needs a runtime and a period" \
	io.dlsched.runtime=2ms io.dlsched.deadline=5ms
is "malformed: podman's stderr has the hook's verdict each time" "$(grep -c '^Error: OCI runtime error: crun: dlsched-oci-hook: t68-c: .*; malformed io.dlsched.\* annotations: the container does not start$' <<<"$bad_stderr")" 7
is "malformed requests changed nothing in media" "$(cgfile $media cpu.dl_total_bw)" "$base_media"
is "malformed requests left no container in dld" "$(dlconf list 2>&1 | grep -c '(container ')" 0

# --- g: the OCI runtime spec's process.scheduler, under runc and crun -------
# A bundle the runtime runs itself (no podman, no annotation), whose
# createRuntime and poststop hooks name the hook: it takes the request
# from process.scheduler. Neither runtime here (runc 1.1, crun 1.8) applies
# the field itself; the template does.
oci_bundle() {
	local dir=$1 name=$2
	mkdir -p "$dir/rootfs"
	tar -xf "$CT_TAR" -C "$dir/rootfs" || return 1
	(cd "$dir" && runc spec) || return 1
	jq --arg hook /usr/libexec/dlsched/dlsched-oci-hook --arg cg "deadline-media.slice:t68:$name" '
		.process.terminal = false | .process.args = ["/ct-worker", "1"] |
		.process.scheduler = {policy: "SCHED_DEADLINE", runtime: 1000000, deadline: 10000000, period: 20000000} |
		.linux.cgroupsPath = $cg |
		.hooks = {createRuntime: [{path: $hook, args: ["dlsched-oci-hook"]}],
			  poststop: [{path: $hook, args: ["dlsched-oci-hook"]}]}' \
		"$dir/config.json" > "$dir/config.new" && mv "$dir/config.new" "$dir/config.json"
}
for rt in runc crun; do
	name=t68-$rt
	if ! command -v "$rt" > /dev/null || ! command -v runc > /dev/null; then
		for _ in 1 2 3 4 5 6 7; do skip "$rt: process.scheduler" "$rt or runc (its spec) is not installed"; done
		continue
	fi
	dir=$(mktemp -d)
	oci_bundle "$dir" "$name"
	"$rt" --systemd-cgroup run -d --bundle "$dir" "$name" < /dev/null > "$dir/out" 2>&1
	is "$rt: a bundle with process.scheduler SCHED_DEADLINE 1ms/10ms/20ms runs" "$?" 0
	[ -s "$dir/out" ] && diag "$rt: $(head -c 400 "$dir/out")"
	pid=$("$rt" state "$name" 2>/dev/null | jq -r .pid)
	is "$rt: dld admitted it" "$(service_state "$name")" admitted
	is "$rt: its cgroup's template: one task of 1ms/10ms/20ms" "$(cgfile "$(ct_cgroup "$pid")" cpu.dl_template)" "1 1000 10000 20000"
	like "$rt: its init is SCHED_DEADLINE with those parameters" "$(chrt -p "$pid" 2>&1 | tr '\n' ' ')" \
		"SCHED_DEADLINE.*1000000/10000000/20000000"
	is "$rt: media holds its bandwidth" "$(cgfile $media cpu.dl_total_bw)" "$(( base_media + $(bw 1000 20000) ))"
	"$rt" kill "$name" KILL > /dev/null 2>&1
	wait_until 10 sh -c "$rt state $name 2>/dev/null | jq -e '.status == \"stopped\"' > /dev/null"
	"$rt" delete "$name" > /dev/null 2>&1
	wait_for 10 '[ "$(cgfile $media cpu.dl_total_bw)" = "$base_media" ]'
	is "$rt: deleted: media back exactly" "$(cgfile $media cpu.dl_total_bw)" "$base_media"
	is "$rt: dld forgot it" "$(service_state "$name")" none
	rm -rf "$dir"
done

# --- dld itself in a privileged container, admitting a host service -------
# (units/CONTAINERS.md, "dld in a container"; the image is dld.tar,
# vm/mkimage.sh: dld and its libraries from the guest's packages)
DLD_IMAGE=localhost/dlsched-dld:latest
ok "systemctl stop dld (the host's)" systemctl stop dld
if ! pm image exists "$DLD_IMAGE"; then
	pm import --quiet /usr/lib/dlsched/containers/dld.tar "$DLD_IMAGE" >/dev/null 2>&1
fi
t0=$SECONDS
# The host's whole cgroup tree: on cgroup v1 podman mounts only the
# container's own cgroup of each controller, --cgroupns=host or not.
out=$(pm run -d --name t68-dld --network=none --pull=never --privileged --pid=host --cgroupns=host \
	-v /sys/fs/cgroup:/sys/fs/cgroup:rw \
	-v /run/dbus/system_bus_socket:/run/dbus/system_bus_socket \
	-v /run/systemd/journal:/run/systemd/journal \
	-v /etc/dld/policies.d:/etc/dld/policies.d:ro -v /run/dld:/run/dld \
	-v /etc/systemd/system:/etc/systemd/system:ro -v /run/systemd/system:/run/systemd/system:ro \
	-v /usr/lib/systemd/system:/usr/lib/systemd/system:ro \
	"$DLD_IMAGE" /usr/sbin/dld 2>&1)
is "podman run dld" "$?" 0
dld_ct_pid=$(ct_pid t68-dld)
wait_until 20 sh -c "busctl --system status org.dlsched.Dld1 2>/dev/null | grep -q '^PID=$dld_ct_pid\$'"
diag "dld in a container owns the bus name after $((SECONDS - t0)) s"
is "the bus name's owner is the containerised dld" "$(busctl --system status org.dlsched.Dld1 2>/dev/null | sed -n 's/^PID=//p')" "$dld_ct_pid"
like "  which runs in a container's scope" "$(cat "/proc/$dld_ct_pid/cgroup" 2>/dev/null)" "libpod-"
make_service t68-svc deadline-media.slice "/bin/sleep infinity" X-DeadlineRuntime=2ms X-DeadlinePeriod=20ms X-DeadlineThreads=all
systemctl start t68-svc
wait_for 10 '[ "$(service_state t68-svc.service)" = admitted ]'
is "the containerised dld admits a host service" "$(service_state t68-svc.service)" admitted
[ "$(service_state t68-svc.service)" = admitted ] ||
	diag "refused: $(journal_json "$DLD_MSG_REFUSED" t68-svc.service | tail -n 1 | jq -r .DLD_REASON)"
like "  its thread SCHED_DEADLINE with the request" "$(chrt -p "$(main_pid t68-svc)" | tr '\n' ' ')" "SCHED_DEADLINE.*2000000/20000000/20000000"
is "  the unit's template" "$(cgfile "$(cgroup_of t68-svc)" cpu.dl_template)" "$NCPUS 2000 20000 20000"
is "  media allocated = the service's reservation" "$(cgfile $media cpu.dl_total_bw)" "$(( base_media + one_bw ))"
entry=$(journal_json $DLD_MSG_ADMITTED t68-svc.service | tail -n 1)
is "  the admission entry comes from the containerised dld" "$(echo "$entry" | jq -r ._PID)" "$dld_ct_pid"
systemctl stop t68-svc
wait_for 10 '[ "$(cgfile $media cpu.dl_total_bw)" = "$base_media" ]'
is "  stopping the service releases it" "$(cgfile $media cpu.dl_total_bw)" "$base_media"
pm rm -f -t 2 t68-dld >/dev/null 2>&1
ok "the host's dld.service starts again" systemctl start dld
done_testing
