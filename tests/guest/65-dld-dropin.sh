#!/bin/bash
# A malformed drop-in: one journal entry with the unit, file and line; the
# unit runs without a request. A request in the unit file itself counts too,
# and a drop-in overrides it.
. /usr/lib/dlsched/60-dld-lib.inc
dld_require
plan 9

apply_test_policy 65-test
make_service t65-bad deadline-media.slice "/bin/sleep infinity" X-DeadlineRuntime=2xs X-DeadlinePeriod=20ms
ok "t65-bad starts" systemctl start t65-bad
wait_for 10 '[ "$(journal_json 96f14a8deb3a4050a65e48993a209984 t65-bad.service | wc -l)" -ge 1 ]'
entry=$(journal_json 96f14a8deb3a4050a65e48993a209984 t65-bad.service | tail -n 1)
is "entry names the file" "$(echo "$entry" | jq -r .DLD_FILE)" /run/systemd/system/t65-bad.service.d/deadline.conf
is "entry names the line" "$(echo "$entry" | jq -r .DLD_LINE)" "line 2"
is "entry says why" "$(echo "$entry" | jq -r .DLD_REASON)" \
	"X-DeadlineRuntime=2xs: not a time span (expected systemd syntax such as 2ms or 500us)"
is "the unit runs as a normal task" "$(policy_of "$(main_pid t65-bad)")" 0
is "dld does not follow it" "$(service_state t65-bad.service)" none

# Keys in the unit file, period overridden by a drop-in.
cat > "$DLD_UNIT_DIR/t65-file.service" <<UNIT
[Service]
Slice=deadline-media.slice
ExecStart=/bin/sleep infinity
X-DeadlineRuntime=1ms
X-DeadlinePeriod=50ms
UNIT
mkdir -p "$DLD_UNIT_DIR/t65-file.service.d"
printf '[Service]\nX-DeadlinePeriod=20ms\n' > "$DLD_UNIT_DIR/t65-file.service.d/period.conf"
DLD_TEST_UNITS+=(t65-file.service)
systemctl daemon-reload
ok "t65-file starts" systemctl start t65-file
wait_for 10 '[ "$(service_state t65-file.service)" = admitted ]'
is "admitted from its unit file" "$(service_state t65-file.service)" admitted
like "the drop-in's period wins" "$(chrt -p "$(main_pid t65-file)")" "1000000/20000000/20000000"
done_testing
