#!/bin/bash
# dld restarts without losing or doubling anything: after SIGTERM (clean
# exit, reservations stay) and after kill -9 (systemd restarts it), every
# reservation is there exactly once and dld follows the service again.
. /usr/lib/dlsched/60-dld-lib.inc
dld_require
plan 34

apply_test_policy 63-test
media=/deadline.slice/deadline-media.slice
make_service t63-a deadline-media.slice "/bin/sleep infinity" X-DeadlineRuntime=2ms X-DeadlinePeriod=20ms X-DeadlineThreads=all
make_service t63-b deadline-media.slice "/bin/sleep infinity" X-DeadlineRuntime=1ms X-DeadlinePeriod=10ms X-DeadlineThreads=all
base_media=$(idle_total $media)
systemctl start t63-a t63-b
wait_until 10 test "$(service_state t63-a.service)" = admitted
wait_until 10 test "$(service_state t63-b.service)" = admitted
held_media=$(cgfile $media cpu.dl_total_bw)
held_pool=$(knob sched_dl_total_bw)
is "both admitted" "$held_media" "$(( base_media + NCPUS * $(bw 2000 20000) + NCPUS * $(bw 1000 10000) ))"

# SIGTERM: dld exits, the reservations stay.
ok "systemctl stop dld" systemctl stop dld
is "template kept while dld is down" "$(cgfile "$(cgroup_of t63-a)" cpu.dl_template)" "$NCPUS 2000 20000 20000"
is "thread still SCHED_DEADLINE while dld is down" "$(policy_of "$(main_pid t63-a)")" 6
# An orphan: a reservation in a group's slice that no admitted unit owns.
# (in the control group: media is full with t63-a and t63-b)
make_service t63-c deadline-control.slice "/bin/sleep infinity" CPUWeight=100 Delegate=yes
systemctl start t63-c
orphan=$CPU_MOUNT$(cgroup_of t63-c)
ok "orphan reservation made while dld is down" sh -c "echo 20000 > $orphan/cpu.dl_period_us && echo 1000 > $orphan/cpu.dl_runtime_us"
# Below it, in the unit's own (delegated) subtree, a reservation of its own.
sub=$orphan/t63-sub
if [ -e "$orphan/cgroup.subtree_control" ]; then
	mkdir -p "$orphan/payload"
	echo "$(main_pid t63-c)" > "$orphan/payload/cgroup.procs"
	echo +cpu > "$orphan/cgroup.subtree_control"
fi
ok "a reservation in the unit's delegated subtree" sh -c "mkdir -p $sub && echo 20000 > $sub/cpu.dl_period_us && echo 1000 > $sub/cpu.dl_runtime_us"
ok "dld starts again" systemctl start dld
is "the restarted dld released the orphan" "$(cat "$orphan/cpu.dl_runtime_us")" -1
is "  and left the unit's subtree alone" "$(cat "$sub/cpu.dl_runtime_us")" 1000
echo -1 > "$sub/cpu.dl_runtime_us"
rmdir "$sub"
is "after restart: t63-a followed" "$(service_state t63-a.service)" admitted
is "after restart: media allocation counted once" "$(cgfile $media cpu.dl_total_bw)" "$held_media"
is "after restart: pool counted once" "$(knob sched_dl_total_bw)" "$held_pool"

# kill -9: systemd restarts it (Restart=on-failure).
old=$(systemctl show -P MainPID dld)
ok "kill -9 dld" kill -9 "$old"
wait_until 20 sh -c "p=\$(systemctl show -P MainPID dld); [ \"\$p\" != 0 ] && [ \"\$p\" != $old ] && systemctl is-active --quiet dld"
ok "systemd restarted dld" systemctl is-active --quiet dld
wait_until 10 test "$(service_state t63-b.service)" = admitted
is "after kill -9: t63-b followed" "$(service_state t63-b.service)" admitted
is "after kill -9: media allocation counted once" "$(cgfile $media cpu.dl_total_bw)" "$held_media"
is "after kill -9: pool counted once" "$(knob sched_dl_total_bw)" "$held_pool"
is "after kill -9: threads still SCHED_DEADLINE" "$(policy_of "$(main_pid t63-b)")" 6

# A release by hand holds across a restart of dld, for this run of the unit.
ok "dlconf release t63-b" dlconf release t63-b
is "  thread back to SCHED_OTHER" "$(policy_of "$(main_pid t63-b)")" 0
ok "systemctl restart dld" systemctl restart dld
wait_until 10 test "$(service_state t63-b.service)" = released
is "after restart: t63-b still released" "$(service_state t63-b.service)" released
is "  thread still SCHED_OTHER" "$(policy_of "$(main_pid t63-b)")" 0
is "  no template" "$(cgfile "$(cgroup_of t63-b)" cpu.dl_template)" none
systemctl restart t63-b
wait_until 10 test "$(service_state t63-b.service)" = admitted
is "a new run of the unit is admitted again" "$(service_state t63-b.service)" admitted

# kill -9 while the policy on disk is broken: the policy dld last applied
# (kept in /run/dld/applied) stays in force, and every admission with it.
write_policy 63-zz-broken '{ "groups": [ { "name": "x", "slice": "x.slice", "runtime_us": "lots", "period_us": 1000000 } ] }'
old=$(systemctl show -P MainPID dld)
ok "kill -9 dld with a broken policy on disk" kill -9 "$old"
wait_until 20 sh -c "p=\$(systemctl show -P MainPID dld); [ \"\$p\" != 0 ] && [ \"\$p\" != $old ] && systemctl is-active --quiet dld"
wait_until 10 test "$(service_state t63-a.service)" = admitted
is "after kill -9: t63-a still admitted" "$(service_state t63-a.service)" admitted
is "  its template in place" "$(cgfile "$(cgroup_of t63-a)" cpu.dl_template)" "$NCPUS 2000 20000 20000"
is "  the media group's reservation in place" "$(cgfile $media cpu.dl_runtime_us)" 200000
is "  media allocation counted once" "$(cgfile $media cpu.dl_total_bw)" "$held_media"
like "  the journal says why" "$(journalctl -u dld -o cat --no-pager --since @"$DLD_TEST_START" | grep 'enforcing the policy last applied' | tail -n 1)" \
	'63-zz-broken.json.*enforcing the policy last applied, kept in /run/dld/applied'
rm -f "$DLD_POLICY_DIR/63-zz-broken.json"
ok "the fixed policy reloads" dlconf reload

# And it still releases what it found.
systemctl stop t63-a t63-b
wait_until 10 test "$(cgfile $media cpu.dl_total_bw)" = "$base_media"
is "stop after restart releases" "$(cgfile $media cpu.dl_total_bw)" "$base_media"
wait_until 10 test "$(journal_json $DLD_MSG_RELEASED t63-b.service | wc -l)" -ge 1
ok "releases logged by the new dld" test "$(journal_json $DLD_MSG_RELEASED t63-b.service | wc -l)" -ge 1
done_testing
