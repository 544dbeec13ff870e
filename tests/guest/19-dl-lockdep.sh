#!/bin/bash
# Runs after the bandwidth tests (10-18). On the debug kernel (make
# check-debug): lockdep is still validating, so those tests ran under it
# (it switches itself off at its first report or when its tables
# overflow), and it has seen the locks the series adds. Any report itself
# fails the run from the console. Skips on a kernel without lockdep.
. /usr/lib/dlsched/tap.sh

[ -r /proc/lockdep_stats ] || skip_all "no lockdep in this kernel (make check-debug runs it)"
plan 3
is "lockdep still validating after the bandwidth tests (debug_locks)" \
	"$(awk '$1 == "debug_locks:" { print $2 }' /proc/lockdep_stats)" 1
ok "lockdep has seen dl_group_lock (group admission)" grep -qw dl_group_lock /proc/lockdep
ok "lockdep has seen sched_bw_sysctl_mutex (rt/dl knobs)" grep -qw sched_bw_sysctl_mutex /proc/lockdep
done_testing
