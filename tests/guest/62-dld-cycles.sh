#!/bin/bash
# 100 start/stop cycles of a service with a request leave every allocated
# bandwidth where it started and dld following nothing.
. /usr/lib/dlsched/60-dld-lib.inc
dld_require
plan 10

apply_test_policy 62-test
media=/deadline.slice/deadline-media.slice
make_service t62-a deadline-media.slice "/bin/sleep infinity" X-DeadlineRuntime=2ms X-DeadlinePeriod=20ms
base_media=$(idle_total $media)
base_pool=$(knob sched_dl_total_bw)

admitted=0
start=$SECONDS
for ((i = 0; i < 100; i++)); do
	systemctl start t62-a
	# Every other cycle waits for the admission; the others stop at once,
	# racing dld's admission against the stop.
	if ((i % 2 == 0)) && wait_until 10 test "$(service_state t62-a.service)" = admitted; then
		admitted=$((admitted + 1))
	fi
	systemctl stop t62-a
done
diag "100 cycles in $((SECONDS - start))s, $admitted admissions seen"
is "every waited-for cycle was admitted" "$admitted" 50
wait_until 10 test "$(cgfile $media cpu.dl_total_bw)" = "$base_media"
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
wait_until 10 test "$(service_state t62-a.service)" = admitted
is "and admitted" "$(service_state t62-a.service)" admitted
# Room for its shell, a child, and one that ended whose bandwidth waits for
# its 0-lag time: none of its tasks is ever beyond the reservation.
make_service t62-busy deadline-media.slice "/bin/sh -c 'while :; do /bin/true; sleep 0.05; done'" \
	X-DeadlineRuntime=1ms X-DeadlinePeriod=20ms X-DeadlineThreads=4
systemctl start t62-busy
wait_until 10 test "$(service_state t62-busy.service)" = admitted
wakeups=$(dld_wakeups 2)
diag "dld following t62-a and t62-busy (about 40 processes in 2 s): woke $wakeups times in 2 s"
ok "following an idle and a busy service, dld does not wake (no poll)" test "$wakeups" -le 6
like "  the busy service's processes are SCHED_DEADLINE" "$(chrt -p "$(main_pid t62-busy)")" "SCHED_DEADLINE"
systemctl stop t62-busy
systemctl stop t62-a
wait_until 10 test "$(cgfile $media cpu.dl_total_bw)" = "$base_media"
is "and released" "$(cgfile $media cpu.dl_total_bw)" "$base_media"
done_testing
