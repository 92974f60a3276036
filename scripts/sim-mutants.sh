#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Every engine mutant (tests/mutants/*.patch) against the simulator: the
# patch is applied to a scratch copy of module/ and include/ in
# build/sim-mutant-<name>/, trcu-sim is built from it, and the property
# test (scripts/sim-check.sh, fixed seed, SIM_MUTANT_SECONDS each) runs it.
# A mutant that patches no file the simulator builds cannot be caught
# here and is reported as such.
#
#   scripts/sim-mutants.sh [NAME...]     default: every mutant
# Prints one line per mutant: "caught: ... first error", "NOT caught", or
# "not simulated (files)".  Exit status 1 only if a patch does not apply
# or a mutant does not build: which mutants the simulator can catch is a
# report (Documentation/sim.rst explains each), not a verdict.
set -u

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$TOP" || exit 1

SIMULATED=" module/params.c module/geometry.c module/tree.c module/callbacks.c module/dynticks.c module/stall.c module/hotplug.c module/gp_kthread.c "
SECS=${SIM_MUTANT_SECONDS:-30}
SEED=${SIM_MUTANT_SEED:-1}

if [ $# -gt 0 ]; then
	names=("$@")
else
	names=()
	for p in tests/mutants/*.patch; do
		names+=("$(basename "$p" .patch)")
	done
fi

rc=0
for name in "${names[@]}"; do
	patch=tests/mutants/$name.patch
	files=$(grep '^+++ ' "$patch" | awk '{ print $2 }' | sed 's|^b/||' | sort -u | tr '\n' ' ')
	files=${files% }
	hit=
	for f in $files; do	# word splitting wanted: one name each
		case "$SIMULATED" in *" $f "*) hit=1 ;; esac
	done
	if [ -z "$hit" ]; then
		printf '%-16s not simulated (%s)\n' "$name" "$files"
		continue
	fi
	dir=$TOP/build/sim-mutant-$name
	rm -rf "$dir"
	mkdir -p "$dir"
	cp -a module include "$dir/"
	if ! patch --fuzz=0 -s -p1 -d "$dir" <"$patch"; then
		printf '%-16s FAIL: patch does not apply\n' "$name"
		rc=1
		continue
	fi
	if ! make -s -C sim ENGINE="$dir" OBJDIR="$dir/obj" OUT="$dir/trcu-sim" \
			>"$dir/build.log" 2>&1; then
		printf '%-16s FAIL: build failed, see %s\n' "$name" "$dir/build.log"
		rc=1
		continue
	fi
	SIM_BIN=$dir/trcu-sim SIM_CHECK_SEED=$SEED SIM_CHECK_SECONDS=$SECS \
		"$TOP/scripts/sim-check.sh" >"$dir/check.log" 2>&1
	summary=$(tail -n 1 "$dir/check.log")
	first=$(grep -m 1 '^    ERROR' "$dir/check.log" | sed 's/^ *ERROR j=[0-9]*: //')
	if grep -q ' 0 failed' <<<"$summary"; then
		printf '%-16s NOT caught (%s)\n' "$name" "$summary"
	else
		printf '%-16s caught: %s; %s\n' "$name" "${summary%% (seed*}" "$first"
	fi
done
exit "$rc"
