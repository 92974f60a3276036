#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# bench: trcu against rcu/rcu_bh/srcu in one boot (make bench).
# Loads trcuscale.ko once per measurement and prints machine-readable
#   trcuscale: RESULT test=<t> flavor=<f> tag=<tag> key=value ...
# lines on the console (the module prints most; the lines this script
# computes from /proc/interrupts and debugfs trcu/rcustats go through
# /dev/kmsg in the same format).  scripts/bench.sh parses them.
#
# Parameters come in TORTURE_ARGS (the scenario file's key):
#   parts=a,b,...  of tax,energy,read,gp,cb,scale,contention
#   smoke=1        tiny counts (make bench-smoke): checks that every
#                  measurement runs, not how fast
# TEST markers report errors only (a load that fails, a result line that
# is missing, a wrong count of callbacks); never slowness.
. /tests/lib.sh

M=/lib/modules
D=/sys/kernel/debug/trcu
PARTS=tax,energy,read,gp,cb,scale
SMOKE=0
GP_MODES="idle busy"
GP_FLAVORS="trcu rcu trcu_bh rcu_bh srcu trcu_exp rcu_exp"
for kv in $TORTURE_ARGS; do
	case "$kv" in
	parts=*) PARTS=${kv#parts=} ;;
	smoke=*) SMOKE=${kv#smoke=} ;;
	# Experiments: a subset of the gp part, other counts.
	gp_modes=*) GP_MODES=$(echo "${kv#gp_modes=}" | tr , ' ') ;;
	gp_flavors=*) GP_FLAVORS=$(echo "${kv#gp_flavors=}" | tr , ' ') ;;
	gp_calls=*) GP_CALLS_SET=${kv#gp_calls=} ;;
	esac
done
CPUS=$(grep -c ^processor /proc/cpuinfo)
GP_CALLS_SET=${GP_CALLS_SET:-}

# GP_CALLS: synchronize calls per flavour in the idle guest; BUSY_CALLS
# for trcu and rcu in the busy guest, OTHER_CALLS for its other flavours;
# SCALE_BUSY_CALLS for the busy scale rows.  A busy GP takes about one
# round of single-threaded TCG over every vCPU (8 vCPUs: ~0.1 s, 32:
# ~0.37 s, trcu and rcu alike), so 100 busy calls give the report's
# bootstrap interval of the busy trcu/rcu ratio a width of a few percent.
# (Before the reader kthreads stopped calling udelay() -- trcuscale.c --
# a busy GP took seconds and 40 calls left intervals of +-30 %.)
if [ "$SMOKE" = 1 ]; then
	READ_LOOPS=20000 GP_CALLS=5 BUSY_CALLS=3 OTHER_CALLS=2 CB_MS=300
	TAX_LOOPS=2000
	TAX_ROUNDS=1
	EN_CALLS=5 EN_IDLE=1 SCALE_CALLS=5 SCALE_BUSY_CALLS=3
	CONT_CALLS=3 CONT_BUSY=0
else
	READ_LOOPS=10000000 GP_CALLS=200 BUSY_CALLS=100 OTHER_CALLS=20
	CB_MS=3000
	TAX_LOOPS=10000 TAX_ROUNDS="1 2 3 4 5" EN_CALLS=100 EN_IDLE=5
	SCALE_CALLS=100 SCALE_BUSY_CALLS=40
	# Idle readers: with a busy kthread on each of 32 vCPUs a trcu GP
	# took ~25 s under single-threaded TCG (see README, Benchmarks).
	CONT_CALLS=30 CONT_BUSY=0
	# Many vCPUs under single-threaded TCG: every vCPU runs at 1/N
	# speed, so keep the number of calls modest (64 vCPUs).
	[ "$CPUS" -gt 16 ] && SCALE_CALLS=50
	[ "$CPUS" -gt 32 ] && SCALE_CALLS=30 SCALE_BUSY_CALLS=20
fi

[ -n "$GP_CALLS_SET" ] && GP_CALLS=$GP_CALLS_SET BUSY_CALLS=$GP_CALLS_SET OTHER_CALLS=$GP_CALLS_SET

has() {
	case ",$PARTS," in *",$1,"*) return 0 ;; esac
	return 1
}
res() { echo "trcuscale: RESULT $*" > /dev/kmsg; }
now_cs() { awk '{ printf "%d\n", $1 * 100 }' /proc/uptime; }

