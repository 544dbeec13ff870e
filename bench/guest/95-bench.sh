#!/bin/bash
# make bench, inside the guest (bench/README.md): runs the parts named by
# dlsched.bench=PART[,PART...] on the kernel command line and prints each
# figure as a "# BENCH {json}" line; without dlsched.bench it skips, so
# that make check's boots leave it alone. dlsched.bench_quick=1: short
# runs (make bench QUICK=1).
#
#   hot    part 1: pipe ping-pong, fork/exit, hackbench, sched_setattr()
#          at cgroup depth 0/1/5, with and without a reservation (the
#          reserved cases only where the kernel has reservations)
#   cap    part 2: periodic deadline tasks filling a group's reservation
#          beside a CFS load and an overrunning deadline task; then the
#          same over-subscribed with admission control off
#   dld    part 3: dld's promotion latency against systemd's
#          CPUSchedulingPolicy=fifo
#   foot   part 4: dld's RSS and CPU, idle and through 1000 service
#          start/stop cycles (20 services, 50 rounds; QUICK 60, or
#          dlsched.bench_cycles=N), dlconf status
#   depth  part 5: reservation write and setattr cost, depth 1 to 16
. /usr/lib/dlsched/tap.sh

BIN=/usr/lib/dlsched/bench
STALLWATCH=/usr/lib/dlsched/bin/stallwatch
STALLS=/tmp/dlb-stalls

cmdline_value() {
	local arg
	for arg in $(cat /proc/cmdline); do
		case $arg in "$1"=*) echo "${arg#*=}"; return 0;; esac
	done
	return 1
}

parts=$(cmdline_value dlsched.bench) || skip_all "no dlsched.bench= on the kernel command line (make bench)"
quick=$(cmdline_value dlsched.bench_quick || echo 0)
[ "$(stat -f -c %T /sys/fs/cgroup)" = cgroup2fs ] || skip_all "the bench runs on cgroup v2"
patched=0
[ -e /proc/sys/kernel/sched_dl_runtime_us ] && patched=1

q() { if [ "$quick" = 1 ]; then echo "$1"; else echo "$2"; fi; }
# Every figure: one line the host collects; the part and the kernel added.
emit() {
	local line
	while IFS= read -r line; do
		case $line in
		BENCH\ \{*) echo "# BENCH {\"part\":\"$1\",\"kernel\":\"$kernel\",${line#BENCH \{}";;
		*) echo "# $line";;
		esac
	done
}
kernel=$([ $patched = 1 ] && echo patched || echo stock)
# bench_json PART KEY=NUMBER...: a figure measured by this script.
bench_json() {
	local part=$1 out="" kv
	shift
	for kv in "$@"; do out+=",\"${kv%%=*}\":${kv#*=}"; done
	echo "# BENCH {\"part\":\"$part\",\"kernel\":\"$kernel\"${out}}"
}
has_part() { case ",$parts," in *",$1,"*) return 0;; esac; return 1; }

n_parts=0
for p in hot cap dld foot depth; do has_part $p && n_parts=$((n_parts + 1)); done
plan $n_parts
diag "bench parts $parts, quick=$quick, kernel $kernel ($(uname -r)), $(nproc) CPUs"

DEFAULTS=(50000 1000000 950000 1000000)
restore_knobs() {
	[ $patched = 1 ] || return 0
	echo "${DEFAULTS[0]}" > /proc/sys/kernel/sched_dl_runtime_us 2>/dev/null
	echo "${DEFAULTS[1]}" > /proc/sys/kernel/sched_dl_period_us 2>/dev/null
	echo "${DEFAULTS[3]}" > /proc/sys/kernel/sched_rt_period_us
	echo "${DEFAULTS[2]}" > /proc/sys/kernel/sched_rt_runtime_us
}

# ---- part 1: hot paths, three times each; the host takes the medians.
part_hot() {
	local rep reps pipe_n fork_n hb_g hb_l sa_n d r rc=0
	reps=3
	pipe_n=$(q 10000 40000); fork_n=$(q 200 800); hb_g=$(q 2 4); hb_l=$(q 20 60); sa_n=$(q 300 1500)
	for rep in $(seq $reps); do
		"$BIN/dlb-hot" calib "$(q 20000000 50000000)" || rc=1
		"$BIN/dlb-hot" pipe "$pipe_n" || rc=1
		"$BIN/dlb-hot" forkexit "$fork_n" || rc=1
		"$BIN/dlb-hot" hackbench "$hb_g" "$hb_l" || rc=1
		for d in 0 1 5; do
			for r in 0 1; do
				[ "$r" = 1 ] && { [ $patched = 1 ] && [ "$d" -gt 0 ] || continue; }
				"$BIN/dlb-hot" setattr "$d" "$r" "$sa_n" || rc=1
			done
		done
	done 2>&1 | emit hot
	return "${PIPESTATUS[0]}"
}

