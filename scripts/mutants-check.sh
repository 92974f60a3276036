#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host check of the mutants (tests/mutants/<name>.patch, each a `diff -u`
# that breaks trcu on purpose; `make MUTANT=<name>` applies it to a scratch
# copy).  Fails when a patch no longer applies to the tree, when
# guest/mutants names a mutant without a patch, or when mutant code is left
# in the shipped sources.  Prints one line per mutant and a final count.
set -u

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$TOP" || exit 1

bad=0
n=0
listed=$(sed -e 's/#.*//' guest/mutants | awk 'NF { print $1 }' | sort -u)
for p in tests/mutants/*.patch; do
	[ -e "$p" ] || continue
	name=$(basename "$p" .patch)
	n=$((n + 1))
	if ! out=$(patch --dry-run --fuzz=0 -s -p1 -d "$TOP" <"$p" 2>&1); then
		echo "mutant $name: FAIL: patch no longer applies: $out"
		bad=$((bad + 1))
	elif ! grep -qx "$name" <<<"$listed"; then
		echo "mutant $name: applies (not in guest/mutants: run by hand)"
	else
		echo "mutant $name: applies ($(grep -c '^@@' "$p") hunks)"
	fi
done
for name in $listed; do
	if [ ! -f "tests/mutants/$name.patch" ]; then
		echo "mutant $name: FAIL: in guest/mutants but tests/mutants/$name.patch is missing"
		bad=$((bad + 1))
	fi
done
if grep -rn 'TRCU_MUTANT' module torture include examples 2>/dev/null; then
	echo "mutants: FAIL: mutant code left in the shipped sources (above)"
	bad=$((bad + 1))
fi
echo "mutants: $n patches, $bad problems"
[ "$bad" -eq 0 ]
