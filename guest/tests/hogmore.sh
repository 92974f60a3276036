#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# HOG-MORE: the hogs RT-SPIN (rtspin.sh) leaves out.  Four cases, one
# boot, each hog on the CPU trcu_gp last ran on (/proc/PID/stat field 39),
# the rate drivers (trcuhog.ko) on CPU 0, or CPU 1 if that is the hog's:
#
#   dl         /bin/rtspin CPU 900 S deadline: a SCHED_DEADLINE user
#              spinner, runtime 900 ms of every 1 s, deadline = period.
#              On 6.1 a DEADLINE task cannot be pinned while admission
#              control is on: pinned first, sched_setattr() fails with
#              EPERM (__sched_setscheduler(): the affinity must span the
#              root domain); DEADLINE first, sched_setaffinity() fails
#              with EBUSY (dl_task_check_affinity()).  The case shows the
#              refusal (a NOTE line, not judged: it is the kernel's rule),
#              then sets kernel.sched_rt_runtime_us=-1, which skips both
#              checks but not the runtime enforcement, runs the pinned
#              spinner, and restores 950000.  (Without admission control
#              RT throttling is off too; no FIFO task runs meanwhile.)
#              Budget: rate_budget (hoglib.sh) for trcu and trcu_bh
#              synchronize against synchronize_rcu, call+barrier against
#              call_rcu+rcu_barrier.
#   nopreempt  trcuhog's kernel spinner, spin_ctx=nopreempt: 6 s inside
#              preempt_disable(), a reader of trcu (and of the kernel's
#              RCU) but not of trcu_bh.  Drivers from 0.5 s to 5.5 s
#              (inside the spin), stuck_ms=3000: synchronize of trcu,
#              trcu_bh, rcu on the drivers' CPU, their expedited ones on
#              CPU 2 (3 if 2 is the hog's).  A CPU inside a long
#              preempt-off section may delay only the GPs that must wait
#              for that CPU's own QS:
#                - trcu_bh synchronize and expedited keep going: max_us
#                  <= 1 s and n >= NMIN (10: at least 2 GPs a second over
#                  the 5 s; a trcu_bh that waited for the spinning CPU
#                  completes about one call in the window, the first one
#                  taking the rest of the spin);
#                - trcu synchronize and expedited are held (max_us >= 4
#                  s: a call that started inside the section and returned
#                  before its end would be a GP that broke a reader), at
#                  most until the spin ends + 1 s (max_us <= 6.5 s: the
#                  first call starts 0.5 s into the 6 s spin), never
#                  stuck;
#                - rcu's are held as well: printed, not judged.
#   nobh       the same with spin_ctx=nobh (local_bh_disable()), a reader
#              of every flavour: trcu and trcu_bh, synchronize and
#              expedited, all held (>= 4 s) and at most until the spin
#              ends + 1 s (6.5 s), not stuck; rcu printed.  The expedited drivers are what catch
#              a trcu_bh that takes a bh-disabled tick for a QS (mutant
#              bh_tick_qs): the tick reports an expedited QS at once, but
#              the normal GP's report waits for trcu's tasklet, which
#              cannot run on that CPU before the section ends.
#   offline    a FIFO 99 /bin/rtspin on that CPU (CPU 2 if it is 0, which
#              cannot go offline) while the drivers run 16 s: three rounds
#              (about 12 s) of a fresh rtspin on it, 1 s later the CPU
#              goes offline under the hog (the kernel pushes the hog off;
#              it is killed as soon as the offline returns, so it does not
#              spin on another CPU), 0.5 s later back online.  Every write
#              to cpuN/online must succeed; rate_budget as in dl, with
#              stuck_ms=3000: an offline holds synchronize_rcu and trcu's
#              GPs alike for up to 2 s (measured 2000320 and 1993406 us),
#              and one that ended the window with 1 s made the kernel's
#              call count as stuck.
# The kernel spinners stay at 6 s: below the soft-lockup (20 s) and RCU
# stall (21 s) thresholds, so no warning is excused.  Booted preempt=full
# like RT-SPIN (see rtspin.sh: on Debian's voluntary model the kernel's
# own RCU does not get through a FIFO kernel hog).
. /tests/lib.sh
. /tests/hoglib.sh

D=${RATE_S:-8}
SPIN=$((D + 3))
OPS=trcu_sync,trcu_bh_sync,rcu_sync,trcu_cb,rcu_cb
KSPIN=6			# kernel spinner, s (trcuhog allows 6 outside spin_ctx=preempt)
KDELAY=500		# its drivers start 0.5 s in ...
KRATE=5			# ... and run 5 s, inside the spin
NMIN=10			# trcu_bh synchronize calls in those 5 s
HELD=4000000		# a reader's GP waits at least this long (us)
# ... and at most until the spin ends + 1 s: the first call starts KDELAY
# into the spin, so 6.5 s (us).
HELD_MAX=$((KSPIN * 1000000 - KDELAY * 1000 + 1000000))
OFF_RATE=16		# the three offline rounds take about 12 s
RT_RUNTIME=/proc/sys/kernel/sched_rt_runtime_us

