#!/bin/bash
# The guest runs the kernel built from our series.
. /usr/lib/dlsched/tap.sh
plan 3
want=$(cat /usr/lib/dlsched/kernel.release)
is "running the kernel built from the series ($want)" "$(uname -r)" "$want"
like "release carries -dlsched" "$(uname -r)" '^6\.1\.[0-9]+-dlsched(-debug)?$'
# The release string comes from the config, which a kernel without the
# series (make check-mutants' stock kernel) shares: look for the series itself.
ok "the series is in the kernel (sched_dl_runtime_us, sched_dl_total_bw)" \
	test -r /proc/sys/kernel/sched_dl_runtime_us -a -r /proc/sys/kernel/sched_dl_total_bw
done_testing
