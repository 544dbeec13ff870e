#!/bin/bash
# The D-Bus API: AdmitUnit/ReleaseUnit by hand, named errors with clear
# messages for bad requests, root only.
. /usr/lib/dlsched/60-dld-lib.inc
dld_require
plan 42

# dld's vtable serves the API of org.dlsched.Dld1.xml, member for member.
want=$(cat /usr/lib/dlsched/dld-api.listing)
got=$(busctl introspect org.dlsched.Dld1 /org/dlsched/Dld1 org.dlsched.Dld1.Manager 2>&1 |
	awk -f /usr/lib/dlsched/api-listing.awk | LC_ALL=C sort)
is "dld's API is the XML's ($(wc -l <<< "$want") members)" "$got" "$want"

apply_test_policy 64-test
media=/deadline.slice/deadline-media.slice
add_service t64-a deadline-media.slice "/bin/sleep infinity"
add_service t64-sys system.slice "/bin/sleep infinity"
make_service t64-off deadline-media.slice "/bin/sleep infinity"
systemctl start t64-a t64-sys

ok "introspectable" sh -c "busctl introspect org.dlsched.Dld1 /org/dlsched/Dld1 | grep -q AdmitUnit"
ok "AdmitUnit by hand" dld_call AdmitUnit stttu t64-a.service 2000 0 20000 1
is "  one thread's template" "$(cgfile "$(cgroup_of t64-a)" cpu.dl_template)" "1 2000 20000 20000"
like "threads SCHED_DEADLINE with the given parameters" "$(chrt -p "$(main_pid t64-a)")" "2000000/20000000/20000000"
is "state admitted" "$(service_state t64-a.service)" admitted
like "GetService says manual" "$(dld_call GetService s t64-a.service)" '"manual"'
ok "ReleaseUnit" dld_call ReleaseUnit s t64-a.service
is "thread back to SCHED_OTHER" "$(policy_of "$(main_pid t64-a)")" 0
is "template released" "$(cgfile "$(cgroup_of t64-a)" cpu.dl_template)" none
is "state released" "$(service_state t64-a.service)" released
ok "AdmitUnit with threads 0: one per CPU" dld_call AdmitUnit stttu t64-a.service 2000 0 20000 0
is "  a template of one task per CPU" "$(cgfile "$(cgroup_of t64-a)" cpu.dl_template)" "$NCPUS 2000 20000 20000"
dld_call ReleaseUnit s t64-a.service > /dev/null

err() { dld_call "$@" 2>&1; }
like "unknown unit: NoSuchUnit" "$(err AdmitUnit stttu t64-none.service 2000 0 20000 1)" "systemd knows no unit t64-none.service"
like "runtime > period: InvalidRequest" "$(err AdmitUnit stttu t64-a.service 30000 0 20000 1)" "runtime is longer than the deadline"
like "not a service: InvalidRequest" "$(err AdmitUnit stttu foo 1000 0 20000 1)" '"foo" is not a service unit name'
like "inactive unit: UnitNotActive" "$(err AdmitUnit stttu t64-off.service 2000 0 20000 1)" "t64-off.service is inactive, not active"
like "unit outside any group: NotInGroup" "$(err AdmitUnit stttu t64-sys.service 2000 0 20000 1)" "slice system.slice belongs to no deadline group"
like "1025 threads: InvalidRequest" "$(err AdmitUnit stttu t64-a.service 2000 0 20000 1025)" "1025 threads: the count is 1 to 1024, or all"
like "too large for the group: Refused" "$(err AdmitUnit stttu t64-a.service 5000 0 20000 1)" "max_request_percent"
like "unknown service: NoSuchService" "$(err ReleaseUnit s t64-none.service)" "dld does not manage t64-none.service"
# PrepareUnit (dlconf prepare, from a unit's ExecStartPre=): bad input changes nothing.
like "PrepareUnit: not a service: InvalidRequest" "$(err PrepareUnit ss foo '')" '"foo" is not a service unit name'
like "PrepareUnit: unknown unit: NoSuchUnit" "$(err PrepareUnit ss t64-none.service '')" "systemd knows no unit t64-none.service"
like "PrepareUnit: another activation: UnitNotActive" \
	"$(err PrepareUnit ss t64-a.service 0123456789abcdef0123456789abcdef)" "not in its activation 0123456789abcdef0123456789abcdef"
