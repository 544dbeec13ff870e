# TAP helpers for dlconf's shell tests (sourced): pass, fail, expect; the
# test ends with tap_done.
# shellcheck shell=bash
n=0 failed=0
echo "TAP version 13"
pass() { n=$((n + 1)); echo "ok $n - $1"; }
fail() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; shift; for l in "$@"; do echo "# $l"; done; }

# expect NAME STATUS REGEX CMD...: CMD exits STATUS and its output (stdout
# and stderr) matches REGEX.
expect() {
	local name=$1 want=$2 re=$3 out rc
	shift 3
	out=$("$@" 2>&1)
	rc=$?
	if [ "$rc" = "$want" ] && [[ $out =~ $re ]]; then
		pass "$name"
	else
		fail "$name" "command: $*" "exit $rc, want $want" "output: $out" "want /$re/"
	fi
}

# The plan, and the exit status: non-zero when anything failed.
tap_done() {
	echo "1..$n"
	[ "$failed" -eq 0 ]
}
