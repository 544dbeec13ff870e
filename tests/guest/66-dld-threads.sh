#!/bin/bash
# Exact reservations: a service reserves X-DeadlineThreads= threads of its
# request (default 1) through its cgroup's task template: exactly N tasks'
# bandwidth. A one-thread service reserves one thread, not one per CPU; a
# three-thread service gets three tasks into SCHED_DEADLINE, and its fourth
# runs as a normal task while the service stays admitted.
. /usr/lib/dlsched/60-dld-lib.inc
dld_require
plan 36

# deadline_procs CGROUP: how many of its processes run SCHED_DEADLINE.
deadline_procs() {
	local p n=0
	while read -r p; do [ "$(policy_of "$p")" = 6 ] && n=$(( n + 1 )); done < "$CPU_MOUNT$1/cgroup.procs"
	echo "$n"
}

apply_test_policy 66-test
media=/deadline.slice/deadline-media.slice
base_media=$(idle_total $media)

# One thread of 12ms/100ms (the demo's media worker).
make_service t66-one deadline-media.slice "/bin/sleep infinity" X-DeadlineRuntime=12ms X-DeadlinePeriod=100ms
systemctl start t66-one
wait_for 10 '[ "$(service_state t66-one.service)" = admitted ]'
is "t66-one admitted" "$(service_state t66-one.service)" admitted
cg=$(cgroup_of t66-one)
one=$(bw 12000 100000)
reserved=$one
is "unit cgroup's template: one task of the request" "$(cgfile "$cg" cpu.dl_template)" "1 12000 100000 100000"
is "  no per-CPU reservation" "$(cgfile "$cg" cpu.dl_runtime_us)" -1
is "media allocated grows by exactly one task, not by $NCPUS x 12%" "$(cgfile $media cpu.dl_total_bw)" $(( base_media + one ))
is "unit cgroup allocated = its thread" "$(cgfile "$cg" cpu.dl_total_bw)" "$one"
json=$(dlconf show --json t66-one)
is "dlconf show: reserved" "$(jq -r .reserved <<< "$json")" "$reserved"
is "dlconf show: for 1 thread" "$(jq -r .threads_requested <<< "$json")" 1
entry=$(journal_json $DLD_MSG_ADMITTED t66-one.service | tail -n 1)
is "journal: DLD_RESERVED_BW" "$(jq -r .DLD_RESERVED_BW <<< "$entry")" "$reserved"
is "journal: DLD_RESERVED_BY=template" "$(jq -r .DLD_RESERVED_BY <<< "$entry")" template
is "journal: DLD_THREADS_REQUESTED" "$(jq -r .DLD_THREADS_REQUESTED <<< "$entry")" 1

# Three threads of 2ms/20ms: sh and two sleeps; sh then waits on a FIFO
# (in open(), no new process) and starts a fourth when the test writes.
fifo=/run/t66-fifo
rm -f "$fifo"
mkfifo "$fifo"
make_service t66-three deadline-media.slice "/bin/sh -c 'sleep infinity & sleep infinity & read x < $fifo; sleep infinity & wait'" \
	X-DeadlineRuntime=2ms X-DeadlinePeriod=20ms X-DeadlineThreads=3
systemctl start t66-three
wait_until 10 sh -c '[ "$(dlconf show --json t66-three | jq -r .threads)" = 3 ]'
is "t66-three admitted" "$(service_state t66-three.service)" admitted
is "  three threads SCHED_DEADLINE" "$(dlconf show --json t66-three | jq -r '"\(.threads)/\(.threads_total)"')" 3/3
cg3=$(cgroup_of t66-three)
is "  each of its processes runs SCHED_DEADLINE" "$(deadline_procs "$cg3")" 3
is "  cgroup template: three tasks" "$(cgfile "$cg3" cpu.dl_template)" "3 2000 20000 20000"
is "  unit cgroup allocated = 3 threads" "$(cgfile "$cg3" cpu.dl_total_bw)" $(( 3 * $(bw 2000 20000) ))

timeout 5 sh -c "echo go > $fifo"
wait_for 10 '[ "$(journal_json $DLD_MSG_THREADS_OVER t66-three.service | wc -l)" -ge 1 ]'
is "a fourth process: no room, t66-three stays admitted" "$(service_state t66-three.service)" admitted
is "  the template counts it" "$(cgfile "$cg3" cpu.dl_template_stat | tr '\n' ' ')" "nr_tasks 3 nr_over 1 "
is "  three processes SCHED_DEADLINE, the fourth a normal task" "$(deadline_procs "$cg3")" 3
entry=$(journal_json $DLD_MSG_THREADS_OVER t66-three.service | tail -n 1)
is "  journal: DLD_THREADS=3 DLD_THREADS_OVER=1" "$(jq -r '.DLD_THREADS + " " + .DLD_THREADS_OVER' <<< "$entry")" "3 1"
is "  DLD_THREADS_REQUESTED=3" "$(jq -r .DLD_THREADS_REQUESTED <<< "$entry")" 3
is "  no refusal" "$(journal_json $DLD_MSG_REFUSED t66-three.service | wc -l)" 0
is "  dlconf show counts both kinds" "$(dlconf show --json t66-three | jq -r '"\(.threads)/\(.threads_total)"')" 3/4

