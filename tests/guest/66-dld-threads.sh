#!/bin/bash
# Exact reservations: a service reserves X-DeadlineThreads= threads of its
# request (default 1), its cpu.dl_runtime_us rounded up so that the kernel
# admits exactly that many. A one-thread service reserves one thread, not
# one per CPU; a three-thread service gets three threads into
# SCHED_DEADLINE and its fourth is refused by the kernel.
. /usr/lib/dlsched/60-dld-lib.inc
dld_require
plan 33

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
wait_until 10 test "$(service_state t66-one.service)" = admitted
is "t66-one admitted" "$(service_state t66-one.service)" admitted
cg=$(cgroup_of t66-one)
rt=$(threads_runtime 12000 100000 1)
one=$(bw 12000 100000)
reserved=$(( NCPUS * $(bw "$rt" 100000) ))
is "cgroup runtime: one thread's worth, rounded up (${rt}us of each of $NCPUS CPUs)" "$(cgfile "$cg" cpu.dl_runtime_us)" "$rt"
is "cgroup period: the request's" "$(cgfile "$cg" cpu.dl_period_us)" 100000
ok "  holds the thread ($reserved >= $one)" test "$reserved" -ge "$one"
ok "  and not two ($reserved < 2 x $one)" test "$reserved" -lt $(( 2 * one ))
ok "  1us less of each CPU would not hold it" test $(( NCPUS * $(bw $(( rt - 1 )) 100000) )) -lt "$one"
is "media allocated grows by that, not by $NCPUS x 12%" "$(cgfile $media cpu.dl_total_bw)" $(( base_media + reserved ))
is "unit cgroup allocated = its thread" "$(cgfile "$cg" cpu.dl_total_bw)" "$one"
json=$(dlconf show --json t66-one)
is "dlconf show: reserved" "$(jq -r .reserved <<< "$json")" "$reserved"
is "dlconf show: for 1 thread" "$(jq -r .threads_requested <<< "$json")" 1
entry=$(journal_json $DLD_MSG_ADMITTED t66-one.service | tail -n 1)
is "journal: DLD_RESERVED_BW" "$(jq -r .DLD_RESERVED_BW <<< "$entry")" "$reserved"
is "journal: DLD_RESERVED_RUNTIME_USEC" "$(jq -r .DLD_RESERVED_RUNTIME_USEC <<< "$entry")" "$rt"
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
is "  cgroup runtime: three threads' worth" "$(cgfile "$cg3" cpu.dl_runtime_us)" "$(threads_runtime 2000 20000 3)"
is "  unit cgroup allocated = 3 threads" "$(cgfile "$cg3" cpu.dl_total_bw)" $(( 3 * $(bw 2000 20000) ))

timeout 5 sh -c "echo go > $fifo"
wait_until 10 test "$(service_state t66-three.service)" = degraded
is "a fourth thread: the kernel refuses it, t66-three is degraded" "$(service_state t66-three.service)" degraded
entry=$(journal_json $DLD_MSG_REFUSED t66-three.service | tail -n 1)
is "  refused by admission, EBUSY" "$(jq -r '.DLD_REFUSED_BY + " " + .DLD_ERRNO_NAME' <<< "$entry")" "admission EBUSY"
like "  the reason: the reservation holds 3 threads" "$(jq -r .DLD_REASON <<< "$entry")" \
	"SCHED_DEADLINE for new thread [0-9]+ .*holds 3 threads of this size \(X-DeadlineThreads=3\)"
is "  DLD_THREADS_REQUESTED=3" "$(jq -r .DLD_THREADS_REQUESTED <<< "$entry")" 3
is "  its threads back to SCHED_OTHER" "$(deadline_procs "$cg3")" 0

systemctl stop t66-one t66-three
rm -f "$fifo"
wait_until 10 test "$(cgfile $media cpu.dl_total_bw)" = "$base_media"
is "stopping both gives media back what they held" "$(cgfile $media cpu.dl_total_bw)" "$base_media"

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
wait_until 10 test "$(service_state t66-own.service)" = admitted
is "promote none: admitted" "$(service_state t66-own.service)" admitted
own=$(main_pid t66-own)
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
