#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check`: host unit tests, checkpatch, sparse, the W=1 module build, every
# scenario in guest/check-list and every mutant in guest/mutants.
#   scripts/check.sh               everything
#   scripts/check.sh --mutants     only the mutants (`make mutants`)
# Environment: CHECK_DURATION (s, default 30) for scenarios without their own;
# CHECK_JOBS (default 2) guests at a time (run-qemu.sh --jobs);
# CHECK_DEBUG=0 skips the debug-kernel part (guest/check-list-debug: the
# scenarios again on the lockdep/KASAN/kmemleak kernel, built by
# scripts/debug-kernel.sh if not cached: long, see README "Debug kernel").
# A subset: CHECK_LIST, CHECK_MUTANTS and CHECK_DEBUG_LIST name other list
# files (/dev/null: none); CHECK_SKIP="sparse checkpatch build-W=1" skips
# host checks by name (a space in a name is a `-` here).
# Prints "[i/N] item ... PASS|FAIL (...)", a summary table (also in
# results/<timestamp>/summary.txt) and finally "N passed, N failed".
set -u

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$TOP" || exit 1

# Host checks, one per line: `name|command [args]`.  The command's exit
# status is the verdict, its last output line the detail; all its output
# goes to logs/<name>.log.  Adding a host check is adding a line here.
host_checks() {
	echo "unit:verdict|python3 tests/verdict/run-tests.py"
	[ -f tests/geometry/Makefile ] && echo "unit:geometry|make -C tests/geometry check"
	echo "model|scripts/model-check.sh"
	echo "mutant patches|scripts/mutants-check.sh"
	echo "rst|scripts/rst-check.sh"
	echo "checkpatch|check_checkpatch"
	echo "sparse|check_sparse"
	echo "build W=1|check_build_w1"
	echo "objgraph|scripts/objgraph-check.sh"
	echo "objgraph torture|scripts/objgraph-check.sh torture trcutorture"
	echo "sim|scripts/sim-check.sh"
}

# shellcheck disable=SC2317  # host checks are called through host_checks
check_checkpatch() {
	local out rc
	out=$("$TOP/scripts/checkpatch.sh" 2>&1)
	rc=$?
	printf '%s\n' "$out"
	if [ "$rc" -eq 0 ]; then
		echo "$(grep -c . <<<"$out") lines, 0 errors"
	else
		echo "$(grep -c 'ERROR' <<<"$out") ERROR lines"
	fi
	return "$rc"
}

# make C=2: every source through sparse, built or not.  A warning fails.
# shellcheck disable=SC2317
check_sparse() {
	local out rc warns
	out=$(make -C "$TOP" C=2 2>&1)
	rc=$?
	warns=$(grep -ciE 'warning:|error:' <<<"$out")
	printf '%s\n' "$out"
	if [ "$rc" -eq 0 ] && [ "$warns" -eq 0 ]; then
		echo "$(grep -c ' CHECK ' <<<"$out") files, no warnings"
		return 0
	fi
	echo "exit $rc, $warns warnings"
	return 1
}

# The W=1 build; its modules are the ones the scenarios run.  A warning fails.
# shellcheck disable=SC2317
check_build_w1() {
	local out rc warns
	out=$(make -C "$TOP" W=1 2>&1)
	rc=$?
	warns=$(grep -ci 'warning:' <<<"$out")
	printf '%s\n' "$out"
	if [ "$rc" -eq 0 ] && [ "$warns" -eq 0 ]; then
		echo "no warnings"
		return 0
	fi
	echo "exit $rc, $warns warnings"
	return 1
}

# Lines of a list file without comments and blank lines.
list() {
	[ -f "$1" ] || return 0
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^[[:space:]]*$/d' "$1"
}

