#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Judge a results directory again, offline, with the verdict code of a run
# (scripts/verdict.py --dir): each run directory's scenario.env holds what
# the verdict needs (EXPECT_STALL, SCRIPT, TRCU_ARGS, EXPECT_FAIL, KILLED,
# WALL, ...), so no guest boots.
#
#   scripts/recheck.sh RESULTS_DIR     a run-qemu.sh results directory, or
#                                      one scenario's directory in it
#
# Prints what run-qemu.sh printed at the end of the run: one VERDICT line per
# scenario, the summary table and "N passed, N failed".  Nothing is written.
# A failed torture run's VERDICT line ends with its seed (scenario.env's
# SEED) and the command that replays its random choices:
#   ./run-qemu.sh --scenario NAME --torture-args seed=N
# Exit status: 0 if every scenario passed, 1 otherwise (2: usage error).
set -u

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# run_dirs R: the run directories of R, in the order of the run (its `jobs`
# file, written by run-qemu.sh), else in name order.
run_dirs() {
	local r=$1 d
	if [ -f "$r/scenario.env" ]; then
		echo "$r"
	elif [ -f "$r/jobs" ]; then
		while IFS= read -r d; do
			echo "$r/$d"
		done <"$r/jobs"
	else
		for d in "$r"/*/; do
			[ -f "$d/scenario.env" ] && echo "${d%/}"
		done
	fi
}

main() {
	if [ "$#" -ne 1 ] || [ ! -d "$1" ]; then
		echo "usage: scripts/recheck.sh RESULTS_DIR" >&2
		return 2
	fi
	local rows out d pass=0 fail=0
	rows=$(mktemp) && out=$(mktemp) || return 2
	# shellcheck disable=SC2064  # expand now: the names are local
	trap "rm -f '$rows' '$out'" EXIT
	while IFS= read -r d; do
		if python3 "$TOP/scripts/verdict.py" --dir "$d" >"$out"; then
			pass=$((pass + 1))
		else
			fail=$((fail + 1))
		fi
		grep '^VERDICT' "$out"
		python3 "$TOP/scripts/verdict.py" --row <"$out" >>"$rows"
	done < <(run_dirs "$1")
	if [ $((pass + fail)) -eq 0 ]; then
		echo "recheck: no scenario.env under $1" >&2
		return 2
	fi
	echo
	python3 "$TOP/scripts/verdict.py" --summary "$rows"
	echo "$pass passed, $fail failed"
	[ "$fail" -eq 0 ]
}

main "$@"; exit "$?"