ERRS=0
RUNS=0
# CPU-bound user loops on every vCPU, beside the module's reader kthreads
# (busy=1): the busy guest of gp and scale.
BUSY_PIDS=
busy_loops_start() {
	local i

	for i in $(seq "$CPUS"); do
		sh -c 'while :; do :; done' &
		BUSY_PIDS="$BUSY_PIDS $!"
	done
}
busy_loops_stop() {
	[ -n "$BUSY_PIDS" ] && kill $BUSY_PIDS 2>/dev/null
	wait 2>/dev/null
	BUSY_PIDS=
}
# scale NAME ARGS...: one trcuscale load; an error if the load fails or
# prints no RESULT line.
scale() {
	local name=$1 n rc mod=trcuscale
	shift
	# Without trcu.ko: the build of trcuscale that does not link to it.
	[ "$TRCU_IN" = 1 ] || mod=trcuscale_base
	n=$(dmesg_lines)
	insmod $M/$mod.ko "$@"
	rc=$?
	RUNS=$((RUNS + 1))
	if [ "$rc" -ne 0 ]; then
		fail "bench-$name" "insmod $mod.ko $* failed (rc $rc)"
		ERRS=$((ERRS + 1))
		return 1
	fi
	rmmod $mod || { fail "bench-$name-rmmod" "rmmod $mod failed"; ERRS=$((ERRS + 1)); }
	if ! dmesg_since "$n" | grep -q 'trcuscale: RESULT'; then
		fail "bench-$name" "no RESULT line for $*"
		ERRS=$((ERRS + 1))
		return 1
	fi
	return 0
}

# refuse NAME REASON MOD ARGS...: a load of MOD that must fail, with
# REASON in its error: trcuscale_base has no trcu flavour, and a test
# takes only a flavour that has the ops it calls.  An error if it loads,
# or fails for another reason (a missing symbol, a bad parameter).
refuse() {
	local name=$1 reason=$2 mod=$3 n
	shift 3
	n=$(dmesg_lines)
	RUNS=$((RUNS + 1))
	if insmod $M/$mod.ko "$@" 2>/dev/null; then
		rmmod $mod
		fail "bench-refuse-$name" "insmod $mod.ko $* loaded, it must fail"
		ERRS=$((ERRS + 1))
	elif ! dmesg_since "$n" | grep -q "trcuscale: $reason"; then
		fail "bench-refuse-$name" "insmod $mod.ko $* failed without \"$reason\""
		ERRS=$((ERRS + 1))
	fi
}

TRCU_IN=0
trcu_load() {
	if insmod $M/trcu.ko $TRCU_ARGS trace=1 "$@"; then
		TRCU_IN=1
		return 0
	fi
	fail bench-trcu-insmod "insmod trcu.ko $TRCU_ARGS $* failed"
	ERRS=$((ERRS + 1))
	return 1
}
trcu_unload() {
	[ "$TRCU_IN" = 1 ] || return 0
	if rmmod trcu; then
		TRCU_IN=0
	else
		fail bench-trcu-rmmod "rmmod trcu failed"
		ERRS=$((ERRS + 1))
	fi
}

# part_done NAME: one PASS marker per part that ran without an error.
PART_ERRS=0
part_begin() { PART_ERRS=$ERRS; PART_RUNS=$RUNS; }
part_done() {
	[ "$ERRS" -eq "$PART_ERRS" ] && pass "bench-$1" "$((RUNS - PART_RUNS)) measurements"
}

