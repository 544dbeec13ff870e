#!/bin/bash
# dld restarts without losing or doubling anything: after SIGTERM (clean
# exit, reservations stay) and after kill -9 (systemd restarts it), every
# reservation is there exactly once and dld follows the service again.
. /usr/lib/dlsched/60-dld-lib.inc
dld_require
plan 80

apply_test_policy 63-test
media=/deadline.slice/deadline-media.slice
add_service t63-a deadline-media.slice "/bin/sleep infinity" X-DeadlineRuntime=2ms X-DeadlinePeriod=20ms X-DeadlineThreads=all
make_service t63-b deadline-media.slice "/bin/sleep infinity" X-DeadlineRuntime=1ms X-DeadlinePeriod=10ms X-DeadlineThreads=all
base_media=$(idle_total $media)
systemctl start t63-a t63-b
wait_for 10 '[ "$(service_state t63-a.service)" = admitted ]'
wait_for 10 '[ "$(service_state t63-b.service)" = admitted ]'
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
wait_for 10 '[ "$(service_state t63-b.service)" = admitted ]'
is "after kill -9: t63-b followed" "$(service_state t63-b.service)" admitted
is "after kill -9: media allocation counted once" "$(cgfile $media cpu.dl_total_bw)" "$held_media"
is "after kill -9: pool counted once" "$(knob sched_dl_total_bw)" "$held_pool"
is "after kill -9: threads still SCHED_DEADLINE" "$(policy_of "$(main_pid t63-b)")" 6

# A release by hand holds across a restart of dld, for this run of the unit.
ok "dlconf release t63-b" dlconf release t63-b
is "  thread back to SCHED_OTHER" "$(policy_of "$(main_pid t63-b)")" 0
ok "systemctl restart dld" systemctl restart dld
wait_for 10 '[ "$(service_state t63-b.service)" = released ]'
is "after restart: t63-b still released" "$(service_state t63-b.service)" released
is "  thread still SCHED_OTHER" "$(policy_of "$(main_pid t63-b)")" 0
is "  no template" "$(cgfile "$(cgroup_of t63-b)" cpu.dl_template)" none
systemctl restart t63-b
wait_for 10 '[ "$(service_state t63-b.service)" = admitted ]'
is "a new run of the unit is admitted again" "$(service_state t63-b.service)" admitted

# kill -9 while the policy on disk is broken: the policy dld last applied
# (kept in /run/dld/applied) stays in force, and every admission with it.
write_policy 63-zz-broken '{ "groups": [ { "name": "x", "slice": "x.slice", "runtime_us": "lots", "period_us": 1000000 } ] }'
old=$(systemctl show -P MainPID dld)
ok "kill -9 dld with a broken policy on disk" kill -9 "$old"
wait_until 20 sh -c "p=\$(systemctl show -P MainPID dld); [ \"\$p\" != 0 ] && [ \"\$p\" != $old ] && systemctl is-active --quiet dld"
wait_for 10 '[ "$(service_state t63-a.service)" = admitted ]'
is "after kill -9: t63-a still admitted" "$(service_state t63-a.service)" admitted
is "  its template in place" "$(cgfile "$(cgroup_of t63-a)" cpu.dl_template)" "$NCPUS 2000 20000 20000"
is "  the media group's reservation in place" "$(cgfile $media cpu.dl_runtime_us)" 200000
is "  media allocation counted once" "$(cgfile $media cpu.dl_total_bw)" "$held_media"
like "  the journal says why" "$(journalctl -u dld -o cat --no-pager --since @"$DLD_TEST_START" | grep 'enforcing the policy last applied' | tail -n 1)" \
	'63-zz-broken.json.*enforcing the policy last applied, kept in /run/dld/applied'
rm -f "$DLD_POLICY_DIR/63-zz-broken.json"
ok "the fixed policy reloads" dlconf reload

