#!/bin/bash
# dld applies a policy: sysctls and slice reservations; a broken policy (by
# Reload and by SIGHUP) keeps the old one in force and says why; CheckPolicy.
. /usr/lib/dlsched/60-dld-lib.inc
dld_require
plan 51

write_policy 60-test "$DLD_TEST_POLICY"
ok "Reload applies the policy" dld_call Reload
is "sched_dl_runtime_us" "$(knob sched_dl_runtime_us)" 400000
is "sched_dl_period_us" "$(knob sched_dl_period_us)" 1000000
is "sched_rt_runtime_us" "$(knob sched_rt_runtime_us)" 550000
media=/deadline.slice/deadline-media.slice
control=/deadline.slice/deadline-control.slice
is "media slice cpu.dl_runtime_us" "$(cgfile $media cpu.dl_runtime_us)" 200000
is "media slice cpu.dl_period_us" "$(cgfile $media cpu.dl_period_us)" 1000000
is "control slice cpu.dl_runtime_us" "$(cgfile $control cpu.dl_runtime_us)" 10000
is "control slice cpu.dl_period_us" "$(cgfile $control cpu.dl_period_us)" 100000
want=$(( NCPUS * $(bw 200000 1000000) + NCPUS * $(bw 10000 100000) ))
is "sched_dl_total_bw = both reservations x $NCPUS CPUs" "$(knob sched_dl_total_bw)" "$want"
is "SystemAllocated property" "$(dld_prop SystemAllocated)" "$want"
is "CPUs property" "$(dld_prop CPUs)" "$NCPUS"
groups=$(dld_call ListGroups)
like "ListGroups names both groups" "$groups" '"media" "deadline-media.slice" 200000 1000000 [0-9]+ 0 [0-9]+ 157286 3 0 "degrade" "control"'

# A broken policy by Reload: named error, old policy in force.
write_policy 61-broken '{ "groups": [ { "name": "huge", "slice": "t60-huge.slice", "runtime_us": 900000, "period_us": 1000000 } ] }'
out=$(dld_call Reload 2>&1)
like "Reload of a broken policy fails with PolicyInvalid" "$out" "61-broken.json: \\\$.groups\\[0\\]: group \"huge\" reserves 90.00% of each CPU, more than the system deadline budget"
is "sysctl unchanged after the broken policy" "$(knob sched_dl_runtime_us)" 400000
is "media reservation unchanged" "$(cgfile $media cpu.dl_runtime_us)" 200000
is "no slice made for the broken group" "$(cgfile /t60-huge.slice cpu.dl_runtime_us)" missing
n_rejected=$(journal_json $DLD_MSG_POLICY_REJECTED | wc -l)
ok "the rejection is in the journal" test "$n_rejected" -ge 1

# The same by systemctl reload (dlconf reload, through D-Bus): the job fails.
out=$(systemctl reload dld 2>&1)
is "systemctl reload dld with the broken policy exits non-zero" "$?" 1
like "systemctl says the reload failed" "$out" "Job for dld.service failed"
ok "the reload logs a rejection" test "$(journal_json $DLD_MSG_POLICY_REJECTED | wc -l)" -gt "$n_rejected"
like "systemctl status dld shows why" "$(systemctl status dld --no-pager 2>&1 | grep 'Status:')" \
	'Status: "Policy rejected: /etc/dld/policies.d/61-broken.json: .*the previous one \(2 group\(s\)\) stays in force"'
like "journalctl -x explains the rejection (catalog)" \
	"$(journalctl -x --no-pager -n 1 MESSAGE_ID=$DLD_MSG_POLICY_REJECTED 2>&1)" "Subject: Deadline policy rejected"