make_service t64-plain system.slice "/bin/sleep infinity"
systemctl start t64-plain
like "PrepareUnit: a unit without a request: none" "$(dld_call PrepareUnit ss t64-plain.service '')" '^ss "none" ""'
is "  and dld does not follow it" "$(service_state t64-plain.service)" none
like "PrepareUnit: an admitted unit: its state, unchanged" \
	"$(dld_call AdmitUnit stttu t64-a.service 2000 0 20000 1 >/dev/null; dld_call PrepareUnit ss t64-a.service '')" '^ss "admitted" ""'
is "  its template unchanged" "$(cgfile "$(cgroup_of t64-a)" cpu.dl_template)" "1 2000 20000 20000"
nobody_call() {
	setpriv --reuid=65534 --regid=65534 --clear-groups busctl --system call org.dlsched.Dld1 /org/dlsched/Dld1 \
		org.dlsched.Dld1.Manager "$@" 2>&1
}
# (busctl prints any AccessDenied as "Access denied"; ListServices below
# shows that the bus lets nobody call dld: these refusals are dld's.)
like "PrepareUnit: non-root callers are refused" "$(nobody_call PrepareUnit ss t64-a.service '')" \
	"Access denied"
like "AdmitUnit: non-root callers need polkit's org.dlsched.dld1.manage" \
	"$(nobody_call AdmitUnit stttu t64-a.service 1000 0 20000 1)" "org.dlsched.dld1.manage"
is "  the template unchanged" "$(cgfile "$(cgroup_of t64-a)" cpu.dl_template)" "1 2000 20000 20000"
like "ReleaseUnit: likewise" "$(nobody_call ReleaseUnit s t64-a.service)" "org.dlsched.dld1.manage"
is "  the template unchanged" "$(cgfile "$(cgroup_of t64-a)" cpu.dl_template)" "1 2000 20000 20000"
like "AdmitContainer: root only" "$(nobody_call AdmitContainer sssstttu 0123 c /x g 1000 0 20000 1)" \
	"Access denied"
like "ListServices: anyone may read" "$(nobody_call ListServices)" "t64-a.service"
like "GetService: anyone may read" "$(nobody_call GetService s t64-a.service)" '"admitted"'
like "properties: anyone may read" "$(setpriv --reuid=65534 --regid=65534 --clear-groups busctl --system \
	get-property org.dlsched.Dld1 /org/dlsched/Dld1 org.dlsched.Dld1.Manager CPUs 2>&1)" "^u [0-9]+$"
dld_call ReleaseUnit s t64-a.service > /dev/null

# dld's loop never waits for systemd. A daemon-reload whose generator
# takes 6 s keeps systemd from taking bus calls; an AdmitUnit asked
# meanwhile needs systemd's answer and waits alone, while dld answers the
# rest. (The generator sleeps once: a leftover file costs later reloads nothing.)
mkdir -p /run/systemd/system-generators
printf '#!/bin/sh
rm /run/t64-slow-once 2>/dev/null && sleep 6
exit 0
' > /run/systemd/system-generators/t64-slow
chmod +x /run/systemd/system-generators/t64-slow
touch /run/t64-slow-once
systemctl daemon-reload & reload_pid=$!
sleep 1.5
dld_call AdmitUnit stttu t64-a.service 2000 0 20000 1 > /dev/null 2>&1 & admit_pid=$!
sleep 0.5
ok "while systemd runs a 6-s generator, dld answers ListServices within 2 s" \
	busctl --system --timeout=2 call org.dlsched.Dld1 /org/dlsched/Dld1 org.dlsched.Dld1.Manager ListServices
is "  and GetService: systemd is still reloading" "$(timeout 2 busctl --system --timeout=2 call org.dlsched.Dld1 \
	/org/dlsched/Dld1 org.dlsched.Dld1.Manager GetService s t64-plain.service 2>&1 | grep -c "dld does not manage"
	kill -0 "$reload_pid" 2>/dev/null && echo reloading)" "1
reloading"
wait "$admit_pid"
is "  the AdmitUnit asked meanwhile is answered once systemd is back" "$?" 0
is "  and admitted: its template" "$(cgfile "$(cgroup_of t64-a)" cpu.dl_template)" "1 2000 20000 20000"
wait "$reload_pid"
rm -f /run/systemd/system-generators/t64-slow
dld_call ReleaseUnit s t64-a.service > /dev/null
ok "non-root callers may introspect" sh -c "setpriv --reuid=65534 --regid=65534 --clear-groups busctl --system call org.dlsched.Dld1 /org/dlsched/Dld1 org.freedesktop.DBus.Introspectable Introspect | grep -q ListServices"
done_testing
