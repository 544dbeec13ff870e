#!/bin/bash
# chrt from util-linux runs a task under SCHED_DEADLINE.
. /usr/lib/dlsched/tap.sh
plan 4
# 0.5 ms every 10 ms (5 %) fits the default admission cap of any knob setting
# this project ships.
chrt -d --sched-runtime 500000 --sched-deadline 10000000 --sched-period 10000000 0 sleep 30 &
pid=$!
sleep 0.5
out=$(chrt -p "$pid" 2>&1)
like "policy is SCHED_DEADLINE" "$out" "current scheduling policy: SCHED_DEADLINE"
like "runtime/deadline/period as asked" "$out" "runtime/deadline/period parameters: 500000/10000000/10000000"
kill "$pid"
wait "$pid" 2>/dev/null
# Refused requests fail the command: runtime larger than the deadline.
chrt -d --sched-runtime 20000000 --sched-deadline 10000000 --sched-period 10000000 0 true 2>/dev/null
rc=$?
is "chrt -d with runtime > deadline fails" "$rc" 1
chrt -d --sched-runtime 500000 --sched-deadline 10000000 --sched-period 10000000 0 true
is "chrt -d of a short command exits 0" "$?" 0
done_testing
