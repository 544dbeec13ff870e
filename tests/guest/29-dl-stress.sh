#!/bin/bash
# Randomized stress of the whole series (helpers/dlstress.c) for
# DLSCHED_STRESS_SECONDS seconds (60 in make check; make stress runs 600 on
# the debug kernel): sched_setattr churn with every flag and invalid
# parameters, sched_wait_interval with concurrent demotions, fork and exit,
# cgroup mkdir/rmdir, reservations and process and thread moves, the
# task-template rules in groups of their own (moves, templates rewritten,
# reservations in a template's child, SysRq-n, their invariants checked as
# it runs), sysctl writes and CPU hotplug, all at once, as root and as
# nobody with raised deadline rlimits. Each of dlstress's verdict lines
# ("check NAME: ok" or "check NAME: FAIL why") is a test point here; its
# report is in the diagnostics.
. /usr/lib/dlsched/tap.sh

bin=/usr/lib/dlsched/bin/dlstress
secs=${DLSCHED_STRESS_SECONDS:-60}
checks=(run errno tasks splats pool rootdomain runqueues groups cleanup)
declare -A what=(
	[run]="every worker ran for the whole time"
	[errno]="no call returned an errno outside its set, or succeeded where it must fail; no template invariant broken"
	[tasks]="no task died of a signal or status it did not expect, none got stuck"
	[splats]="no kernel splat (kernel log, taint, lockdep)"
	[pool]="sched_dl_total_bw back to its starting value"
	[rootdomain]="the root domain's total_bw back to its starting value"
	[runqueues]="every runqueue's running_bw and this_bw back to 0"
	[groups]="every cpu.dl_total_bw back to its starting value"
	[cleanup]="CPUs online, sysctls, kernel.sysrq and cgroups as they were"
)

[ -e /proc/sys/kernel/sched_dl_runtime_us ] || skip_all "not the dlsched kernel"
[[ $secs =~ ^[1-9][0-9]*$ ]] || { plan 1; fail "DLSCHED_STRESS_SECONDS" "not a number of seconds: '$secs'"; done_testing; }

plan $((1 + ${#checks[@]}))
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# Shown as it runs: a run the runner's timeout kills still shows how far it got.
# shellcheck disable=SC2086 # DLSCHED_STRESS_ARGS is a list of options
"$bin" --seconds "$secs" ${DLSCHED_STRESS_ARGS:-} 2>&1 | tee "$log" | sed -u 's/^/# /'
rc=${PIPESTATUS[0]}
is "dlstress ran $secs s and exited 0" "$rc" 0
for c in "${checks[@]}"; do
	line=$(grep -m1 "^check $c: " "$log")
	case $line in
	"check $c: ok") pass "$c: ${what[$c]}" ;;
	"") fail "$c: ${what[$c]}" "no verdict: dlstress exited $rc" ;;
	*) fail "$c: ${what[$c]}" "${line#check "$c": }" ;;
	esac
done
done_testing
