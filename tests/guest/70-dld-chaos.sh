#!/bin/bash
# dld killed with SIGKILL at random moments while services start and stop
# (200 start/stop cycles and 60 s at least in make check-full, 100 and 30 s
# in make check), the policy reloads and a unit is
# admitted and released by hand. Afterwards nothing is lost, counted twice or leaked:
# every running unit with a request is admitted with its template, what dld
# acknowledged by hand holds, the group's cpu.dl_total_bw is exactly what
# its units' templates reserve, dld's records name exactly the admitted
# units, and once everything stops the group and the pool are back exactly.
. /usr/lib/dlsched/60-dld-lib.inc
dld_require
plan 15

if [ "${DLSCHED_TIER:-full}" = gate ]; then
	CYCLES=100
	MIN_SECONDS=30
else
	CYCLES=200
	MIN_SECONDS=60
fi
UNITS=6
group=/t70.slice
policy() {	# EXTRA: with the extra group t70x.slice or not
	local extra=
	[ "$1" = 1 ] && extra=', { "name": "extra", "slice": "t70x.slice", "runtime_us": 10000, "period_us": 1000000 }'
	echo "{ \"system\": { \"sched_dl_runtime_us\": 400000, \"sched_dl_period_us\": 1000000,
	                     \"sched_rt_runtime_us\": 550000, \"sched_rt_period_us\": 1000000 },
	        \"groups\": [ { \"name\": \"chaos\", \"slice\": \"t70.slice\", \"runtime_us\": 300000,
	                        \"period_us\": 1000000 }$extra ] }"
}
write_policy 70-chaos "$(policy 0)"
dlconf reload || fail "the chaos policy applies" "$(dlconf reload 2>&1)"
for i in $(seq 1 $UNITS); do
	add_service t70-s$i t70.slice "/bin/sleep infinity" X-DeadlineRuntime=2ms X-DeadlinePeriod=40ms
done
add_service t70-m t70.slice "/bin/sleep infinity"
# systemd restarts dld after each kill at once, as often as it takes.
mkdir -p /run/systemd/system/dld.service.d
printf '[Unit]\nStartLimitIntervalSec=0\n[Service]\nRestartSec=100ms\n' > /run/systemd/system/dld.service.d/t70-chaos.conf
systemctl daemon-reload
base_group=$(idle_total $group)
base_pool=$(knob sched_dl_total_bw)
systemctl start t70-m
dlconf admit t70-m --runtime=1ms --period=20ms >/dev/null 2>&1
n_watchdog=$(journalctl -b -u dld.service --no-pager -o cat | grep -c 'Watchdog timeout')

state=/tmp/t70
rm -rf $state; mkdir -p $state
# What the last acknowledged hand operation left: "admit RUNTIME_US",
# "release", or "unknown" when the call failed (dld killed under it).
echo "admit 1000" > $state/manual
[ "$(service_state t70-m.service)" = admitted ] || echo unknown > $state/manual

# Four cyclers, one unit each, CYCLES/4 start/stop cycles apiece (MIN_SECONDS at
# least); t70-s5 and t70-s6 run throughout. Odd cyclers leave theirs running.
cycler() {
	local id=$1 i=0 u=t70-s$1 t0=$SECONDS
	while ((i < CYCLES / 4 || SECONDS - t0 < MIN_SECONDS)); do
		systemctl start $u
		((RANDOM % 2)) && sleep 0.$((RANDOM % 3))
		systemctl stop $u
		i=$((i + 1))
	done
	((id % 2)) && systemctl start $u
	echo $i > $state/cycles.$id
}
reloader() {
	local n=0 extra=0
	until [ -e $state/stop ]; do
		extra=$((1 - extra))
		policy $extra > "$DLD_POLICY_DIR/70-chaos.json"
		dlconf reload >/dev/null 2>&1
		n=$((n + 1))
		sleep 1.$((RANDOM % 10))
	done
	echo $n > $state/reloads
}
hand() {
	local n=0 rt rc
	until [ -e $state/stop ]; do
		if ((RANDOM % 3 == 0)); then
			dlconf release t70-m >/dev/null 2>&1; rc=$?
			case $rc in 0) echo release;; *) echo unknown;; esac > $state/manual
		else
			rt=$(( (RANDOM % 3 + 1) * 500 ))
			dlconf admit t70-m --runtime=${rt}us --period=20ms >/dev/null 2>&1; rc=$?
			# 3: refused, the admission stays as it was.
			case $rc in 0) echo "admit $rt" > $state/manual;; 3) ;; *) echo unknown > $state/manual;; esac
		fi
		n=$((n + 1))
		sleep 0.$((RANDOM % 10 + 3))
	done
	echo $n > $state/hand
}
killer() {
	local n=0 pid
	until [ -e $state/stop ]; do
		sleep $((RANDOM % 3 + 1)).$((RANDOM % 10))
		pid=$(main_pid dld.service)
		[ "$pid" -gt 0 ] 2>/dev/null && kill -KILL "$pid" 2>/dev/null && n=$((n + 1))
	done
	echo $n > $state/kills
}

