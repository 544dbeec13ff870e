#!/bin/bash
# dlsched-demo-worker on the host: its arguments (bad ones exit 2 with one
# line), a short run as a normal task (counts, stats file, no misses at a
# generous deadline) and a clean stop on SIGTERM.
# Environment: WORKER (the binary).
set -u
. "$(dirname "$0")/tap.sh"

W=$WORKER
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

expect "--help exits 0" 0 '--period-us=N' "$W" --help
expect "--period-us is required" 2 '^dlsched-demo-worker: --period-us=N is required$' "$W"
for bad in --period-us=x --period-us=-5 --period-us= --work-us=1e3 --deadline-us=12ms --duration=-1 \
	--wait-deadline=z --report=0; do
	args=("$bad")
	[[ $bad == --period-us=* ]] || args+=(--period-us=10000)
	expect "$bad: exit 2" 2 "^dlsched-demo-worker: ${bad%%=*}: invalid value '${bad#*=}'$" "$W" "${args[@]}"
done
expect "deadline > period refused" 2 'need work < deadline <= period' "$W" --period-us=10000 --deadline-us=20000
expect "work >= deadline refused" 2 'need work < deadline <= period' "$W" --period-us=10000 --work-us=10000
expect "unexpected argument" 2 'unexpected argument' "$W" --period-us=10000 extra

# 1s of 200us jobs every 50ms, as a normal task (no deadline scheduling on
# the host): about 20 instances, none late by a whole period.
expect "a short run counts its instances" 0 'w: done: (19|20|21) instances, 0 deadline misses, 0 skipped' \
	"$W" --name=w --work-us=200 --period-us=50000 --duration=1 --stats="$tmp/w.stats"
stats=$(cat "$tmp/w.stats" 2>/dev/null)
for key in name=w counting=1 policy=other misses=0 skipped=0 'instances=(19|20|21)' 'worst_response_us=[0-9]+' \
	'worst_start_us=[0-9]+' 'worst_gap_us=[0-9]+' 'wait=clock_nanosleep'; do
	if [[ $stats =~ (^|$'\n')$key($'\n'|$) ]]; then pass "stats: $key"; else fail "stats: $key" "$stats"; fi
done

# --wait-deadline: a normal task counts once the wait is over.
expect "--wait-deadline: counts after the wait as a normal task" 0 'counting from now on, as a normal task' \
	"$W" --name=w --work-us=200 --period-us=50000 --duration=2 --wait-deadline=1

# SIGTERM ends the run with a final report.
"$W" --name=t --work-us=200 --period-us=50000 > "$tmp/t.out" 2>&1 &
pid=$!
sleep 0.5
kill -TERM "$pid"
wait "$pid"
rc=$?
if [ "$rc" = 0 ] && grep -Eq '^t: done: [0-9]+ instances' "$tmp/t.out"; then
	pass "SIGTERM: exit 0 with a final report"
else
	fail "SIGTERM: exit 0 with a final report" "exit $rc" "$(cat "$tmp/t.out")"
fi

tap_done
