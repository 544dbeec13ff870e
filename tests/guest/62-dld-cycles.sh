#!/bin/bash
# 20 start/stop cycles of a service with a request leave every allocated
# bandwidth where it started and dld following nothing (70 runs 200 more,
# killing dld among them).
. /usr/lib/dlsched/60-dld-lib.inc
dld_require
plan 13

apply_test_policy 62-test
media=/deadline.slice/deadline-media.slice
make_service t62-a deadline-media.slice "/bin/sleep infinity" X-DeadlineRuntime=2ms X-DeadlinePeriod=20ms \
	ExecReload=/bin/true
base_media=$(idle_total $media)
base_pool=$(knob sched_dl_total_bw)

CYCLES=20
admitted=0
start=$SECONDS
for ((i = 0; i < CYCLES; i++)); do
	systemctl start t62-a
	# Every other cycle waits for the admission; the others stop at once,
	# racing dld's admission against the stop.
	if ((i % 2 == 0)) && wait_for 10 '[ "$(service_state t62-a.service)" = admitted ]'; then
		admitted=$((admitted + 1))
	fi
	systemctl stop t62-a
done
diag "$CYCLES cycles in $((SECONDS - start))s, $admitted admissions seen"
is "every waited-for cycle was admitted" "$admitted" $((CYCLES / 2))
wait_for 10 '[ "$(cgfile $media cpu.dl_total_bw)" = "$base_media" ]'
is "media allocation back to its start value" "$(cgfile $media cpu.dl_total_bw)" "$base_media"
if [ "$(cgfile $media cpu.dl_total_bw)" != "$base_media" ]; then
	diag_groups $media
	diag "dld: $(dld_call ListServices 2>&1)"
	diag "systemd: $(systemctl show -P ActiveState,SubState,ControlGroup t62-a.service | tr '\n' ' ')"
	diag "media at the start: $base_media"
	diag "dld's warnings: $(journalctl -o cat --no-pager --since "@$DLD_TEST_START" -u dld -p warning | tail -n 6)"
fi
is "system pool back to its start value" "$(knob sched_dl_total_bw)" "$base_pool"
is "dld follows no stopped service" "$(service_state t62-a.service)" none
# Following nothing, dld sleeps; following services it sleeps too: their
# templates admit their processes, and only a task beyond a reservation
# (nr_over) would wake it.
wakeups=$(dld_wakeups 2)
diag "dld idle: woke $wakeups times in 2 s"
ok "dld following nothing does not poll (40 wakeups in 2 s if it did)" test "$wakeups" -le 6
ok "one more start is admitted" systemctl start t62-a
wait_for 10 '[ "$(service_state t62-a.service)" = admitted ]'
is "and admitted" "$(service_state t62-a.service)" admitted
# systemd's signals carry the activation (InvocationID): the state changes
# of an activation dld has decided already, with a request or without, cost
# it no call to systemd. A PrepareUnit, which asks systemd, shows that the
# monitor sees dld's calls.
make_service t62-plain deadline-media.slice "/bin/sleep infinity" ExecReload=/bin/true
systemctl start t62-plain
sleep 1
dld_owner=$(busctl --system call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus GetNameOwner s org.dlsched.Dld1 | cut -d'"' -f2)
dld_calls_to_systemd() {	# COMMAND...: dld's method calls to systemd while it runs
	local log=/tmp/t62-monitor.$$ pid n
	busctl --system monitor --json=short \
		--match "type='method_call',sender='$dld_owner',destination='org.freedesktop.systemd1'" > $log 2>/dev/null &
	pid=$!
	sleep 1
	"$@" > /dev/null
	sleep 1
	kill $pid 2>/dev/null; wait $pid 2>/dev/null
	n=$(grep -c '"member"' $log)
	rm -f $log
	echo "$n"
}
reloads() { local i; for i in 1 2 3; do systemctl reload t62-plain t62-a; done; }
calls=$(dld_calls_to_systemd reloads)
is "3 reloads of a unit without a request and of an admitted one: dld calls systemd 0 times" "$calls" 0
# (without this test's own $INVOCATION_ID, which dlconf prepare would send)
calls=$(dld_calls_to_systemd env -u INVOCATION_ID dlconf prepare t62-a.service)
ok "  (the monitor sees dld's calls: a PrepareUnit made $calls)" test "$calls" -gt 0
is "  the admitted unit stays admitted" "$(service_state t62-a.service)" admitted
systemctl stop t62-plain
# Room for its shell, a child, and one that ended whose bandwidth waits for
# its 0-lag time: none of its tasks is ever beyond the reservation.
make_service t62-busy deadline-media.slice "/bin/sh -c 'while :; do /bin/true; sleep 0.05; done'" \
	X-DeadlineRuntime=1ms X-DeadlinePeriod=20ms X-DeadlineThreads=4
systemctl start t62-busy
wait_for 10 '[ "$(service_state t62-busy.service)" = admitted ]'
wakeups=$(dld_wakeups 2)
diag "dld following t62-a and t62-busy (about 40 processes in 2 s): woke $wakeups times in 2 s"
ok "following an idle and a busy service, dld does not wake (no poll)" test "$wakeups" -le 6
like "  the busy service's processes are SCHED_DEADLINE" "$(chrt -p "$(main_pid t62-busy)")" "SCHED_DEADLINE"
systemctl stop t62-busy
systemctl stop t62-a
wait_for 10 '[ "$(cgfile $media cpu.dl_total_bw)" = "$base_media" ]'
is "and released" "$(cgfile $media cpu.dl_total_bw)" "$base_media"
done_testing
