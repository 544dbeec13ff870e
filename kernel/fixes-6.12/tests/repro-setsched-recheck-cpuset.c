// SPDX-License-Identifier: GPL-2.0
/*
 * Bug 12 of docs/kernel-bugs.md, fixed in the 6.1 series by patch 0012
 * ("sched/core: Forget the cpuset lock when __sched_setscheduler()
 * starts over"): sched_setattr(SCHED_FLAG_KEEP_POLICY), or
 * sched_setparam(), on a SCHED_DEADLINE thread that another thread moves
 * to SCHED_OTHER at the same moment. __sched_setscheduler() took
 * cpuset_mutex for the deadline policy, finds the policy changed under
 * the runqueue lock, drops its locks and starts over (6.12:
 * kernel/sched/syscalls.c, "Re-check policy now with rq lock held"), but
 * keeps cpuset_locked set; the second pass, for a SCHED_OTHER task, does
 * not take the mutex and releases it a second time.
 *
 * The only witness is lockdep ("WARNING: bad unlock balance detected!")
 * or, with CONFIG_DEBUG_MUTEXES, a DEBUG_LOCKS_WARN_ON in the mutex
 * code, on the console: the harness catches it. Stock Debian 6.12 has
 * neither, and the second unlock is then silent (it may hand the mutex
 * over from whoever holds it). This reproducer drives the race for 6 s
 * (as guest test 24, plus a sched_setparam() caller), says whether this
 * kernel has lockdep, and checks only that the race ran and that
 * cpuset_mutex still works afterwards (a deadline admission completes).
 */
#include "repro.h"

#define RACE_NS (6 * NSEC_PER_SEC)

static volatile int running = 1;
static volatile pid_t target;
static volatile unsigned long calls, succeeded, setparams;

static void *sleeper(void *arg)
{
	(void)arg;
	target = (pid_t)syscall(SYS_gettid);
	while (running)
		usleep(1000);
	return NULL;
}

/* sched_setparam(): the same restart path (SETPARAM_POLICY). */
static void *setparam_caller(void *arg)
{
	struct sched_param p = { .sched_priority = 0 };

	(void)arg;
	while (running) {
		sched_setparam(target, &p);
		setparams++;
	}
	return NULL;
}

int main(void)
{
	/* Other parameters than the toggler's, so that each call changes something. */
	struct repro_sched_attr keep = dl_attr(2 * NSEC_PER_MSEC, 20 * NSEC_PER_MSEC, 20 * NSEC_PER_MSEC);
	struct dl_toggle toggle = { .run = &running };
	pthread_t th_sleep, th_toggle, th_setparam;
	bool lockdep = !access("/proc/lockdep", F_OK);
	const char *const unlock_pat[] = { "bad unlock balance", "DEBUG_LOCKS_WARN_ON", NULL };
	uint64_t end;
	int kmsg, err, seen;

	repro_start("repro-setsched-recheck-cpuset",
		    "docs/kernel-bugs.md #12, 6.1 patch 0012 (cpuset_mutex released twice after __sched_setscheduler() starts over)",
		    "sched_setattr(KEEP_POLICY)/sched_setparam() racing a policy change; witness: lockdep on the console",
		    90);
	require_dl_admission();
	tap_plan(2);
	diag(lockdep ? "this kernel has lockdep: a 'bad unlock balance' splat on the console is the witness (the harness checks it)"
		     : "this kernel has no lockdep (no /proc/lockdep): the double unlock is silent here; "
		       "run on a CONFIG_PROVE_LOCKING kernel for a verdict on the bug");
	kmsg = kmsg_open();
	keep.sched_flags = SCHED_FLAG_KEEP_POLICY;
	if (pthread_create(&th_sleep, NULL, sleeper, NULL))
		bail("pthread_create");
	while (!target)
		usleep(1000);
	toggle.target = target;
	if (pthread_create(&th_toggle, NULL, dl_toggler, &toggle) ||
	    pthread_create(&th_setparam, NULL, setparam_caller, NULL))
		bail("pthread_create");
	end = now_ns() + RACE_NS;
	do {
		calls++;
		if (!repro_setattr(target, &keep))
			succeeded++;
	} while (now_ns() < end);
	running = 0;
	pthread_join(th_toggle, NULL);
	pthread_join(th_setparam, NULL);
	pthread_join(th_sleep, NULL);
	diag("%lu sched_setattr(KEEP_POLICY) calls (%lu succeeded) and %lu sched_setparam() calls "
	     "against a thread moving in and out of SCHED_DEADLINE", calls, succeeded, setparams);
	tap_result(calls > 100 && succeeded > 0, "the race ran: KEEP_POLICY calls completed against the policy changes");
	/*
	 * A hang is this bug's witness without lockdep (the mutex handed
	 * over, or left locked). An admission refused with EBUSY did take and
	 * release the mutex: what the race left counted in the root domain is
	 * another matter, reported but not judged here.
	 */
	err = cpuset_mutex_probe(5000);
	if (err == -EBUSY)
		diag("the admission after the race was refused with EBUSY: the race left bandwidth counted "
		     "in the root domain (not this bug's witness)");
	tap_result(!err || err == -EBUSY,
		   "after the race a SCHED_DEADLINE admission completes (cpuset_mutex usable): %s",
		   err ? repro_strerror(err) : "yes");
	seen = kmsg_scan(kmsg, unlock_pat, 10);
	if (seen > 0)
		diag("the kernel log shows %d mutex unlock complaint(s) above: the bug (the harness's verdict)", seen);
	tap_finish();
}
