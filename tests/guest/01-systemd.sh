#!/bin/bash
# systemd reached multi-user.target with zero failed units.
. /usr/lib/dlsched/tap.sh
plan 3
state=$(systemctl is-system-running)
is "system state is running" "$state" running
ok "multi-user.target is active" systemctl is-active --quiet multi-user.target
failed=$(systemctl list-units --state=failed --no-legend --plain | awk '{print $1}' | tr '\n' ' ')
is "no failed units" "$failed" ""
done_testing
