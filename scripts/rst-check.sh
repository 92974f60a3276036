#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Parse every reStructuredText file of the tree with docutils and fail on
# the first warning of each: a stray underline, a table docutils cannot
# read or a broken reference renders as garbage (or not at all) and would
# otherwise go unnoticed until someone reads the output.
#
#   scripts/rst-check.sh            every tracked *.rst, plus untracked ones
#                                   that .gitignore does not exclude
#   scripts/rst-check.sh FILE...    only these files
#
# Prints "rst-check: FILE: ok" or "rst-check: FILE: FAIL" (followed by
# docutils' messages) per file, then "rst-check: N files, N failed".
# Exit status 0 only if every file parsed without a warning.
set -u

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$TOP" || exit 1

if ! python3 -c 'import docutils' 2>/dev/null; then
	echo "rst-check: python3-docutils is not installed (make deps)" >&2
	exit 1
fi

if [ $# -gt 0 ]; then
	files=("$@")
else
	# --others --exclude-standard adds new files not yet committed, so a
	# document can be checked before its first commit.
	mapfile -t files < <(git ls-files --cached --others --exclude-standard \
				 -- '*.rst' | sort -u)
fi

if [ "${#files[@]}" -eq 0 ]; then
	# Nothing to check is suspicious in a tree that has documentation.
	echo "rst-check: no .rst files found" >&2
	exit 1
fi

n=0
bad=0
for f in "${files[@]}"; do
	n=$((n + 1))
	# --report=2: print warnings and worse; --halt=2: a warning is fatal
	# (exit status non-zero).  Output HTML is discarded: only the parse
	# matters.  Any message at all also counts as a failure, in case a
	# docutils version reports without halting.
	if out=$(python3 -m docutils --report=2 --halt=2 --no-datestamp \
			"$f" /dev/null 2>&1) && [ -z "$out" ]; then
		echo "rst-check: $f: ok"
	else
		echo "rst-check: $f: FAIL"
		[ -n "$out" ] && printf '%s\n' "$out" | sed 's/^/    /'
		bad=$((bad + 1))
	fi
done

echo "rst-check: $n files, $bad failed"
[ "$bad" -eq 0 ]