systemctl start t70-s5 t70-s6
t0=$SECONDS
cycler 1 & c1=$!; cycler 2 & c2=$!; cycler 3 & c3=$!; cycler 4 & c4=$!
reloader & hand & killer &
wait $c1 $c2 $c3 $c4
touch $state/stop
wait
cycles=$(cat $state/cycles.* | awk '{n += $1} END {print n}')
diag "$cycles start/stop cycles, $(cat $state/reloads) reloads, $(cat $state/hand) hand operations, $(cat $state/kills) kills in $((SECONDS - t0)) s"
ok "at least $CYCLES start/stop cycles and $MIN_SECONDS s" test "$cycles" -ge $CYCLES -a $((SECONDS - t0)) -ge $MIN_SECONDS
ok "dld was killed at least 10 times" test "$(cat $state/kills)" -ge 10

# Settle: the last policy again, dld up and answering.
write_policy 70-chaos "$(policy 0)"
wait_until 20 systemctl is-active --quiet dld
wait_until 10 dlconf status
ok "dld runs after the last kill" dlconf reload

active=(); for i in $(seq 1 $UNITS); do systemctl is-active --quiet t70-s$i && active+=(t70-s$i); done
lost=0 wrong=0
for u in "${active[@]}"; do
	wait_for 10 '[ "$(service_state $u.service)" = admitted ]' || lost=$((lost + 1))
	[ "$(cgfile "$(cgroup_of $u)" cpu.dl_template)" = "1 2000 40000 40000" ] || wrong=$((wrong + 1))
	[ "$(policy_of "$(main_pid $u)")" = 6 ] || wrong=$((wrong + 1))
done
diag "${#active[@]} of $UNITS units running at the end"
is "every running unit with a request is admitted (0 lost)" "$lost" 0
is "  with its template, its process SCHED_DEADLINE" "$wrong" 0

manual=$(cat $state/manual)
tmpl=$(cgfile "$(cgroup_of t70-m)" cpu.dl_template)
mstate=$(service_state t70-m.service)
diag "t70-m: last acknowledged: $manual; dld: $mstate; template: $tmpl"
case $manual in
admit*)	is "the last acknowledged admission by hand holds" "$mstate $tmpl" "admitted 1 ${manual#admit } 20000 20000";;
release) like "the last acknowledged release by hand holds" "$mstate $tmpl" "^(released|none) none$";;
*)	# Unacknowledged: either outcome, but dld and the kernel agree.
	if [ "$mstate" = admitted ]; then
		like "an unacknowledged operation by hand: admitted, with a template" "$tmpl" "^1 (500|1000|1500) 20000 20000$"
	else
		is "an unacknowledged operation by hand: not admitted, no template" "$tmpl" none
	fi;;
esac

# Exactly what the templates reserve: nothing counted twice, nothing left.
expect=$base_group
for u in "${active[@]}" t70-m; do
	read -r nr rt _ pe < <(cgfile "$(cgroup_of $u)" cpu.dl_template)
	[ "$nr" != none ] && [ -n "$pe" ] && expect=$((expect + nr * $(bw "$rt" "$pe")))
done
wait_for 10 '[ "$(cgfile $group cpu.dl_total_bw)" = "$expect" ]'
is "the group's allocation is exactly its units' templates (0 double counts)" "$(cgfile $group cpu.dl_total_bw)" "$expect"
[ "$(cgfile $group cpu.dl_total_bw)" = "$expect" ] || diag_groups $group

admitted=$(for u in "${active[@]}" t70-m; do [ "$(service_state $u.service)" = admitted ] && echo $u.service; done | sort)
records=$(ls /run/dld/admitted 2>/dev/null | sed 's/\.conf$//' | grep '^t70-' | sort)
is "dld's records name exactly the admitted units" "$(echo $records)" "$(echo $admitted)"
listed=$(dld_call ListServices | grep -o '"t70-[a-z0-9]*\.service"' | sort)
is "  each listed once" "$(echo $listed | tr ' ' '\n' | uniq -d)" ""
is "dld's watchdog never fired" "$(journalctl -b -u dld.service --no-pager -o cat | grep -c 'Watchdog timeout')" "$n_watchdog"

# Everything stops: back exactly where it started.
systemctl stop t70-m "${active[@]/%/.service}"
wait_for 10 '[ "$(cgfile $group cpu.dl_total_bw)" = "$base_group" ]'
is "all stopped: the group back exactly (0 leaked)" "$(cgfile $group cpu.dl_total_bw)" "$base_group"
is "  the pool back exactly" "$(knob sched_dl_total_bw)" "$base_pool"
is "  dld follows none of them" "$(dld_call ListServices | grep -c '"t70-')" 0
is "  and keeps no record of them" "$(ls /run/dld/admitted /run/dld/manual 2>/dev/null | grep -c '^t70-')" 0
rm -f /run/systemd/system/dld.service.d/t70-chaos.conf
systemctl daemon-reload
ok "dld active at the end" systemctl is-active --quiet dld
done_testing