insmod $M/trcu.ko || { fail hogmore-load "insmod trcu.ko failed"; exit 1; }

# place: CPU (trcu_gp's last) and RCPU (the drivers') for the next case.
place() {
	cpu=$(last_cpu "$(gp_pid trcu_gp)")
	rcpu=0
	[ "$cpu" = 0 ] && rcpu=1
}

# budgets NAME DETAIL: rate_budget of every trcu driver of OPS.
budgets() {
	rate_budget "$1-trcu" "$2" "trcu sync $rcpu" "rcu sync $rcpu"
	rate_budget "$1-trcu_bh" "" "trcu_bh sync $rcpu" "rcu sync $rcpu"
	rate_budget "$1-cb" "" "trcu cb $rcpu" "rcu cb $rcpu"
}

case_dl() {
	local name=hogmore-dl spid ok=1 w old
	place
	w="spin cpu$cpu, drivers cpu$rcpu; before: $(gp_where)"
	old=$(cat $RT_RUNTIME)
	if rtspin "$cpu" 900 1 deadline >/tmp/rtspin.out 2>&1; then
		mark "NOTE $name: pinned DEADLINE accepted with sched_rt_runtime_us=$old: $(cat /tmp/rtspin.out)"
	else
		mark "NOTE $name: pinned DEADLINE refused with sched_rt_runtime_us=$old: $(cat /tmp/rtspin.out)"
	fi
	echo -1 >$RT_RUNTIME || { fail "$name" "cannot write -1 to $RT_RUNTIME"; return; }
	rtspin "$cpu" 900 "$SPIN" deadline >/tmp/rtspin.out 2>&1 &
	spid=$!
	hog_run $((D + 60)) tag="$name" rate_cpu=$rcpu rate_s="$D" \
		rate_delay_ms=500 rate_ops=$OPS || ok=0
	wait "$spid"
	echo "$old" >$RT_RUNTIME || fail "$name-restore" "cannot write $old back to $RT_RUNTIME"
	grep -q "policy=deadline runtime_ms=900 period_ms=1000 .* ran_on=$cpu\$" /tmp/rtspin.out ||
		{ fail "$name" "rtspin did not run DEADLINE on cpu$cpu: $(cat /tmp/rtspin.out)"; return; }
	[ "$ok" = 1 ] || { fail "$name" "trcuhog load or unload failed: $(hog_flat)"; return; }
	budgets "$name" "$w"
}

# held_budget NAME DETAIL "FLAVOR OP CPU" "FLAVOR OP CPU": the first
# driver is a GP that the spin's section must hold: max_us >= HELD, at
# most HELD_MAX, not stuck; the second (rcu) only printed.
held_budget() {
	local name=$1 extra=$2 tn tm ts why= d
	# shellcheck disable=SC2086  # the triples are meant to split
	set -- $3 $4
	tn=$(rate_val "$1" "$2" "$3" n)
	tm=$(rate_val "$1" "$2" "$3" max_us)
	ts=$(rate_val "$1" "$2" "$3" stuck)
	d="$extra: $1 $2 cpu$3 n=$tn max_us=$tm stuck=$ts; $4 $5 cpu$6 $(rate_desc "$4" "$5" "$6") (not judged)"
	[ -n "$tn" ] && [ -n "$tm" ] || { fail "$name" "no RATE line: $d"; return; }
	[ "$ts" = 0 ] || why="$why; $1 call stuck"
	[ "$tm" -ge "$HELD" ] || why="$why; $1 max_us < $HELD: a GP ended inside the spin's section"
	[ "$tm" -le "$HELD_MAX" ] || why="$why; $1 max_us > $HELD_MAX: held past the spin's end + 1 s"
	pass_unless "$name" "$why" "$d"
}

# free_budget NAME DETAIL "FLAVOR OP CPU": a GP the section must not hold:
# max_us <= 1 s, n >= NMIN, not stuck.
free_budget() {
	local name=$1 extra=$2 tn tm ts why= d
	# shellcheck disable=SC2086  # the triple is meant to split
	set -- $3
	tn=$(rate_val "$1" "$2" "$3" n)
	tm=$(rate_val "$1" "$2" "$3" max_us)
	ts=$(rate_val "$1" "$2" "$3" stuck)
	d="$extra: $1 $2 cpu$3 n=$tn max_us=$tm stuck=$ts"
	[ -n "$tn" ] && [ -n "$tm" ] || { fail "$name" "no RATE line: $d"; return; }
	[ "$ts" = 0 ] || why="$why; $1 call stuck"
	[ "$tm" -le 1000000 ] || why="$why; $1 max_us > 1 s: it waited for the spinning CPU"
	[ "$tn" -ge "$NMIN" ] || why="$why; $1 n < $NMIN"
	pass_unless "$name" "$why" "$d"
}

