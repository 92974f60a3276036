#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# EXAMPLE: examples/trcu_example.ko, a driver-style user of trcu, runs for
# DURATION s with the scenario's TORTURE_ARGS as its parameters and is
# unloaded.  Its unload waits for its callbacks (trcu_barrier(),
# kfree_trcu_barrier()) and prints the final line
#   trcu_example: done: reads R (hits H), updates U (...), frees F (...), errors E
# which must show E = 0 and R, H, U, F > 0.  The kernel log of the run must
# hold no BUG/WARNING/Oops (a callback run after the unload would oops) and
# no complaint about objects left in the example's cache; trcu.ko must
# unload afterwards.  Bad parameters must make the load fail.
. /tests/lib.sh

M=/lib/modules
DURATION=${DURATION:-20}

# no_bad N: no slab or kernel complaint in the log since line N.
no_bad() {
	! dmesg_since "$1" | grep -qE "Objects remaining|still has objects|BUG|WARNING|Oops|Call Trace"
}

# field LINE NAME: the number after "NAME " in LINE (empty if none).
field() {
	printf '%s\n' "$1" | sed -n "s/.*[ (]$2 \([0-9-]*\).*/\1/p"
}

insmod $M/trcu.ko $TRCU_ARGS || { fail example-load "insmod trcu.ko failed"; exit 1; }

n=$(dmesg_lines)
if insmod $M/trcu_example.ko nreaders=0 2>/dev/null; then
	rmmod trcu_example
	fail example-params "nreaders=0 was accepted"
elif dmesg_since "$n" | grep -q 'trcu_example: bad parameters'; then
	pass example-params "nreaders=0 refused"
else
	fail example-params "nreaders=0 refused without saying why"
fi

n=$(dmesg_lines)
# shellcheck disable=SC2086  # the parameter list is meant to split
if ! insmod $M/trcu_example.ko $TORTURE_ARGS; then
	fail example-load "insmod trcu_example.ko $TORTURE_ARGS failed: $(dmesg_since "$n" | tail -n 2 | tr '\n' ';')"
	exit 1
fi
pass example-load "$(dmesg_since "$n" | grep 'trcu_example: started' | sed 's/.*trcu_example: //')"
sleep "$DURATION"
check example-unload rmmod trcu_example

line=$(dmesg_since "$n" | grep 'trcu_example: done:' | tail -n 1 | sed 's/.*trcu_example: //')
reads=$(field "$line" reads)
hits=$(field "$line" hits)
updates=$(field "$line" updates)
frees=$(field "$line" frees)
errors=$(field "$line" errors)
if [ -z "$line" ]; then
	fail example-result "no final line: $(dmesg_since "$n" | grep trcu_example | tail -n 3 | tr '\n' ';')"
elif [ "$errors" = 0 ] && [ "${reads:-0}" -gt 0 ] && [ "${hits:-0}" -gt 0 ] &&
	[ "${updates:-0}" -gt 0 ] && [ "${frees:-0}" -gt 0 ]; then
	pass example-result "$line"
else
	fail example-result "$line"
fi

# Callbacks queued by the example must all have run before its unload
# returned: one that runs later jumps into freed module text.  Give
# stragglers a few grace periods' time to show themselves.
sleep 2
if no_bad "$n"; then
	pass example-clean "no kernel complaint"
else
	fail example-clean "$(dmesg_since "$n" | grep -E 'Objects remaining|still has objects|BUG|WARNING|Oops' | head -n 2 | tr '\n' ';')"
fi
check example-trcu-unload rmmod trcu
exit $FAILED
