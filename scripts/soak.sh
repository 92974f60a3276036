#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make soak`: every torture scenario (no SCRIPT= ones: their scripts do not
# use the duration) for SOAK_DURATION seconds (1800, the kernel rcutorture's
# default), SOAK_JOBS guests at a time (2: one per host core under
# single-threaded TCG).  SOAK_SCENARIOS=A,B,... picks scenarios instead.
# The guests go through run-qemu.sh --jobs (the harness's one scheduler);
# results, summary.rows and summary.txt in results/soak-<timestamp>/, the
# summary table and "N passed, N failed" at the end.
set -u

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$TOP" || exit 1
main() {
	local dur=${SOAK_DURATION:-1800} jobs=${SOAK_JOBS:-2} list=${SOAK_SCENARIOS:-} f R

	case "$dur$jobs" in *[!0-9]*|'') echo "soak: SOAK_DURATION and SOAK_JOBS must be numbers" >&2; exit 1;; esac
	if [ -z "$list" ]; then
		for f in guest/scenarios/*; do
			grep -q '^SCRIPT=' "$f" || list=$list${list:+,}${f##*/}
		done
	fi
	R=$TOP/results/soak-$(date +%Y%m%d-%H%M%S)
	echo "soak: $(tr ',' '\n' <<<"$list" | grep -c .) scenarios x ${dur} s, $jobs at a time, results in $R"
	./run-qemu.sh --quiet --jobs "$jobs" --scenario "$list" --duration "$dur" --results "$R"
}
main "$@"
