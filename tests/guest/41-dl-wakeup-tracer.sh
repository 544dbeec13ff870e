#!/bin/bash
# The wakeup_dl tracer (mainline): selectable through tracefs, it records a
# wake-up latency for a deadline task and none for a CFS task.
. /usr/lib/dlsched/tap.sh

T=/sys/kernel/tracing
[ -e "$T/available_tracers" ] || mount -t tracefs nodev "$T" 2>/dev/null
[ -e "$T/available_tracers" ] || skip_all "no tracefs"

# Without function tracing: under TCG, tracing every kernel function makes
# the guest crawl, and the wake-up latency needs only the sched events.
ftrace_opt=$(cat "$T/options/function-trace")
restore() {
	echo nop > "$T/current_tracer"
	echo 0 > "$T/tracing_max_latency"
	echo "$ftrace_opt" > "$T/options/function-trace"
}
trap restore EXIT
echo 0 > "$T/options/function-trace"

plan 5
like "wakeup_dl is an available tracer" "$(cat "$T/available_tracers")" "(^| )wakeup_dl( |$)"
ok "select wakeup_dl" sh -c "echo wakeup_dl > $T/current_tracer"
is "current_tracer reads wakeup_dl" "$(cat "$T/current_tracer")" wakeup_dl

# CFS tasks sleeping and waking: no latency recorded.
echo 0 > "$T/tracing_max_latency"
for _ in 1 2 3 4 5; do sleep 0.02; done
is "no wake-up latency recorded for CFS tasks" "$(cat "$T/tracing_max_latency")" 0

# A deadline task (sleep itself, 0.5 ms every 10 ms) wakes from a 50 ms sleep.
echo 0 > "$T/tracing_max_latency"
chrt -d --sched-runtime 500000 --sched-deadline 10000000 --sched-period 10000000 0 sleep 0.05
lat=$(cat "$T/tracing_max_latency")
task=$(grep -m1 '| task:' "$T/trace")
if [ "$lat" -gt 0 ] && [[ $task =~ task:\ sleep-[0-9]+\ .*policy:6 ]]; then
	pass "a deadline task's wake-up latency is recorded (${lat} us, $task)"
else
	fail "a deadline task's wake-up latency is recorded" "max latency '$lat', trace header '$task'"
fi
done_testing
