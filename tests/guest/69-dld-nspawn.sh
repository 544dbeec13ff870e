#!/bin/bash
# A systemd-nspawn machine (systemd-nspawn@t69.service with an X-Deadline
# drop-in, Delegate=yes) is admitted like any service: its unit's cgroup
# holds the reservation, dld never touches its threads, and inside the
# machine processes subdivide the grant: child cgroups with their own
# cpu.dl_runtime_us and deadline tasks in them, within the grant, EBUSY
# beyond it, and the host's pool out of reach (units/CONTAINERS.md).
. /usr/lib/dlsched/60-dld-lib.inc

command -v systemd-nspawn >/dev/null || skip_all "systemd-nspawn is not installed in the guest"
dld_require
M=t69
UNIT=systemd-nspawn@$M.service
ROOT=/var/lib/machines/$M
OUT=/run/t69-out
DROPIN=/run/systemd/system/$UNIT.d

t69_cleanup() {
	systemctl stop "$UNIT" 2>/dev/null
	systemctl reset-failed "$UNIT" 2>/dev/null
	rm -rf "$DROPIN" "$ROOT" "$OUT"
	dld_cleanup
}
trap t69_cleanup EXIT

plan 30

DLD_TEST_POLICY='{
  "system": { "sched_dl_runtime_us": 400000, "sched_dl_period_us": 1000000,
              "sched_rt_runtime_us": 550000, "sched_rt_period_us": 1000000 },
  "groups": [
    { "name": "media", "slice": "deadline-media.slice", "runtime_us": 400000, "period_us": 1000000,
      "max_request_percent": 30, "max_services": 3, "on_refusal": "fail" }
  ]
}'
apply_test_policy 69-test
media=/deadline.slice/deadline-media.slice
base_media=$(idle_total $media)
base_pool=$(knob sched_dl_total_bw)

# The machine's root: the guest's own /usr, read-only, and nothing else of
# it; a user namespace of its own (-U, as systemd-nspawn@.service runs
# machines), where nspawn hands the machine its cgroup subtree writable.
# (Without -U nspawn mounts /sys/fs/cgroup read-only for a payload that is
# no init system, and the machine cannot mount its own: EACCES.) nspawn
# picks the machine's cgroup hierarchy by the systemd it finds in the
# machine's /usr, before binding it: none, so the legacy one, a tmpfs;
# SYSTEMD_NSPAWN_UNIFIED_HIERARCHY=1 makes it cgroup2 on a v2 host.
rm -rf "$ROOT" "$OUT"
mkdir -p "$ROOT"/{usr,etc,proc,sys,dev,tmp,run,var/tmp,out} "$OUT"
chmod 1777 "$OUT"
for d in bin sbin lib lib64; do ln -s "usr/$d" "$ROOT/$d"; done
cp /etc/os-release /etc/passwd /etc/group "$ROOT/etc/"
# Inside: waits for the host's go, then subdivides; one line per outcome.
cat > "$ROOT/inside.sh" <<'INSIDE'
#!/bin/bash
exec > /out/result.tmp 2>&1
# w FILE VALUE: "ok" or the error's text
w() { local e; if e=$( { echo "$2" > "$1"; } 2>&1 ); then echo ok; else echo "${e##*: }"; fi; }
while [ ! -e /out/go ]; do sleep 0.1; done
cg=/sys/fs/cgroup
echo "cgroup=$(tr '\n' ' ' < /proc/self/cgroup)"
echo "uid_map=$(tr -s ' \n' ' ' < /proc/self/uid_map)"
echo "cgroupfs=$(stat -f -c %T $cg)"
if [ "$(stat -f -c %T $cg)" = cgroup2fs ]; then
	mkdir -p $cg/init
	echo "init=$(w $cg/init/cgroup.procs $$)"
	echo "subtree=$(w $cg/cgroup.subtree_control +cpu)"
else
	cg=/sys/fs/cgroup/cpu,cpuacct
	[ -d $cg ] || { echo "rt1_period=no cpu controller mounted"; echo done; mv /out/result.tmp /out/result; exec sleep 1000; }
	echo init=ok
	echo subtree=ok
