#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# API: the polled, expedited and kfree_trcu() API outside the torture,
# through trcutest.ko:
# polled grace periods across the cookie wrap (ULONG_MAX -> 0 happens in
# the first 300 GPs of a fresh trcu.ko), the latency of synchronize_trcu()
# against synchronize_trcu_expedited(), trcu_bh readers across an
# irq-state change, and kfree_trcu(): batched, with
# the single-object fallback (kfree_nobatch=1), and drained by rmmod.
. /tests/lib.sh

M=/lib/modules

# tt NAME ARGS...: load trcutest with ARGS and unload it; 0 if loaded.
tt() {
	insmod $M/trcutest.ko "$@" || return 1
	rmmod trcutest
}

# no_bad N: no slab or kernel complaint in the log since line N.
no_bad() {
	! dmesg_since "$1" | grep -qE "Objects remaining|still has objects|BUG|WARNING"
}

insmod $M/trcu.ko || { fail api-load "insmod trcu.ko failed"; exit 1; }

n=$(dmesg_lines)
if tt poll=400; then
	line=$(dmesg_since "$n" | grep "poll=400:" | sed 's/.*trcutest: //')
	case "$line" in
	*"crossed ULONG_MAX->0: yes"*"errors 0") pass poll-wrap "$line" ;;
	*) fail poll-wrap "no wrap or errors: $line" ;;
	esac
else
	fail poll-wrap "trcutest poll=400 failed: $(dmesg_since "$n" | grep trcutest | tail -n 2)"
fi

n=$(dmesg_lines)
if tt bench=20; then
	pass exp-latency "$(dmesg_since "$n" | grep 'bench:' | sed 's/.*bench: //' | tr '\n' ';')"
else
	fail exp-latency "trcutest bench=20 failed"
fi

# The same with every CPU busy: 4 readers and the writers of a trcu torture.
n=$(dmesg_lines)
if insmod $M/trcutorture.ko torture_type=trcu duration=10 stat_interval=5 \
	nreaders=4 nfakewriters=2; then
	sleep 2
	if tt bench=20; then
		pass exp-latency-busy "$(dmesg_since "$n" | grep 'bench:' | sed 's/.*bench: //' | tr '\n' ';')"
	else
		fail exp-latency-busy "trcutest bench=20 failed under load"
	fi
	wait_end "$n" 90
	rmmod trcutorture
	ended_ok "$n" ||
		fail exp-latency-busy "the load torture did not succeed"
else
	fail exp-latency-busy "insmod trcutorture failed"
fi

n=$(dmesg_lines)
if tt bhirq=1 && no_bad "$n"; then
	pass bh-irq-state "$(dmesg_since "$n" | grep 'bhirq=1:' | sed 's/.*trcutest: //')"
else
	fail bh-irq-state "$(dmesg_since "$n" | grep -E 'trcutest|WARNING' | tail -n 3 | tr '\n' ';')"
fi

n=$(dmesg_lines)
if tt kfree=20000 && no_bad "$n"; then
	pass kfree-batched "$(dmesg_since "$n" | grep 'kfree=' | tail -n 1 | sed 's/.*trcutest: //')"
else
	fail kfree-batched "objects left behind or load failed: $(dmesg_since "$n" | grep -E 'trcutest|Objects|objects' | tail -n 2)"
fi

# Queued but not waited for: trcu's rmmod must drain them (and say so).
n=$(dmesg_lines)
tt kfree=5000 kfree_nowait=1
if rmmod trcu && no_bad "$n"; then
	pass kfree-drain "$(dmesg_since "$n" | grep 'kfree_trcu:' | sed 's/.*trcu: //')"
else
	fail kfree-drain "rmmod trcu failed or complained"
fi

insmod $M/trcu.ko kfree_nobatch=1 || { fail api-load "insmod trcu.ko kfree_nobatch=1 failed"; exit 1; }
n=$(dmesg_lines)
if tt kfree=3000 && no_bad "$n" && rmmod trcu; then
	line=$(dmesg_since "$n" | grep 'kfree_trcu:' | sed 's/.*trcu: //')
	case "$line" in
	*"0 batches, 3000 single objects"*) pass kfree-fallback "$line" ;;
	*) fail kfree-fallback "unexpected counts: $line" ;;
	esac
else
	fail kfree-fallback "objects left behind, load or rmmod failed"
fi
exit $FAILED
