#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# checkpatch.pl (from the linux-source-6.1 tarball, cached in
# ~/.cache/trcu/checkpatch, never committed) over every committed .c/.h file.
# Fails if any ERROR line is reported.
set -u

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${TRCU_CACHE:-$HOME/.cache/trcu}
CP=$CACHE/checkpatch
TARBALL=/usr/src/linux-source-6.1.tar.xz
SHARED=$CACHE/linux-source/linux-source-6.1

if [ ! -f "$CP/checkpatch.pl" ]; then
	mkdir -p "$CP" || exit 1
	if [ -f "$SHARED/scripts/checkpatch.pl" ]; then
		cp "$SHARED/scripts/checkpatch.pl" "$SHARED/scripts/spelling.txt" \
			"$SHARED/scripts/const_structs.checkpatch" "$CP/" || exit 1
	else
		[ -f "$TARBALL" ] || { echo "checkpatch: $TARBALL missing (make deps)" >&2; exit 1; }
		tmp=$(mktemp -d)
		tar -xJf "$TARBALL" -C "$tmp" --wildcards --strip-components=2 \
			'*/scripts/checkpatch.pl' '*/scripts/spelling.txt' \
			'*/scripts/const_structs.checkpatch' || { rm -rf "$tmp"; exit 1; }
		cp "$tmp"/checkpatch.pl "$tmp"/spelling.txt "$tmp"/const_structs.checkpatch "$CP/"
		rm -rf "$tmp"
	fi
fi

cd "$TOP" || exit 1
mapfile -t files < <(git ls-files '*.c' '*.h')
errors=0
for f in "${files[@]}"; do
	out=$(perl "$CP/checkpatch.pl" --no-tree --terse --show-types -f "$f" 2>&1)
	[ -n "$out" ] && printf '%s\n' "$out"
	if printf '%s\n' "$out" | grep -q 'ERROR:'; then
		errors=$((errors + 1))
	fi
done
echo "checkpatch: ${#files[@]} files, $errors with ERRORs"
[ "$errors" -eq 0 ]