# result ROW [SHOWN]: count, print "[n/total] name ... VERDICT (SHOWN)" (the
# row's detail by default) and record the row in the check's summary.
result() {
	local name v detail shown
	IFS=$'\t' read -r name v _ _ _ _ _ detail <<<"$1"
	shown=${2-$detail}
	[ "$shown" = - ] && shown=
	n=$((n + 1))
	if [ "$v" = PASS ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
	echo "[$n/$total] $name ... $v${shown:+ ($shown)}"
	printf '%s\n' "$1" >>"$ROWS"
}

# row NAME PASS|FAIL DETAIL: a result row for an item that is not a guest.
row() {
	python3 "$TOP/scripts/verdict.py" --make-row "$1" "$2" "$3"
}

# run_host_check NAME COMMAND...: one host check, see host_checks.
run_host_check() {
	local name=$1 log=$R/logs/${1//[ :\/=]/-}.log
	shift
	if "$@" >"$log" 2>&1; then
		result "$(row "$name" PASS "$(grep -v '^make' "$log" | tail -n 1)")"
	else
		grep -iE '^FAIL|error|warning:' "$log" | head -n 10
		result "$(row "$name" FAIL "$(tail -n 1 "$log"), see $log")"
	fi
}

# shown_of ROW: what "[i/N]" shows of a guest row (a scenario's PASS gets
# its numbers; anything else its detail).
shown_of() {
	local name v gps secs _rate wall _misses detail
	IFS=$'\t' read -r name v gps secs _rate wall _misses detail <<<"$1"
	case "$v:$detail" in
	PASS:caught*|FAIL:*) echo "$detail" ;;
	PASS:-) echo "$gps gps, ${secs%.*} s, wall ${wall}s" ;;
	*) echo "$gps gps, ${secs%.*} s, wall ${wall}s, $detail" ;;
	esac
}

# flush_rows: print the finished rows at the head of EXPECT, from index K.
flush_rows() {
	while [ "$K" -lt "${#EXPECT[@]}" ] && [[ "${EXPECT[$K]}" == *$'\t'* ]]; do
		result "${EXPECT[$K]}"
		K=$((K + 1))
	done
}

# guest_batch LOG RUN-QEMU-OPTION...: hand the guests to run-qemu.sh (the
# one scheduler: CHECK_JOBS at a time, early kill of failed tortures) and
# print each result as it reports it, in list order.  EXPECT holds the
# batch's items in list order: a job's label, or the finished row of an item
# that needs no guest (a mutant that did not build), printed in its place.
# A job run-qemu.sh never reported fails.
guest_batch() {
	local log=$1 line
	shift
	K=0
	if [ -s "$JOBS_FILE" ]; then
		while IFS= read -r line; do
			case "$line" in
			RESULT$'\t'*)
				flush_rows
				line=${line#RESULT$'\t'}
				result "$line" "$(shown_of "$line")"
				K=$((K + 1)) ;;
			esac
		done < <(./run-qemu.sh --no-deps --no-build --quiet --jobs "$CHECK_JOBS" \
			--jobs-file "$JOBS_FILE" "$@" 2>&1 | tee "$log")
	fi
	flush_rows
	while [ "$K" -lt "${#EXPECT[@]}" ]; do
		result "$(row "${EXPECT[$K]}" FAIL "harness: no result, see $log")"
		K=$((K + 1))
		flush_rows
	done
}

# stock_jobs: guest/check-list as run-qemu.sh jobs (into JOBS_FILE, EXPECT).
stock_jobs() {
	local line scn dur rest
	for line in "${SCENS[@]}"; do
		read -r scn dur rest <<<"$line"
		[ "$scn" = @bench-smoke ] && continue
		echo "$scn $scn duration=${dur:-$CHECK_DURATION} modules=$R/modules"
		EXPECT+=("$scn")
	done >"$JOBS_FILE"
}

# build_mutants: make MUTANT=name for each mutant, one after the other, each
# exit status in logs/mutant-<name>.build.rc.  Runs in the background while
# the stock guests run, as the mutant builds did in the old lanes.
build_mutants() {
	local line mut rest
	for line in "${MUTS[@]}"; do
		read -r mut rest <<<"$line"
		nice make -C "$TOP" MUTANT="$mut" >"$R/logs/mutant-$mut.build.log" 2>&1
		echo "$?" >"$R/logs/mutant-$mut.build.rc"
	done
}

