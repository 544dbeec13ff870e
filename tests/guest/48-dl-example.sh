#!/bin/bash
# The example program (tests/guest/helpers/dl-periodic.c) uses every task
# interface of the series: rlimits to run unprivileged, sched_setscheduler_ex
# with SCHED_SIG_RORUN|SCHED_SIG_DMISS, sched_getparam_ex and
# sched_wait_interval. 20 jobs of 0.4 ms every 50 ms (runtime 4 ms, 8 % of
# a CPU: the series' default pool holds 5 % of each CPU, 20 % on 4 vCPUs): 1000 ms.
#
# Under TCG a vCPU can stall for milliseconds and the stall is charged to the
# running task (one over 3.6 ms overruns): dl-periodic attributes each
# SIGXCPU to the instance it arrived in, with that instance's CPU time. A
# signal is right only for an instance that used at least half its runtime
# (5 times its job: something was charged to it); one in any other
# instance (a job of 0.4 ms, on time) fails, and so does a task signalled
# in more instances than disturbed ones.
. /usr/lib/dlsched/tap.sh
plan 5
out=$(/usr/lib/dlsched/bin/dl-periodic 50 4 20 2>&1)
rc=$?
diag "$out"
is "dl-periodic exits 0" "$rc" 0
like "runs unprivileged as SCHED_DEADLINE with its parameters and flags read back" "$out" \
	"uid 65534 policy 6 runtime 4000000 ns deadline 50000000 ns period 50000000 ns flags 0xc0000000"
ms=$(sed -n 's/^jobs 20 in \([0-9]*\) ms.*/\1/p' <<< "$out")
# Never early; late by at most the 40 ms a TCG wake-up may take with 4
# vCPU threads on 2 host CPUs (27 ms seen). A wake-up that waited a whole
# period (50 ms) still fails.
if [ -n "$ms" ] && [ "$ms" -ge 1000 ] && [ "$ms" -le 1040 ]; then
	pass "20 jobs in 1000..1040 ms ($ms)"
else
	fail "20 jobs in 1000..1040 ms" "got '$ms'"
fi
counts=$(sed -n 's/^instances signalled \([0-9]*\), of them under half the runtime \([0-9]*\); instances that used half the runtime or more \([0-9]*\)$/\1 \2 \3/p' <<< "$out")
read -r sig light heavy <<< "$counts"
if [ -n "$counts" ] && [ "$light" -eq 0 ] && [ "$sig" -le "$heavy" ]; then
	pass "SIGXCPU only in instances charged half their runtime or more ($sig signalled, $heavy such instances)"
else
	fail "SIGXCPU only in instances charged half their runtime or more" "got '$counts' (signalled, light, heavy)"
fi
late=$(sed -n 's/.*latest wake-up \([0-9]*\) us.*/\1/p' <<< "$out")
if [ -n "$late" ] && [ "$late" -le 40000 ]; then
	pass "every wake-up within 40 ms of its activation ($late us)"
else
	fail "every wake-up within 40 ms of its activation" "got '$late'"
fi
done_testing
