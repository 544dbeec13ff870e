#!/bin/bash
# dld checks what it needs before it touches anything (dld/privileges.c):
# started without one of them it exits 4, names each missing need on
# stderr and in the journal (MESSAGE_ID 547f3289..., DLD_NEED=,
# DLD_FATAL=), and changes nothing. Each case starts a second dld beside
# dld.service, with its own run directory; the privilege check comes
# before the bus name and any write, so it never meets the first one.
. /usr/lib/dlsched/60-dld-lib.inc
dld_require

DLD_MSG_PRIVILEGE=547f328941374217bc1bcdf202886664
run=$(mktemp -d)
err=$(mktemp)
trap 'rm -rf "$run" "$err"; dld_cleanup' EXIT

plan 19
pool=$(knob sched_dl_runtime_us)
total=$(knob sched_dl_total_bw)
main_pid=$(systemctl show -P MainPID dld.service)
since=$(date '+%Y-%m-%d %H:%M:%S')
sleep 1

# try NAME NEED CMD...: CMD starts dld; it must exit 4 naming NEED.
try() {
	local name=$1 need=$2 rc
	shift 2
	timeout 20 "$@" /usr/sbin/dld --run-dir "$run" 2> "$err"
	rc=$?
	is "$name: dld exits 4" "$rc" 4
	like "$name: stderr names $need" "$(cat "$err")" "missing: .*$need"
}

try "without CAP_SYS_NICE" CAP_SYS_NICE setpriv --bounding-set=-sys_nice --inh-caps=-sys_nice
try "in its own PID namespace" "PID namespace" unshare --pid --fork
try "as nobody" "runs as uid 65534" setpriv --reuid=65534 --regid=65534 --clear-groups
needs="CAP_SYS_NICE pid-namespace root"
# /proc/self/ns/user exists only with CONFIG_USER_NS.
if [ -e /proc/self/ns/user ]; then
	try "in its own user namespace" "user namespace" unshare --user --map-root-user
	needs+=" user-namespace"
else
	skip "in its own user namespace: dld exits 4" "no user namespaces in this kernel (CONFIG_USER_NS)"
	skip "in its own user namespace: stderr names user namespace" "no user namespaces in this kernel"
	skip "journal: an entry with DLD_NEED=user-namespace" "no user namespaces in this kernel"
fi

# The journal has one entry per missing need, with the need as a field.
for need in $needs; do
	n=$(journalctl -q --since "$since" MESSAGE_ID=$DLD_MSG_PRIVILEGE DLD_NEED=$need DLD_FATAL=1 -o cat | wc -l)
	ok "journal: an entry with DLD_NEED=$need, DLD_FATAL=1 ($n)" test "$n" -ge 1
done

# systemd does not restart a dld that exits 4: restarting would not give it
# the privilege. The same restart settings as dld.service, in a transient
# unit without CAP_SYS_NICE.
prevent=$(systemctl show -P RestartPreventExitStatus dld.service)
like "dld.service's RestartPreventExitStatus= has 4 ($prevent)" "$prevent" '(^| )4( |$)'
systemd-run --quiet --unit=t67-noprivs -p Restart=on-failure -p RestartSec=100ms \
	-p "RestartPreventExitStatus=$prevent" -p CapabilityBoundingSet=~CAP_SYS_NICE \
	/usr/sbin/dld --run-dir "$run"
wait_for 20 '[ "$(systemctl show -P ActiveState t67-noprivs)" = failed ]'
sleep 1
is "  a dld without CAP_SYS_NICE under these settings: exit status 4" "$(systemctl show -P ExecMainStatus t67-noprivs)" 4
is "  and no restart" "$(systemctl show -P NRestarts t67-noprivs)" 0
systemctl reset-failed t67-noprivs 2>/dev/null

is "sched_dl_runtime_us is unchanged" "$(knob sched_dl_runtime_us)" "$pool"
is "sched_dl_total_bw is unchanged" "$(knob sched_dl_total_bw)" "$total"
is "dld.service still runs, same process" "$(systemctl show -P MainPID dld.service)" "$main_pid"
is "the refused instances wrote nothing to their run directory" "$(ls -A "$run")" ""
done_testing
