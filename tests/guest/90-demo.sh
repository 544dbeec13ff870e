#!/bin/bash
# The demo scenario (make demo): dld with the demo policy admits the media
# worker and the control loop and refuses the greedy worker, with a journal
# entry saying why; under a CPU-bound CFS load on every CPU the admitted
# services miss no deadline.
# DEMO_LOAD_SECONDS (default 30) sets how long the load runs.
. /usr/lib/dlsched/60-dld-lib.inc
dld_require
# make run DEMO=containers (dlsched.demo=containers): a podman container
# beside the services, asking for 10ms/100ms with annotations.
with_containers=0
grep -qw 'dlsched.demo=containers' /proc/cmdline && with_containers=1
plan $(( 27 + 2 * with_containers ))

SETUP=/usr/lib/dlsched/demo/dlsched-demo-setup
STATS=/run/dlsched-demo
LOAD_SECONDS=${DEMO_LOAD_SECONDS:-30}
load_pids=()

# The guest's own stalls (TCG: the host stops a vCPU, or all of them):
# helpers/stallwatch.c logs every gap over 40 ms a pinned SCHED_FIFO
# ticker sees on any CPU.
STALLS=$(mktemp)
/usr/lib/dlsched/bin/stallwatch "$STALLS" &
stallwatch_pid=$!

