#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# TRACEPOINTS: trcu's trace events (trace system "trcu") through tracefs.
# Each event is enabled on its own file; a short trcu torture must fire
# the grace-period, quiescent-state, force_quiescent_state and callback
# batch events, and a provoked stall (stall_timeout=3, torture
# stall_cpu=6, inside an EXPECT-BAD region) the stall event.
. /tests/lib.sh

M=/lib/modules
T=/sys/kernel/tracing
EVENTS="trcu_gp_start trcu_gp_end trcu_qs_report trcu_fqs trcu_batch_start trcu_batch_end trcu_stall"

[ -d $T/events ] || mount -t tracefs nodev $T 2>/dev/null
[ -d $T/events ] || { fail tp-tracefs "no tracefs at $T"; exit 1; }

# torture ARGS...: run trcutorture with ARGS to its end; 0 on SUCCESS.
torture() {
	torture_run 120 "$@"
}

# count EVENT FILE: lines of EVENT in a saved trace.
count() { grep -c " $1: " "$2"; }

insmod $M/trcu.ko stall_timeout=3 || { fail tp-load "insmod trcu.ko failed"; exit 1; }
for e in $EVENTS; do
	if [ ! -f $T/events/trcu/$e/enable ]; then
		fail "tp-$e" "no $T/events/trcu/$e"
		continue
	fi
	echo 1 > $T/events/trcu/$e/enable
done
echo 4096 > $T/buffer_size_kb
echo > $T/trace

if torture torture_type=trcu duration=5 stat_interval=1 nreaders=2 nfakewriters=2; then
	pass tp-torture "5 s trcu torture with every trcu event enabled"
else
	fail tp-torture "torture did not succeed"
fi
cat $T/trace > /tmp/trace1
echo > $T/trace
for e in trcu_gp_start trcu_gp_end trcu_qs_report trcu_fqs trcu_batch_start trcu_batch_end; do
	c=$(count $e /tmp/trace1)
	if [ "$c" -gt 0 ]; then
		pass "tp-$e" "$c events, e.g. $(grep -m 1 " $e: " /tmp/trace1 | sed 's/.*: //')"
	else
		fail "tp-$e" "never fired during the torture"
	fi
done

expect_bad_begin "provoked stall for trcu_stall"
torture torture_type=trcu duration=12 stat_interval=2 nreaders=2 \
	nfakewriters=1 stall_cpu=6 stall_cpu_holdoff=2
expect_bad_end "provoked stall for trcu_stall"
cat $T/trace > /tmp/trace2
c=$(count trcu_stall /tmp/trace2)
if [ "$c" -gt 0 ]; then
	# (not the event text: the verdict reads "... stall on" as a stall)
	pass tp-trcu_stall "$c events, first for $(grep -m 1 ' trcu_stall: ' /tmp/trace2 | sed 's/.* on //')"
else
	fail tp-trcu_stall "no stall event during a 6 s stall at stall_timeout=3"
fi
for e in $EVENTS; do
	echo 0 > $T/events/trcu/$e/enable
done
rmmod trcu || fail tp-unload "rmmod trcu failed"
exit $FAILED
