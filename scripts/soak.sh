#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make soak`: every torture scenario (no SCRIPT= ones: their scripts do not
# use the duration) for SOAK_DURATION seconds (1800, the kernel rcutorture's
# default), SOAK_JOBS guests at a time (2: one per host core under
# single-threaded TCG).  SOAK_SCENARIOS=A,B,... picks scenarios instead.
# Each guest gets its own results directory under results/soak-<timestamp>/;
# the summary table and "N passed, N failed" come at the end.
set -u

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$TOP" || exit 1
main() {
local dur=${SOAK_DURATION:-1800} jobs=${SOAK_JOBS:-2} list=${SOAK_SCENARIOS:-}
local R scen=() s f pids=() p running pass fail v

case "$dur$jobs" in *[!0-9]*|'') echo "soak: SOAK_DURATION and SOAK_JOBS must be numbers" >&2; exit 1;; esac
if [ -n "$list" ]; then
	IFS=, read -r -a scen <<<"$list"
else
	for f in guest/scenarios/*; do
		grep -q '^SCRIPT=' "$f" || scen+=("$(basename "$f")")
	done
fi
"$TOP/scripts/deps.sh" || exit 1
make -C "$TOP" >/dev/null || { echo "soak: build failed" >&2; exit 1; }
R=$TOP/results/soak-$(date +%Y%m%d-%H%M%S)
mkdir -p "$R" || exit 1
echo "soak: ${#scen[@]} scenarios x ${dur} s, $jobs at a time, results in $R"
for s in "${scen[@]}"; do
	while [ "${#pids[@]}" -ge "$jobs" ]; do
		wait -n "${pids[@]}" 2>/dev/null
		running=()
		for p in "${pids[@]}"; do
			kill -0 "$p" 2>/dev/null && running+=("$p")
		done
		pids=("${running[@]}")
	done
	echo "soak: $(date +%H:%M) start $s"
	./run-qemu.sh --no-deps --no-build --quiet --scenario "$s" --duration "$dur" \
		--results "$R/$s.run" >"$R/$s.log" 2>&1 &
	pids+=($!)
done
wait
printf '%-16s %-7s %s\n' scenario verdict "verdict line"
for s in "${scen[@]}"; do
	v=$(head -n 1 "$R/$s.run/$s/verdict.txt" 2>/dev/null)
	case "$v" in
	*": PASS"*) printf '%-16s %-7s %s\n' "$s" PASS "$v" ;;
	*) printf '%-16s %-7s %s\n' "$s" FAIL "${v:-no verdict, see $R/$s.log}" ;;
	esac
done | tee "$R/summary.txt"
pass=$(grep -c ' PASS ' "$R/summary.txt")
fail=$(grep -c ' FAIL ' "$R/summary.txt")
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
}
main "$@"
