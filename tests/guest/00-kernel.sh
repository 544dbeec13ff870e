#!/bin/bash
# The guest runs the kernel built from our series.
. /usr/lib/dlsched/tap.sh
plan 2
want=$(cat /usr/lib/dlsched/kernel.release)
is "running the kernel built from the series ($want)" "$(uname -r)" "$want"
like "release carries -dlsched" "$(uname -r)" '^6\.1\.[0-9]+-dlsched(-debug)?$'
done_testing
