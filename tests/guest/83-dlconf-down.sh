#!/bin/bash
# dlconf with dld stopped: every verb that needs the daemon fails with exit
# status 4 and one line saying so; nothing hangs.
. /usr/lib/dlsched/60-dld-lib.inc
dld_require
plan 15

systemctl stop dld.service
for verb in status list "show t83.service" reload "admit t83.service --runtime=1ms --period=10ms" "release t83.service" "status --json"; do
	# shellcheck disable=SC2086
	out=$(timeout 30 dlconf $verb 2>&1); rc=$?
	is "$verb: exit 4" "$rc" 4
	# "dlconf: [UNIT: |VERB: ]dld is not reachable ...".
	like "  one line: dld not reachable" "$out" "^dlconf: ([^ ]+: )?dld is not reachable on the system bus \(is dld.service running\?\): [^"$'\n'"]*$"
done
systemctl start dld.service
ok "with dld back, status works again" dlconf status
done_testing