# cap_run LABEL JOBS N PERIODIC-CGROUP OVERRUN-CGROUP: N periodic tasks of
# 5 ms/20 ms doing 2 ms of work each job, one 1 ms/20 ms overrunner and
# one CFS spinner per CPU, with the stall witness running ("-": no cgroup
# of their own). Sets rc=1 on failure.
cap_run() {
	local label=$1 jobs=$2 n=$3 pcg=$4 ocg=$5 spec=() i sw t0=$SECONDS
	for ((i = 0; i < n; i++)); do spec+=("periodic:$pcg:5000:20000:2000"); done
	spec+=("overrun:$ocg:1000:20000:0")
	for ((i = 0; i < $(nproc); i++)); do spec+=("cfs:-:0:0:0"); done
	rm -f "$STALLS"
	"$STALLWATCH" "$STALLS" & sw=$!
	DLB_STALLS=$STALLS "$BIN/dlb-cap" "$label" "$jobs" "${spec[@]}" 2>&1 | emit cap
	[ "${PIPESTATUS[0]}" = 0 ] || rc=1
	diag "cap: $label run took $((SECONDS - t0)) s"
	kill $sw; wait $sw 2>/dev/null
}

# ---- part 2: guarantees at the cap, on 2 CPUs (one vCPU per host CPU).
# Bandwidths are powers of two, which the kernel's fixed point holds
# exactly: the periodic tasks fill their group to the last unit.
part_cap() {
	local jobs cpus cg=/sys/fs/cgroup/dlbcap rc=0
	[ $patched = 1 ] || { diag "cap: needs the patched kernel"; return 0; }
	jobs=$(q 300 10000)
	cpus=$(nproc)
	# 90% of each CPU for deadline tasks. RT throttling off: 6.1 charges
	# deadline tasks' time to the RT budget too, and would throttle the
	# stall witness (SCHED_FIFO) for most of each second.
	echo -1 > /proc/sys/kernel/sched_rt_runtime_us
	echo 900000 > /proc/sys/kernel/sched_dl_runtime_us
	echo +cpu > /sys/fs/cgroup/cgroup.subtree_control
	mkdir -p $cg/periodic $cg/overrun
	echo +cpu > $cg/cgroup.subtree_control
	# The periodic group: 50% of each CPU, filled by 2 x CPUs tasks of
	# 5 ms/20 ms (25%), each job 2 ms of work; the overrunner's group 5%,
	# held by one 1 ms/20 ms task that never stops.
	echo 100000 > $cg/periodic/cpu.dl_period_us
	echo 50000 > $cg/periodic/cpu.dl_runtime_us
	echo 100000 > $cg/overrun/cpu.dl_period_us
	echo 5000 > $cg/overrun/cpu.dl_runtime_us
	cap_run admitted "$jobs" $((2 * cpus)) $cg/periodic $cg/overrun
	bench_json cap test='"cap_group"' label='"admitted"' group_total_bw="$(cat $cg/periodic/cpu.dl_total_bw)"
	# Without admission control: the same tasks in the root, 12 per CPU:
	# 300% of each CPU asked for, their work alone 120%.
	echo -1 > $cg/periodic/cpu.dl_runtime_us
	echo -1 > $cg/overrun/cpu.dl_runtime_us
	echo -1 > /proc/sys/kernel/sched_dl_runtime_us
	cap_run oversubscribed "$(q 300 2000)" $((12 * cpus)) - -
	rmdir $cg/periodic $cg/overrun $cg
	restore_knobs
	return $rc
}

