#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# LOCKDEP: trcu's lockdep maps and trcu_dereference*() checks, in a
# CONFIG_PROVE_RCU kernel (run-qemu.sh --kernel debug, modules built for
# it).  Correct uses (trcutest deref=1) must stay silent; each incorrect
# one (deref=2..5) must produce lockdep's "suspicious RCU usage" report
# naming trcutest.c, and so must each trcu_bh reader outside its
# contract (bhbad=1..3).  A short torture with irq and NMI readers must not
# upset lockdep either.  On a kernel without lockdep (no /proc/lockdep)
# the checks cannot run: reported as skipped (PASS, with that detail).
. /tests/lib.sh

M=/lib/modules

if [ ! -e /proc/lockdep ]; then
	pass lockdep-skipped "SKIPPED: kernel without lockdep (no /proc/lockdep): run with --kernel debug"
	exit 0
fi

insmod $M/trcu.ko || { fail lockdep-load "insmod trcu.ko failed"; exit 1; }

n=$(dmesg_lines)
if insmod $M/trcutest.ko deref=1; then
	rmmod trcutest
	if dmesg_since "$n" | grep -qiE "suspicious RCU usage|possible .*locking|lockdep"; then
		fail deref-correct "lockdep complained about correct uses"
	else
		pass deref-correct "six correct trcu_dereference*() uses, no report"
	fi
else
	fail deref-correct "trcutest deref=1 failed"
fi

for t in 2 3 4 5; do
	n=$(dmesg_lines)
	expect_bad_begin "deref=$t"
	insmod $M/trcutest.ko deref=$t && rmmod trcutest
	sleep 1
	expect_bad_end "deref=$t"
	out=$(dmesg_since "$n")
	if echo "$out" | grep -q "suspicious RCU usage" &&
	   echo "$out" | grep -q "trcutest.c:[0-9]* suspicious rcu_dereference"; then
		pass "deref-bad-$t" "$(echo "$out" | grep -o 'trcutest.c:[0-9]* suspicious[^!]*')"
	else
		fail "deref-bad-$t" "no suspicious RCU usage report for deref=$t"
	fi
done

# trcu_bh readers outside their contract (trcu.h): ended with irqs off,
# irqs off throughout, in hardirq context.  Each must be reported as
# suspicious RCU usage by trcu.h's debug path, naming the misuse, and
# leave the preempt count balanced (trcutest's load fails otherwise).
for t in 1 2 3; do
	n=$(dmesg_lines)
	expect_bad_begin "bhbad=$t"
	ok=0
	insmod $M/trcutest.ko bhbad=$t && rmmod trcutest && ok=1
	sleep 1
	expect_bad_end "bhbad=$t"
	out=$(dmesg_since "$n")
	if [ "$ok" = 1 ] && echo "$out" | grep -q "suspicious RCU usage" &&
	   echo "$out" | grep -q "trcu_read_.*lock_bh() in hardirq"; then
		pass "bh-contract-$t" "$(echo "$out" | grep -o 'trcu_read_.*lock_bh() in hardirq[^!]*' | head -n 1)"
	else
		fail "bh-contract-$t" "no report of the trcu_bh misuse bhbad=$t (or load failed: $ok)"
	fi
done

# Readers in task, timer and NMI context acquire the maps: no report.
n=$(dmesg_lines)
if insmod $M/trcutorture.ko torture_type=trcu duration=5 stat_interval=1 \
	irqreader=1 nmireader=1 nreaders=2 nfakewriters=2; then
	wait_end "$n" 90
	rmmod trcutorture
fi
if dmesg_since "$n" | grep -q "End of test: SUCCESS" &&
   ! dmesg_since "$n" | grep -qE "suspicious RCU usage|WARNING|BUG"; then
	pass lockdep-torture "5 s trcu torture with irq+NMI readers, no lockdep report"
else
	fail lockdep-torture "torture failed or lockdep reported"
fi
rmmod trcu || fail lockdep-unload "rmmod trcu failed"
exit $FAILED