# Interrupts on CPUs 1..N-1 (the idle ones in the energy part): total,
# and the rows LOC (timer), RES (reschedule IPI), CAL (function-call IPI),
# IWI (irq_work).  Prints "total loc res cal iwi".
idle_irqs() {
	awk -v n="$CPUS" 'NR > 1 {
		s = 0
		for (i = 3; i <= n + 1 && $i ~ /^[0-9]+$/; i++)
			s += $i
		t += s
		if ($1 == "LOC:") loc = s
		if ($1 == "RES:") res = s
		if ($1 == "CAL:") cal = s
		if ($1 == "IWI:") iwi = s
	} END { printf "%d %d %d %d %d\n", t, loc, res, cal, iwi }' /proc/interrupts
}

# trcu's own counts for flavour trcu on CPUs 1..N-1:
# "gps ipi_idle wake_idle wake_idle_req"
trcu_stats() {
	if [ ! -r "$D/rcustats" ]; then
		echo "0 0 0 0"
		return
	fi
	awk '/^[a-z_]+: gps=/ { on = ($1 == "trcu:"); if (on) { sub("gps=", "", $2); g = $2 } next }
	     on && /^cpu=/ { split($1, c, "="); if (c[2] != 0) {
		split($3, a, "="); split($4, b, "="); split($5, r, "=")
		ii += a[2]; w += b[2]; wr += r[2] } }
	     END { printf "%d %d %d %d\n", g, ii, w, wr }' "$D/rcustats"
}

# trcu_ipis [FLAVOR]: "gps ipis" of FLAVOR (default trcu), all CPUs.
trcu_ipis() {
	if [ ! -r "$D/rcustats" ]; then
		echo "0 0 0"
		return
	fi
	awk -v fl="${1:-trcu}:" '/^[a-z_]+: gps=/ { on = ($1 == fl); if (on) { sub("gps=", "", $2); g = $2 } next }
	     on && /^cpu=/ { split($2, a, "="); ii += a[2] }
	     END { printf "%d %d ", g, ii }' "$D/rcustats"
	# force_quiescent_state() calls: rcuhier's nfqs=N/...
	awk -v fl="${1:-trcu}:" '$0 == fl { on = 1; next } /^[a-z_]+:$/ { on = 0 }
	     on && /nfqs=/ { for (i = 1; i <= NF; i++) if ($i ~ /^nfqs=/) { split($i, a, "[=/]"); n = a[2] } }
	     END { printf "%d\n", n }' "$D/rcuhier"
}

# energy_run FLAVOR TAG: updates on CPU 0 only; interrupts the idle CPUs
# took meanwhile, and trcu's own count of the wakeups it caused there.
energy_run() {
	local f=$1 t=$2 a b s0 s1 t0 t1
	a=$(idle_irqs)
	s0=$(trcu_stats)
	t0=$(now_cs)
	scale "energy-$f-$t" test=gp flavor="$f" ncalls="$EN_CALLS" updater_cpu=0 tag="energy-$t" || return
	t1=$(now_cs)
	b=$(idle_irqs)
	s1=$(trcu_stats)
	set -- $a $b $s0 $s1
	res "test=energy flavor=$f tag=$t cpus=$CPUS calls=$((EN_CALLS + 1)) cs=$((t1 - t0))" \
		"irqs=$(($6 - $1)) loc=$(($7 - $2)) res=$(($8 - $3)) cal=$(($9 - $4)) iwi=$((${10} - $5))" \
		"trcu_gps=$((${15} - ${11})) trcu_ipi_idle=$((${16} - ${12})) trcu_wake_idle=$((${17} - ${13}))" \
		"trcu_wake_idle_req=$((${18} - ${14}))"
}

# energy_idle TAG: the idle CPUs' interrupt rate with nothing to do.
energy_idle() {
	local t=$1 a b t0 t1
	a=$(idle_irqs)
	t0=$(now_cs)
	sleep "$EN_IDLE"
	t1=$(now_cs)
	b=$(idle_irqs)
	set -- $a $b
	res "test=energy flavor=none tag=$t cpus=$CPUS calls=0 cs=$((t1 - t0)) irqs=$(($6 - $1)) loc=$(($7 - $2)) res=$(($8 - $3)) cal=$(($9 - $4)) iwi=$((${10} - $5))"
}

