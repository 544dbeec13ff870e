#!/bin/bash
# dlsched-generator on a fake unit tree: which units get the ExecStartPre=
# drop-in, and what it says.
# shellcheck source=tap.sh
. "$(dirname "$0")/tap.sh"
gen=${GENERATOR:?}
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
etc=$t/etc usr=$t/usr out=$t/out
mkdir -p "$etc" "$usr" "$out"

# a: keys in its unit file; b: in a drop-in under /etc for a unit in /usr;
# c: none; d: keys, but masked in /etc; e: a malformed key (dld reports it);
# f@: a template's drop-in; dld.service: never.
printf '[Service]\nExecStart=/bin/true\nX-DeadlineRuntime=2ms\nX-DeadlinePeriod=20ms\n' > "$usr/a.service"
printf '[Service]\nExecStart=/bin/true\n' > "$usr/b.service"
mkdir -p "$etc/b.service.d"
printf '[Service]\nX-DeadlineRuntime=1ms\nX-DeadlinePeriod=10ms\n' > "$etc/b.service.d/dl.conf"
printf '[Service]\nExecStart=/bin/true\nCPUWeight=50\n' > "$usr/c.service"
printf '[Service]\nX-DeadlineRuntime=1ms\nX-DeadlinePeriod=10ms\n' > "$usr/d.service"
ln -s /dev/null "$etc/d.service"
printf '[Service]\nX-DeadlineRuntime=lots\n' > "$usr/e.service"
mkdir -p "$usr/f@.service.d"
printf '[Service]\nX-DeadlineRuntime=1ms\nX-DeadlinePeriod=10ms\n' > "$usr/f@.service.d/10-dl.conf"
printf '[Service]\nX-DeadlineRuntime=1ms\nX-DeadlinePeriod=10ms\n' > "$usr/dld.service"
printf 'not a unit\n' > "$usr/README"

expect "runs on the tree" 0 '^$' env DLSCHED_UNIT_PATH="$etc:$usr" "$gen" "$out" "$t/early" "$t/late"
for u in a b e f@; do
	if [ -f "$out/$u.service.d/50-dlsched.conf" ]; then pass "$u.service gets the drop-in"; else fail "$u.service gets the drop-in"; fi
done
for u in c d dld; do
	if [ ! -e "$out/$u.service.d" ]; then pass "$u.service gets none"; else fail "$u.service gets none"; fi
done
d=$(cat "$out/a.service.d/50-dlsched.conf" 2>/dev/null)
[[ $d == *$'\n[Unit]\nAfter=dld.service\n'* ]] && pass "ordered after dld.service" || fail "ordered after dld.service" "$d"
[[ $d == *$'\nExecStartPre=-+/usr/bin/dlconf prepare %n' ]] && pass "ExecStartPre=-+ dlconf prepare %n (never fails the unit)" \
	|| fail "ExecStartPre=-+ dlconf prepare %n (never fails the unit)" "$d"
expect "one argument (systemd 254+)" 0 '^$' env DLSCHED_UNIT_PATH="$etc:$usr" "$gen" "$out"
expect "no argument: usage" 1 'usage' "$gen"
expect "an output directory that cannot be written: fails" 1 'cannot write its drop-in' \
	env DLSCHED_UNIT_PATH="$etc:$usr" "$gen" /proc/nonexistent
expect "missing unit directories: nothing to do" 0 '^$' env DLSCHED_UNIT_PATH="$t/none:$t/none2" "$gen" "$out"
tap_done
