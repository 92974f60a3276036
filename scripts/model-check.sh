#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Exhaustive spin runs of model/dynticks.pml, one per variant: the fixed
# hooks must PASS (no assertion fails in the full state space, every step of
# the model reached), today's hooks and each what-if must FAIL with a trail.
# A variant that passes when it should fail fails the check: it would mean
# the model can no longer see the bug it exists to see.
#   scripts/model-check.sh [VARIANT...]     default: every variant
# Environment: MODEL_TRAIL_LINES (default 40) lines of each trail shown;
# MODEL_JOBS (default 2) variants checked at a time;
# MODEL_FILE another copy of the model (to check that the check catches a
# broken one).
# Prints per variant the pan statistics, for a failure the first lines of
# the trail (spin -t -p, shortest trail: breadth-first search), then a line
# "model: NAME PASS|FAIL (states=..., transitions=..., ...)" followed by
# "as expected" or "UNEXPECTED, expected ...", and finally
# "model: N variants as expected, M not".
# Exit 0 only if every variant behaved as expected.
set -u

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
MODEL=${MODEL_FILE:-$TOP/model/dynticks.pml}
TRAIL_LINES=${MODEL_TRAIL_LINES:-40}
JOBS=${MODEL_JOBS:-2}

# name | expected | spin -D flags | what the trail must show (awk regexps,
# in this order, separated by ;)
VARIANTS='
current|FAIL||trcu_idle_enter\(\): local_irq_restore;irq_enter_rcu\(\) probe missed;credit: phase 1
current-enter-closed|FAIL|-DENTER_WINDOW_CLOSED|trcu_idle_exit\(\) pre-handler starts;irq_enter_rcu\(\) probe missed;credit:
fixed|PASS|-DFIXED|
fixed-no-irq-hook|FAIL|-DFIXED -DNO_IRQ_ENTER_HOOK|credit:
fixed-scan-ignores-nmi|FAIL|-DFIXED -DSCAN_IGNORES_NMI|in_nmi = 1;credit:
fixed-exit-tp-irqs-on|FAIL|-DFIXED -DEXIT_TP_IRQS_ON|credit:
fixed-boot-nmi|FAIL|-DFIXED -DBOOT_NMI|credit: phase [12], booting
'

