#!/bin/bash
# Services with X-Deadline drop-ins: admitted with the requested parameters
# through their cgroup's task template, before their main process runs
# (dlsched-generator's ExecStartPre=), refused by the kernel (degrade) and
# by the policy, refused in a "fail" group (stopped), new processes
# SCHED_DEADLINE from their first instruction, stop releases.
. /usr/lib/dlsched/60-dld-lib.inc
dld_require
plan 45

apply_test_policy 61-test
media=/deadline.slice/deadline-media.slice
base_total=$(knob sched_dl_total_bw)

# a: 2ms every 20ms (10%) on each CPU (X-DeadlineThreads=all) fits media (20% of each).
make_service t61-a deadline-media.slice "/bin/sleep infinity" X-DeadlineRuntime=2ms X-DeadlinePeriod=20ms X-DeadlineThreads=all
ok "t61-a starts" systemctl start t61-a
wait_for 10 '[ "$(service_state t61-a.service)" = admitted ]'
is "t61-a admitted" "$(service_state t61-a.service)" admitted
pid=$(main_pid t61-a)
out=$(chrt -p "$pid")
like "t61-a runs SCHED_DEADLINE" "$out" "SCHED_DEADLINE"
like "t61-a has the requested parameters" "$out" "runtime/deadline/period parameters: 2000000/20000000/20000000"
ok "t61-a has no flags (its children are admitted by the template)" test "${out/RESET_ON_FORK/}" = "$out"
ok "the generator gave t61-a its ExecStartPre=" test -f /run/systemd/generator/t61-a.service.d/50-dlsched.conf
like "  which ran: dld admitted it before its main process" "$(journalctl -u t61-a --no-pager -o cat --since "@$DLD_TEST_START")" \
	"t61-a.service: admitted"
cg=$(cgroup_of t61-a)
is "unit cgroup's task template: one task per CPU" "$(cgfile "$cg" cpu.dl_template)" "$NCPUS 2000 20000 20000"
is "  and no per-CPU reservation" "$(cgfile "$cg" cpu.dl_runtime_us)" -1
is "  the template admitted its process" "$(cgfile "$cg" cpu.dl_template_stat | tr '\n' ' ')" "nr_tasks 1 nr_over 0 "
a_bw=$(( NCPUS * $(bw 2000 20000) ))
is "media slice allocated = the unit's reservation" "$(cgfile $media cpu.dl_total_bw)" "$a_bw"
is "unit cgroup allocated = its thread" "$(cgfile "$cg" cpu.dl_total_bw)" "$(bw 2000 20000)"
is "system pool unchanged by a reservation inside a group" "$(knob sched_dl_total_bw)" "$base_total"
n=$(journal_json $DLD_MSG_ADMITTED t61-a.service | wc -l)
is "one admission entry for t61-a" "$n" 1

# b: 3ms/20ms (15%) on each CPU does not fit the 10% of each media has left:
# the kernel refuses, the group degrades it.
make_service t61-b deadline-media.slice "/bin/sleep infinity" X-DeadlineRuntime=3ms X-DeadlinePeriod=20ms X-DeadlineThreads=all
ok "t61-b starts" systemctl start t61-b
wait_for 10 '[ "$(service_state t61-b.service)" = degraded ]'
is "t61-b degraded" "$(service_state t61-b.service)" degraded
is "t61-b runs as a normal task" "$(policy_of "$(main_pid t61-b)")" 0
ok "t61-b still active" systemctl is-active --quiet t61-b
entry=$(journal_json $DLD_MSG_REFUSED t61-b.service | tail -n 1)
is "refusal: UNIT=" "$(echo "$entry" | jq -r .UNIT)" t61-b.service
is "refusal: DLD_GROUP=" "$(echo "$entry" | jq -r .DLD_GROUP)" media
is "refusal: request" "$(echo "$entry" | jq -r '[.DLD_RUNTIME_USEC,.DLD_DEADLINE_USEC,.DLD_PERIOD_USEC]|join("/")')" 3000/20000/20000
is "refusal: ERRNO=EBUSY" "$(echo "$entry" | jq -r '.ERRNO + " " + .DLD_ERRNO_NAME')" "16 EBUSY"
is "refusal: by the kernel's admission control" "$(echo "$entry" | jq -r .DLD_REFUSED_BY)" admission
is "refusal: bandwidth left in the group" "$(echo "$entry" | jq -r .DLD_FREE_BW)" "$(( NCPUS * $(bw 200000 1000000) - a_bw ))"
is "refusal: action" "$(echo "$entry" | jq -r .DLD_ACTION)" degrade
is "refusal: priority warning" "$(echo "$entry" | jq -r .PRIORITY)" 4
is "media allocation unchanged by the refusal" "$(cgfile $media cpu.dl_total_bw)" "$a_bw"

# c: 4ms/20ms = 20% is more than media's max_request_percent (15%): the policy refuses.
make_service t61-c deadline-media.slice "/bin/sleep infinity" X-DeadlineRuntime=4ms X-DeadlinePeriod=20ms
systemctl start t61-c
wait_for 10 '[ "$(service_state t61-c.service)" = degraded ]'
entry=$(journal_json $DLD_MSG_REFUSED t61-c.service | tail -n 1)
is "policy refusal says why" "$(echo "$entry" | jq -r .DLD_REASON)" \
	'the request (20.00% of a CPU) is larger than group "media" allows (max_request_percent 15.00%)'