# mutant_jobs: once the mutants are built, guest/mutants as expect-fail jobs
# (into JOBS_FILE, EXPECT); a mutant that did not build gets its FAIL row.
mutant_jobs() {
	local line mut scn dur rest blog
	[ -n "$MUT_PID" ] && wait "$MUT_PID"
	: >"$JOBS_FILE"
	for line in "${MUTS[@]}"; do
		read -r mut scn dur rest <<<"$line"
		blog=$R/logs/mutant-$mut.build.log
		if [ "$(cat "$R/logs/mutant-$mut.build.rc" 2>/dev/null)" = 0 ]; then
			echo "mutant:$mut/$scn $scn duration=${dur:-$CHECK_DURATION} modules=$TOP/build/mutant-$mut expect-fail" >>"$JOBS_FILE"
			EXPECT+=("mutant:$mut/$scn")
		else
			EXPECT+=("$(row "mutant:$mut/$scn" FAIL "mutant build failed, see $blog")")
		fi
	done
}

# `@bench-smoke`: make bench's whole pipeline once, tiny counts; fails only
# on errors, never on slowness.
bench_smoke() {
	if "$TOP/scripts/bench.sh" --smoke --results "$R/bench" >"$R/logs/bench-smoke.log" 2>&1 &&
		[ -s "$R/bench/bench.txt" ] && [ -s "$R/bench/bench.png" ]; then
		result "$(row bench-smoke PASS \
			"$(grep -c . "$R/bench/bench.csv") csv rows, bench.txt and bench.png written")"
	else
		result "$(row bench-smoke FAIL "see $R/logs/bench-smoke.log")"
	fi
}

