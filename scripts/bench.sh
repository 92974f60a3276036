#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: boot the bench configurations, one guest per vCPU count,
# each measuring trcu against rcu/rcu_bh/srcu in that same boot
# (guest/tests/bench.sh, torture/trcuscale.ko), then write
#   results/<timestamp>/bench.txt   table: each performance target, as a ratio
#   results/<timestamp>/bench.csv   every number
#   results/<timestamp>/bench.png   gnuplot: latency vs vCPUs, per flavour
#   results/<timestamp>/bench.env   date, host load average, scenarios
#
#   scripts/bench.sh                 BENCH-8, -16, -32, -64, -128, then
#                                    BENCH-ICOUNT twice (instruction-counted:
#                                    hook tax and read costs; two boots, so
#                                    that the report can say they agree)
#   scripts/bench.sh --icount        only the two BENCH-ICOUNT boots
#   scripts/bench.sh --smoke         BENCH-SMOKE only (BENCH_SMOKE=1 too):
#                                    tiny counts, fails only on errors
#   scripts/bench.sh --scenarios BENCH-8,BENCH-32 [--results DIR]
#
# Exit status: 0 unless the build, a guest (a failed load, a missing
# result line, a crash) or the report failed.  Missed targets are
# reported in bench.txt, never an error.
set -u

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

main() {
local smoke=${BENCH_SMOKE:-0} scen='' results='' icount=1
while [ "$#" -gt 0 ]; do
	case "$1" in
	--smoke) smoke=1; icount=0; shift ;;
	--icount) scen=-; shift ;;
	--scenarios) scen=$2; icount=0; shift 2 ;;
	--results) results=$2; shift 2 ;;
	-h|--help) sed -n '3,23p' "$0" | sed 's/^# \{0,1\}//'; return 0 ;;
	*) echo "bench: unknown option $1" >&2; return 2 ;;
	esac
done
[ "$smoke" = 1 ] && icount=0
if [ -z "$scen" ]; then
	if [ "$smoke" = 1 ]; then
		scen=BENCH-SMOKE
	else
		scen=BENCH-8,BENCH-16,BENCH-32,BENCH-64,BENCH-128
	fi
fi
[ -n "$results" ] || results=$TOP/results/$(date +%Y%m%d-%H%M%S)
mkdir -p "$results" "$TOP/build" || return 1

echo "bench: building modules (log: build/build.log)"
if ! make -C "$TOP" >"$TOP/build/build.log" 2>&1; then
	grep -E 'error|Error' "$TOP/build/build.log" | head -n 20 >&2
	echo "bench: build failed" >&2
	return 1
fi
local start=$SECONDS rc=0
# The conditions of the run, for the report's first line: when it
# started, how loaded the host already was (other guests share the
# cores, and TCG timings are wall-clock) and what was asked for.
{
	echo "date $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "loadavg $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "nproc $(nproc)"
	echo "scenarios $scen$([ "$icount" = 1 ] && echo ,BENCH-ICOUNT-1,BENCH-ICOUNT-2)"
} >"$results/bench.env"
# run-qemu.sh schedules the guests, one at a time as always (--jobs 1), so
# that no second guest of ours competes for the host cores during a
# measurement.  Its summary.rows (the harness's one row format) gives
# bench-report.py the wall time of each boot.
# The instruction-counted boots come last, twice: LABEL SCENARIO lines.
local jobs=$results/bench.jobs
tr , '\n' <<<"$scen" | grep -vx -- - | awk '{ print $1, $1 }' >"$jobs"
[ "$icount" = 1 ] && printf 'BENCH-ICOUNT-%s BENCH-ICOUNT\n' 1 2 >>"$jobs"
"$TOP/run-qemu.sh" --jobs-file "$jobs" --no-deps --no-build --quiet --jobs 1 \
	--results "$results" || rc=1
echo "bench: guests done in $((SECONDS - start)) s wall"
python3 "$TOP/scripts/bench-report.py" "$results" || rc=1
echo "bench: $results/bench.txt, bench.csv, bench.png"
return "$rc"
}

main "$@"; exit "$?"