is "dld still runs" "$(systemctl is-active dld)" active
is "sysctl unchanged after systemctl reload" "$(knob sched_dl_runtime_us)" 400000
n_rejected=$(journal_json $DLD_MSG_POLICY_REJECTED | wc -l)
# By a bare SIGHUP: the same rejection, without a verdict to return.
ok "kill -HUP dld" systemctl kill -s HUP dld
wait_for 10 '[ "$(journal_json $DLD_MSG_POLICY_REJECTED | wc -l)" -gt "$n_rejected" ]'
ok "SIGHUP with the broken policy logs a rejection" test "$(journal_json $DLD_MSG_POLICY_REJECTED | wc -l)" -gt "$n_rejected"
is "sysctl unchanged after SIGHUP" "$(knob sched_dl_runtime_us)" 400000
ok "dld still running" systemctl is-active --quiet dld

# CheckPolicy validates without applying.
out=$(dld_call CheckPolicy 'a(ss)' 1 x.json '{"groups":[{"name":"a","slice":"a.slice","runtime_us":5,"period_us":1}]}')
like "CheckPolicy reports the error with file and path" "$out" 'x.json: \$.groups\[0\]: runtime_us \(5\) is larger than period_us \(1\)'
args=()
for i in $(seq 257); do args+=("f$i.json" '{}'); done
out=$(dld_call CheckPolicy 'a(ss)' 257 "${args[@]}" 2>&1)
like "CheckPolicy: more than 256 files are refused" "$out" "at most 256 files of 1 MiB in all may be checked"
out=$(dld_call CheckPolicy 'a(ss)' 256 "${args[@]:0:512}" 2>&1)
like "  256 are checked: no error" "$out" "^asa\(sss\) 0 "
rm -f "$DLD_POLICY_DIR/61-broken.json"

# A slice whose cgroup systemd escapes: cpu-rt.slice lies under /_cpu.slice.
write_policy 62-escaped '{ "groups": [ { "name": "rt", "slice": "cpu-rt.slice", "runtime_us": 10000, "period_us": 100000 } ] }'
ok "a policy with cpu-rt.slice applies" dlconf reload
is "  its reservation is on /_cpu.slice/cpu-rt.slice" "$(cgfile /_cpu.slice/cpu-rt.slice cpu.dl_runtime_us)" 10000
make_service t60-rt cpu-rt.slice "/bin/sleep infinity" X-DeadlineRuntime=1ms X-DeadlinePeriod=100ms X-DeadlineThreads=all
systemctl start t60-rt
wait_for 10 '[ "$(service_state t60-rt.service)" = admitted ]'
is "  a service in it is admitted" "$(service_state t60-rt.service)" admitted
is "  the group's allocation counts it" "$(cgfile /_cpu.slice/cpu-rt.slice cpu.dl_total_bw)" "$(( NCPUS * $(bw 1000 100000) ))"
systemctl stop t60-rt
rm -f "$DLD_POLICY_DIR/62-escaped.json"
ok "  and the group goes with its policy" dlconf reload
is "  its reservation released" "$(cgfile /_cpu.slice/cpu-rt.slice cpu.dl_runtime_us)" -1

# A reload that starts 16 slices, each after a unit that takes 9 s: dld
# waits for systemd's jobs from its event loop, answers meanwhile, and its
# watchdog (8 s here) never fires. A failed slice start refuses the policy.
printf '[Service]\nType=oneshot\nExecStart=/bin/sleep 9\n' > "$DLD_UNIT_DIR/t60-slow.service"
printf '[Service]\nType=oneshot\nExecStart=/bin/false\n' > "$DLD_UNIT_DIR/t60-fail.service"
printf '[Unit]\nRequires=t60-fail.service\nAfter=t60-fail.service\n' > "$DLD_UNIT_DIR/t60gbad.slice"
groups=
for i in $(seq -w 1 16); do
	printf '[Unit]\nWants=t60-slow.service\nAfter=t60-slow.service\n' > "$DLD_UNIT_DIR/t60g$i.slice"
	groups+="${groups:+,}{ \"name\": \"g$i\", \"slice\": \"t60g$i.slice\", \"runtime_us\": 200, \"period_us\": 100000 }"
