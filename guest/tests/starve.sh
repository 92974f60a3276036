#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# STARVE: trcu's own starvation detector (module/gp_kthread.c), where the
# scheduler cannot help.  Booted with isolcpus=4-7 (scenario BOOT_ARGS):
# the isolated CPUs have no scheduler domain, so nothing balances load
# between them and a woken task goes back to the CPU it last ran on.  An
# administrator puts trcu_gp there (taskset), a real-time task then takes
# the CPU it sits on, and only the detector can move it.
#
#   move: trcu_gp on CPUs 4-5, /bin/rtspin at SCHED_FIFO 1 on the one it
#     last ran on (RT throttling on: the kthread, SCHED_OTHER, would get
#     50 ms of each second), rate drivers on housekeeping CPU 1.  Budget:
#     the kernel log says "trcu GP kthread starved N jiffies on CPU c by
#     rtspin[pid]: moved off it"; while the hog runs trcu_gp's affinity is
#     the other CPU alone; rates as hoglib.sh's rate_budget against the
#     kernel's RCU in the same load, and trcu's longest synchronize wait
#     <= 600 ms (the detector's 200 ms and a GP; left in place the
#     kthread waits up to 950 ms); once the hold time (10 s) has passed
#     and a GP ran, its affinity is 4-5 again (the administrator's).
#   stall: trcu reloaded with stall_timeout=3, trcu_gp on the hogged CPU
#     alone, RT throttling off: the kthread cannot run at all while the
#     hog lasts (SPIN_S, 6 s).  Budget: "starved ... its affinity leaves
#     it nowhere else to go", then "INFO: trcu detected stall of its GP
#     kthread: GP requested and not started ... held by rtspin[pid]" (the
#     stall checks of running GPs cannot see a GP that never started);
#     the waiting synchronize_trcu() returns once the hog ends (max_us
#     between 3 s and the hog's length + 1 s, none stuck) while
#     synchronize_trcu_bh(), whose kthread stays on the housekeeping
#     CPUs, is never held past 1 s.  The provoked lines, and the checks
#     that quote them, sit inside an EXPECT-BAD region.
. /tests/lib.sh
. /tests/hoglib.sh

D=${RATE_S:-8}
SPIN_S=6
RT=/proc/sys/kernel/sched_rt_runtime_us
OPS=trcu_sync,trcu_bh_sync,rcu_sync,trcu_cb,rcu_cb

iso=$(cat /sys/devices/system/cpu/isolated 2>/dev/null)
if [ "$iso" = 4-7 ]; then
	pass starve-boot "isolated=$iso"
else
	fail starve-boot "the kernel did not take isolcpus=4-7: isolated='$iso'"
	exit 1
fi

# warm: one second of synchronize_trcu() from CPU 1, so that trcu_gp runs
# (and so sits) where its affinity now puts it.
warm() {
	hog_run 30 tag=warm rate_cpu=1 rate_s=1 rate_ops=trcu_sync ||
		fail "starve-$1-warm" "the warm-up failed: $(hog_flat)"
}

# log_check NAME N RE: pass NAME with the first kernel log line after
# line N that matches RE, else fail it with trcu's lines since N.
log_check() {
	local l
	l=$(dmesg_since "$2" | grep -E "$3" | head -n 1 | sed 's/^\[[^]]*\] //')
	if [ -n "$l" ]; then
		pass "$1" "$l"
	else
		fail "$1" "no line /$3/; trcu's lines: $(dmesg_since "$2" | grep 'trcu' | grep -v TRCU-MARK | tr '\n' ';')"
	fi
}

# --- move ---------------------------------------------------------------
echo 950000 >$RT
insmod $M/trcu.ko || { fail starve-load "insmod trcu.ko failed"; exit 1; }
gp=$(gp_pid trcu_gp)
taskset -p 0x30 "$gp" >/dev/null 2>&1 ||
	fail starve-move-taskset "taskset -p 0x30 $gp failed"
