#!/bin/bash
# The series' system calls from a 32-bit program (tests/guest/helpers/abi32.c,
# static i386) through the kernel's IA32 emulation: the i386 table has them
# at the same numbers, struct sched_param_ex has the same 64-byte layout,
# and the timespecs are 64-bit both ways. Each check abi32 prints (TAP) is
# one test here; any that fails, a crash, or a plan not run to the end
# fails the test.
. /usr/lib/dlsched/tap.sh
bin=/usr/lib/dlsched/bin/abi32
out=$("$bin" 2>&1)
rc=$?
n=$(grep -cE '^(not )?ok ' <<< "$out")
want=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' <<< "$out")
plan $((n + 3))
# e_ident[EI_CLASS]: 1 is ELFCLASS32. A 64-bit build would prove nothing.
is "abi32 is a 32-bit program" "$(od -An -tx1 -j4 -N1 "$bin" | tr -d ' ')" 01
while IFS= read -r line; do
	if [[ $line =~ ^ok\ [0-9]+( -)?\ (.*)$ ]]; then
		pass "i386: ${BASH_REMATCH[2]}"
	elif [[ $line =~ ^not\ ok\ [0-9]+( -)?\ (.*)$ ]]; then
		fail "i386: ${BASH_REMATCH[2]}"
	elif [ -n "$line" ]; then
		# Its own plan and comments, as comments: one TAP document here.
		diag "${line#\# }"
	fi
done <<< "$out"
is "abi32 exits 0" "$rc" 0
is "abi32 ran its whole plan" "$n" "${want:-no plan}"
done_testing