systemctl stop t66-one t66-three
rm -f "$fifo"
wait_for 10 '[ "$(cgfile $media cpu.dl_total_bw)" = "$base_media" ]'
is "stopping both gives media back what they held" "$(cgfile $media cpu.dl_total_bw)" "$base_media"

# N of N + 1: control reserves 10% of each CPU; NCPUS one-thread services
# of 10ms/100ms fill it exactly, as NCPUS such tasks would, and one more is
# refused (on_refusal fail: stopped). dlconf check predicts the same.
control=/deadline.slice/deadline-control.slice
base_control=$(idle_total $control)
files=()
for i in $(seq $((NCPUS + 1))); do
	add_service "t66-x$i" deadline-control.slice "/bin/sleep infinity" X-DeadlineRuntime=10ms X-DeadlinePeriod=100ms
	files+=("$DLD_UNIT_DIR/t66-x$i.service" "$DLD_UNIT_DIR/t66-x$i.service.d/deadline.conf")
done
systemctl daemon-reload
predicted=$(dlconf check --json --cpus="$NCPUS" "$DLD_POLICY_DIR/66-test.json" "${files[@]}" 2>/dev/null |
	jq '[.verdicts[] | select(.verdict == "admitted")] | length')
admitted=0
for i in $(seq $((NCPUS + 1))); do
	systemctl start "t66-x$i" 2>/dev/null
	[ "$(service_state "t66-x$i.service")" = admitted ] && admitted=$((admitted + 1))
done
is "$NCPUS one-thread 10% services fill a group of 10% of each of $NCPUS CPUs" "$admitted" "$NCPUS"
ok "  the one more is refused and stopped (fail)" sh -c "! systemctl is-active --quiet t66-x$((NCPUS + 1))"
is "  the group holds exactly $NCPUS tasks' bandwidth, its capacity" "$(cgfile $control cpu.dl_total_bw)" \
	"$(( base_control + NCPUS * $(bw 10000 100000) ))"
is "  dlconf check predicted $NCPUS" "$predicted" "$NCPUS"
for i in $(seq $((NCPUS + 1))); do systemctl stop "t66-x$i"; done

# X-DeadlinePromote=none: an unprivileged service that schedules itself.
# dld reserves, leaves its threads alone, and gives its processes the
# request's deadline limits (RLIMIT_DLRTIME 2ms, RLIMIT_DLDLINE 20ms), so
# that they need no CAP_SYS_NICE; back to none when dld releases it.
out=/run/t66-own.out
rm -f "$out" "$fifo"
mkfifo -m 0666 "$fifo"
# tries RUNTIME DEADLINE PERIOD (ns) for each line read: "ok" or the error's text
cat > /run/t66-own.sh <<'OWN'
#!/bin/bash
while read -r rt dl pe < "$1"; do
	if e=$(chrt -d -T "$rt" -D "$dl" -P "$pe" 0 true 2>&1); then echo ok; else echo "${e##*: }"; fi >> "$2"
done
OWN
chmod 0755 /run/t66-own.sh
make_service t66-own deadline-media.slice "/run/t66-own.sh $fifo $out" User=nobody \
	X-DeadlineRuntime=2ms X-DeadlinePeriod=20ms X-DeadlinePromote=none
touch "$out" && chown nobody "$out"
systemctl start t66-own
wait_for 10 '[ "$(service_state t66-own.service)" = admitted ]'
is "promote none: admitted" "$(service_state t66-own.service)" admitted
own=$(main_pid t66-own)
wait_for 10 '[ "$(dl_limits "$own")" = "Min deadline 20000 20000 us;Max deadline runtime 2000 2000 us;" ]'
is "  its process has the request's limits" "$(dl_limits "$own")" "Min deadline 20000 20000 us;Max deadline runtime 2000 2000 us;"
is "  and dld left it SCHED_OTHER" "$(policy_of "$own")" 0
ask() { : > "$out"; echo "$*" > "$fifo"; wait_until 10 test -s "$out"; cat "$out"; }
is "  as nobody it enters SCHED_DEADLINE 2ms/20ms itself" "$(ask 2000000 20000000 20000000)" ok
is "  3ms: EPERM (past RLIMIT_DLRTIME)" "$(ask 3000000 20000000 20000000)" "Operation not permitted"
is "  a 10ms deadline: EPERM (below RLIMIT_DLDLINE)" "$(ask 1000000 10000000 10000000)" "Operation not permitted"
ok "  ReleaseUnit" dld_call ReleaseUnit s t66-own.service
is "  the limits are taken back" "$(dl_limits "$own")" "Min deadline unlimited unlimited us;Max deadline runtime 0 0 us;"
is "  and 2ms/20ms is EPERM again" "$(ask 2000000 20000000 20000000)" "Operation not permitted"
systemctl stop t66-own
rm -f "$fifo" "$out" /run/t66-own.sh
done_testing
