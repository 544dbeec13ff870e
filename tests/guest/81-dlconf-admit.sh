#!/bin/bash
# dlconf admit, release and reload against the live dld: what they change,
# how refusals come out (one line, exit status, journal); who may read
# (anyone) and write (root, or polkit's org.dlsched.dld1.manage).
. /usr/lib/dlsched/60-dld-lib.inc
dld_require
plan 78

write_policy 81-test "$DLD_TEST_POLICY"
dlconf reload || fail "policy applies"
add_service t81-a deadline-media.slice "/bin/sleep infinity"
add_service t81-sys system.slice "/bin/sleep infinity"
make_service t81-off deadline-media.slice "/bin/sleep infinity"
systemctl start t81-a t81-sys
pid=$(main_pid t81-a)

out=$(dlconf admit t81-a --runtime=2ms --period=20ms 2>&1); rc=$?
is "admit exits 0" "$rc" 0
is "  and prints nothing" "$out" ""
like "  thread SCHED_DEADLINE 2ms/20ms/20ms" "$(chrt -p "$pid")" "runtime/deadline/period parameters: 2000000/20000000/20000000"
is "  show: admitted" "$(dlconf show --json t81-a | jq -r .state)" admitted
is "  show: by hand" "$(dlconf show --json t81-a | jq -r .source)" manual
is "  the unit's cgroup's template: one task of 2ms/20ms" "$(cgfile "$(cgroup_of t81-a)" cpu.dl_template)" \
	"1 2000 20000 20000"
is "  show: for 1 thread" "$(dlconf show --json t81-a | jq -r .threads_requested)" 1

out=$(dlconf release t81-a 2>&1); rc=$?
is "release exits 0" "$rc" 0
is "  thread back to SCHED_OTHER" "$(policy_of "$pid")" 0
is "  template given back" "$(cgfile "$(cgroup_of t81-a)" cpu.dl_template)" none

ok "admit with a deadline" dlconf admit t81-a.service --runtime=1ms --deadline=5ms --period=20ms
like "  deadline 5ms" "$(chrt -p "$pid")" "1000000/5000000/20000000"
dlconf release t81-a

# Refusals: exit 3, one line, a journal entry, nothing changed.
before=$(dld_prop SystemAllocated)
out=$(dlconf admit t81-a --runtime=5ms --period=20ms 2>&1); rc=$?
is "admit larger than max_request_percent: exit 3" "$rc" 3
like "  one line: refused and why" "$out" "^dlconf: t81-a.service: refused: [^"$'\n'"]*max_request_percent[^"$'\n'"]*$"
is "  thread stays SCHED_OTHER" "$(policy_of "$pid")" 0
is "  nothing allocated" "$(dld_prop SystemAllocated)" "$before"
wait_until 10 sh -c "journalctl -o json --no-pager --since @$DLD_TEST_START MESSAGE_ID=$DLD_MSG_REFUSED UNIT=t81-a.service | grep -q ."
entry=$(journal_json "$DLD_MSG_REFUSED" t81-a.service | tail -n 1)
is "  journal: DLD_REFUSED_BY=policy" "$(jq -r .DLD_REFUSED_BY <<< "$entry")" policy
is "  journal: DLD_RUNTIME_USEC=5000" "$(jq -r .DLD_RUNTIME_USEC <<< "$entry")" 5000

out=$(dlconf admit t81-a --runtime=30ms --period=20ms 2>&1); rc=$?
is "admit with runtime > period: exit 2 before any call" "$rc" 2
is "  says so" "$out" "dlconf: admit: runtime is longer than the deadline"
out=$(dlconf admit t81-a --runtime=2ms 2>&1); rc=$?
is "admit without a period: exit 2" "$rc" 2
out=$(dlconf admit t81-off --runtime=2ms --period=20ms 2>&1); rc=$?
is "admit of an inactive unit: exit 1" "$rc" 1
out=$(dlconf admit t81-sys --runtime=2ms --period=20ms 2>&1); rc=$?
is "admit of a unit in no group: exit 1" "$rc" 1
like "  says which slice" "$out" "^dlconf: t81-sys.service: .*system.slice"
out=$(dlconf release t81-none 2>&1); rc=$?
is "release of an unknown unit: exit 1" "$rc" 1

ok "reload exits 0" dlconf reload
write_policy 81-zz-broken '{ "groups": [ { "name": "x", "slice": "x.slice", "runtime_us": "lots", "period_us": 1000000 } ] }'
out=$(dlconf reload 2>&1); rc=$?
is "reload of a broken policy: exit 6" "$rc" 6
like "  names the file and the JSON path" "$out" "^dlconf: reload: .*81-zz-broken.json: \\\$.groups\[0\].runtime_us: "
is "  the previous policy stays in force" "$(knob sched_dl_runtime_us)" 400000
rm -f "$DLD_POLICY_DIR/81-zz-broken.json"