# The tax tests run on CPU 1 (the IPI from CPU 0); on one vCPU (the
# instruction-counted boot) both on CPU 0, the IPI a self-IPI.
TAX_CPU=1
[ "$CPUS" -eq 1 ] && TAX_CPU=0
tax_round() {
	local t=$1
	scale "tax-ctxsw-$t" test=ctxsw loops="$TAX_LOOPS" ctx_cpu=$TAX_CPU tag="$t"
	scale "tax-ipi-$t" test=ipi loops="$TAX_LOOPS" updater_cpu=0 ctx_cpu=$TAX_CPU tag="$t"
}

# Only tax and read run on one vCPU.
if [ "$CPUS" -lt 2 ] && [ -n "$(echo "$PARTS" | tr , '\n' | grep -vx 'tax\|read')" ]; then
	fail bench-cpus "parts $PARTS need at least 2 vCPUs, has $CPUS"
	exit 1
fi
echo "bench: $CPUS CPUs, parts $PARTS, smoke $SMOKE" > /dev/kmsg
# Let boot-time work (module loads, deferred initcalls) settle.
sleep 2

# --- hook tax and energy without trcu, then with it, same boot ---------
if has tax; then
	part_begin
	for r in $TAX_ROUNDS; do
		tax_round notrcu
		trcu_load && { tax_round trcu; trcu_unload; }
	done
	part_done tax
fi
if has energy; then
	part_begin
	energy_idle notrcu
	energy_run rcu notrcu
	if trcu_load; then
		sleep 1
		energy_idle trcu
		energy_run trcu trcu
		energy_run trcu_bh trcu
		energy_run rcu trcu
		trcu_unload
	fi
	part_done energy
fi

# --- everything else with trcu loaded --------------------------------
if has read || has gp || has cb || has scale; then
	trcu_load || exit 1
fi
# Smoke: the loads trcuscale must refuse (with trcu.ko loaded, so that
# a trcu flavour fails only where the module cannot reach it).
if [ "$SMOKE" = 1 ] && [ "$TRCU_IN" = 1 ]; then
	part_begin
	refuse base-trcu "flavor=trcu needs trcuscale.ko" trcuscale_base test=read flavor=trcu loops=1000
	refuse base-all "flavor=trcu needs trcuscale.ko" trcuscale_base test=read flavor=all loops=1000
	refuse gp-floor "invalid flavor=floor for test=gp" trcuscale test=gp flavor=floor ncalls=1
	refuse cb-floor "invalid flavor=floor for test=cb" trcuscale test=cb flavor=floor duration_ms=100
	refuse read-exp "invalid flavor=trcu_exp for test=read" trcuscale test=read flavor=trcu_exp loops=1000
	part_done refuse
fi
if has read; then
	part_begin
	# Interleaved chunks of every flavour in one load (drift-proof).
	scale read-all test=read flavor=all loops="$READ_LOOPS"
	part_done read
fi
if has gp; then
	part_begin
	for mode in $GP_MODES; do
		[ "$mode" = busy ] && busy_loops_start
		b=0
		[ "$mode" = busy ] && b=1
		fls=$GP_FLAVORS
		# Smoke: the busy guest is slow; trcu and rcu suffice to
		# check that the busy path works.
		[ "$SMOKE" = 1 ] && [ "$mode" = busy ] && fls="trcu rcu"
		for f in $fls; do
			n=$GP_CALLS
			case "$mode.$f" in
			busy.trcu|busy.rcu) n=$BUSY_CALLS ;;
			busy.*) n=$OTHER_CALLS ;;
			esac
			s0=$(trcu_ipis "$f")
			scale "gp-$f-$mode" test=gp flavor="$f" ncalls="$n" busy=$b tag="$mode"
			case "$f" in trcu|trcu_bh)
				set -- $s0 $(trcu_ipis "$f")
				res "test=gpstats flavor=$f tag=$mode gps=$(($4 - $1)) ipi=$(($5 - $2)) fqs=$(($6 - $3))" ;;
			esac
		done
		[ "$mode" = busy ] && busy_loops_stop
	done
	part_done gp
