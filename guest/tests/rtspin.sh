#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# RT-SPIN: a SCHED_FIFO CPU hog must not stop trcu's grace periods.
# Eight cases, one boot: the hog is
#   - user: /bin/rtspin (guest/tools/rtspin.c), user mode, FIFO 1 and 99
#     (RT throttling on: 950 ms of every second);
#   - kernel: trcuhog.ko's spinner, a kthread spinning in the kernel with
#     preemption enabled, FIFO 1 and 99 (on Debian's voluntary-preemption
#     kernel nothing else runs on that CPU while it spins);
# and it sits
#   - gpcpu: on the CPU trcu_gp last ran on (/proc/PID/stat field 39),
#     the rate drivers on CPU 0 (CPU 1 if that is the hog's);
#   - caller: on CPU 3, right after a 1 s rate driver on CPU 3 (the last
#     synchronize caller), the rate drivers on CPU 0.
# Rate drivers (trcuhog.ko, in the same load for both RCUs):
# synchronize_trcu, synchronize_trcu_bh, synchronize_rcu, call_trcu +
# trcu_barrier and call_rcu + rcu_barrier back to back for RATE_S (8) s,
# starting 0.5 s after the hog; the hog lasts RATE_S + 3 s.
# The scenario boots preempt=full: on Debian's default voluntary model a
# kernel spinner is never preempted, so RT throttling cannot act and a
# spinner on CPU 0 stopped the kernel's own RCU too (synchronize_rcu n=67
# max_us=7772113 stuck=1 in 8 s, measured): the kernel's RCU must get
# through the hog for the comparison to mean anything.
# Budget, per case (hoglib.sh, rate_budget): trcu's and trcu_bh's
# synchronize count >= 1/5 of synchronize_rcu's, their longest wait <=
# synchronize_rcu's + 1 s, no call stuck; the same for call + barrier
# against call_rcu + rcu_barrier.
. /tests/lib.sh
. /tests/hoglib.sh

D=${RATE_S:-8}
SPIN=$((D + 3))
OPS=trcu_sync,trcu_bh_sync,rcu_sync,trcu_cb,rcu_cb

insmod $M/trcu.ko || { fail rtspin-load "insmod trcu.ko failed"; exit 1; }

# one KIND PRIO PLACE: one case, its three checks.
one() {
	local kind=$1 prio=$2 place=$3 name="rtspin-$1-p$2-$3" cpu rcpu spid ok=1 w
	if [ "$place" = caller ]; then
		hog_run 30 tag=warm rate_cpu=3 rate_s=1 rate_ops=trcu_sync,trcu_bh_sync ||
			{ fail "$name" "the warm-up on CPU 3 failed: $(hog_flat)"; return; }
		cpu=3
	else
		cpu=$(last_cpu "$(gp_pid trcu_gp)")
	fi
	rcpu=0
	[ "$cpu" = 0 ] && rcpu=1
	w="spin cpu$cpu, drivers cpu$rcpu; before: $(gp_where)"
	if [ "$kind" = user ]; then
		rtspin "$cpu" "$prio" "$SPIN" >/tmp/rtspin.out 2>&1 &
		spid=$!
		hog_run $((D + 60)) tag="$name" rate_cpu=$rcpu rate_s="$D" \
			rate_delay_ms=500 rate_ops=$OPS || ok=0
		wait "$spid"
		grep -q "ran_on=$cpu\$" /tmp/rtspin.out ||
			{ fail "$name" "rtspin did not run on cpu$cpu: $(cat /tmp/rtspin.out)"; return; }
	else
		hog_run $((D + 60)) tag="$name" spin_cpu="$cpu" spin_prio="$prio" \
			spin_s="$SPIN" rate_cpu=$rcpu rate_s="$D" rate_delay_ms=500 \
			rate_ops=$OPS || ok=0
		echo "$HOG_LOG" | grep -q "^SPIN .* preemptible=1 ran_on=$cpu err=0" ||
			{ fail "$name" "the kernel spinner did not run: $(hog_flat)"; return; }
	fi
	[ "$ok" = 1 ] || { fail "$name" "trcuhog load or unload failed: $(hog_flat)"; return; }
	rate_budget "$name-trcu" "$w" "trcu sync $rcpu" "rcu sync $rcpu"
	rate_budget "$name-trcu_bh" "$kind p$prio" "trcu_bh sync $rcpu" "rcu sync $rcpu"
	rate_budget "$name-cb" "$kind p$prio" "trcu cb $rcpu" "rcu cb $rcpu"
}

for kind in user kernel; do
	for prio in 1 99; do
		for place in gpcpu caller; do
			one "$kind" "$prio" "$place"
		done
	done
done

rmmod trcu || fail rtspin-unload "rmmod trcu failed"
exit $FAILED