# A refused new request by hand leaves the working admission as it was.
make_service t81-b deadline-media.slice "/bin/sleep infinity"
systemctl start t81-b
ok "admit t81-a 2ms/20ms on each CPU" dlconf admit t81-a --runtime=2ms --period=20ms --threads=all
is "  show: for all CPUs" "$(dlconf show --json t81-a | jq -r .threads_requested)" all
before=$(dld_prop SystemAllocated)
out=$(dlconf admit t81-a --runtime=5ms --period=20ms --threads=all 2>&1); rc=$?
is "re-admit over max_request_percent: exit 3" "$rc" 3
like "  says the admission stays" "$out" "refused: .*max_request_percent.*; the existing admission stays as it was"
is "  still admitted" "$(dlconf show --json t81-a | jq -r .state)" admitted
like "  thread still 2ms/20ms" "$(chrt -p "$pid")" "2000000/20000000/20000000"
is "  template still 2ms/20ms" "$(cgfile "$(cgroup_of t81-a)" cpu.dl_template)" "$NCPUS 2000 20000 20000"
is "  nothing allocated" "$(dld_prop SystemAllocated)" "$before"
# t81-b takes the rest of the group (20% of each CPU): 12.5% of each CPU
# for t81-a fits the policy, not the kernel's admission.
ok "admit t81-b 2ms/20ms on each CPU" dlconf admit t81-b --runtime=2ms --period=20ms --threads=all
group_total=$(cgfile /deadline.slice/deadline-media.slice cpu.dl_total_bw)
unit_total=$(cgfile "$(cgroup_of t81-a)" cpu.dl_total_bw)
out=$(dlconf admit t81-a --runtime=2500us --period=20ms --threads=all 2>&1); rc=$?
is "re-admit that the group cannot hold: exit 3" "$rc" 3
like "  refused by the kernel, the admission stays" "$out" "refused: the kernel refused the template .*Device or resource busy.*; the existing admission stays as it was"
like "  thread still 2ms/20ms" "$(chrt -p "$pid")" "2000000/20000000/20000000"
is "  template still 2ms/20ms" "$(cgfile "$(cgroup_of t81-a)" cpu.dl_template)" "$NCPUS 2000 20000 20000"
# The old template went back: the kernel's totals are exactly as before
# (once the demoted tasks' bandwidth is back, at their 0-lag time).
wait_for 5 '[ "$(cgfile "$(cgroup_of t81-a)" cpu.dl_total_bw)" = "$unit_total" ]'
is "  its cgroup's cpu.dl_total_bw as before" "$(cgfile "$(cgroup_of t81-a)" cpu.dl_total_bw)" "$unit_total"
is "  the group's cpu.dl_total_bw as before" "$(cgfile /deadline.slice/deadline-media.slice cpu.dl_total_bw)" "$group_total"
entry=$(journal_json "$DLD_MSG_REFUSED" t81-a.service | tail -n 1)
is "  journal: the refused request, action none" "$(jq -r '.DLD_RUNTIME_USEC + " " + .DLD_ACTION' <<< "$entry")" "2500 none"
ok "a smaller new request is taken" dlconf admit t81-a --runtime=1ms --period=20ms --threads=all
like "  thread now 1ms/20ms" "$(chrt -p "$pid")" "1000000/20000000/20000000"
is "  template now 1ms/20ms" "$(cgfile "$(cgroup_of t81-a)" cpu.dl_template)" "$NCPUS 1000 20000 20000"
dlconf release t81-b
ok "with room again, a larger new request is taken" dlconf admit t81-a --runtime=3ms --period=20ms --threads=all
like "  thread now 3ms/20ms" "$(chrt -p "$pid")" "3000000/20000000/20000000"
is "  template now 3ms/20ms" "$(cgfile "$(cgroup_of t81-a)" cpu.dl_template)" "$NCPUS 3000 20000 20000"
dlconf release t81-a
systemctl stop t81-b

# The same for a unit that owns its cgroup (Delegate=yes: dld never touches
# its threads): a per-CPU reservation (cpu.dl_runtime_us), not a template.
make_service t81-p deadline-media.slice "/bin/sleep infinity" Delegate=yes \
	X-DeadlineRuntime=2ms X-DeadlinePeriod=20ms X-DeadlineThreads=all
systemctl start t81-p t81-b
wait_for 10 '[ "$(service_state t81-p.service)" = admitted ]'
p_files() { echo "$(cgfile "$(cgroup_of t81-p)" cpu.dl_runtime_us) $(cgfile "$(cgroup_of t81-p)" cpu.dl_period_us)"; }
is "Delegate=yes unit: admitted, 2ms of each 20ms on each CPU" "$(service_state t81-p.service) $(p_files)" "admitted 2000 20000"
ok "  admit t81-b 2ms/20ms on each CPU: the group is full" dlconf admit t81-b --runtime=2ms --period=20ms --threads=all
group_total=$(cgfile /deadline.slice/deadline-media.slice cpu.dl_total_bw)
out=$(dlconf admit t81-p --runtime=2500us --period=20ms --threads=all 2>&1); rc=$?
is "  re-admit that the group cannot hold: exit 3" "$rc" 3
like "  the admission stays" "$out" "; the existing admission stays as it was"
is "  its cpu.dl_runtime_us and cpu.dl_period_us as before, still admitted" "$(p_files) $(service_state t81-p.service)" \
	"2000 20000 admitted"