fi
if has cb; then
	part_begin
	for f in trcu rcu trcu_bh srcu; do
		scale "cb-$f" test=cb flavor="$f" duration_ms="$CB_MS" tag=flood
	done
	# The same flood beside a reader kthread on every CPU (as in the
	# torture's fwd_progress, where trcu once posted ~4k/s to rcu's 150k).
	fls="trcu rcu"
	[ "$SMOKE" = 1 ] && fls=trcu
	for f in $fls; do
		scale "cb-$f-busy" test=cb flavor="$f" duration_ms="$CB_MS" busy=1 tag=flood-busy
	done
	part_done cb
fi
if has scale; then
	part_begin
	for f in trcu rcu; do
		scale "scale-$f" test=gp flavor="$f" ncalls="$SCALE_CALLS" tag=scale
	done
	# The same on a guest with every vCPU busy, as gp's busy mode.
	busy_loops_start
	for f in trcu rcu; do
		scale "scale-busy-$f" test=gp flavor="$f" ncalls="$SCALE_BUSY_CALLS" busy=1 tag=scale-busy
	done
	busy_loops_stop
	part_done scale
fi
trcu_unload

# --- why the idle synchronize_trcu() takes what it takes: the same idle
# measurement with the force-quiescent-state delay at 1 and 2 jiffies
# (default 3): idle CPUs are credited only by the first fqs scan.
if has gp && [ "$SMOKE" != 1 ]; then
	part_begin
	for j in 1 2; do
		trcu_load jiffies_till_force_qs=$j || continue
		scale "gp-trcu-jfqs$j" test=gp flavor=trcu ncalls="$GP_CALLS" tag="idle-jfqs$j"
		trcu_unload
	done
	part_done gp-jfqs
fi

# --- node-lock contention per level, fanout 4, 8, 64 ------------------
# Per level: acquisitions during ncalls synchronize_trcu() with busy
# readers, divided by the GPs that ran meanwhile (rcustats deltas).
levels() {
	awk '/^[a-z_]+: gps=/ { on = ($1 == "trcu:"); if (on) { sub("gps=", "", $2); print "gps " $2 } next }
	     on && /^level=/ { split($1, l, "="); split($2, n, "="); split($3, k, "="); split($4, a, "=");
		print "level " l[2] " " n[2] " " k[2] " " a[2] }' "$D/rcustats"
}
if has contention; then
	part_begin
	for fo in 4 8 64; do
		trcu_load fanout=$fo || continue
		levels > /tmp/lv0
		scale "contention-f$fo" test=gp flavor=trcu ncalls="$CONT_CALLS" busy="$CONT_BUSY" tag="f$fo"
		levels > /tmp/lv1
		trcu_unload
		awk -v fo="$fo" -v cpus="$CPUS" '
			FNR == NR { if ($1 == "gps") g0 = $2; else a0[$2] = $5; next }
			$1 == "gps" { g = $2 - g0; next }
			{ lv[$2] = $3 " " $4 " " ($5 - a0[$2]); nl = $2 + 1 }
			END { for (i = 0; i < nl; i++) { split(lv[i], x, " ");
				printf "trcuscale: RESULT test=contention flavor=trcu tag=f%d cpus=%d fanout=%d level=%d nodes=%d children=%d gps=%d acq=%d acq_per_gp=%.2f\n",
					fo, cpus, fo, i, x[1], x[2], g, x[3], g ? x[3] / g : 0 } }' \
			/tmp/lv0 /tmp/lv1 > /tmp/cont
		while read -r line; do
			echo "$line" > /dev/kmsg
		done < /tmp/cont
		[ -s /tmp/cont ] || { fail "bench-contention-f$fo" "no rcustats levels"; ERRS=$((ERRS + 1)); }
	done
	part_done contention
fi

echo "bench: $RUNS measurements, $ERRS errors" > /dev/kmsg
[ "$ERRS" -eq 0 ] || exit 1
exit 0
