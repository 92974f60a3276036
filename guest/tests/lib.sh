#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Helpers for guest script scenarios (sourced by /tests/<name>.sh).
# A script reports each check with `pass NAME [detail]` or
# `fail NAME detail`; the host's verdict.py requires at least one check,
# no failed one and a zero exit status.  Lines a check provokes on
# purpose (a lockdep splat, say) go between `expect_bad_begin` and
# `expect_bad_end`: verdict.py then does not count them as errors.

mark() {
	echo "TRCU-MARK: $*" > /dev/ttyS1
	echo "TRCU-MARK: $*" > /dev/kmsg
}

FAILED=0
pass() {
	local n=$1
	shift
	mark "TEST $n PASS $*"
}
fail() {
	local n=$1
	shift
	mark "TEST $n FAIL $*"
	FAILED=1
}
# check NAME CMD...: run CMD, pass if it exits 0.
check() {
	local n=$1
	shift
	if "$@"; then
		pass "$n"
	else
		fail "$n" "command failed: $*"
	fi
}
expect_bad_begin() { mark "EXPECT-BAD begin $*"; }
expect_bad_end() { mark "EXPECT-BAD end $*"; }

# dmesg_since N: kernel log lines after the first N (from `dmesg | wc -l`).
dmesg_lines() { dmesg | wc -l; }
dmesg_since() { dmesg | tail -n "+$(($1 + 1))"; }

# wait_end N SECS: wait up to SECS s for a torture end line after the
# first N kernel log lines; 0 if one came.
wait_end() {
	local w=0
	while [ "$w" -lt "$2" ]; do
		dmesg_since "$1" | grep -q -e '-torture:--- End of test' && return 0
		sleep 1
		w=$((w + 1))
	done
	return 1
}

# ended_ok N: the first torture end line after log line N says SUCCESS.
ended_ok() {
	dmesg_since "$1" | grep -q -e '-torture:--- End of test: SUCCESS'
}

# torture_run SECS ARGS...: load trcutorture.ko with ARGS, wait up to SECS s
# for its end line, unload it; 0 if it ended in SUCCESS.
torture_run() {
	local secs=$1 n
	shift
	n=$(dmesg_lines)
	insmod /lib/modules/trcutorture.ko "$@" || return 1
	wait_end "$n" "$secs"
	rmmod trcutorture || return 1
	ended_ok "$n"
}