warm move
c=$(last_cpu "$gp")
case "$c" in
4) other=5 ;;
5) other=4 ;;
*) fail starve-move-place "trcu_gp last ran on cpu$c, not 4 or 5"; other= ;;
esac
if [ -n "$other" ]; then
	n=$(dmesg_lines)
	rtspin "$c" 1 $((D + 3)) >/tmp/rtspin.out 2>&1 &
	spid=$!
	# Its affinity while the hog runs: the middle of the rate window.
	(sleep $((D / 2)); allowed "$gp" >/tmp/starve.allowed) &
	apid=$!
	hog_run $((D + 60)) tag=starve-move rate_cpu=1 rate_s="$D" \
		rate_delay_ms=500 rate_ops=$OPS ||
		fail starve-move-hog "trcuhog load, report or unload failed: $(hog_flat)"
	wait "$apid"
	wait "$spid"
	grep -q "ran_on=$c\$" /tmp/rtspin.out ||
		fail starve-move-spin "rtspin did not run on cpu$c: $(cat /tmp/rtspin.out)"
	log_check starve-move-line "$n" \
		"trcu GP kthread starved [0-9]+ jiffies on CPU $c by rtspin\[[0-9]+\]: moved off it"
	a=$(cat /tmp/starve.allowed)
	if [ "$a" = "$other" ]; then
		pass starve-move-allowed "while rtspin held cpu$c: Cpus_allowed_list $a"
	else
		fail starve-move-allowed "while rtspin held cpu$c: Cpus_allowed_list '$a', want $other"
	fi
	rate_budget starve-move-trcu "spin cpu$c" "trcu sync 1" "rcu sync 1"
	rate_budget starve-move-cb "spin cpu$c" "trcu cb 1" "rcu cb 1"
	# The detector's own bound, tighter than rate_budget's: starved
	# after HZ/5 (200 ms), asked and moved within ~20 ms more, then one
	# GP.  Left where it was, the kthread waits out the RT period, up
	# to 950 ms (measured: 965 ms, within rate_budget's rcu + 1 s).
	tm=$(rate_val trcu sync 1 max_us)
	if [ -n "$tm" ] && [ "$tm" -le 600000 ]; then
		pass starve-move-latency "trcu sync longest wait $tm us (limit 600000)"
	else
		fail starve-move-latency "trcu sync longest wait '$tm' us, limit 600000: $(rate_desc trcu sync 1)"
	fi
	# Back to the administrator's mask once the hold has passed and
	# the kthread has run (the warm-up makes it run).
	sleep 10
	warm back
	a=$(allowed "$gp")
	if [ "$a" = 4-5 ]; then
		pass starve-move-restored "after the hold: Cpus_allowed_list $a"
	else
		fail starve-move-restored "after the hold: Cpus_allowed_list '$a', want 4-5 (the taskset)"
	fi
fi
rmmod trcu || fail starve-unload "rmmod trcu failed"

# --- stall --------------------------------------------------------------
insmod $M/trcu.ko stall_timeout=3 ||
	{ fail starve-load "insmod trcu.ko stall_timeout=3 failed"; exit 1; }
gp=$(gp_pid trcu_gp)
taskset -p 0x10 "$gp" >/dev/null 2>&1 ||
	fail starve-stall-taskset "taskset -p 0x10 $gp failed"
warm stall
c=$(last_cpu "$gp")
[ "$c" = 4 ] || fail starve-stall-place "trcu_gp last ran on cpu$c after taskset 0x10"
n=$(dmesg_lines)
expect_bad_begin "trcu_gp starved on purpose"
echo -1 >$RT
rtspin 4 1 "$SPIN_S" >/tmp/rtspin.out 2>&1 &
spid=$!
hog_run $((D + 60)) tag=starve-stall rate_cpu=1 rate_s="$D" \
	rate_delay_ms=500 rate_ops=trcu_sync,trcu_bh_sync,rcu_sync ||
	fail starve-stall-hog "trcuhog load, report or unload failed: $(hog_flat)"
wait "$spid"
echo 950000 >$RT
grep -q "ran_on=4\$" /tmp/rtspin.out ||
	fail starve-stall-spin "rtspin did not run on cpu4: $(cat /tmp/rtspin.out)"
log_check starve-stall-nowhere "$n" \
	"trcu GP kthread starved [0-9]+ jiffies on CPU 4 by rtspin\[[0-9]+\]; its affinity leaves it nowhere else to go"
log_check starve-stall-info "$n" \
	"INFO: trcu detected stall of its GP kthread: GP requested and not started [0-9-]+, kthread not run for [0-9]+ jiffies, on CPU 4 held by rtspin\[[0-9]+\]"
# The region ends after the checks: their details quote the lines.
expect_bad_end "trcu_gp starved on purpose"
tn=$(rate_val trcu sync 1 n)
tm=$(rate_val trcu sync 1 max_us)
ts=$(rate_val trcu sync 1 stuck)
d="trcu sync cpu1 $(rate_desc trcu sync 1); trcu_bh $(rate_desc trcu_bh sync 1); rcu $(rate_desc rcu sync 1)"
if [ -n "$tn" ] && [ "$ts" = 0 ] && [ "$tn" -ge 1 ] &&
	[ "$tm" -ge 3000000 ] && [ "$tm" -le $(((SPIN_S + 1) * 1000000)) ]; then
	pass starve-stall-trcu "held by the hog, then on: $d"
else
	fail starve-stall-trcu "want n >= 1, stuck 0, 3 s <= max_us <= $((SPIN_S + 1)) s: $d"
fi
bm=$(rate_val trcu_bh sync 1 max_us)
bs=$(rate_val trcu_bh sync 1 stuck)
if [ -n "$bm" ] && [ "$bs" = 0 ] && [ "$bm" -le 1000000 ]; then
	pass starve-stall-trcu_bh "its own kthread free: $d"
else
	fail starve-stall-trcu_bh "want max_us <= 1 s, stuck 0: $d"
fi
rmmod trcu || fail starve-unload "rmmod trcu failed"
exit $FAILED