# A restart of dld keeps what it admitted for the unit's running
# activation, whatever its files say now: a new request waits for the
# unit's next start. (The control group: 10% per CPU, on_refusal fail.)
control=/deadline.slice/deadline-control.slice
base_control=$(idle_total $control)
make_service t63-d deadline-control.slice "/bin/sleep infinity" X-DeadlineRuntime=5ms X-DeadlinePeriod=50ms
systemctl start t63-d
wait_for 10 '[ "$(service_state t63-d.service)" = admitted ]'
cg_d=$(cgroup_of t63-d)
pid_d=$(main_pid t63-d)
held_control=$(cgfile $control cpu.dl_total_bw)
is "t63-d admitted: 1 5000 50000 50000" "$(cgfile "$cg_d" cpu.dl_template)" "1 5000 50000 50000"
like "  its admission recorded in /run/dld/admitted" "$(cat /run/dld/admitted/t63-d.service.conf 2>&1)" \
	"Invocation=$(systemctl show -P InvocationID t63-d)"
set_request_d() { printf '[Service]\n%s\n' "$@" > "$DLD_UNIT_DIR/t63-d.service.d/deadline.conf"; systemctl daemon-reload; }
check_kept_d() {
	wait_for 10 '[ "$(service_state t63-d.service)" = admitted ]'
	is "  $1: the service runs, the same process" "$(systemctl is-active t63-d) $(main_pid t63-d)" "active $pid_d"
	is "  $1: still admitted" "$(service_state t63-d.service)" admitted
	is "  $1: its template as admitted" "$(cgfile "$cg_d" cpu.dl_template)" "1 5000 50000 50000"
	is "  $1: its process SCHED_DEADLINE" "$(policy_of "$pid_d")" 6
	is "  $1: the group holds what it held" "$(cgfile $control cpu.dl_total_bw)" "$held_control"
}
set_request_d X-DeadlineRuntime=2ms X-DeadlinePeriod=50ms
ok "systemctl restart dld, the drop-in now 2ms/50ms" systemctl restart dld
check_kept_d "a smaller request on disk"
like "  dlconf show: the new request waits" "$(dlconf show t63-d 2>&1)" \
	"Waiting: runtime 2ms, deadline 50ms, period 50ms, 1 thread"
set_request_d X-DeadlineRuntime=9ms X-DeadlinePeriod=50ms
old=$(systemctl show -P MainPID dld)
ok "kill -9 dld, the drop-in now 9ms/50ms (more than the group holds)" kill -9 "$old"
wait_until 20 sh -c "p=\$(systemctl show -P MainPID dld); [ \"\$p\" != 0 ] && [ \"\$p\" != $old ] && systemctl is-active --quiet dld"
check_kept_d "a larger request on disk"
set_request_d X-DeadlineRuntime=lots X-DeadlinePeriod=50ms
ok "systemctl restart dld, the drop-in now malformed" systemctl restart dld
check_kept_d "a malformed drop-in"
like "  dlconf show: says so" "$(dlconf show t63-d 2>&1)" "Waiting: malformed"
# Its record damaged too: nothing tells dld what it admitted, but what the
# kernel holds in the unit's cgroup may be that: the sweep leaves it alone.
echo "[Admission]" > /run/dld/admitted/t63-d.service.conf
ok "systemctl restart dld, the drop-in malformed and the record damaged" systemctl restart dld
wait_until 10 dlconf status
is "  the template left in place" "$(cgfile "$cg_d" cpu.dl_template)" "1 5000 50000 50000"
set_request_d X-DeadlineRuntime=5ms X-DeadlinePeriod=50ms
# A record cut short (a crash mid-write leaves the old one, renamed into
# place; a damaged one is refused whole): dld decides again, from the files.
echo "[Admission]" > /run/dld/admitted/t63-d.service.conf
ok "systemctl restart dld with a damaged record" systemctl restart dld
wait_for 10 '[ "$(service_state t63-d.service)" = admitted ]'
is "  decided again from the drop-in: admitted, the same template" "$(service_state t63-d.service) $(cgfile "$cg_d" cpu.dl_template)" \
	"admitted 1 5000 50000 50000"
like "  the record is whole again" "$(cat /run/dld/admitted/t63-d.service.conf 2>&1)" "Unit=t63-d.service"
set_request_d X-DeadlineRuntime=2ms X-DeadlinePeriod=50ms
ok "the unit's next start" systemctl restart t63-d
wait_for 10 '[ "$(cgfile "$(cgroup_of t63-d)" cpu.dl_template)" = "1 2000 50000 50000" ]'
is "  takes the request on disk" "$(cgfile "$(cgroup_of t63-d)" cpu.dl_template)" "1 2000 50000 50000"
unlike "  and nothing waits" "$(dlconf show t63-d 2>&1)" "Waiting"
systemctl stop t63-d
wait_until 10 test ! -e /run/dld/admitted/t63-d.service.conf
ok "  a stopped unit's record is gone" test ! -e /run/dld/admitted/t63-d.service.conf
wait_for 10 '[ "$(cgfile $control cpu.dl_total_bw)" = "$base_control" ]'
is "  and the group is back where it was" "$(cgfile $control cpu.dl_total_bw)" "$base_control"

