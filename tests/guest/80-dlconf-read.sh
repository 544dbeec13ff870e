#!/bin/bash
# dlconf status, list and show against the live dld: text and JSON carry
# the daemon's values; colour and bars only when asked for (not a terminal).
. /usr/lib/dlsched/60-dld-lib.inc
dld_require
plan 27

write_policy 80-test "$DLD_TEST_POLICY"
dlconf reload || fail "policy applies"
# t80-a fits (2ms/20ms = 10% <= 15%); t80-b is larger than max_request_percent.
add_service t80-a deadline-media.slice "/bin/sleep infinity" X-DeadlineRuntime=2ms X-DeadlinePeriod=20ms
make_service t80-b deadline-media.slice "/bin/sleep infinity" X-DeadlineRuntime=4ms X-DeadlinePeriod=20ms
systemctl start t80-a t80-b
wait_until 20 sh -c '[ "$(dlconf show --json t80-a | jq -r .state)" = admitted ]'
wait_until 20 sh -c '[ "$(dlconf show --json t80-b | jq -r .state)" = degraded ]'

media_pct=$(awk -v n="$NCPUS" 'BEGIN { printf "%.2f", n * 20 }')
out=$(dlconf status); rc=$?
is "status exits 0" "$rc" 0
like "status: system budget" "$out" "System budget: 40.00% of each CPU \(400ms every 1s\) on $NCPUS CPUs"
like "status: media group with its reservation" "$out" "media \(deadline-media.slice\): reserved $media_pct% = 20.00% of each CPU"
like "status: admitted service with its parameters" "$out" "t80-a.service +admitted runtime 2ms deadline 20ms period 20ms"
like "status: degraded service with the reason" "$out" "t80-b.service +degraded .*"$'\n'" +.*max_request_percent"
ok "status: no escape sequences into a pipe" sh -c '! dlconf status | grep -q "$(printf "\033")"'
ok "status --color=always: colours and bars" sh -c 'dlconf status --color=always | grep -q "█"'

json=$(dlconf status --json)
is "status --json: system.runtime_usec" "$(jq -r .system.runtime_usec <<< "$json")" 400000
is "status --json: system.cpus" "$(jq -r .system.cpus <<< "$json")" "$(dld_prop CPUs)"
is "status --json: system.allocated = sched_dl_total_bw" "$(jq -r .system.allocated <<< "$json")" "$(dld_prop SystemAllocated)"
is "status --json: media reserves CPUs x 20%" "$(jq -r '.groups[] | select(.name == "media") | .reserved' <<< "$json")" \
	$((NCPUS * $(bw 200000 1000000)))
is "status --json: control on_refusal" "$(jq -r '.groups[] | select(.name == "control") | .on_refusal' <<< "$json")" fail

out=$(dlconf list); rc=$?
is "list exits 0" "$rc" 0
like "list: header" "$out" "^UNIT +GROUP +STATE +RUNTIME +DEADLINE +PERIOD +FOR +RESERVED +THREADS +SOURCE"
like "list: t80-a row" "$out" "t80-a.service +media +admitted +2ms +20ms +20ms +1 +[0-9.]+% +1/1 +dropin"
ok "list --no-legend: rows only" sh -c '[ "$(dlconf list --no-legend | head -n 1 | cut -c1-4)" != UNIT ]'
json=$(dlconf list --json)
is "list --json: t80-a threads" "$(jq -r '.[] | select(.unit == "t80-a.service") | .threads' <<< "$json")" 1
is "list --json: t80-b state" "$(jq -r '.[] | select(.unit == "t80-b.service") | .state' <<< "$json")" degraded

out=$(dlconf show t80-a); rc=$?
is "show exits 0" "$rc" 0
like "show: state" "$out" "State: admitted"
like "show: threads" "$out" "Threads: 1 of 1 SCHED_DEADLINE"
is "show --json: runtime_usec" "$(dlconf show --json t80-a.service | jq -r .runtime_usec)" 2000
like "show: the refused one says why" "$(dlconf show t80-b)" "Reason: .*max_request_percent"

out=$(dlconf show t80-none 2>&1); rc=$?
is "show of a unit dld does not follow: exit 1" "$rc" 1
like "  one line naming it" "$out" "^dlconf: t80-none.service: [^"$'\n'"]+$"
out=$(dlconf show 'bad/unit' 2>&1); rc=$?
is "show of an invalid unit name: exit 2" "$rc" 2
ok "--json=pretty parses" sh -c 'dlconf status --json=pretty | jq -e .groups >/dev/null'
done_testing
