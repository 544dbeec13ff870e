#!/bin/bash
# dlconf check in the guest: the installed demo and example policies, the
# policy directory by default, and no daemon needed.
. /usr/lib/dlsched/60-dld-lib.inc
dld_require
plan 11

units=/usr/lib/systemd/system
policies=/usr/share/dlsched/policies
demo=("$policies/demo.json" "$units"/demo-media.service{,.d/deadline.conf} "$units"/demo-control.service{,.d/deadline.conf}
      "$units"/demo-greedy.service{,.d/deadline.conf})
out=$(dlconf check "${demo[@]}" 2>&1); rc=$?
is "demo: exit 3 (one refusal predicted)" "$rc" 3
like "  media admitted" "$out" "admitted demo-media.service"
like "  control admitted" "$out" "admitted demo-control.service"
like "  greedy refused because it does not fit" "$out" "refused  demo-greedy.service .*refused by admission: EBUSY"
is "  --json: verdicts in order" "$(dlconf check --json "${demo[@]}" | jq -r '[.verdicts[].verdict] | join(" ")')" "admitted admitted refused"

out=$(dlconf check "$policies/broken.json" 2>&1); rc=$?
is "broken example policy: exit 6" "$rc" 6
like "  the precise reason" "$out" "broken.json: \\\$.groups\[1\]: group \"control\" \(20.00% of each CPU\) does not fit together with the groups before it"
ok "nested example policy is valid" dlconf check "$policies/nested.json"

# Without a .json file the policy directory is checked.
write_policy 82-test "$DLD_TEST_POLICY"
make_service t82-a deadline-media.slice "/bin/sleep infinity" X-DeadlineRuntime=2ms X-DeadlinePeriod=20ms
out=$(dlconf check "$DLD_UNIT_DIR/t82-a.service" "$DLD_UNIT_DIR/t82-a.service.d/deadline.conf" 2>&1); rc=$?
is "policy directory by default: exit 0" "$rc" 0
like "  t82-a admitted in media" "$out" "admitted t82-a.service .* in media"

systemctl stop dld.service
out=$(dlconf check "${demo[@]}" 2>&1); rc=$?
is "check without dld running: same verdicts (exit 3)" "$rc" 3
systemctl start dld.service
done_testing
