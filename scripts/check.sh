#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check`: host unit tests, checkpatch, sparse, the W=1 module build, every
# scenario in guest/check-list and every mutant in guest/mutants.
#   scripts/check.sh               everything
#   scripts/check.sh --mutants     only the mutants (`make mutants`)
# Environment: CHECK_DURATION (s, default 30) for scenarios without their own;
# CHECK_JOBS (default 2) guests at a time;
# CHECK_DEBUG=0 skips the debug-kernel part (guest/check-list-debug: the
# scenarios again on the lockdep/KASAN/kmemleak kernel, built by
# scripts/debug-kernel.sh if not cached: long, see README "Debug kernel").
# Prints "[i/N] item ... PASS|FAIL (...)", a summary table (also in
# results/<timestamp>/summary.txt) and finally "N passed, N failed".
set -u

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$TOP" || exit 1
# Everything runs inside main(), called on the file's last line, so bash has
# read the whole file before it starts: editing this script while a run is in
# progress cannot break that run.
main() {
CHECK_DURATION=${CHECK_DURATION:-30}
ONLY_MUTANTS=0
[ "${1:-}" = --mutants ] && ONLY_MUTANTS=1

"$TOP/scripts/deps.sh" || { echo "check: make deps failed" >&2; exit 1; }

R=$TOP/results/$(date +%Y%m%d-%H%M%S)
mkdir -p "$R/logs" || exit 1
ROWS=$R/summary.rows
: >"$ROWS"

# Lines of a list file without comments and blank lines.
list() {
	[ -f "$1" ] || return 0
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^[[:space:]]*$/d' "$1"
}

UNIT=()
if [ "$ONLY_MUTANTS" -eq 0 ]; then
	UNIT+=(verdict)
	[ -f tests/geometry/Makefile ] && UNIT+=(geometry)
	mapfile -t SCENS < <(list guest/check-list)
else
	SCENS=()
fi
DSCENS=()
if [ "$ONLY_MUTANTS" -eq 0 ] && [ "${CHECK_DEBUG:-1}" != 0 ]; then
	mapfile -t DSCENS < <(list guest/check-list-debug)
fi
mapfile -t MUTS < <(list guest/mutants)
total=$(( ${#UNIT[@]} + ${#SCENS[@]} + ${#MUTS[@]} + ${#DSCENS[@]} ))
[ "${#DSCENS[@]}" -gt 0 ] && total=$((total + 1))   # debug kernel + modules
[ "$ONLY_MUTANTS" -eq 0 ] && total=$((total + 3))   # checkpatch, sparse, W=1 build

n=0
pass=0
fail=0
started=$SECONDS

# The debug kernel, if not cached, builds in the background (nice, -j2) while
# the host tests and the stock scenarios run: a guest keeps one core busy,
# and the build would otherwise add its whole time to the check's.
DBG_PID=
DBG_CACHED=
if [ "${#DSCENS[@]}" -gt 0 ]; then
	DBG_CACHED=$("$TOP/scripts/debug-kernel.sh" --dir 2>/dev/null)
	if [ -z "$DBG_CACHED" ]; then
		echo "check: building the debug kernel in the background (log: $R/logs/debug-kernel-build.log)"
		"$TOP/scripts/debug-kernel.sh" >"$R/logs/debug-kernel-build.log" 2>&1 &
		DBG_PID=$!
	fi
fi

# result NAME PASS|FAIL DETAIL [gps secs rate wall]: count, print, record.
result() {
	local name=$1 verdict=$2 detail=$3
	if [ "$verdict" = PASS ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
	echo "[$n/$total] $name ... $verdict${detail:+ ($detail)}"
	printf '%s\t%s\t%s\t%s\t%s\t%s\t-\t%s\n' "$name" "$verdict" "${4:--}" "${5:--}" "${6:--}" \
		"${7:--}" "$( [ "$verdict" = PASS ] && echo - || echo "$detail")" >>"$ROWS"
}

# --- host unit tests -----------------------------------------------------
for u in "${UNIT[@]}"; do
	n=$((n + 1))
	log=$R/logs/unit-$u.log
	case "$u" in
	verdict) cmd=(python3 tests/verdict/run-tests.py) ;;
	geometry) cmd=(make -C tests/geometry check) ;;
	esac
	if "${cmd[@]}" >"$log" 2>&1; then
		result "unit:$u" PASS "$(grep -v '^make' "$log" | tail -n 1)"
	else
		grep -E '^FAIL|[Ee]rror|FAIL' "$log" | head -n 5
		result "unit:$u" FAIL "see $log"
	fi
done

# --- checkpatch ----------------------------------------------------------
if [ "$ONLY_MUTANTS" -eq 0 ]; then
	n=$((n + 1))
	log=$R/logs/checkpatch.log
	if "$TOP/scripts/checkpatch.sh" >"$log" 2>&1; then
		result checkpatch PASS "$(grep -c . "$log") lines, 0 errors"
	else
		grep -E 'ERROR' "$log" | head -n 10
		result checkpatch FAIL "$(grep -c 'ERROR' "$log") ERROR lines, see $log"
	fi

	# --- sparse (make C=2: every source, built or not) --------------------
	n=$((n + 1))
	log=$R/logs/sparse.log
	make -C "$TOP" C=2 >"$log" 2>&1
	brc=$?
	warns=$(grep -ciE 'warning:|error:' "$log")
	if [ "$brc" -eq 0 ] && [ "$warns" -eq 0 ]; then
		result sparse PASS "$(grep -c ' CHECK ' "$log") files, no warnings"
	else
		grep -iE 'warning:|error:' "$log" | head -n 10
		result sparse FAIL "exit $brc, $warns warnings, see $log"
	fi

	# --- W=1 build (its modules are the ones the scenarios run) ----------
	n=$((n + 1))
	log=$R/logs/build-W1.log
	make -C "$TOP" W=1 >"$log" 2>&1
	brc=$?
	warns=$(grep -ci 'warning:' "$log")
	if [ "$brc" -eq 0 ] && [ "$warns" -eq 0 ]; then
		result "build W=1" PASS "no warnings"
	else
		grep -iE 'warning:|error' "$log" | head -n 10
		result "build W=1" FAIL "exit $brc, $warns warnings, see $log"
	fi
	# The scenarios run a snapshot of these modules, so that a rebuild in the
	# tree during the check cannot change them half-way.
	mkdir -p "$R/modules"
	cp module/trcu.ko torture/*.ko "$R/modules/" 2>/dev/null
fi

# row_of FILE: the RESULT fields of a verdict.txt, one per line.
verdict_fields() {
	grep '^RESULT' "$1" 2>/dev/null | head -n 1 | cut -f 3-
}

# --- guest runs, CHECK_JOBS at a time -------------------------------------
# Each guest is single-threaded TCG, i.e. one host core: with CHECK_JOBS=2
# (default) two run side by side on a 2-core machine, which halves the
# check's wall time.  Results are still printed in list order, each as soon
# as it and every item before it have finished.  An item writes its result
# fields to $R/items/<n> (see result()).
CHECK_JOBS=${CHECK_JOBS:-2}
mkdir -p "$R/items"

# item_scenario FILE LINE [debug]: one scenario run.
item_scenario() {
	local out=$1 line=$2 kind=${3:-} scn dur rest dir name mods
	read -r scn dur rest <<<"$line"
	dur=${dur:-$CHECK_DURATION}
	local -a extra=()
	# `@bench-smoke`: make bench's whole pipeline once, tiny counts;
	# fails only on errors, never on slowness.
	if [ "$scn" = @bench-smoke ]; then
		if "$TOP/scripts/bench.sh" --smoke --results "$R/bench" >"$R/logs/bench-smoke.log" 2>&1 &&
			[ -s "$R/bench/bench.txt" ] && [ -s "$R/bench/bench.png" ]; then
			printf 'bench-smoke\tPASS\t%s\n' \
				"$(grep -c . "$R/bench/bench.csv") csv rows, bench.txt and bench.png written" >"$out"
		else
			printf 'bench-smoke\tFAIL\tsee %s\n' "$R/logs/bench-smoke.log" >"$out"
		fi
		return
	fi
	name=$scn
	mods=$R/modules
	dir=$R/s/$scn
	if [ "$kind" = debug ]; then
		name="debug:$scn"
		mods=$R/debug-modules
		dir=$R/debug/$scn
		extra=(--kernel debug)
	fi
	./run-qemu.sh --no-deps --quiet "${extra[@]}" --scenario "$scn" --duration "$dur" \
		--modules-dir "$mods" --results "$dir" >"$R/logs/${name//:/-}.log" 2>&1
	IFS=$'\t' read -r v gps secs rate wall _misses reason < <(verdict_fields "$dir/$scn/verdict.txt")
	if [ "${v:-}" = PASS ]; then
		note=
		[ "${reason:--}" != - ] && note=", $reason"   # a PASS's note, e.g. hotplug ops
		printf '%s\tPASS\t%s\t%s\t%s\t%s\t%s\n' "$name" \
			"${gps:--} gps, ${secs%.*} s, wall ${wall}s$note" "$gps" "$secs" "$rate" "$wall" >"$out"
	else
		printf '%s\tFAIL\t%s\t%s\t%s\t%s\t%s\n' "$name" \
			"${reason:-no verdict, see $R/logs/${name//:/-}.log}" "${gps:--}" "${secs:--}" \
			"${rate:--}" "${wall:--}" >"$out"
	fi
}

# item_mutant FILE LINE: build a mutant, run its scenario; PASS if caught.
item_mutant() {
	local out=$1 line=$2 mut scn dur rest name dir
	read -r mut scn dur rest <<<"$line"
	dur=${dur:-$CHECK_DURATION}
	name="mutant:$mut/$scn"
	dir=$R/mutant-$mut
	if ! make -C "$TOP" MUTANT="$mut" >"$R/logs/mutant-$mut.build.log" 2>&1; then
		printf '%s\tFAIL\tmutant build failed, see %s\n' "$name" \
			"$R/logs/mutant-$mut.build.log" >"$out"
		return
	fi
	./run-qemu.sh --no-deps --quiet --scenario "$scn" --duration "$dur" \
		--modules-dir "$TOP/build/mutant-$mut" --results "$dir" \
		>"$R/logs/mutant-$mut.log" 2>&1
	IFS=$'\t' read -r v gps secs rate wall _misses reason < <(verdict_fields "$dir/$scn/verdict.txt")
	case "${v:-}:${reason:-}" in
	FAIL:*"never reached /init"*|FAIL:harness*|:*)
		printf '%s\tFAIL\tinconclusive: %s\n' "$name" "${reason:-no verdict}" >"$out" ;;
	FAIL:*)
		printf '%s\tPASS\tcaught: %s\t%s\t%s\t%s\t%s\n' "$name" "$reason" \
			"${gps:--}" "${secs:--}" "${rate:--}" "${wall:--}" >"$out" ;;
	*)
		printf '%s\tFAIL\tnot caught: scenario passed\t%s\t%s\t%s\t%s\n' "$name" \
			"${gps:--}" "${secs:--}" "${rate:--}" "${wall:--}" >"$out" ;;
	esac
}

# run_items KIND LINE...: run the items CHECK_JOBS at a time, report in order.
run_items() {
	local kind=$1 i=0 next=0 first=$((n + 1)) count running f
	shift
	local -a lines=("$@") pids=()
	count=${#lines[@]}
	while [ "$next" -lt "$count" ]; do
		# Launch while lanes are free.
		while [ "$i" -lt "$count" ] && [ "${#pids[@]}" -lt "$CHECK_JOBS" ]; do
			f=$R/items/$kind-$((first + i))
			rm -f "$f"
			case "$kind" in
			scenario) item_scenario "$f" "${lines[$i]}" & ;;
			debug) item_scenario "$f" "${lines[$i]}" debug & ;;
			mutant) item_mutant "$f" "${lines[$i]}" & ;;
			esac
			pids+=($!)
			i=$((i + 1))
		done
		[ "${#pids[@]}" -gt 0 ] && wait -n "${pids[@]}" 2>/dev/null
		running=()
		for p in "${pids[@]}"; do
			kill -0 "$p" 2>/dev/null && running+=("$p")
		done
		pids=("${running[@]}")
		# Report every finished item at the head of the list.
		while [ "$next" -lt "$count" ]; do
			f=$R/items/$kind-$((first + next))
			[ -s "$f" ] || break
			n=$((n + 1))
			IFS=$'\t' read -r name v detail gps secs rate wall <"$f"
			result "$name" "$v" "$detail" "${gps:--}" "${secs:--}" "${rate:--}" "${wall:--}"
			next=$((next + 1))
		done
		# A lane that died without a result file: record it and move on.
		if [ "${#pids[@]}" -eq 0 ] && [ "$i" -ge "$count" ] && [ "$next" -lt "$count" ]; then
			f=$R/items/$kind-$((first + next))
			[ -s "$f" ] || printf '%s\tFAIL\tharness: no result\n' "${lines[$next]%% *}" >"$f"
		fi
	done
}

[ "${#SCENS[@]}" -gt 0 ] && run_items scenario "${SCENS[@]}"
[ "${#MUTS[@]}" -gt 0 ] && run_items mutant "${MUTS[@]}"

# --- debug kernel: guest/check-list-debug on the lockdep/KASAN kernel ----
# Last, so that its background build overlaps as much stock work as possible.
# Any lockdep, might_sleep, KASAN or kmemleak report fails the scenario
# (scripts/verdict.py's BAD_PATTERNS).
if [ "${#DSCENS[@]}" -gt 0 ]; then
	n=$((n + 1))
	log=$R/logs/debug-kernel.log
	t0=$SECONDS
	dok=0
	# Waiting here is the part of the background build the check did not hide.
	[ -n "$DBG_PID" ] && wait "$DBG_PID"
	waited=$((SECONDS - t0))
	if make -C "$TOP" debug-modules >"$log" 2>&1; then
		dout=$("$TOP/scripts/debug-kernel.sh" --dir)
		mkdir -p "$R/debug-modules"
		cp build/debug/module/trcu.ko build/debug/torture/*.ko "$R/debug-modules/" && dok=1
	fi
	if [ "$dok" -eq 1 ]; then
		if [ -n "$DBG_CACHED" ]; then
			how="cached kernel, modules $((SECONDS - t0)) s"
		else
			how="kernel built in $(cat "$dout/build-seconds") s (waited ${waited} s), modules $((SECONDS - t0 - waited)) s"
		fi
		result "debug kernel" PASS "$how"
	else
		cat "$R/logs/debug-kernel-build.log" >>"$log" 2>/dev/null
		grep -E 'error|Error|debug-kernel:' "$log" | head -n 10
		result "debug kernel" FAIL "build failed, see $log"
	fi
	if [ "$dok" -eq 1 ]; then
		run_items debug "${DSCENS[@]}"
	else
		for line in "${DSCENS[@]}"; do
			n=$((n + 1))
			result "debug:${line%% *}" FAIL "no debug kernel"
		done
	fi
fi

{
	python3 "$TOP/scripts/verdict.py" --summary "$ROWS"
	echo
	echo "wall time $((SECONDS - started)) s; results in $R"
	echo "$pass passed, $fail failed"
} >"$R/summary.txt"
echo
cat "$R/summary.txt"
[ "$fail" -eq 0 ]
}

# One line: bash has read it completely before main runs.
main "$@"; exit "$?"
