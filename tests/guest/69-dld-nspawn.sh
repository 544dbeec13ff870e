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

plan 21

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
base_media=$(cgfile $media cpu.dl_total_bw)
base_pool=$(knob sched_dl_total_bw)

# The machine's root: the guest's own /usr, read-only, and nothing else of
# it; no user namespace (-U), so that nspawn's CAP_SYS_NICE counts for
# the machine's own deadline tasks (units/CONTAINERS.md).
rm -rf "$ROOT" "$OUT"
mkdir -p "$ROOT"/{usr,etc,proc,sys,dev,tmp,run,var/tmp,out} "$OUT"
for d in bin sbin lib lib64; do ln -s "usr/$d" "$ROOT/$d"; done
cp /etc/os-release /etc/passwd /etc/group "$ROOT/etc/"
# Inside: waits for the host's go, then subdivides; one line per outcome.
cat > "$ROOT/inside.sh" <<'INSIDE'
#!/bin/bash
exec > /out/result.tmp 2>&1
cg=/sys/fs/cgroup
# w FILE VALUE: "ok" or the error's text
w() { local e; if e=$( { echo "$2" > "$1"; } 2>&1 ); then echo ok; else echo "${e##*: }"; fi; }
while [ ! -e /out/go ]; do sleep 0.1; done
echo "cgroup=$(cat /proc/self/cgroup)"
mkdir -p $cg/init
echo "init=$(w $cg/init/cgroup.procs $$)"
echo "subtree=$(w $cg/cgroup.subtree_control +cpu)"
mkdir -p $cg/rt1 $cg/rt2
echo "rt1_period=$(w $cg/rt1/cpu.dl_period_us 20000)"
echo "rt1_runtime=$(w $cg/rt1/cpu.dl_runtime_us 3000)"
echo "rt2_period=$(w $cg/rt2/cpu.dl_period_us 20000)"
echo "rt2_beyond=$(w $cg/rt2/cpu.dl_runtime_us 3000)"
echo "rt2_rest=$(w $cg/rt2/cpu.dl_runtime_us 2000)"
echo "rt2_release=$(w $cg/rt2/cpu.dl_runtime_us -1)"
echo "pool=$(w /proc/sys/kernel/sched_dl_runtime_us 900000)"
# A deadline task in rt1, within its reservation; one beyond it.
sh -c "echo \$\$ > $cg/rt1/cgroup.procs && exec chrt -d -T 2000000 -P 20000000 0 sleep 1000" &
task=$!
sleep 0.5
echo "task=$(chrt -p $task | tr '\n' ' ')"
echo "task_host_pid=$(cat /proc/$task/status | awk '/^NSpid/ {print $2}')"
if sh -c "echo \$\$ > $cg/rt1/cgroup.procs && exec chrt -d -T 19000000 -P 20000000 0 true" 2>/dev/null; then
	echo "task_beyond=ok"
else
	echo "task_beyond=refused"
fi
echo done
mv /out/result.tmp /out/result
wait
INSIDE
chmod +x "$ROOT/inside.sh"

mkdir -p "$DROPIN"
cat > "$DROPIN/deadline.conf" <<EOF
[Service]
ExecStart=
ExecStart=systemd-nspawn --quiet --keep-unit --register=no --machine=%i -D $ROOT --bind-ro=/usr --bind=$OUT:/out /inside.sh
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
wait_until 10 test "$(service_state "$UNIT")" = admitted
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
if [ "$DLSCHED_CGROUP" = v1 ] && [ "$(get subtree)" != ok ] && [ "$(get rt1_runtime)" != ok ]; then
	# nspawn mounts the v1 controllers read-only inside the machine
	for i in $(seq 1 11); do skip "subdividing inside the machine" "cgroup v1: $(get rt1_runtime)"; done
else
	is "inside: the payload moves to a leaf" "$(get init)" ok
	is "inside: cpu enabled for child cgroups" "$(get subtree)" ok
	is "inside: a child reservation within the grant (3ms of 5ms)" "$(get rt1_runtime)" ok
	is "inside: one beyond the grant is refused (3ms more)" "$(get rt2_beyond)" "Device or resource busy"
	is "inside: the rest of the grant fits (2ms)" "$(get rt2_rest)" ok
	is "inside: the pool is out of reach" "$(get pool)" "Read-only file system"
	like "inside: a deadline task in the child reservation" "$(get task)" "SCHED_DEADLINE.*2000000/20000000/20000000"
	is "inside: a task beyond the child reservation is refused" "$(get task_beyond)" refused
	is "host: the child reservation is in the machine's subtree" "$(cgfile "$cg/payload/rt1" cpu.dl_runtime_us)" 3000
	is "host: the unit's reservation unchanged" "$(cgfile "$cg" cpu.dl_runtime_us)" 5000
	sleep 0.3
	task=$(pgrep -f '^sleep 1000$' | head -n 1)
	like "host: dld left the machine's task with its own parameters" "$(chrt -p "$task" 2>&1 | tr '\n' ' ')" "2000000/20000000/20000000"
fi
is "media allocation still the machine's reservation alone" "$(cgfile $media cpu.dl_total_bw)" "$(( base_media + NCPUS * $(bw 5000 20000) ))"
is "pool unchanged" "$(knob sched_dl_total_bw)" "$base_pool"
systemctl stop "$UNIT"
wait_until 10 test "$(cgfile $media cpu.dl_total_bw)" = "$base_media"
is "stopping the machine releases its bandwidth" "$(cgfile $media cpu.dl_total_bw)" "$base_media"
done_testing
