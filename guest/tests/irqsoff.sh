#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# IRQSOFF: a CPU that keeps irqs disabled must delay grace periods (it
# runs no QS), but must not make trcu's senders spin on it.  trcuhog.ko
# disables irqs on CPU 5 for 1000 ms at a time, 100 ms apart, for
# RATE_S + 2 s, while rate drivers run back to back for RATE_S (12) s, in
# the same load: synchronize_trcu, synchronize_trcu_bh and synchronize_rcu
# on CPU 0, synchronize_trcu_expedited on CPU 2 (with a SCHED_FIFO
# wakeup-latency probe there) and synchronize_rcu_expedited on CPU 3.
# The expedited drivers are on CPUs of their own: a trcu expedited caller
# that spins on an IPI with preemption off on CPU 0 also kept the
# (bound) GP kthread off CPU 0, so it sent nothing (ipi_send=0, a pass
# for the wrong reason, measured).  Budgets:
#   - ipi_send max_ns in debugfs rcustats (the longest single send of
#     IPIs by trcu's GP kthread) <= 20 ms for both flavours: a send that
#     never waits for its target takes microseconds, and 20 ms is two
#     rounds of TCG at 8 vCPUs; one that waits (csd_lock_wait() on the
#     holdout's previous IPI) takes up to the 1000 ms stretch;
#   - the probe on the trcu expedited caller's CPU: no wakeup later than
#     100 ms (the emulator's own round-robin kick period is 100 ms, the
#     longest TCG alone keeps a vCPU off while another spins); an
#     expedited caller spinning on the holdout's IPI keeps the probe off
#     for up to the 1000 ms stretch;
#   - rates (hoglib.sh, rate_budget): trcu and trcu_bh against
#     synchronize_rcu, trcu expedited against synchronize_rcu_expedited.
# No stall report is expected: each stretch is 1 s and the CPU takes its
# interrupts between stretches, so a grace period waits about 1 s, far
# below trcu's stall_timeout (21 s) and the kernel's (21 s); one would be
# a real failure.  The stretches stay below the soft-lockup (20 s) and
# NMI-watchdog (10 s) thresholds and touch the watchdogs.
. /tests/lib.sh
. /tests/hoglib.sh

D=${RATE_S:-12}
HOLD_CPU=5
LIMIT_NS=20000000

insmod $M/trcu.ko trace=1 || { fail irqsoff-load "insmod trcu.ko trace=1 failed"; exit 1; }

before="trcu max_ns=$(stat_val trcu max_ns) trcu_bh max_ns=$(stat_val trcu_bh max_ns)"
if hog_run $((D + 60)) tag=irqsoff irqsoff_cpu=$HOLD_CPU irqsoff_ms=1000 \
	irqsoff_gap_ms=100 irqsoff_s=$((D + 2)) rate_cpu=0 rate_s="$D" \
	rate_delay_ms=500 probe_cpu=2 \
	rate_ops=trcu_sync,trcu_bh_sync,rcu_sync,trcu_exp@2,rcu_exp@3; then
	hold=$(echo "$HOG_LOG" | grep '^IRQSOFF')
	case "$hold" in
	*"stretches=0 "*|"") fail irqsoff-holdout "the holdout did not run: $(hog_flat)" ;;
	*" min_jiffies=0") fail irqsoff-holdout "jiffies stood still in a stretch (the holdout kept the machine's jiffies, so no forcing could run): $hold" ;;
	*) pass irqsoff-holdout "$hold" ;;
	esac
	for f in trcu trcu_bh; do
		s=$(stat_val $f ipi_send)
		mx=$(stat_val $f max_ns)
		d="$f ipi_send=$s max_ns=$mx (limit $LIMIT_NS; before the holdout: $before)"
		if [ -z "$mx" ]; then
			fail "irqsoff-ipi-$f" "no ipi_send line in rcustats: $d"
		elif [ "$mx" -le "$LIMIT_NS" ]; then
			pass "irqsoff-ipi-$f" "$d"
		else
			fail "irqsoff-ipi-$f" "an IPI send took longer than 20 ms: $d"
		fi
	done
	pr=$(echo "$HOG_LOG" | grep '^PROBE')
	late=$(echo "$pr" | tr ' ' '\n' | sed -n 's/^max_late_us=//p')
	d="$pr (limit 100000 us; rcu_exp has no like-for-like probe: its IPIs go out from the kernel's expedited worker, wherever that runs)"
	if [ -z "$late" ]; then
		fail irqsoff-exp-latency "no PROBE line: $(hog_flat)"
	elif [ "$late" -le 100000 ]; then
		pass irqsoff-exp-latency "$d"
	else
		fail irqsoff-exp-latency "the trcu expedited caller's CPU ran nothing else for over 100 ms: $d"
	fi
	rate_budget irqsoff-trcu "holdout cpu$HOLD_CPU" "trcu sync 0" "rcu sync 0"
	rate_budget irqsoff-trcu_bh "holdout cpu$HOLD_CPU" "trcu_bh sync 0" "rcu sync 0"
	rate_budget irqsoff-exp "holdout cpu$HOLD_CPU" "trcu exp 2" "rcu exp 3"
else
	fail irqsoff-hog "trcuhog load, report or unload failed: $(hog_flat)"
fi

rmmod trcu || fail irqsoff-unload "rmmod trcu failed"
exit $FAILED