main() {
	local want=" $* " ok=0 bad=0 name expect flags marks names=()

	for tool in spin gcc; do
		command -v $tool >/dev/null ||
			{ echo "model: $tool not installed (make deps)" >&2; exit 1; }
	done
	[ -f "$MODEL" ] || { echo "model: $MODEL missing" >&2; exit 1; }
	TMPD=$(mktemp -d) || exit 1
	trap 'rm -rf "$TMPD"' EXIT

	# MODEL_JOBS variants at a time, each to its own log; the logs are
	# printed in list order once all are done.
	while IFS='|' read -r name expect flags marks; do
		[ -n "$name" ] || continue
		[ "$want" = "  " ] || [[ $want == *" $name "* ]] || continue
		names+=("$name")
		while [ "$(jobs -pr | wc -l)" -ge "$JOBS" ]; do
			wait -n
		done
		( run_variant "$TMPD/$name" "$name" "$expect" "$flags" "$marks"
		  echo $? >"$TMPD/$name.rc" ) >"$TMPD/$name.log" 2>&1 &
	done <<<"$VARIANTS"
	wait
	[ ${#names[@]} -gt 0 ] || { echo "model: no variant named:$want" >&2; exit 1; }
	for name in "${names[@]}"; do
		cat "$TMPD/$name.log"
		if [ "$(cat "$TMPD/$name.rc" 2>/dev/null)" = 0 ]; then
			ok=$((ok + 1))
		else
			bad=$((bad + 1))
		fi
	done
	echo "model: $ok variants as expected, $bad not"
	[ $((ok + bad)) -gt 0 ] && [ $bad -eq 0 ]
}

# run_variant DIR NAME EXPECT FLAGS MARKS: 0 if NAME behaved as EXPECTed.
# build_pan DIR NAME FLAGS: spin and gcc the model copied into DIR.
build_pan() {
	local dir=$1 name=$2 flags=$3

	mkdir -p "$dir" && cp "$MODEL" "$dir/dynticks.pml" || return 1
	# -DNOREDUCE: the partial-order reduction is not sound with the
	# model's "provided" clauses.  -DBFS: the shortest trail.  -O0: pan
	# runs for well under a second, gcc -O2 would take longer than that.
	# shellcheck disable=SC2086
	if ! (cd "$dir" && spin $flags -a dynticks.pml >spin.log 2>&1 &&
	      nice gcc -O0 -DNOREDUCE -DBFS -o pan pan.c >gcc.log 2>&1); then
		cat "$dir/spin.log" "$dir/gcc.log" 2>/dev/null
		echo "model: $name ERROR (spin or gcc failed) UNEXPECTED"
		return 1
	fi
}

# judge_pass OUT: PASS, or why a search without errors proves nothing.
# Like judge_fail: the verdict on stdout, the evidence on stderr.
# A pass counts only if the search was complete and reached every
# statement (each hook step, each credit of the scan).
judge_pass() {
	local out=$1 unreached got=PASS

	if grep -q -e 'Search not completed' -e 'max search depth too small' <<<"$out"; then
		echo "   search incomplete:" >&2
		grep -e 'Search not completed' -e 'max search depth' <<<"$out" >&2
		got=INCOMPLETE
	fi
	unreached=$(awk '/^unreached in/ { p = 1; next }
			 p && /^\t/ && !/"-end-"/ && !/^\t\(/' <<<"$out")
	if [ -n "$unreached" ]; then
		echo "   statements never reached (a vacuous model):" >&2
		echo "$unreached" >&2
		got=VACUOUS
	fi
	echo "$got"
}

# judge_fail DIR FLAGS MARKS: FAIL with a trail (DIR/trail.txt) that
# shows MARKS, or why not.
judge_fail() {
	local dir=$1 flags=$2 marks=$3 got=FAIL

	# shellcheck disable=SC2086
	if ! (cd "$dir" && spin $flags -t -p dynticks.pml >trail.txt 2>&1); then
		echo "   spin -t failed" >&2
		got=NOTRAIL
	fi
	{
		echo "   trail (spin $flags -t -p), first $TRAIL_LINES lines:"
		grep -v '^[[:space:]]*$' "$dir/trail.txt" | head -n "$TRAIL_LINES" |
			sed 's/^/   | /'
	} >&2
	if [ -n "$marks" ] && ! trail_shows "$dir/trail.txt" "$marks"; then
		echo "   the trail does not show, in order: $marks" >&2
		got=WRONGTRAIL
	fi
	echo "$got"
}

run_variant() {
	local dir=$1 name=$2 expect=$3 flags=$4 marks=$5
	local out errors states trans depth mem got stats

	echo "== $name: spin $flags -a; ./pan (expect $expect)"
	build_pan "$dir" "$name" "$flags" || return 1
	out=$(cd "$dir" && nice ./pan -w20 2>&1)
	errors=$(sed -n 's/.*errors: \([0-9]*\).*/\1/p' <<<"$out")
	depth=$(sed -n 's/.*depth reached \([0-9]*\).*/\1/p' <<<"$out")
	states=$(awk '/states, stored$/ { print $1 }' <<<"$out")
	trans=$(awk '/transitions \(= stored\+matched\)/ { print $1 }' <<<"$out")
	mem=$(awk '/total actual memory usage/ { print $1 }' <<<"$out")
	stats="states=${states:-?}, transitions=${trans:-?}, depth=${depth:-?}, memory=${mem:-?}MB"
	echo "   states stored ${states:-?}, transitions ${trans:-?}, depth ${depth:-?}, memory ${mem:-?} MB, errors ${errors:-?}"

	if [ -z "$errors" ]; then
		echo "$out" | tail -20
		echo "model: $name ERROR (no pan verdict) UNEXPECTED"
		return 1
	elif [ "$errors" = 0 ]; then
		got=$(judge_pass "$out")
	else
		got=$(judge_fail "$dir" "$flags" "$marks")
		stats="$stats, trail=$(sed -n 's/.*trail ends after \([0-9]*\) steps.*/\1/p' \
			"$dir/trail.txt") steps"
	fi
	if [ "$got" = "$expect" ]; then
		echo "model: $name $got ($stats) as expected"
		return 0
	fi
	echo "model: $name $got ($stats) UNEXPECTED, expected $expect"
	return 1
}

# trail_shows FILE "re1;re2;...": each regexp matches a line, in order.
trail_shows() {
	awk -v marks="$2" '
		BEGIN { n = split(marks, m, ";"); i = 1 }
		i <= n && $0 ~ m[i] { i++ }
		END { exit !(i > n) }' "$1"
}

main "$@"