# case_kspin CTX: trcuhog's spinner in spin_ctx=CTX; synchronize on RCPU,
# expedited on ECPU.
case_kspin() {
	local ctx=$1 name="hogmore-$1" w ecpu=2
	place
	[ "$cpu" = 2 ] && ecpu=3
	w="spin cpu$cpu ctx=$ctx ${KSPIN}s, drivers cpu$rcpu and cpu$ecpu (exp) ${KDELAY}ms+${KRATE}s; before: $(gp_where)"
	hog_run $((KSPIN + 60)) tag="$name" spin_cpu="$cpu" spin_prio=1 \
		spin_s=$KSPIN spin_ctx="$ctx" rate_cpu=$rcpu rate_s=$KRATE \
		rate_delay_ms=$KDELAY stuck_ms=3000 \
		rate_ops="trcu_sync,trcu_bh_sync,rcu_sync,trcu_exp@$ecpu,trcu_bh_exp@$ecpu,rcu_exp@$ecpu" ||
		{ fail "$name" "trcuhog load or unload failed: $(hog_flat)"; return; }
	echo "$HOG_LOG" | grep -q "^SPIN .* ctx=$ctx .* preemptible=0 ran_on=$cpu err=0" ||
		{ fail "$name" "the kernel spinner did not run in ctx=$ctx: $(hog_flat)"; return; }
	if [ "$ctx" = nopreempt ]; then
		free_budget "$name-trcu_bh" "$w" "trcu_bh sync $rcpu"
		free_budget "$name-trcu_bh-exp" "ctx=$ctx" "trcu_bh exp $ecpu"
	else
		held_budget "$name-trcu_bh" "$w" "trcu_bh sync $rcpu" "rcu sync $rcpu"
		held_budget "$name-trcu_bh-exp" "ctx=$ctx" "trcu_bh exp $ecpu" "rcu exp $ecpu"
	fi
	held_budget "$name-trcu" "ctx=$ctx" "trcu sync $rcpu" "rcu sync $rcpu"
	held_budget "$name-trcu-exp" "ctx=$ctx" "trcu exp $ecpu" "rcu exp $ecpu"
}

# cycles CPU: three rounds of a fresh FIFO 99 rtspin on CPU, CPU offline
# under it, the hog killed, CPU online again; what went wrong on stdout.
cycles() {
	local i spid hog
	sleep 1
	for i in 1 2 3; do
		rtspin "$1" 99 30 >/dev/null 2>&1 &
		spid=$!
		sleep 1
		hog=$(last_cpu "$spid")
		[ "$hog" = "$1" ] || echo "round $i: the hog ran on cpu$hog;"
		echo 0 >"/sys/devices/system/cpu/cpu$1/online" || echo "round $i: offline failed;"
		kill -9 "$spid"
		wait "$spid" 2>/dev/null
		sleep 0.5
		echo 1 >"/sys/devices/system/cpu/cpu$1/online" || echo "round $i: online failed;"
	done
	[ "$(cat "/sys/devices/system/cpu/cpu$1/online")" = 1 ] ||
		echo 1 >"/sys/devices/system/cpu/cpu$1/online"
}

case_offline() {
	local name=hogmore-offline cpid ok=1 bad w
	place
	[ "$cpu" = 0 ] && cpu=2
	[ "$rcpu" = "$cpu" ] && rcpu=1
	w="spin+offline cpu$cpu, drivers cpu$rcpu; before: $(gp_where)"
	cycles "$cpu" >/tmp/cycles.out 2>&1 &
	cpid=$!
	hog_run $((OFF_RATE + 60)) tag="$name" rate_cpu=$rcpu rate_s=$OFF_RATE \
		rate_delay_ms=500 stuck_ms=3000 rate_ops=$OPS || ok=0
	wait "$cpid"
	bad=$(cat /tmp/cycles.out)
	if [ -z "$bad" ]; then
		pass "$name-cycles" "3 rounds: FIFO 99 rtspin on cpu$cpu, cpu$cpu offline under it, online again; after: $(gp_where)"
	else
		fail "$name-cycles" "$bad"
	fi
	[ "$ok" = 1 ] || { fail "$name" "trcuhog load or unload failed: $(hog_flat)"; return; }
	budgets "$name" "$w"
}

case_dl
case_kspin nopreempt
case_kspin nobh
case_offline

rmmod trcu || fail hogmore-unload "rmmod trcu failed"
exit $FAILED