is "policy refusal: by policy" "$(echo "$entry" | jq -r .DLD_REFUSED_BY)" policy

# d: 2ms/10ms (20%) on each CPU in control (10% of each), on_refusal=fail: dld stops the unit.
make_service t61-d deadline-control.slice "/bin/sleep infinity" X-DeadlineRuntime=2ms X-DeadlinePeriod=10ms X-DeadlineThreads=all
systemctl start t61-d
wait_until 15 sh -c '! systemctl is-active --quiet t61-d'
ok "t61-d stopped by dld" sh -c '! systemctl is-active --quiet t61-d'
entry=$(journal_json $DLD_MSG_REFUSED t61-d.service | tail -n 1)
is "fail refusal: action" "$(echo "$entry" | jq -r .DLD_ACTION)" fail

# f: a one-thread service of the "fail" group reloads (ExecReload=): the
# reload's process finds no room in the template and runs as a normal task;
# the service stays running and admitted.
make_service t61-f deadline-control.slice "/bin/sleep infinity" X-DeadlineRuntime=5ms X-DeadlinePeriod=50ms \
	"ExecReload=/bin/sleep 2"
systemctl start t61-f
wait_for 10 '[ "$(service_state t61-f.service)" = admitted ]'
ok "t61-f (on_refusal fail) reloads" systemctl reload t61-f
is "  still active" "$(systemctl is-active t61-f)" active
is "  still admitted" "$(service_state t61-f.service)" admitted
is "  no refusal" "$(journal_json $DLD_MSG_REFUSED t61-f.service | wc -l)" 0
like "  its main process still SCHED_DEADLINE" "$(chrt -p "$(main_pid t61-f)")" "SCHED_DEADLINE"
wait_for 5 '[ "$(journal_json $DLD_MSG_THREADS_OVER t61-f.service | wc -l)" -ge 1 ]'
is "  the reload's process ran as a normal task (DLD_THREADS_OVER=1)" \
	"$(journal_json $DLD_MSG_THREADS_OVER t61-f.service | tail -n 1 | jq -r .DLD_THREADS_OVER)" 1
systemctl stop t61-f

# e: the main process and the processes it starts later are SCHED_DEADLINE
# from their first instruction: each records its own policy as it starts.
systemctl stop t61-b t61-c
cat > /run/t61-e.sh <<'SCRIPT'
#!/bin/sh
chrt -p $$ > /run/t61-e.main
sleep 1
sh -c 'chrt -p $$' > /run/t61-e.child
exec sleep infinity
SCRIPT
chmod 0755 /run/t61-e.sh
rm -f /run/t61-e.main /run/t61-e.child
make_service t61-e deadline-media.slice /run/t61-e.sh X-DeadlineRuntime=1ms X-DeadlinePeriod=20ms X-DeadlineThreads=all
systemctl start t61-e
wait_until 30 test -s /run/t61-e.child
like "t61-e's main process was SCHED_DEADLINE at its start" "$(cat /run/t61-e.main 2>/dev/null)" "SCHED_DEADLINE"
like "  a process it started later, too" "$(cat /run/t61-e.child 2>/dev/null)" "SCHED_DEADLINE"
like "  with the unit's parameters" "$(cat /run/t61-e.child 2>/dev/null)" "1000000/20000000/20000000"
rm -f /run/t61-e.sh /run/t61-e.main /run/t61-e.child

# Stopping releases everything.
systemctl stop t61-a t61-e
wait_for 10 '[ "$(cgfile $media cpu.dl_total_bw)" = 0 ]'
is "media slice allocated back to 0" "$(cgfile $media cpu.dl_total_bw)" 0
is "system pool back to its value" "$(knob sched_dl_total_bw)" "$base_total"
wait_for 10 '[ "$(journal_json $DLD_MSG_RELEASED t61-a.service | wc -l)" -ge 1 ]'
ok "release logged" test "$(journal_json $DLD_MSG_RELEASED t61-a.service | wc -l)" -ge 1

# Two units of a group that holds one service, started at once in a new
# slice: both wait for systemd to give their cgroups the cpu controller,
# and the group's rules are checked again after the wait. One is admitted.
write_policy 61-one '{ "groups": [ { "name": "one", "slice": "t61one.slice", "runtime_us": 100000,
                                     "period_us": 1000000, "max_services": 1 } ] }'
dld_call Reload > /dev/null || fail "the max_services 1 policy applies" "$(dld_call Reload 2>&1)"
add_service t61-o1 t61one.slice "/bin/sleep infinity" X-DeadlineRuntime=1ms X-DeadlinePeriod=20ms
make_service t61-o2 t61one.slice "/bin/sleep infinity" X-DeadlineRuntime=1ms X-DeadlinePeriod=20ms
systemctl start t61-o1 t61-o2
both() { echo "$(service_state t61-o1.service) $(service_state t61-o2.service)" | tr ' ' '\n' | sort | tr '\n' ' '; }
for _ in $(seq 50); do case "$(both)" in *none*|*admitting*) sleep 0.2;; *) break;; esac; done
is "two units at once in a group of max_services 1: one admitted, one degraded" "$(both)" "admitted degraded "
is "  the slice holds one unit's reservation" "$(cgfile /t61one.slice cpu.dl_total_bw)" "$(bw 1000 20000)"
systemctl stop t61-o1 t61-o2
done_testing
