#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# ISOLATED: booted with nohz_full=4-7 isolcpus=4-7 (scenario BOOT_ARGS),
# trcu's GP kthreads must stay on the housekeeping CPUs and within the
# affinity they started with, whoever calls synchronize_trcu() from where;
# and an administrator's `taskset -p` must stick.
#   phase 1: rate drivers (trcuhog.ko) on isolated CPU 5 and housekeeping
#     CPU 1 (synchronize_trcu, _bh, synchronize_rcu) and call+barrier of
#     both RCUs on isolated CPU 6, RATE_S (8) s;
#   phase 2: `taskset -p 0x3` on both GP kthreads, then the same load.
# While the load runs, a sampler reads every 0.2 s each kthread's last
# CPU (/proc/PID/stat field 39) and Cpus_allowed_list (/proc/PID/status).
# Budgets: phase 1, no sample on an isolated CPU and every allowed list a
# subset of the starting one, which has no isolated CPU (the kthreads
# start with the kernel's kthread housekeeping mask); phase 2, every
# sample on CPU 0-1 and every allowed list within 0-1 (field 39 is
# sampled only from 1.5 s into the load: a kthread asleep since before
# the taskset still shows its old CPU).  Rates (hoglib.sh, rate_budget):
# trcu and trcu_bh against synchronize_rcu on the same CPU, call+barrier
# against call_rcu+rcu_barrier, in each phase.
. /tests/lib.sh
. /tests/hoglib.sh

D=${RATE_S:-8}
OPS=trcu_sync@5,trcu_bh_sync@5,rcu_sync@5,trcu_sync@1,trcu_bh_sync@1,rcu_sync@1,trcu_cb@6,rcu_cb@6
KTHREADS="trcu_gp trcu_bh_gp"

iso=$(cat /sys/devices/system/cpu/isolated 2>/dev/null)
nohz=$(cat /sys/devices/system/cpu/nohz_full 2>/dev/null)
if [ "$iso" = 4-7 ] && [ "$nohz" = 4-7 ]; then
	pass iso-boot "isolated=$iso nohz_full=$nohz cmdline: $(cat /proc/cmdline)"
else
	fail iso-boot "the kernel did not take the isolation: isolated='$iso' nohz_full='$nohz'"
	exit 1
fi

insmod $M/trcu.ko || { fail iso-load "insmod trcu.ko failed"; exit 1; }

for k in $KTHREADS; do
	p=$(gp_pid $k)
	a=$(allowed "$p")
	eval "start_$k=\$a"
	if [ -n "$a" ] && ! echo " $(cpus_of "$a") " | grep -qE ' [4-7] '; then
		pass "iso-start-$k" "$k pid $p starts with Cpus_allowed_list $a (isolated $iso)"
	else
		fail "iso-start-$k" "$k pid $p starts with Cpus_allowed_list '$a', isolated $iso"
	fi
done

# sampler OUT DELAY: every 0.2 s after DELAY s, "kthread cpu allowed" for
# both GP kthreads into OUT, until /tmp/sampler.stop exists.
# The pids are looked up once: a scan of /proc per sample took most of a
# second under TCG.
sampler() {
	local out=$1 p1 p2
	: >"$out"
	p1=$(gp_pid trcu_gp)
	p2=$(gp_pid trcu_bh_gp)
	sleep "$2"
	while [ ! -e /tmp/sampler.stop ]; do
		echo "trcu_gp $(last_cpu "$p1") $(allowed "$p1")" >>"$out"
		echo "trcu_bh_gp $(last_cpu "$p2") $(allowed "$p2")" >>"$out"
		usleep 200000
	done
}

# phase TAG DELAY: the load with the sampler running; 1 if it failed.
phase() {
	rm -f /tmp/sampler.stop
	sampler "/tmp/samples.$1" "$2" &
	spid=$!
	hog_run $((D + 60)) tag="$1" rate_s="$D" rate_delay_ms=500 rate_ops=$OPS
	r=$?
	touch /tmp/sampler.stop
	wait "$spid"
	[ "$r" = 0 ] || fail "iso-$1-hog" "trcuhog load, report or unload failed: $(hog_flat)"
	return $r
}

# judge TAG KTHREAD CPUS ALLOWED_WITHIN: its samples of phase TAG.
judge() {
	local f=/tmp/samples.$1 k=$2 n bad seen al
	n=$(grep -c "^$k " "$f")
	seen=$(grep "^$k " "$f" | awk '{ print $2 }' | sort -un | tr '\n' ' ')
	al=$(grep "^$k " "$f" | awk '{ print $3 }' | sort -u | tr '\n' ' ')
	bad=
	for c in $seen; do
		in_list "$c" "$3" || bad="$bad ran on cpu$c;"
	done
	for a in $al; do
		subset "$a" "$4" || bad="$bad allowed $a not within $4;"
	done
	d="$k: $n samples, last CPUs seen: $seen, allowed lists seen: $al"
	if [ "$n" -eq 0 ]; then
		fail "iso-$1-$k" "no samples: $d"
	elif [ -z "$bad" ]; then
		pass "iso-$1-$k" "$d (want CPUs in $3, allowed within $4)"
	else
		fail "iso-$1-$k" "$bad $d (want CPUs in $3, allowed within $4)"
	fi
}

rates() {
	rate_budget "iso-$1-trcu-cpu5" "isolated cpu5" "trcu sync 5" "rcu sync 5"
	rate_budget "iso-$1-trcu_bh-cpu5" "isolated cpu5" "trcu_bh sync 5" "rcu sync 5"
	rate_budget "iso-$1-trcu-cpu1" "housekeeping cpu1" "trcu sync 1" "rcu sync 1"
	rate_budget "iso-$1-trcu_bh-cpu1" "housekeeping cpu1" "trcu_bh sync 1" "rcu sync 1"
	rate_budget "iso-$1-cb-cpu6" "isolated cpu6" "trcu cb 6" "rcu cb 6"
}

if phase load 0; then
	for k in $KTHREADS; do
		eval "s=\$start_$k"
		judge load "$k" 0-3 "$s"
	done
	rates load
fi

for k in $KTHREADS; do
	p=$(gp_pid $k)
	taskset -p 0x3 "$p" >/dev/null 2>&1 ||
		fail "iso-taskset-$k" "taskset -p 0x3 $p failed"
	a=$(allowed "$p")
	[ "$a" = 0-1 ] || fail "iso-taskset-$k" "after taskset -p 0x3: Cpus_allowed_list $a"
done
if phase taskset 1.5; then
	for k in $KTHREADS; do
		judge taskset "$k" 0-1 0-1
	done
	rates taskset
fi

rmmod trcu || fail iso-unload "rmmod trcu failed"
exit $FAILED