demo_cleanup() {
	kill "$stallwatch_pid" 2>/dev/null
	rm -f "$STALLS"
	[ ${#load_pids[@]} -gt 0 ] && kill "${load_pids[@]}" 2>/dev/null
	"$SETUP" stop > /dev/null 2>&1
	dld_cleanup
}
trap demo_cleanup EXIT

stat_of() { sed -n "s/^$2=//p" "$STATS/$1.stats" 2>/dev/null; }
state_of() { dlconf show --json "$1" 2>/dev/null | jq -r .state; }

out=$("$SETUP" start 2>&1); rc=$?
# When the services were all in place, in CLOCK_MONOTONIC seconds as the
# workers log their releases (/proc/uptime counts the same: the guest
# never suspends).
setup_end=$(cut -d' ' -f1 /proc/uptime)
is "demo starts: dld with the demo policy, services in order" "$rc" 0
[ $rc -eq 0 ] || diag "$out"
is "policy in force: sched_dl_runtime_us" "$(knob sched_dl_runtime_us)" 400000

is "demo-media admitted" "$(state_of demo-media)" admitted
is "demo-control admitted" "$(state_of demo-control)" admitted
is "demo-greedy refused and degraded" "$(state_of demo-greedy)" degraded
like "demo-media runs SCHED_DEADLINE 12ms/100ms/100ms" "$(chrt -p "$(main_pid demo-media.service)")" \
	"SCHED_DEADLINE.*12000000/100000000/100000000"
like "demo-control runs SCHED_DEADLINE 10ms/50ms/100ms" "$(chrt -p "$(main_pid demo-control.service)")" \
	"SCHED_DEADLINE.*10000000/50000000/100000000"
is "demo-greedy runs as a normal task" "$(policy_of "$(main_pid demo-greedy.service)")" 0
if [ "$with_containers" = 1 ]; then
	is "the container demo-media-ct admitted" "$(state_of demo-media-ct)" admitted
	ct_pid=$(podman inspect -f '{{.State.Pid}}' demo-media-ct 2>/dev/null)
	like "  its worker runs SCHED_DEADLINE 10ms/100ms/100ms" "$(chrt -p "$ct_pid" 2>&1)" \
		"SCHED_DEADLINE.*10000000/100000000/100000000"
fi

entry=$(journalctl -u dld.service -o json --no-pager "MESSAGE_ID=$DLD_MSG_REFUSED" UNIT=demo-greedy.service | tail -n 1)
field() { jq -r ".$1 // empty" <<< "$entry"; }
is "journal: one refusal entry for demo-greedy" "$(field UNIT)" demo-greedy.service
is "  DLD_GROUP=media" "$(field DLD_GROUP)" media
is "  DLD_REFUSED_BY=admission" "$(field DLD_REFUSED_BY)" admission
is "  DLD_ERRNO_NAME=EBUSY" "$(field DLD_ERRNO_NAME)" EBUSY
is "  the request: 10000/100000/100000 us" "$(field DLD_RUNTIME_USEC)/$(field DLD_DEADLINE_USEC)/$(field DLD_PERIOD_USEC)" 10000/100000/100000
like "  DLD_FREE_PERCENT: what media had left" "$(field DLD_FREE_PERCENT)" "^[0-9]+\.[0-9]+%?$"
is "  DLD_ACTION=degrade" "$(field DLD_ACTION)" degrade
like "  DLD_REASON in words, with what was left" "$(field DLD_REASON)" "[0-9.]+% left"

# The workers count from the moment they run SCHED_DEADLINE; a few
# seconds without load first, then a CPU-bound CFS load on every CPU.
sleep 5
declare -A misses_before
for svc in media control greedy; do misses_before[$svc]=$(stat_of "$svc" misses); done
for _ in $(seq "$(nproc)"); do
	timeout "$LOAD_SECONDS" sh -c 'while :; do :; done' &
	load_pids+=($!)
done
diag "CFS load: $(nproc) busy loops for ${LOAD_SECONDS}s"
wait "${load_pids[@]}" 2>/dev/null
load_pids=()
sleep 2     # the workers rewrite their counters every second

"$SETUP" show | while IFS= read -r line; do diag "$line"; done
for svc in media control greedy; do
	diag "demo-$svc: $(stat_of "$svc" instances) instances, $(stat_of "$svc" misses) deadline misses" \
		"($(( $(stat_of "$svc" misses) - ${misses_before[$svc]:-0} )) under load)," \
		"$(stat_of "$svc" skipped) skipped releases, worst response $(stat_of "$svc" worst_response_us)us," \
		"worst lateness $(stat_of "$svc" worst_lateness_us)us, latest start $(stat_of "$svc" worst_start_us)us," \
		"longest stall in a job $(stat_of "$svc" worst_gap_us)us, policy $(stat_of "$svc" policy)," \
		"waits with $(stat_of "$svc" wait)"
	# The worker's own account of its first misses (journal, stderr).
	journalctl -u "demo-$svc.service" -o cat --no-pager | grep -m 5 'deadline miss' |
		while IFS= read -r line; do diag "  $line"; done
done

for svc in media control; do
	period_us=$(( $(stat_of "$svc" period_ns) / 1000 ))
	is "demo-$svc: counted as a SCHED_DEADLINE task" "$(stat_of "$svc" policy)/$(stat_of "$svc" counting)" deadline/1
	n=$(stat_of "$svc" instances)
	# At least the instances of the load window: the job ran throughout.
	ok "demo-$svc: ran through the load (${n:-0} instances >= $(( LOAD_SECONDS * 1000000 / period_us )))" \
		test "${n:-0}" -ge $(( LOAD_SECONDS * 1000000 / period_us ))
	is "demo-$svc: waits for its next instance with sched_wait_interval()" "$(stat_of "$svc" wait)" sched_wait_interval
	# Misses of instances released before the demo was up, while dld and
	# systemd were still starting services, are counted apart: the whole
	# guest was seen to stall for 50-110 ms then under TCG (both workers
	# resuming at the same instant, with old kernels too). One such stall
	# costs an instance, two at most; a rule that made the task late for
	# good (as holding a constrained deadline task to the period of a
	# late instance did) fails the count that follows.
	# The release times of the worker's misses, from its own log.
	released=$(journalctl -u "demo-$svc.service" -o cat --no-pager |
		sed -n 's/.*deadline miss: .*released at \([0-9.]*\),.*/\1/p')
	early=$(awk -v end="$setup_end" 'NF && $1 < end' <<< "$released" | wc -l)
	ok "demo-$svc: at most 2 deadline misses while the services were being admitted ($early)" test "$early" -le 2
	if [ "$early" -gt 0 ]; then
		first=$(head -n 1 <<< "$released")
		diag "what the journal shows around the first miss (released at $first):"
		journalctl -o short-monotonic --no-pager |
			awk -v t="$first" '{ s = $0; sub(/^\[ */, "", s); sub(/\].*/, "", s) }
				s + 0 >= t - 0.3 && s + 0 <= t + 0.3' | head -n 40 |
			while IFS= read -r line; do diag "  $line"; done
	fi
	# Once the demo is up a miss fails the test, unless the guest itself
	# stalled during that instance's period or the one before, which no
	# scheduler rule can make up for: then the witness shows a gap
	# overlapping them. The period before counts because a stall charged
	# to the job then exhausts its runtime, and the CBS postpones its
	# deadline past the next release.
	# The stats file is rewritten from time to time, the journal has every
	# miss as it happens: count what either shows.
	after=$(( $(stat_of "$svc" misses) - early ))
	logged=$(awk -v end="$setup_end" 'NF && $1 >= end' <<< "$released" | wc -l)
	[ "$logged" -gt "$after" ] && after=$logged
	stalled=0
	period_s=$(awk -v us="$period_us" 'BEGIN { printf "%.6f", us / 1e6 }')
	for r in $(awk -v end="$setup_end" 'NF && $1 >= end' <<< "$released"); do
		gaps=$(awk -v r="$r" -v p="$period_s" '$1 == "gap" && $2 < r + p && $3 > r - p' "$STALLS" | tr '\n' ' ')
		if [ -n "$gaps" ]; then
			stalled=$((stalled + 1))
			diag "demo-$svc: the instance released at $r missed during a guest stall: $gaps"
		else
			diag "demo-$svc: the instance released at $r missed with no guest stall over 40 ms" \
				"from the release before to the next: $(journalctl -u "demo-$svc.service" -o cat --no-pager |
				grep -m1 "deadline miss: .*released at $r,")"
		fi
	done
	is "demo-$svc: 0 deadline misses once the demo was up, but for guest stalls ($after, $stalled in a stall)" \
		"$((after - stalled))" 0
done
diag "guest stalls over 40 ms seen during the demo: $(grep -c '^gap' "$STALLS")"
is "dld still running" "$(systemctl is-active dld.service)" active
done_testing
