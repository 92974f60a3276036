#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# HIER: on 8 vCPUs, load trcu at fanout 2, 4, 6, 6+exact, 8 and 64 and
# check that debugfs rcuhier shows the expected shape for both flavours;
# at each, a short torture of trcu (which calls synchronize_trcu(),
# call_trcu() and trcu_barrier()) and one of trcu_bh must succeed, and
# rmmod must work.  The expected layouts are what
# `tests/geometry/bin/test_geometry --layout 8 F F EXACT` prints (balanced
# fanout 6 splits 8 CPUs 4+4; exact fanout 6 splits them 6+2) (the host
# geometry test checks that code against the seed's trace.txt).
. /tests/lib.sh

D=/sys/kernel/debug/trcu
cpus=$(grep -c ^processor /proc/cpuinfo)
if [ "$cpus" -ne 8 ]; then
	fail hier-cpus "needs 8 vCPUs, has $cpus"
	exit 1
fi

# layout SECTION: the node lines of one flavour's section without the masks
# and the state line, levels joined by '|'.
layout() {
	awk -v sec="$1:" '
		$0 == sec { on = 1; next }
		/^[a-z_]+:$/ { on = 0 }
		on && !/^c=/ {
			line = ""
			for (i = 1; i <= NF; i += 3)
				line = line $(i + 1) " " $(i + 2) " "
			out = out (out == "" ? "" : "|") line
		}
		END { print out }' "$D/rcuhier"
}

# torture TYPE: a 3-second torture of TYPE; 0 if it ends in SUCCESS.
torture() {
	torture_run 60 torture_type="$1" duration=3 stat_interval=1 \
		nreaders=2 nfakewriters=2
}

one() {
	local cfg=$1 args=$2 want=$3 sec got t
	if ! insmod /lib/modules/trcu.ko $args trace=1; then
		fail "hier-$cfg" "insmod trcu.ko $args failed"
		return
	fi
	for sec in trcu trcu_bh; do
		got=$(layout "$sec")
		if [ "$got" = "$want" ]; then
			pass "hier-$cfg-$sec" "$got"
		else
			fail "hier-$cfg-$sec" "got '$got' want '$want'"
		fi
	done
	for t in trcu trcu_bh; do
		if torture "$t"; then
			pass "hier-$cfg-torture-$t"
		else
			fail "hier-$cfg-torture-$t" "short $t torture did not succeed"
		fi
	done
	if rmmod trcu; then
		pass "hier-$cfg-rmmod"
	else
		fail "hier-$cfg-rmmod" "rmmod trcu failed"
	fi
}

one f2 "fanout=2" "0:7 ^0 |0:3 ^0 4:7 ^1 |0:1 ^0 2:3 ^1 4:5 ^0 6:7 ^1 "
one f4 "fanout=4" "0:7 ^0 |0:3 ^0 4:7 ^1 "
one f6 "fanout=6" "0:7 ^0 |0:3 ^0 4:7 ^1 "
one f6x "fanout=6 fanout_exact=1" "0:7 ^0 |0:5 ^0 6:7 ^1 "
one f8 "fanout=8" "0:7 ^0 "
one f64 "fanout=64" "0:7 ^0 "
exit "$FAILED"
