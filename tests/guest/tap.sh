# TAP helpers for the guest's shell tests (installed as /usr/lib/dlsched/tap.sh).
#   . /usr/lib/dlsched/tap.sh; plan 3; ok "name" cmd...; is "name" got want; done_testing
# shellcheck shell=bash

_tap_n=0
_tap_failed=0

plan() { echo "TAP version 13"; echo "1..$1"; }

skip_all() { echo "TAP version 13"; echo "1..0 # SKIP $*"; exit 4; }

diag() { echo "# $*"; }

pass() { _tap_n=$((_tap_n + 1)); echo "ok $_tap_n - $1"; }

fail() {
	_tap_n=$((_tap_n + 1)); _tap_failed=$((_tap_failed + 1))
	echo "not ok $_tap_n - $1"
	shift
	[ $# -gt 0 ] && diag "$*"
	return 0
}

skip() { _tap_n=$((_tap_n + 1)); echo "ok $_tap_n - $1 # SKIP ${2:-}"; }

# ok NAME CMD...: passes when CMD succeeds.
ok() {
	local name=$1 out
	shift
	if out=$("$@" 2>&1); then pass "$name"; else fail "$name" "command failed: $* ($(echo "$out" | tail -n 3))"; fi
}

# is NAME GOT WANT: passes when the strings are equal.
is() {
	if [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "got '$2', want '$3'"; fi
}

# like NAME GOT REGEX
like() {
	if [[ $2 =~ $3 ]]; then pass "$1"; else fail "$1" "'$2' does not match /$3/"; fi
}

# unlike NAME GOT REGEX
unlike() {
	if [[ $2 =~ $3 ]]; then fail "$1" "'$2' matches /$3/"; else pass "$1"; fi
}

done_testing() { [ "$_tap_failed" -eq 0 ] && exit 0; exit 1; }