fi
mkdir -p $cg/rt1 $cg/rt2
echo "rt1_period=$(w $cg/rt1/cpu.dl_period_us 20000)"
echo "rt1_runtime=$(w $cg/rt1/cpu.dl_runtime_us 3000)"
echo "rt2_period=$(w $cg/rt2/cpu.dl_period_us 20000)"
echo "rt2_beyond=$(w $cg/rt2/cpu.dl_runtime_us 3000)"
echo "rt2_rest=$(w $cg/rt2/cpu.dl_runtime_us 2000)"
echo "rt2_release=$(w $cg/rt2/cpu.dl_runtime_us -1)"
echo "pool=$(w /proc/sys/kernel/sched_dl_runtime_us 900000)"
# Deadline tasks in rt1 (3ms/20ms on each CPU). The kernel asks for
# CAP_SYS_NICE in the initial user namespace, which the machine lacks, or
# the series' limits, which dld gave its processes: runtime up to 5ms,
# deadline from 20ms.
echo $$ > $cg/rt1/cgroup.procs
# (The machine has no /etc/alternatives, so no awk: bash splits the lines.)
limits() {
	local l
	while read -r l; do
		# shellcheck disable=SC2086
		case $l in "Min deadline "* | "Max deadline runtime "*) set -- $l; printf '%s;' "$*";; esac
	done < /proc/self/limits
}
echo "limits=$(limits)"
# dl RUNTIME DEADLINE PERIOD (ns): "ok" or the error's text
dl() { local e; if e=$(chrt -d -T "$1" -D "$2" -P "$3" 0 true 2>&1); then echo ok; else echo "${e##*: }"; fi; }
# 5ms/20ms tasks that stay, until admission refuses one.
tasks=()
for i in 1 2 3 4 5 6 7 8; do
	chrt -d -T 5000000 -D 20000000 -P 20000000 0 sleep 60 2> /tmp/chrt.err &
	sleep 0.5
	if kill -0 $! 2>/dev/null; then tasks+=($!); else echo "task_refused=$(sed 's/.*: //' /tmp/chrt.err)"; break; fi
done
echo "tasks=${#tasks[@]}"
echo "task_policy=$(chrt -p "${tasks[0]}" 2>&1 | tr '\n' ';')"
kill "${tasks[@]}" 2>/dev/null
wait 2>/dev/null
echo "task_long=$(dl 6000000 20000000 20000000)"
echo "task_tight=$(dl 1000000 10000000 10000000)"
echo $$ > $cg/init/cgroup.procs 2>/dev/null
echo done
mv /out/result.tmp /out/result
exec sleep 1000
INSIDE
chmod +x "$ROOT/inside.sh"

mkdir -p "$DROPIN"
cat > "$DROPIN/deadline.conf" <<EOF
[Service]
ExecStart=
$([ "$DLSCHED_CGROUP" = v2 ] && echo Environment=SYSTEMD_NSPAWN_UNIFIED_HIERARCHY=1)
ExecStart=systemd-nspawn --quiet --keep-unit --register=no -U --machine=%i -D $ROOT --bind-ro=/usr --bind=$OUT:/out /inside.sh
Slice=deadline-media.slice
Delegate=yes
X-DeadlineRuntime=5ms
X-DeadlinePeriod=20ms
X-DeadlineThreads=all
EOF
systemctl daemon-reload
ok "machine $M starts" systemctl start "$UNIT"
cg=$(cgroup_of "$UNIT")
is "its cgroup is in media" "$cg" "$media/$UNIT"
wait_for 10 '[ "$(service_state "$UNIT")" = admitted ]'
is "dld admitted the machine" "$(service_state "$UNIT")" admitted
is "the unit's cgroup reserves 5ms/20ms" "$(cgfile "$cg" cpu.dl_runtime_us)/$(cgfile "$cg" cpu.dl_period_us)" 5000/20000
is "media allocated = the machine's reservation" "$(cgfile $media cpu.dl_total_bw)" "$(( base_media + NCPUS * $(bw 5000 20000) ))"
entry=$(journal_json $DLD_MSG_ADMITTED "$UNIT" | tail -n 1)
is "admission entry: DLD_PROMOTE=none (a delegated unit)" "$(echo "$entry" | jq -r .DLD_PROMOTE)" none
supervisor=$(systemctl show -P MainPID "$UNIT")
is "dld leaves nspawn's own threads alone" "$(policy_of "$supervisor")" 0