done
mkdir -p /run/systemd/system/dld.service.d
printf '[Service]\nWatchdogSec=8s\n' > /run/systemd/system/dld.service.d/t60-watchdog.conf
systemctl daemon-reload
systemctl restart dld
dld_pid=$(main_pid dld.service)
write_policy 63-sixteen "{ \"groups\": [ $groups ] }"
t0=$(date +%s%N)
dlconf reload > /tmp/t60-reload.out 2>&1 &
reload_pid=$!
sleep 3
ok "dld answers while systemd starts the 16 slices" timeout 3 dlconf status
wait "$reload_pid"
is "  the reload returns success" "$?" 0
elapsed=$(( ($(date +%s%N) - t0) / 1000000 ))
ok "  after the slices started (>= 8 s), within the bus timeout (< 25 s): ${elapsed} ms" test "$elapsed" -ge 8000 -a "$elapsed" -lt 25000
n=0
for i in $(seq -w 1 16); do [ "$(cgfile /t60g$i.slice cpu.dl_runtime_us)" = 200 ] && n=$((n + 1)); done
is "  all 16 groups reserved" "$n" 16
# Two reloads and a SIGHUP while the slices start again: the second waits
# for the first, both answer.
rm -f "$DLD_POLICY_DIR/63-sixteen.json"
dlconf reload >/dev/null 2>&1
systemctl stop 't60g*.slice'
write_policy 63-sixteen "{ \"groups\": [ $groups ] }"
dlconf reload > /tmp/t60-reload1.out 2>&1 &
p1=$!
sleep 0.5
systemctl kill -s HUP dld
dld_call Reload > /tmp/t60-reload2.out 2>&1 &
p2=$!
wait "$p1"; r1=$?
wait "$p2"; r2=$?
is "  two reloads at once both succeed" "$r1 $r2" "0 0"
n=0
for i in $(seq -w 1 16); do [ "$(cgfile /t60g$i.slice cpu.dl_runtime_us)" = 200 ] && n=$((n + 1)); done
is "  and the 16 groups are reserved" "$n" 16
total=$(knob sched_dl_total_bw)
write_policy 64-bad '{ "groups": [ { "name": "bad", "slice": "t60gbad.slice", "runtime_us": 1000, "period_us": 100000 } ] }'
out=$(dld_call Reload 2>&1)
like "a slice whose start fails: the policy is not applied, and why" "$out" 'systemd could not start t60gbad.slice \(its start job ended "dependency"\)'
is "  the policy in force is unchanged" "$(knob sched_dl_total_bw)" "$total"
is "dld was never restarted (its watchdog did not fire)" "$(main_pid dld.service)" "$dld_pid"
is "  no watchdog timeout in the journal" "$(journalctl -b -u dld.service --no-pager -o cat | grep -c 'Watchdog timeout')" 0
rm -f "$DLD_POLICY_DIR/63-sixteen.json" "$DLD_POLICY_DIR/64-bad.json" /run/systemd/system/dld.service.d/t60-watchdog.conf
dlconf reload >/dev/null 2>&1
systemctl stop 't60g*.slice' t60gbad.slice
rm -f "$DLD_UNIT_DIR"/t60g*.slice "$DLD_UNIT_DIR"/t60-slow.service "$DLD_UNIT_DIR"/t60-fail.service
systemctl reset-failed t60-fail.service 't60g*.slice' 2>/dev/null
systemctl daemon-reload
systemctl restart dld

# A group dropped from the policy while dld is down is released when it
# starts again (run_dir/slices remembers what it may have reserved).
write_policy 65-gone '{ "groups": [ { "name": "gone", "slice": "t60gone.slice", "runtime_us": 10000, "period_us": 1000000 } ] }'
dlconf reload >/dev/null 2>&1
is "a group reserved" "$(cgfile /t60gone.slice cpu.dl_runtime_us)" 10000
systemctl stop dld
rm -f "$DLD_POLICY_DIR/65-gone.json"
systemctl start dld
is "  dropped while dld was down: released when it starts" "$(cgfile /t60gone.slice cpu.dl_runtime_us)" -1
systemctl stop t60gone.slice

# Removing the policy releases the groups' reservations.
rm -f "$DLD_POLICY_DIR/60-test.json"
ok "Reload without policy files" dld_call Reload
is "media reservation released" "$(cgfile $media cpu.dl_runtime_us)" -1
done_testing
