#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# REF-UPSTREAM: the kernel's own rcutorture.ko (built with the debug kernel,
# scripts/debug-kernel.sh) on the built-in RCU, as a reference for what the
# debug kernel's checkers say about code that is known to be clean.  trcu.ko
# is not loaded.  rcutorture has no duration parameter: it runs until rmmod,
# which prints the end line, so this script loads it, lets it run DURATION
# seconds and unloads it.  Checks: both insmods, at least two stats lines
# with a rising grace-period version, rmmod, and "End of test: SUCCESS".
# The host's verdict.py adds its lockdep/KASAN/kmemleak line checks.
. /tests/lib.sh

M=/lib/modules
if [ ! -f "$M/rcutorture.ko" ] || [ ! -f "$M/torture.ko" ]; then
	fail upstream-modules "no rcutorture.ko/torture.ko in $M (needs --kernel debug)"
	exit 1
fi

n=$(dmesg_lines)
if insmod "$M/torture.ko"; then
	pass upstream-insmod-torture
else
	fail upstream-insmod-torture "insmod torture.ko failed"
	exit 1
fi
# shutdown_secs=0: never power the guest off from inside the test.
# shellcheck disable=SC2086  # argument list is meant to split
if insmod "$M/rcutorture.ko" shutdown_secs=0 $TORTURE_ARGS; then
	pass upstream-insmod-rcutorture "$TORTURE_ARGS"
else
	fail upstream-insmod-rcutorture "insmod rcutorture.ko $TORTURE_ARGS failed"
	rmmod torture
	exit 1
fi

sleep "$DURATION"

# Grace-period progress: the stats lines' ver: must rise.
vers=$(dmesg_since "$n" | sed -n 's/^.*-torture: rtc: .* ver: \([0-9]*\).*$/\1/p')
nstats=$(echo "$vers" | grep -c .)
first=$(echo "$vers" | head -n 1)
last=$(echo "$vers" | tail -n 1)
if [ "$nstats" -ge 2 ] && [ "$last" -gt "$first" ]; then
	pass upstream-gps "ver $first -> $last over $nstats stats lines"
else
	fail upstream-gps "ver ${first:-none} -> ${last:-none} over $nstats stats lines"
fi

# rmmod stops the test and prints the end line (cleanup runs in rmmod).
if rmmod rcutorture; then
	pass upstream-rmmod-rcutorture
else
	fail upstream-rmmod-rcutorture "rmmod rcutorture failed"
fi
wait_end "$n" 60
end=$(dmesg_since "$n" | grep -e '-torture:--- End of test' | tail -n 1)
case "$end" in
*'End of test: SUCCESS'*) pass upstream-end "SUCCESS" ;;
'') fail upstream-end "no end line ${w}s after rmmod" ;;
*) fail upstream-end "$(echo "$end" | sed 's/^.*End of test: //' | cut -c1-60)" ;;
esac
if rmmod torture; then
	pass upstream-rmmod-torture
else
	fail upstream-rmmod-torture "rmmod torture failed"
fi
exit "$FAILED"