touch "$OUT/go"
wait_until 20 test -e "$OUT/result"
result=$(cat "$OUT/result" 2>/dev/null)
diag "inside: $(echo "$result" | tr '\n' ';')"
get() { echo "$result" | sed -n "s/^$1=//p"; }
if [ "$DLSCHED_CGROUP" = v1 ] && [ "$(get rt1_period)" != ok ]; then
	for i in $(seq 1 16); do skip "subdividing inside the machine" "cgroup v1: nspawn gives the machine no writable cpu controller: $(get rt1_period)"; done
else
	is "inside: the machine's /sys/fs/cgroup is cgroup2" "$(get cgroupfs)" cgroup2fs
	is "inside: the payload moves to a leaf" "$(get init)" ok
	is "inside: cpu enabled for child cgroups" "$(get subtree)" ok
	is "inside: a child reservation within the grant (3ms of 5ms)" "$(get rt1_runtime)" ok
	is "inside: one beyond the grant is refused (3ms more)" "$(get rt2_beyond)" "Device or resource busy"
	is "inside: the rest of the grant fits (2ms)" "$(get rt2_rest)" ok
	is "inside: and is given back" "$(get rt2_release)" ok
	like "inside: the pool is out of reach" "$(get pool)" "^(Read-only file system|Permission denied)$"
	is "inside: dld gave the processes the request's limits" "$(get limits)" \
		"Min deadline 20000 20000 us;Max deadline runtime 5000 5000 us;"
	# rt1 holds 3ms/20ms of each CPU: as many 5ms/20ms tasks as that holds.
	is "inside: deadline tasks admitted up to the child's reservation" "$(get tasks)" \
		$(( NCPUS * $(bw 3000 20000) / $(bw 5000 20000) ))
	like "inside: and they run SCHED_DEADLINE 5ms/20ms" "$(get task_policy)" "SCHED_DEADLINE.*5000000/20000000/20000000"
	is "inside: one more is refused: the child's reservation is full" "$(get task_refused)" "Device or resource busy"
	is "inside: a runtime past RLIMIT_DLRTIME is EPERM" "$(get task_long)" "Operation not permitted"
	is "inside: a deadline below RLIMIT_DLDLINE is EPERM" "$(get task_tight)" "Operation not permitted"
	is "host: the child reservation is in the machine's subtree" "$(cgfile "$cg/payload/rt1" cpu.dl_runtime_us)" 3000
	is "host: the unit's reservation unchanged" "$(cgfile "$cg" cpu.dl_runtime_us)" 5000
fi
is "media allocation still the machine's reservation alone" "$(cgfile $media cpu.dl_total_bw)" "$(( base_media + NCPUS * $(bw 5000 20000) ))"
is "pool unchanged" "$(knob sched_dl_total_bw)" "$base_pool"

# limits_of_subtree: the distinct deadline limits of the machine's processes.
limits_of_subtree() {
	local pid
	for pid in $(cat $(find "$CPU_MOUNT$cg" -name cgroup.procs) 2>/dev/null); do
		dl_limits "$pid"
		echo
	done | sort -u | grep .
}
is "host: every process of the machine has the limits" "$(limits_of_subtree)" \
	"Min deadline 20000 20000 us;Max deadline runtime 5000 5000 us;"
# Released by hand, the machine keeps running: the limits go with the
# reservation (the child's reservation first: the host's root may).
[ -e "$CPU_MOUNT$cg/payload/rt1" ] && echo -1 > "$CPU_MOUNT$cg/payload/rt1/cpu.dl_runtime_us"
ok "ReleaseUnit of the running machine" dld_call ReleaseUnit s "$UNIT"
is "the limits are taken back" "$(limits_of_subtree)" \
	"Min deadline unlimited unlimited us;Max deadline runtime 0 0 us;"
is "the unit's reservation released" "$(cgfile "$cg" cpu.dl_runtime_us)" -1
systemctl stop "$UNIT"
wait_for 10 '[ "$(cgfile $media cpu.dl_total_bw)" = "$base_media" ]'
is "stopping the machine releases its bandwidth" "$(cgfile $media cpu.dl_total_bw)" "$base_media"
done_testing