# debug_modules: wait for the background kernel build, build the modules for
# it, snapshot them.  Returns 1 if either failed.
debug_modules() {
	local log=$R/logs/debug-kernel.log t0=$SECONDS waited how dout
	# Waiting here is the part of the background build the check did not hide.
	[ -n "$DBG_PID" ] && wait "$DBG_PID"
	waited=$((SECONDS - t0))
	if make -C "$TOP" debug-modules >"$log" 2>&1 &&
		dout=$("$TOP/scripts/debug-kernel.sh" --dir) && mkdir -p "$R/debug-modules" &&
		cp build/debug/module/trcu.ko build/debug/torture/*.ko "$R/debug-modules/"; then
		if [ -n "$DBG_CACHED" ]; then
			how="cached kernel, modules $((SECONDS - t0)) s"
		else
			how="kernel built in $(cat "$dout/build-seconds") s (waited ${waited} s), modules $((SECONDS - t0 - waited)) s"
		fi
		result "$(row "debug kernel" PASS "$how")"
		return 0
	fi
	cat "$R/logs/debug-kernel-build.log" >>"$log" 2>/dev/null
	grep -E 'error|Error|debug-kernel:' "$log" | head -n 10
	result "$(row "debug kernel" FAIL "build failed, see $log")"
	return 1
}

# --- debug kernel: guest/check-list-debug on the lockdep/KASAN kernel ----
# Last, so that its background build overlaps as much stock work as possible.
# Any lockdep, might_sleep, KASAN or kmemleak report fails the scenario
# (scripts/verdict.py's BAD_PATTERNS).
debug_phase() {
	local line scn dur rest
	EXPECT=()
	for line in "${DSCENS[@]}"; do
		read -r scn dur rest <<<"$line"
		echo "debug:$scn $scn duration=${dur:-$CHECK_DURATION}"
		EXPECT+=("debug:$scn")
	done >"$JOBS_FILE"
	if debug_modules; then
		guest_batch "$R/logs/debug-guests.log" --kernel debug --modules-dir "$R/debug-modules" \
			--results "$R/debug"
	else
		for scn in "${EXPECT[@]}"; do
			result "$(row "$scn" FAIL "no debug kernel")"
		done
	fi
}

# The debug kernel, if not cached, builds in the background (nice, -j2) while
# the host tests and the stock scenarios run: a guest keeps one core busy,
# and the build would otherwise add its whole time to the check's.
start_debug_build() {
	DBG_PID='' DBG_CACHED=''
	[ "${#DSCENS[@]}" -gt 0 ] || return 0
	DBG_CACHED=$("$TOP/scripts/debug-kernel.sh" --dir 2>/dev/null)
	[ -z "$DBG_CACHED" ] || return 0
	echo "check: building the debug kernel in the background (log: $R/logs/debug-kernel-build.log)"
	"$TOP/scripts/debug-kernel.sh" >"$R/logs/debug-kernel-build.log" 2>&1 &
	DBG_PID=$!
}

# read_lists [--mutants]: HOSTS, SCENS, MUTS, DSCENS and the item count.
read_lists() {
	HOSTS=() SCENS=() DSCENS=()
	if [ "${1:-}" != --mutants ]; then
		local skip=" ${CHECK_SKIP:-} " h key
		while IFS= read -r h; do
			key=${h%%|*}
			[[ "$skip" == *" ${key// /-} "* ]] || HOSTS+=("$h")
		done < <(host_checks)
		mapfile -t SCENS < <(list "${CHECK_LIST:-guest/check-list}")
		[ "${CHECK_DEBUG:-1}" != 0 ] &&
			mapfile -t DSCENS < <(list "${CHECK_DEBUG_LIST:-guest/check-list-debug}")
	fi
	mapfile -t MUTS < <(list "${CHECK_MUTANTS:-guest/mutants}")
	total=$(( ${#HOSTS[@]} + ${#SCENS[@]} + ${#MUTS[@]} + ${#DSCENS[@]} ))
	[ "${#DSCENS[@]}" -gt 0 ] && total=$((total + 1))   # debug kernel + modules
	return 0
}

# Everything runs inside main(), called on the file's last line, so bash has
# read the whole file before it starts: editing this script while a run is in
# progress cannot break that run.
main() {
	CHECK_DURATION=${CHECK_DURATION:-30} CHECK_JOBS=${CHECK_JOBS:-2}
	"$TOP/scripts/deps.sh" || { echo "check: make deps failed" >&2; exit 1; }
	R=$TOP/results/$(date +%Y%m%d-%H%M%S)
	mkdir -p "$R/logs" || exit 1
	ROWS=$R/summary.rows JOBS_FILE=$R/jobs.txt n=0 pass=0 fail=0 started=$SECONDS
	: >"$ROWS"
	read_lists "$@"
	start_debug_build
	local h line
	for h in "${HOSTS[@]}"; do
		# shellcheck disable=SC2086  # the command's words
		run_host_check "${h%%|*}" ${h#*|}
	done
	# The scenarios run a snapshot of the modules, so that a rebuild in the
	# tree during the check cannot change them half-way.
	mkdir -p "$R/modules"
	cp module/trcu.ko torture/*.ko examples/*.ko "$R/modules/" 2>/dev/null
	MUT_PID=
	if [ "${#MUTS[@]}" -gt 0 ]; then
		build_mutants &
		MUT_PID=$!
	fi
	EXPECT=()
	stock_jobs
	[ "${#EXPECT[@]}" -gt 0 ] && guest_batch "$R/logs/guests.log" --results "$R/s"
	for line in "${SCENS[@]}"; do
		[ "${line%% *}" = @bench-smoke ] && bench_smoke
	done
	EXPECT=()
	mutant_jobs
	[ "${#EXPECT[@]}" -gt 0 ] && guest_batch "$R/logs/mutants.log" --results "$R/mutants"
	[ "${#DSCENS[@]}" -gt 0 ] && debug_phase
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
