#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# SEED: trcutorture's random choices replay from their seed.  Each
# kthread and timer draws from its own stream, seeded from the run's seed
# and the stream's number; with choice_log=N each stream prints once
# "choices: stream S first N values hash H".  In one boot (same build,
# same vCPUs):
#   - two runs with seed=SEED_A print the same set of lines;
#   - a run with seed=SEED_B prints a different hash for every stream
#     (the lines depend on the seed, not only on the stream);
#   - a run without seed= prints the seed it picked on its Start line, and
#     a run with that seed prints the same lines as it did.
# Each run: 6 s, 4 readers with timer readers, 2 fake writers: streams
# 0x100 (writer), 0x200-0x201, 0x300-0x303 (readers), 0x400-0x403
# (their timers), at least 8 of them must print.
. /tests/lib.sh

ARGS="nreaders=4 nfakewriters=2 irqreader=1 choice_log=32 stat_interval=0"
SEED_A=12345
SEED_B=67890
MIN_STREAMS=8

# choices_run OUT ARGS...: one 6 s torture with ARGS; its choices lines
# ("stream hash", sorted) into OUT, its Start line into OUT.start.
choices_run() {
	local out=$1 n
	shift
	n=$(dmesg_lines)
	torture_run 60 $ARGS duration=6 "$@" || return 1
	dmesg_since "$n" | sed -n 's/.*-torture: choices: stream \([0-9a-fx]*\) first [0-9]* values hash \([0-9a-f]*\)$/\1 \2/p' |
		sort >"$out"
	dmesg_since "$n" | grep -e '-torture:--- Start of test' | head -n 1 >"$out.start"
}

insmod /lib/modules/trcu.ko || { fail seed-load "insmod trcu.ko failed"; exit 1; }

for r in a1 a2 b; do
	case $r in
	a*) s=$SEED_A ;;
	b) s=$SEED_B ;;
	esac
	choices_run "/tmp/choices.$r" seed=$s ||
		fail "seed-run-$r" "torture with seed=$s did not end in SUCCESS"
done
choices_run /tmp/choices.p || fail seed-run-picked "torture without seed= did not end in SUCCESS"

na=$(wc -l </tmp/choices.a1)
if [ "$na" -ge "$MIN_STREAMS" ]; then
	pass seed-streams "$na streams printed with seed=$SEED_A: $(awk '{ print $1 }' /tmp/choices.a1 | tr '\n' ' ')"
else
	fail seed-streams "only $na streams printed (want >= $MIN_STREAMS): $(tr '\n' ' ' </tmp/choices.a1)"
fi

if cmp -s /tmp/choices.a1 /tmp/choices.a2 && [ "$na" -gt 0 ]; then
	pass seed-same "seed=$SEED_A twice: the same $na lines"
else
	fail seed-same "seed=$SEED_A twice, the lines differ: run 1: $(tr '\n' ' ' </tmp/choices.a1); run 2: $(tr '\n' ' ' </tmp/choices.a2)"
fi

# Every stream both runs printed must differ between the seeds.
# (awk, not join: busybox has none.)
cmp_ab=$(awk 'NR == FNR { h[$1] = $2; next }
	($1 in h) { n++; if (h[$1] == $2) s = s " " $1 }
	END { print n + 0 ":" s }' /tmp/choices.a1 /tmp/choices.b)
nb=${cmp_ab%%:*}
same=${cmp_ab#*:}
if [ "$nb" -gt 0 ] && [ -z "$same" ]; then
	pass seed-differs "seed=$SEED_B: all $nb common streams hash differently"
else
	fail seed-differs "seed=$SEED_B against $SEED_A: $nb common streams, the same hash in: $same"
fi

ps=$(sed -n 's/.* seed=\([0-9]*\) .*/\1/p' /tmp/choices.p.start)
if [ -z "$ps" ] || [ "$ps" = 0 ]; then
	fail seed-picked "no seed on the Start line: $(cat /tmp/choices.p.start)"
else
	choices_run /tmp/choices.r seed="$ps" ||
		fail seed-run-replay "torture with seed=$ps did not end in SUCCESS"
	if cmp -s /tmp/choices.p /tmp/choices.r && [ -s /tmp/choices.p ]; then
		pass seed-picked "picked seed=$ps, replayed: the same $(wc -l </tmp/choices.p) lines"
	else
		fail seed-picked "picked seed=$ps, replay differs: $(tr '\n' ' ' </tmp/choices.p) against $(tr '\n' ' ' </tmp/choices.r)"
	fi
fi

rmmod trcu || fail seed-unload "rmmod trcu failed"
exit $FAILED
