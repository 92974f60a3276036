#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# FLOOD: a call_*() flood must not make one callback batch hog a CPU.
# For each of trcu, trcu_bh and rcu: trcuscale.ko test=cb floods
# call_*() from CPU 0 for 3 s (then its barrier), while a trcuhog.ko
# rate driver on CPU 1 runs that flavour's synchronize back to back.
# Budgets:
#   - batch_max of each trcu flavour in debugfs rcustats (the most
#     callbacks one batch invoked in one go since load) <= 2000, with
#     trcu loaded batch_us=100: a bounded batch stops at the first
#     check (every 32 callbacks) past 100 us or at need_resched(), and
#     under TCG trcu invokes under 10 callbacks per us, so <= 1000 + 32.
#     The time itself (batch_max_us) is printed, not judged: under
#     single-threaded TCG a vCPU is descheduled for up to a round of the
#     emulator (~10 ms at 8 vCPUs) in the middle of any batch, so the
#     bounded batches measured 3-12 ms with batch_us=3000 and the
#     unbounded ones (mutant batch_unbounded) 11 ms: only the count
#     tells them apart (unbounded: the whole DONE segment, 9649);
#   - the flood's callbacks invoked per second, trcu's and trcu_bh's >=
#     1/5 of rcu's (bounding the batches must not starve the flood);
#   - synchronize during the flood (hoglib.sh, rate_budget): trcu and
#     trcu_bh against synchronize_rcu under its own flood.
. /tests/lib.sh
. /tests/hoglib.sh

MS=3000
ALL=
SCALE=

insmod $M/trcu.ko trace=1 batch_us=100 || { fail flood-load "insmod trcu.ko trace=1 batch_us=100 failed"; exit 1; }

# trcuhog.ko refuses bad parameters with one line naming them (checked
# here, the shortest of the scenarios that load it).
bad=
for a in "spin_s=16" "spin_s=1 spin_prio=0" "spin_s=1 spin_cpu=99" "irqsoff_s=1 irqsoff_ms=1501" \
	"rate_s=1 rate_ops=bogus" "rate_s=1 rate_ops=trcu_sync@99" "rate_s=1" \
	"rate_ops=trcu_sync" "probe_cpu=1" "tag=A" "stuck_ms=99 rate_s=1 rate_ops=rcu_sync" "" \
	"spin_s=1 spin_ctx=irqsoff" "spin_s=7 spin_ctx=nopreempt"; do
	n=$(dmesg_lines)
	# shellcheck disable=SC2086  # each entry is a parameter list
	if insmod $M/trcuhog.ko $a 2>/dev/null; then
		rmmod trcuhog
		bad="$bad accepted '$a';"
	elif ! dmesg_since "$n" | grep -q 'trcuhog: invalid\|trcuhog: nothing to do'; then
		bad="$bad no message for '$a';"
	fi
done
if [ -z "$bad" ]; then
	pass hog-params "14 bad trcuhog.ko parameter sets refused, each with its line"
else
	fail hog-params "$bad"
fi

for f in trcu trcu_bh rcu; do
	n=$(dmesg_lines)
	(insmod $M/trcuscale.ko test=cb flavor=$f updater_cpu=0 duration_ms=$MS \
		tag=flood; echo $? >/tmp/flood.rc) &
	fpid=$!
	hog_run 120 tag="flood-$f" rate_cpu=1 rate_s=$((MS / 1000)) \
		rate_delay_ms=200 rate_ops="${f}_sync" ||
		fail "flood-hog-$f" "trcuhog load, report or unload failed: $(hog_flat)"
	wait "$fpid"
	if [ "$(cat /tmp/flood.rc)" = 0 ]; then
		rmmod trcuscale
	else
		fail "flood-scale-$f" "trcuscale test=cb flavor=$f failed: $(dmesg_since "$n" | grep trcuscale | tail -n 2 | tr '\n' ';')"
	fi
	ALL="$ALL
$HOG_LOG"
	SCALE="$SCALE
$(dmesg_since "$n" | grep 'trcuscale: RESULT test=cb' | sed 's/.*RESULT //')"
done
HOG_LOG=$ALL

# scale_val FLAVOR KEY: KEY of the flood's RESULT line of FLAVOR.
scale_val() {
	echo "$SCALE" | grep "flavor=$1 " | tr ' ' '\n' | sed -n "s/^$2=//p" | head -n 1
}

rps=$(scale_val rcu invoked_per_s)
for f in trcu trcu_bh; do
	bm=$(stat_val $f batch_max)
	bu=$(stat_val $f batch_max_us)
	d="$f batch_max=$bm (limit 2000) batch_max_us=$bu (batch_us=100); rcu: no such counter, flood invoked/s $rps"
	if [ -z "$bm" ]; then
		fail "flood-batch-$f" "no batch_max line in rcustats for $f: $d"
	elif [ "$bm" -le 2000 ]; then
		pass "flood-batch-$f" "$d"
	else
		fail "flood-batch-$f" "a callback batch ran past its time bound: $d"
	fi
	ps=$(scale_val $f invoked_per_s)
	d="$f invoked_per_s=$ps peak_out=$(scale_val $f peak_out); rcu invoked_per_s=$rps peak_out=$(scale_val rcu peak_out)"
	if [ -z "$ps" ] || [ -z "$rps" ]; then
		fail "flood-rate-$f" "no trcuscale RESULT line: $d"
	elif [ $((ps * 5)) -ge "$rps" ]; then
		pass "flood-rate-$f" "$d"
	else
		fail "flood-rate-$f" "$f invoked/s < 1/5 of rcu's: $d"
	fi
	rate_budget "flood-sync-$f" "during its flood" "$f sync 1" "rcu sync 1"
done

rmmod trcu || fail flood-unload "rmmod trcu failed"
exit $FAILED
