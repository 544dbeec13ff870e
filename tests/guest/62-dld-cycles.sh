#!/bin/bash
# 100 start/stop cycles of a service with a request leave every allocated
# bandwidth where it started and dld following nothing.
. /usr/lib/dlsched/60-dld-lib.inc
dld_require
plan 9

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
# Following nothing, dld sleeps; an admission restarts its thread poll.
wakeups=$(dld_wakeups 2)
diag "dld idle: woke $wakeups times in 2 s"
ok "dld following nothing does not poll (40 wakeups in 2 s if it did)" test "$wakeups" -le 6
ok "one more start is admitted" systemctl start t62-a
wait_until 10 test "$(service_state t62-a.service)" = admitted
is "and admitted" "$(service_state t62-a.service)" admitted
wakeups=$(dld_wakeups 2)
diag "dld following t62-a: woke $wakeups times in 2 s"
ok "following a service, dld polls for its new threads again" test "$wakeups" -ge 20
systemctl stop t62-a
wait_until 10 test "$(cgfile $media cpu.dl_total_bw)" = "$base_media"
is "and released" "$(cgfile $media cpu.dl_total_bw)" "$base_media"
done_testing