is "  the group's cpu.dl_total_bw as before" "$(cgfile /deadline.slice/deadline-media.slice cpu.dl_total_bw)" "$group_total"
ok "  a smaller new request is taken" dlconf admit t81-p --runtime=1ms --period=20ms --threads=all
is "  cpu.dl_runtime_us now 1000" "$(p_files)" "1000 20000"
dlconf release t81-b
ok "  with room again, a larger one is taken" dlconf admit t81-p --runtime=3ms --period=20ms --threads=all
is "  cpu.dl_runtime_us now 3000" "$(p_files)" "3000 20000"
dlconf release t81-p
systemctl stop t81-b t81-p

# Reading is open; writing needs root or polkit (org.dlsched.dld1.manage).
# uid 1000 is an operator's first user (the bus wants a user it can name).
as_user() { local uid=$1; shift; setpriv --reuid="$uid" --regid="$uid" --clear-groups "$@"; }
rule=/etc/polkit-1/rules.d/50-t81-dlsched.rules
trap 'rm -f "$rule"; getent passwd t81op > /dev/null && userdel t81op; dld_cleanup' EXIT
getent passwd 1000 > /dev/null || useradd --no-create-home --uid 1000 --user-group --shell /usr/sbin/nologin t81op

out=$(as_user 1000 dlconf status 2>&1); rc=$?
is "uid 1000: dlconf status exits 0" "$rc" 0
is "  and shows what root sees" "$out" "$(dlconf status 2>&1)"
out=$(as_user 1000 dlconf --json list 2>&1); rc=$?
is "uid 1000: dlconf --json list exits 0" "$rc" 0
ok "  valid JSON" jq -e . <<< "$out"
systemctl start t81-a
out=$(as_user 65534 dlconf reload 2>&1); rc=$?
is "nobody: dlconf reload, exit 5" "$rc" 5
like "  permission denied, naming the polkit action, one line" "$out" \
	"^dlconf: reload: permission denied \(not authorized: this needs root or the polkit action org.dlsched.dld1.manage( \(authentication required\))?\)$"
out=$(as_user 65534 dlconf admit t81-a --runtime=1ms --period=20ms 2>&1); rc=$?
is "nobody: dlconf admit, exit 5" "$rc" 5
is "  nothing admitted: no template" "$(cgfile "$(cgroup_of t81-a)" cpu.dl_template)" none
out=$(as_user 65534 busctl --system call org.dlsched.Dld1 /org/dlsched/Dld1 org.dlsched.Dld1.Manager \
	PrepareUnit ss t81-a.service '' 2>&1)
like "nobody: PrepareUnit is root's only" "$out" "Access denied"
# A polkit rule grants the action to nobody: polkitd reloads its rules
# when the directory changes.
cat > "$rule" <<'RULE'
polkit.addRule(function(action, subject) {
	if (action.id == "org.dlsched.dld1.manage" && subject.user == "nobody")
		return polkit.Result.YES;
});
RULE
wait_until 10 sh -c "setpriv --reuid=65534 --regid=65534 --clear-groups dlconf reload > /dev/null 2>&1"
out=$(as_user 65534 dlconf reload 2>&1); rc=$?
is "nobody, allowed by a polkit rule: dlconf reload exits 0" "$rc" 0
out=$(as_user 65534 dlconf admit t81-a --runtime=1ms --period=20ms 2>&1); rc=$?
is "  dlconf admit exits 0" "$rc" 0
is "  admitted" "$(service_state t81-a.service)" admitted
is "  template 1ms/20ms" "$(cgfile "$(cgroup_of t81-a)" cpu.dl_template)" "1 1000 20000 20000"
is "uid 1000: dlconf show says admitted" "$(as_user 1000 dlconf show --json t81-a | jq -r .state)" admitted
ok "  dlconf release exits 0" as_user 65534 dlconf release t81-a
is "  released: no template" "$(cgfile "$(cgroup_of t81-a)" cpu.dl_template)" none
rm -f "$rule"
wait_until 10 sh -c "! setpriv --reuid=65534 --regid=65534 --clear-groups dlconf reload > /dev/null 2>&1"
out=$(as_user 65534 dlconf reload 2>&1); rc=$?
is "the rule removed: refused again, exit 5" "$rc" 5
systemctl stop t81-a
done_testing
