#!/bin/bash
# The example program (tests/guest/helpers/dl-periodic.c) uses every task
# interface of the series: rlimits to run unprivileged, sched_setscheduler_ex
# with SCHED_SIG_RORUN|SCHED_SIG_DMISS, sched_getparam_ex and
# sched_wait_interval. 20 jobs of 0.4 ms every 50 ms (runtime 4 ms, 8 % of
# a CPU: the series' default pool holds 5 % of each CPU, 20 % on 4 vCPUs): 1000 ms.
#
# Each SIGXCPU must be explained by what the kernel did, not by CPU time:
# a signal means the runtime ran out (the CBS throttles the task until its
# deadline) or the task ran past its deadline, so its instance's job ended
# at its deadline or later (a disturbed instance; under TCG a vCPU stall
# charged to the task does that). dl-periodic checks, at the end of each
# instance, that the signals so far are at most what the disturbed
# instances so far explain: two (an overrun and a miss) per period the job
# ended past its deadline, plus two (a signal comes at the first tick that
# finds the task running, so possibly an instance late); an undisturbed
# instance explains none. Under
# TCG up to 4 of the 20 instances may be disturbed (3 were seen once with 4
# vCPU threads on 2 host CPUs). Then a job that spins until the kernel
# throttles it must be signalled: a kernel that never signals an overrun
# fails that point.
. /usr/lib/dlsched/tap.sh
plan 6
out=$(/usr/lib/dlsched/bin/dl-periodic 50 4 20 overrun 2>&1)
rc=$?
diag "$out"
is "dl-periodic exits 0" "$rc" 0
like "runs unprivileged as SCHED_DEADLINE with its parameters and flags read back" "$out" \
	"uid 65534 policy 6 runtime 4000000 ns deadline 50000000 ns period 50000000 ns flags 0xc0000000"
ms=$(sed -n 's/^jobs 20 in \([0-9]*\) ms.*/\1/p' <<< "$out")
# Never early; late by at most the 40 ms a TCG wake-up may take with 4
# vCPU threads on 2 host CPUs (27 ms seen). A wake-up that waited a whole
# period (50 ms) still fails. dl-periodic measures the wake-ups that
# follow an undisturbed instance: after a throttled job (its deadline
# passed before it ended; the first one twice, 50 ms late, in one run) the
# task may be paying back the overrun until its 0-lag time.
if [ -n "$ms" ] && [ "$ms" -ge 1000 ] && [ "$ms" -le 1040 ]; then
	pass "20 jobs in 1000..1040 ms ($ms)"
else
	fail "20 jobs in 1000..1040 ms" "got '$ms'"
fi
# The debug kernel (lockdep, KASAN) disturbs most instances under TCG (13
# of 20 seen): there the signals must still be explained, in any number.
max_disturbed=4
[ -e /proc/lockdep ] && max_disturbed=20
read -r dist sig unexpl < <(sed -n 's/^instances disturbed \([0-9]*\), signals \([0-9]*\), instances ending with signals unexplained \([0-9]*\)$/\1 \2 \3/p' <<< "$out")
if [ -n "$unexpl" ] && [ "$unexpl" -eq 0 ] && [ "$dist" -le "$max_disturbed" ]; then
	pass "every SIGXCPU explained by an instance that ended at its deadline or later; at most $max_disturbed of 20 such ($sig signals, $dist disturbed)"
else
	fail "every SIGXCPU explained by an instance that ended at its deadline or later; at most $max_disturbed of 20 such" \
		"got disturbed '$dist', signals '$sig', instances with signals unexplained '$unexpl'"
fi
late=$(sed -n 's/.*latest wake-up \([0-9]*\) us.*/\1/p' <<< "$out")
if [ -n "$late" ] && [ "$late" -le 40000 ]; then
	pass "every wake-up within 40 ms of its activation ($late us)"
else
	fail "every wake-up within 40 ms of its activation" "got '$late'"
fi
# The overrun job: throttled (off the CPU until about its deadline, the
# replenishment) and signalled in that instance.
overrun_seen() {
	read -r resumed osig < <(sed -n 's/^overrun: throttled after [0-9]* us of CPU for [0-9]* us, resumed \(-\?[0-9]*\) us after its deadline; SIGXCPU \([0-9]*\)$/\1 \2/p' <<< "$out")
	[ -n "$osig" ] && [ "$osig" -ge 1 ] && [ "$resumed" -ge -1000 ]
}
# A host stall of the vCPU looks like a throttle to the job (its CPU clock
# stops while CLOCK_MONOTONIC runs; 46 ms after 2.4 ms of CPU was seen,
# with no signal): one more overrun job then, two jobs in. A kernel that
# never signals fails both.
overrun_again() {
	diag "first overrun job: $(grep '^overrun:' <<< "$out" || echo 'no overrun line'); once more"
	out=$(/usr/lib/dlsched/bin/dl-periodic 50 4 2 overrun 2>&1)
	overrun_seen
}
if overrun_seen || overrun_again; then
	pass "a job overrunning its runtime is throttled until its deadline and signalled ($osig SIGXCPU, resumed $resumed us after the deadline)"
else
	fail "a job overrunning its runtime is throttled until its deadline and signalled" \
		"$(grep '^overrun:' <<< "$out" || echo 'no overrun line')"
fi
done_testing
