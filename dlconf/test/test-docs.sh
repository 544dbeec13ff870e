#!/bin/bash
# Man pages render without warnings; the bash completion parses and
# completes verbs and options.
set -u
n=0 failed=0
echo "TAP version 13"
pass() { n=$((n + 1)); echo "ok $n - $1"; }
fail() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; shift; for l in "$@"; do echo "# $l"; done; }
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }

for page in "$TOP"/man/*.[58]; do
	name=${page##*/}
	if ! command -v man > /dev/null || ! command -v groff > /dev/null; then
		skip "$name renders" "man/groff not installed"
		continue
	fi
	err=$(MANWIDTH=80 man --warnings -l "$page" 2>&1 > /dev/null)
	if [ -z "$err" ]; then pass "$name renders without warnings"; else fail "$name renders without warnings" "$err"; fi
done
for verb in status list show check reload admit release; do
	if grep -q "^\.B.*\b$verb\b" "$TOP/man/dlconf.8"; then pass "dlconf.8 documents $verb"; else fail "dlconf.8 documents $verb"; fi
done

completion=$TOP/dlconf/completion/dlconf.bash
if bash -n "$completion"; then pass "completion parses"; else fail "completion parses"; fi
# Complete with stand-ins for bash-completion's helpers.
complete_words() {
	bash -c '
		_init_completion() { cur=${COMP_WORDS[COMP_CWORD]}; prev=${COMP_WORDS[COMP_CWORD-1]}; words=("${COMP_WORDS[@]}"); cword=$COMP_CWORD; }
		_filedir() { :; }
		compopt() { :; }
		dlconf() { :; }
		systemctl() { echo "demo-media.service loaded active running x"; }
		. "$1"; shift
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		_dlconf
		echo "${COMPREPLY[*]}"' _ "$completion" "$@"
}
got=$(complete_words dlconf "")
if [ "$got" = "status list show check reload admit release prepare help" ]; then pass "completes verbs"; else fail "completes verbs" "got '$got'"; fi
got=$(complete_words dlconf admit x --r)
if [ "$got" = "--runtime=" ]; then pass "completes admit's options"; else fail "completes admit's options" "got '$got'"; fi
got=$(complete_words dlconf show demo)
if [ "$got" = "demo-media.service" ]; then pass "completes units"; else fail "completes units" "got '$got'"; fi
got=$(complete_words dlconf --color "")
if [ "$got" = "auto always never" ]; then pass "completes --color values"; else fail "completes --color values" "got '$got'"; fi

echo "1..$n"
[ "$failed" -eq 0 ]