# The policy directory gone: a mistake, not an empty policy. The groups
# keep their reservations, and the services theirs.
mv "$DLD_POLICY_DIR" "$DLD_POLICY_DIR.away"
ok "systemctl restart dld without a policy directory" systemctl restart dld
is "  the media group keeps its reservation" "$(cgfile $media cpu.dl_runtime_us)" 200000
wait_for 10 '[ "$(service_state t63-a.service)" = admitted ]'
is "  t63-a still admitted" "$(service_state t63-a.service)" admitted
like "  the journal says why" "$(journalctl -u dld -o cat --no-pager --since @"$DLD_TEST_START" | grep 'does not exist' | tail -n 1)" \
	'the policy directory does not exist'
# dld killed between the two renames that keep the policy in force
# (applied.old/ alone): that policy was applied all the same.
systemctl stop dld
rm -rf /run/dld/applied.old
mv -T /run/dld/applied /run/dld/applied.old
ok "start dld without a policy directory, the policy in force in applied.old only" systemctl start dld
is "  the media group keeps its reservation" "$(cgfile $media cpu.dl_runtime_us)" 200000
wait_for 10 '[ "$(service_state t63-a.service)" = admitted ]'
is "  t63-a still admitted" "$(service_state t63-a.service)" admitted
mv "$DLD_POLICY_DIR.away" "$DLD_POLICY_DIR"
ok "  with it back, the policy reloads" dlconf reload

# systemd cannot tell dld about t63-a when dld starts (the bus refuses
# dld's property calls on the unit): what was admitted stays, and the
# orphan sweep leaves it alone; once dld can look again, it follows it.
a_cg=$(cgroup_of t63-a)
a_pid=$(main_pid t63-a)
a_path=$(busctl --system call org.freedesktop.systemd1 /org/freedesktop/systemd1 \
	org.freedesktop.systemd1.Manager GetUnit s t63-a.service | sed 's/^o "\(.*\)"$/\1/')
deny=/etc/dbus-1/system.d/t63-deny.conf
t63_cleanup() {
	[ -e "$deny" ] && rm -f "$deny" &&
		busctl --system call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus ReloadConfig
	dld_cleanup
}
trap t63_cleanup EXIT
cat > "$deny" <<DENY
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><policy context="mandatory">
  <deny send_destination="org.freedesktop.systemd1" send_path="$a_path"
        send_interface="org.freedesktop.DBus.Properties"/>
</policy></busconfig>
DENY
busctl --system call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus ReloadConfig
since=$(date +%s.%N)
ok "restart dld while the bus hides t63-a from it" systemctl restart dld
like "  the journal: admitted before, not followed now" \
	"$(journalctl -u dld -o cat --no-pager --since @"$since" | grep 't63-a.service: admitted before dld restarted, but not followed now')" \
	"its reservation in $a_cg stays"
is "  its template untouched" "$(cgfile "$a_cg" cpu.dl_template)" "$NCPUS 2000 20000 20000"
is "  its thread still SCHED_DEADLINE" "$(policy_of "$a_pid")" 6
rm -f "$deny"
busctl --system call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus ReloadConfig
ok "restart dld with the bus open again" systemctl restart dld
wait_for 10 '[ "$(service_state t63-a.service)" = admitted ]'
is "  t63-a admitted, as it was" "$(service_state t63-a.service)" admitted

# And it still releases what it found.
systemctl stop t63-a t63-b
wait_for 10 '[ "$(cgfile $media cpu.dl_total_bw)" = "$base_media" ]'
is "stop after restart releases" "$(cgfile $media cpu.dl_total_bw)" "$base_media"
wait_for 10 '[ "$(journal_json $DLD_MSG_RELEASED t63-b.service | wc -l)" -ge 1 ]'
ok "releases logged by the new dld" test "$(journal_json $DLD_MSG_RELEASED t63-b.service | wc -l)" -ge 1
done_testing