# ---- dld set-up, shared by parts 3 and 4.
UNITS=/run/systemd/system
dld_setup() {
	mkdir -p /etc/dld/policies.d /run/dlb
	cat > /etc/dld/policies.d/90-bench.json <<-'JSON'
	{
	  "system": { "sched_dl_runtime_us": 850000, "sched_dl_period_us": 1000000,
	              "sched_rt_runtime_us": 100000, "sched_rt_period_us": 1000000 },
	  "groups": [
	    { "name": "bench", "slice": "dlbench.slice", "runtime_us": 800000, "period_us": 1000000,
	      "on_refusal": "degrade" }
	  ]
	}
	JSON
	systemctl start dld.service || return 1
	busctl --system call org.dlsched.Dld1 /org/dlsched/Dld1 org.dlsched.Dld1.Manager Reload > /dev/null
}
dld_unit() {	# NAME EXEC [DROPIN-LINE...]
	local name=$1 exec=$2
	shift 2
	printf '[Unit]\nDescription=bench %s\n[Service]\nSlice=dlbench.slice\nExecStart=%s\n' "$name" "$exec" > "$UNITS/$name.service"
	mkdir -p "$UNITS/$name.service.d"
	{ echo "[Service]"; printf '%s\n' "$@"; } > "$UNITS/$name.service.d/bench.conf"
}
dld_teardown() {
	rm -rf "$UNITS"/dlb-*.service "$UNITS"/dlb-*.service.d /etc/dld/policies.d/90-bench.json
	systemctl daemon-reload
	busctl --system call org.dlsched.Dld1 /org/dlsched/Dld1 org.dlsched.Dld1.Manager Reload > /dev/null 2>&1
	systemctl stop dld.service
	restore_knobs
}
policy_of() {	# 6 = SCHED_DEADLINE, from /proc/PID/stat field 41
	local stat
	read -r stat < "/proc/$1/stat" 2>/dev/null || return 1
	stat=${stat##*) }
	# shellcheck disable=SC2086
	set -- $stat
	echo "${39}"
}

# ---- part 3: how long any thread of a started unit runs outside
# SCHED_DEADLINE (each notes its policy at its first instruction), how long
# the start job takes, and when the worker has seen all its threads in
# policy. The worker keeps 3 threads and
# starts 50 short ones one after the other (QUICK 5), a period (10 ms)
# apart: an ended thread's bandwidth comes back at its 0-lag time, at the
# latest a period after it ended, so 5 tasks leave room for the next.
part_dld() {
	local n n_fifo i w kind kinds out res inact act all new first threads outside exec_ns lag spawn fails=0
	[ $patched = 1 ] || { diag "dld: needs the patched kernel"; return 0; }
	n=$(q 10 200)
	n_fifo=$(q 10 50)
	spawn=$(q 5 50)
	dld_unit dlb-dl "$BIN/dlb-worker /run/dlb/dl 6 2 new spawn=$spawn gap=10000" X-DeadlineRuntime=2ms X-DeadlinePeriod=10ms \
		X-DeadlineThreads=5
	dld_unit dlb-fifo "$BIN/dlb-worker /run/dlb/fifo 1 2 new spawn=$spawn gap=10000" CPUSchedulingPolicy=fifo CPUSchedulingPriority=10
	systemctl daemon-reload
	for ((i = 0; i < n; i++)); do
		kinds=dl
		[ "$i" -lt "$n_fifo" ] && kinds="dl fifo"
		for kind in $kinds; do
			out=/run/dlb/$kind
			rm -f "$out"
			systemctl start dlb-$kind.service
			# The start job: from leaving "inactive" (its ExecStartPre=
			# begins) to "active" (the main process forked).
			inact=$(systemctl show -P InactiveExitTimestampMonotonic dlb-$kind.service)
			act=$(systemctl show -P ActiveEnterTimestampMonotonic dlb-$kind.service)
			for ((w = 0; w < 1000; w++)); do [ -s "$out" ] && break; sleep 0.01; done
			res=$(cat "$out" 2>/dev/null)
			systemctl stop dlb-$kind.service
			all=$(sed -n 's/.*all=\(-\{0,1\}[0-9]*\).*/\1/p' <<< "$res")
			new=$(sed -n 's/.*new=\(-\{0,1\}[0-9]*\).*/\1/p' <<< "$res")
			first=$(sed -n 's/.*first=\([0-9]*\).*/\1/p' <<< "$res")
			threads=$(sed -n 's/.*threads=\([0-9]*\).*/\1/p' <<< "$res")
			outside=$(sed -n 's/.*outside=\([0-9]*\).*/\1/p' <<< "$res")
			exec_ns=$(sed -n 's/.*exec=\([0-9]*\).*/\1/p' <<< "$res")
			lag=$(sed -n 's/.*lag=\(-\{0,1\}[0-9]*\).*/\1/p' <<< "$res")
			if [ -z "$all" ] || [ -z "$new" ] || [ "$all" -lt 0 ] || [ "$new" -lt 0 ]; then
				fails=$((fails + 1))
				echo "# dld: $kind start $i: no promotion within 10 s ($res)"
				continue
			fi
			bench_json dld test='"promotion"' kind="\"$kind\"" i="$i" \
				unit_to_policy_us="$(( (all - act * 1000) / 1000 ))" new_thread_us="$(( new / 1000 ))" \
				first_policy="${first:--1}" threads="${threads:-0}" outside="${outside:-0}" \
				start_job_us="$((act - inact))" active_to_exec_us="$(( ${exec_ns:-0} / 1000 - act ))" \
				outside_lag_us="$( [ "${lag:--1}" -ge 0 ] && echo $((lag / 1000)) || echo -1)"
		done
	done
	bench_json dld test='"promotion_failures"' failures="$fails"
	[ "$fails" = 0 ]
}

dld_pid() { systemctl show -P MainPID dld.service; }
cpu_ticks() { local s; read -r s < "/proc/$1/stat"; s=${s##*) }; set -- $s; echo $(( ${12} + ${13} )); }
rss_kb() { awk -v k="${2:-VmRSS}:" '$1 == k {print $2}' "/proc/$1/status"; }
total_bw() { cat /sys/fs/cgroup/dlbench.slice/cpu.dl_total_bw 2>/dev/null || echo -1; }
wait_admitted() {	# UNITS...: until each unit's processes run SCHED_DEADLINE
	local u pid left tries
	for ((tries = 0; tries < 400; tries++)); do
		left=0
		for u in "$@"; do
			pid=$(head -n 1 "/sys/fs/cgroup/dlbench.slice/$u/cgroup.procs" 2>/dev/null)
			[ -n "$pid" ] && [ "$(policy_of "$pid")" = 6 ] || left=$((left + 1))
		done
		[ $left = 0 ] && return 0
		sleep 0.05
	done
	return 1
}

# foot_rss_sampler PID FILE: dld's highest VmRSS and RssAnon (kB) into FILE,
# sampled every 0.2 s until killed, and the group's highest total beside it.
foot_rss_sampler() {
	local rss anon max=0 max_anon=0 bw max_bw=-1
	while :; do
		rss=$(rss_kb "$1"); anon=$(rss_kb "$1" RssAnon)
		[ "${rss:-0}" -gt "$max" ] && max=$rss
		[ "${anon:-0}" -gt "$max_anon" ] && max_anon=$anon
		bw=$(total_bw); [ "$bw" -gt "$max_bw" ] && max_bw=$bw
		echo "$max $max_anon" > "$2.tmp" && mv "$2.tmp" "$2"
		echo "bw_during $max_bw" > "$2.during"
		sleep 0.2
	done
}

# ---- part 4: dld's footprint.
part_foot() {
	local pid idle_s t0 t1 c0 c1 max_rss max_anon cycles i units=() bw0 bw1 bw_during=-1 n_status s times=() rc=0 hz sampler unadmitted rounds
	local wake_s w0 w1
	[ $patched = 1 ] || { diag "foot: needs the patched kernel"; return 0; }
	hz=$(getconf CLK_TCK)
	for i in $(seq 20); do
		dld_unit "dlb-f$i" "/bin/sleep infinity" X-DeadlineRuntime=1ms X-DeadlinePeriod=100ms
		units+=("dlb-f$i.service")
	done
	systemctl daemon-reload
	pid=$(dld_pid)
	idle_s=$(q 5 30)
	sleep 2
	bw0=$(total_bw)
	c0=$(cpu_ticks "$pid"); t0=$(date +%s%N)
	sleep "$idle_s"
	c1=$(cpu_ticks "$pid"); t1=$(date +%s%N)
	bench_json foot test='"idle"' seconds="$idle_s" rss_kb="$(rss_kb "$pid")" \
		cpu_percent="$(awk -v c=$((c1 - c0)) -v t=$((t1 - t0)) -v hz="$hz" 'BEGIN {printf "%.3f", 100 * c / hz / (t / 1e9)}')"
	# 1000 service start/stop cycles (QUICK 60, or dlsched.bench_cycles=N,
	# FOOT_CYCLES): the 20 services start together, each waits until it runs
	# SCHED_DEADLINE, and stop together, 50 times. One systemctl call per
	# step: 20 loops of their own spend the emulated CPUs on systemctl.
	cycles=$(cmdline_value dlsched.bench_cycles || q 60 1000)
	rounds=$(( (cycles + 19) / 20 ))
	cycles=$((rounds * 20))
	unadmitted=0
	rm -rf /run/dlb/foot; mkdir -p /run/dlb/foot
	foot_rss_sampler "$pid" /run/dlb/foot/rss &
	sampler=$!
	c0=$(cpu_ticks "$pid"); t0=$(date +%s%N)
	for ((i = 0; i < rounds; i++)); do
		systemctl start "${units[@]}" 2>/dev/null
		wait_admitted "${units[@]}" || { echo "# foot: round $i: not all 20 admitted within 20 s"; unadmitted=$((unadmitted + 1)); }
		systemctl stop "${units[@]}" 2>/dev/null
	done
	c1=$(cpu_ticks "$pid"); t1=$(date +%s%N)
	kill "$sampler"; wait "$sampler" 2>/dev/null
	read -r max_rss max_anon < /run/dlb/foot/rss
	if [ "$(dld_pid)" != "$pid" ]; then
		echo "# foot: dld ($pid) did not survive the cycles; now $(dld_pid)"
		journalctl -b -u dld.service -n 40 --no-pager -o short-monotonic | sed 's/^/# /'
		return 1
	fi
	[ "$unadmitted" = 0 ] || rc=1
	bw_during=$(sed -n 's/^bw_during //p' /run/dlb/foot/rss.during 2>/dev/null || echo -1)
	# dld gives the bandwidth back as the units go: wait for it to settle.
	for ((i = 0; i < 100 && $(total_bw) != bw0; i++)); do sleep 0.05; done
	bw1=$(total_bw)
	bench_json foot test='"cycles"' cycles="$cycles" services=20 rounds="$rounds" unadmitted_rounds="$unadmitted" rss_max_kb="$max_rss" \
		rss_anon_max_kb="$max_anon" rss_after_kb="$(rss_kb "$pid")" rss_anon_after_kb="$(rss_kb "$pid" RssAnon)" \
		cpu_percent="$(awk -v c=$((c1 - c0)) -v t=$((t1 - t0)) -v hz="$hz" 'BEGIN {printf "%.3f", 100 * c / hz / (t / 1e9)}')" \
		seconds="$(( (t1 - t0) / 1000000000 ))" bw_before="$bw0" bw_during="$bw_during" bw_after="$bw1" \
		sched_dl_total_bw="$(cat /proc/sys/kernel/sched_dl_total_bw)"
	# dlconf status with N services admitted.
	n_status=$(q 25 100)
	units=()
	for i in $(seq "$n_status"); do
		dld_unit "dlb-s$i" "/bin/sleep infinity" X-DeadlineRuntime=1ms X-DeadlinePeriod=100ms
		units+=("dlb-s$i.service")
	done
	systemctl daemon-reload
	systemctl start "${units[@]}" 2>/dev/null
	wait_admitted "${units[@]}" || { echo "# foot: not all $n_status status services admitted"; rc=1; }
	# dld's wake-ups while it follows them, idle (its context switches).
	wake_s=$(q 3 10)
	w0=$(awk '/ctxt_switches/ {n += $2} END {print n}' "/proc/$pid/status")
	sleep "$wake_s"
	w1=$(awk '/ctxt_switches/ {n += $2} END {print n}' "/proc/$pid/status")
	bench_json foot test='"wakeups"' services="$n_status" seconds="$wake_s" wakeups="$((w1 - w0))"
	for i in 1 2 3 4 5; do
		t0=$(date +%s%N); dlconf status > /dev/null; t1=$(date +%s%N)
		times+=($(( (t1 - t0) / 1000 )))
	done
	s=$(printf '%s\n' "${times[@]}" | sort -n | sed -n 3p)
	bench_json foot test='"status"' services="$n_status" admitted="$(dlconf list 2>/dev/null | grep -c admitted)" \
		status_us_p50="$s" status_us_max="$(printf '%s\n' "${times[@]}" | sort -n | tail -n 1)" rss_kb="$(rss_kb "$pid")"
	systemctl stop "${units[@]}"
	return $rc
}

# ---- part 5 (guest half): cost against hierarchy depth.
part_depth() {
	local d n
	[ $patched = 1 ] || { diag "depth: needs the patched kernel"; return 0; }
	n=$(q 200 1000)
	for d in $(q "1 2 4 8 16" "1 2 3 4 5 6 8 10 12 14 16"); do
		"$BIN/dlb-hot" reswrite "$d" "$n"
		"$BIN/dlb-hot" setattr "$d" 0 "$n"
	done 2>&1 | emit depth
	return "${PIPESTATUS[0]}"
}

run_part() {
	local t0=$SECONDS
	if "part_$1"; then
		pass "$1 ($((SECONDS - t0)) s)"
	else
		fail "$1 ($((SECONDS - t0)) s)"
	fi
}
has_part hot && run_part hot
has_part depth && run_part depth
has_part cap && run_part cap
if has_part dld || has_part foot; then
	dld_setup || echo "# dld did not start"
	has_part dld && run_part dld
	has_part foot && run_part foot
	dld_teardown
fi
done_testing
