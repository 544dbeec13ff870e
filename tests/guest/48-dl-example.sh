#!/bin/bash
# The example program (tests/guest/helpers/dl-periodic.c) uses every task
# interface of the series: rlimits to run unprivileged, sched_setscheduler_ex
# with SCHED_SIG_RORUN|SCHED_SIG_DMISS, sched_getparam_ex and
# sched_wait_interval. 20 jobs of 0.4 ms every 50 ms (runtime 4 ms, 8 % of
# a CPU: the series' default pool holds 5 % of each CPU, 20 % on 4 vCPUs): 1000 ms.
#
# Under TCG a vCPU can stall for milliseconds and the stall is charged to the
# running task (one over 3.6 ms overruns), so up to 4 of the 20 instances may
# be signalled (3 were seen once with 4 vCPU threads on 2 host CPUs); a
# task signalled in every instance (20) fails. (A stricter check, a signal
# only in an instance charged half its runtime, failed on the series in
# make check: a stalled first instance is signalled having used 1.7 ms.)
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
sig=$(sed -n 's/.*SIGXCPU \([0-9]*\)$/\1/p' <<< "$out")
if [ -n "$sig" ] && [ "$sig" -le 4 ]; then
	pass "at most 4 of 20 instances signalled ($sig)"
else
	fail "at most 4 of 20 instances signalled" "got '$sig'"
fi
late=$(sed -n 's/.*latest wake-up \([0-9]*\) us.*/\1/p' <<< "$out")
if [ -n "$late" ] && [ "$late" -le 40000 ]; then
	pass "every wake-up within 40 ms of its activation ($late us)"
else
	fail "every wake-up within 40 ms of its activation" "got '$late'"
fi
done_testing
