#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# LOADUNLOAD: CYCLES cycles in one boot of
#   insmod trcu.ko (fanout 2, 3, 4, 6, 8, 16, 64 in turn, every other
#   cycle fanout_exact=1) -> insmod trcutorture.ko (2 s, callbacks in
#   flight: the writer's call_trcu() pipeline plus n_barrier_cbs=4)
#   -> rmmod trcu must fail while the torture uses it -> every other
#   cycle rmmod trcutorture while the test still runs, else after its end
#   line -> rmmod trcu.
# Every torture must end in SUCCESS, every rmmod must work, nothing may be
# left loaded.  Leaks: /proc/meminfo (SUnreclaim, Percpu, KernelStack,
# VmallocUsed) after the warm-up cycles and after the last one must differ
# by less than the tolerance below; the slab caches that grew most are
# reported (information).  On the debug kernel kmemleak scans after the
# last cycle (guest/init) and names any leaked object (CYCLES=10 there:
# scenario LOADUNLOAD-KMEMLEAK).
. /tests/lib.sh

M=/lib/modules
CYCLES=${CYCLES:-50}

# meminfo KEY: value in kB.
meminfo() { awk -v k="$1:" '$1 == k { print $2 }' /proc/meminfo; }

# settle: let deferred frees (RCU callbacks, kthread stacks, vfree work)
# finish and drop caches, so a snapshot measures what is really held.
# SLUB keeps per-CPU slabs and partial lists that /proc/slabinfo and
# SUnreclaim count as in use: shrinking every cache flushes them, or eight
# CPUs' worth of cached slabs would drown a small leak in noise.
# On a slow (loaded) guest the deferred frees take longer: repeat until
# SUnreclaim + KernelStack stop falling (at least 3 rounds, at most 10).
# A one-shot settle measured SUnreclaim +1452 kB and KernelStack +160 kB
# over 50 cycles with five guests sharing two host cores, against +412
# and +52 on a quieter host.
settle() {
	local f i cur prev=
	for i in 1 2 3 4 5 6 7 8 9 10; do
		sleep 1
		echo 3 > /proc/sys/vm/drop_caches
		for f in /sys/kernel/slab/*/shrink; do
			echo 1 > "$f" 2>/dev/null
		done
		cur=$(($(meminfo SUnreclaim) + $(meminfo KernelStack)))
		if [ -n "$prev" ] && [ "$i" -ge 3 ] && [ "$cur" -ge "$prev" ]; then
			break
		fi
		prev=$cur
	done
}

# snap FILE: the meminfo values and every slab cache's object count.
snap() {
	{
		for k in SUnreclaim Percpu KernelStack VmallocUsed; do
			echo "meminfo $k $(meminfo $k)"
		done
		# Tasks (a leaked kthread), counted like a meminfo value.
		set -- /proc/[0-9]*
		echo "meminfo Tasks $#"
		# name, objects in use, their bytes
		awk 'NR > 2 { print "slab", $1, $2, $2 * $4 }' /proc/slabinfo
	} >"$1"
}

# wait_end: wait (up to 60 s) for the torture's end line.
wait_end() {
	local w=0
	while [ "$w" -lt 120 ]; do
		dmesg | grep -q -e '-torture:--- End of test' && return 0
		sleep 0.5
		w=$((w + 1))
	done
	return 1
}

# cycle I: one load/unload cycle; returns 1 (and reports) on a failure.
cycle() {
	local i=$1 f ex out line early
	set -- 2 3 4 6 8 16 64
	shift $((i % 7))
	f=$1
	ex=$((i / 7 % 2))
	early=$((i % 2))
	dmesg -c >/dev/null
	if ! insmod "$M/trcu.ko" fanout="$f" fanout_exact="$ex" </dev/null; then
		fail "lu-$i" "insmod trcu.ko fanout=$f fanout_exact=$ex failed"
		return 1
	fi
	if ! insmod "$M/trcutorture.ko" duration=2 stat_interval=1 nreaders=2 \
		nfakewriters=2 n_barrier_cbs=4 </dev/null; then
		fail "lu-$i" "insmod trcutorture.ko failed"
		rmmod trcu
		return 1
	fi
	# trcutorture uses trcu's symbols: the module loader pins trcu.
	if out=$(rmmod trcu 2>&1); then
		fail "lu-$i-pin" "rmmod trcu succeeded while trcutorture was loaded"
		return 1
	fi
	if [ ! -d /sys/module/trcu ]; then
		fail "lu-$i-pin" "trcu gone after a failed rmmod: $out"
		return 1
	fi
	PIN_OUT=$out
	if [ "$early" -eq 1 ]; then
		# Still running (2 s test), callbacks in flight.
		sleep 0.5
		if dmesg | grep -q -e '-torture:--- End of test'; then
			NLATE=$((NLATE + 1))
		else
			NEARLY=$((NEARLY + 1))
		fi
	elif ! wait_end; then
		fail "lu-$i" "no torture end line within 60 s"
	fi
	if ! rmmod trcutorture; then
		fail "lu-$i" "rmmod trcutorture failed"
		return 1
	fi
	line=$(dmesg | grep -e '-torture:--- End of test' -e '!!!' | head -n 1)
	case "$line" in
	*'End of test: SUCCESS'*) ;;
	*)
		fail "lu-$i" "torture fanout=$f exact=$ex early=$early: ${line:-no end line}"
		rmmod trcu
		return 1 ;;
	esac
	if ! rmmod trcu; then
		fail "lu-$i" "rmmod trcu failed"
		return 1
	fi
	if [ -d /sys/module/trcu ] || [ -d /sys/module/trcutorture ]; then
		fail "lu-$i" "a module is still loaded after rmmod"
		return 1
	fi
	return 0
}

cpus=$(grep -c ^processor /proc/cpuinfo)
NEARLY=0
NLATE=0
PIN_OUT=

# Warm-up: the first loads create what stays for the boot (module
# sysfs caches, kprobe instruction slots, debugfs inodes...).
for i in 0 1 2; do
	cycle "$i" || exit 1
done
settle
snap /tmp/before
ok=0
fails=0
i=1
while [ "$i" -le "$CYCLES" ]; do
	if [ "$i" -eq $((CYCLES / 2 + 1)) ]; then
		settle
		snap /tmp/half
	fi
	if cycle "$i"; then
		ok=$((ok + 1))
	else
		fails=$((fails + 1))
		# Clean up whatever the failed cycle left, then go on.
		rmmod trcutorture 2>/dev/null
		rmmod trcu 2>/dev/null
		[ "$fails" -ge 3 ] && break
	fi
	i=$((i + 1))
done
if [ "$ok" -eq "$CYCLES" ]; then
	pass lu-cycles "$ok/$CYCLES cycles on $cpus CPUs ($NEARLY torture rmmods while the test ran, $NLATE raced its end); rmmod trcu refused while pinned: $PIN_OUT"
else
	fail lu-cycles "$ok/$CYCLES cycles ok"
fi

settle
snap /tmp/after
# delta A B: growth from snapshot A to B per meminfo value, and per slab
# cache in objects (and kB).
delta() {
	awk '
	FNR == NR { b[$1 " " $2] = $3; bb[$1 " " $2] = $4; next }
	{
		k = $1 " " $2
		d = $3 - b[k]
		if ($1 == "meminfo")
			printf "%s %d\n", k, d
		else if (d > 0)
			printf "grow %s %d %d\n", $2, d, ($4 - bb[k]) / 1024
	}' "$1" "$2" | sort -k3 -n -r
}
delta /tmp/before /tmp/after >/tmp/delta
delta /tmp/before /tmp/half >/tmp/delta1
delta /tmp/half /tmp/after >/tmp/delta2
top=$(grep '^grow' /tmp/delta | head -n 5 | awk '{ printf "%s+%d(%dkB) ", $2, $3, $4 }')
top2=$(grep '^grow' /tmp/delta2 | head -n 3 | awk '{ printf "%s+%d ", $2, $3 }')
# Tolerances, over all cycles: they catch leaks of at least tens of kB
# per cycle; small slab leaks are kmemleak's (LOADUNLOAD-KMEMLEAK).
# KernelStack < 320 kB (twenty 16 kB stacks; one leaked kthread per cycle
# would be 800 kB), Percpu < 64 kB (trcu_data of two flavours on 8 CPUs is
# several kB per load), VmallocUsed < 1 MB (a module image is ~1.5 MB),
# SUnreclaim < 2 MB (slab pages: fragmentation from the shell's own forks
# measured 0.4-0.9 MB, 1.4 MB once on a loaded host), Tasks < two per CPU
# (kworkers come and go).
leak=
SUMMARY=
# On the debug kernel SUnreclaim and KernelStack are information:
# debugobjects refills its pool as it likes (SUnreclaim +2.4 MB in 13
# cycles, all of it debug_objects_cache) and KASAN stacks are larger.
# kmemleak, which guest/init runs after this script, names each leaked
# slab object there instead; it does not report per-CPU areas, so Percpu
# stays a rule on both kernels.
KMEMLEAK=0
[ -e /sys/kernel/debug/kmemleak ] && KMEMLEAK=1
check_growth() {
	local d
	d=$(awk -v k="meminfo $1" '$1 " " $2 == k { print $3 }' /tmp/delta)
	d=${d:-0}
	if [ "$d" -ge "$2" ] && { [ "$KMEMLEAK" -eq 0 ] || [ "$3" != info-on-debug ]; }; then
		leak="$leak $1+$d(limit $2)"
	fi
	SUMMARY="$SUMMARY $1 +$d"
}
check_growth SUnreclaim 2048 info-on-debug
check_growth KernelStack 320 info-on-debug
check_growth Percpu 64
check_growth VmallocUsed 1024
check_growth Tasks $((2 * cpus))
# Caches the shell's own forks churn (process structures, accounted
# user allocations, lazily freed vmap areas) are left to the exact
# Tasks/KernelStack/VmallocUsed totals: they drifted by up to 32 objects
# per 25 cycles (pid, cred_jar, signal_cache) with no task left behind.
# trcu and trcutorture allocate with plain GFP_KERNEL from kmalloc-*.
# A leak grows in both halves: a cache that gained one object per cycle
# in the first half and again in the second.  (One half alone is not
# enough: a 10-cycle run saw kmalloc-8 dip at the half-way snapshot and
# "grow" by 740 objects in the second half while the total did not.)
excl=' (pid|cred_jar|signal_cache|sighand_cache|task_struct|mm_struct|vm_area_struct|files_cache|fs_cache|anon_vma|anon_vma_chain|filp|lsm_file_cache|vmap_area|kmalloc-cg-[0-9k]+|kmalloc-rcl-[0-9k]+) '
h1=$((CYCLES / 2))
h2=$((CYCLES - CYCLES / 2))
worst=$(grep '^grow' /tmp/delta1 | grep -v -E "$excl" | awk -v h="$h1" '$3 >= h { print $2 }' |
	while read -r c; do
		grep "^grow $c " /tmp/delta2 | awk -v h="$h2" '$3 >= h { print $2 "+" $3 }'
	done | head -n 3)
# Information only since 2026-12-03: in a clean-clone make check this rule
# failed on kmalloc-16 +28/+28 objects (limit 25/25) while another run of
# the same code saw kmalloc-16 swing by 153 objects in one half.  Kernel
# caches move by more than a one-object-per-cycle leak, so the exact leak
# check is kmemleak on the debug kernel (scenario LOADUNLOAD-KMEMLEAK); the
# meminfo totals above stay rules (the unload_leak mutant trips Percpu).
both=
if [ -n "$worst" ]; then
	both="; slab caches up in both halves (info): $(echo $worst)"
fi
left=$(cat /proc/[0-9]*/comm 2>/dev/null | grep -c -e '^tt_' -e '^trcu')
if [ "$left" -ne 0 ]; then
	leak="$leak $left-trcu/tt-kthreads-left"
fi
if [ -z "$leak" ]; then
	pass lu-leak "growth after $CYCLES cycles (kB; Tasks):$SUMMARY; top slab growth (objects): ${top:-none}; second half: ${top2:-none}$both"
else
	fail lu-leak "grew:$leak;$SUMMARY; top slab growth (objects): ${top:-none}; second half: ${top2:-none}$both"
fi
exit "$FAILED"
