#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the guest initramfs:
#   guest/mkinitramfs.sh OUT.cpio.gz TRCU_KO TORTURE_KO SCENARIO_ENV [EXTRA_KO...]
# It holds busybox (static), guest/init as /init, the modules in
# /lib/modules/, guest/tests/*.sh in /tests/, the scenario's parameters
# as /scenario.env and the guest tools of guest/tools/*.c (static C
# programs, built here with gcc -static: /bin/rtspin).
set -u

if [ "$#" -lt 4 ]; then
	echo "usage: $0 OUT.cpio.gz TRCU_KO TORTURE_KO SCENARIO_ENV [EXTRA_KO...]" >&2
	exit 2
fi
out=$1
trcu_ko=$2
torture_ko=$3
env_file=$4
shift 4

here=$(cd "$(dirname "$0")" && pwd)
busybox=
for b in /bin/busybox /usr/bin/busybox; do
	if [ -x "$b" ] && file -L "$b" 2>/dev/null | grep -q 'statically linked'; then
		busybox=$b
		break
	fi
done
if [ -z "$busybox" ]; then
	# `file` may be missing: trust busybox-static's path.
	[ -x /bin/busybox ] && busybox=/bin/busybox
fi
[ -n "$busybox" ] || { echo "mkinitramfs: no static busybox (apt-get install busybox-static)" >&2; exit 1; }

for f in "$trcu_ko" "$torture_ko" "$env_file" "$here/init"; do
	[ -f "$f" ] || { echo "mkinitramfs: missing $f" >&2; exit 1; }
done

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage"/{bin,sbin,dev,proc,sys,tmp,lib/modules,etc}
cp "$busybox" "$stage/bin/busybox"
ln -s busybox "$stage/bin/sh"
cp "$here/init" "$stage/init"
chmod 755 "$stage/init"
cp "$trcu_ko" "$stage/lib/modules/trcu.ko"
cp "$torture_ko" "$stage/lib/modules/trcutorture.ko"
for ko in "$@"; do
	cp "$ko" "$stage/lib/modules/"
done
cp "$env_file" "$stage/scenario.env"
# Script scenarios (SCRIPT=name runs /tests/name.sh) and their library.
if [ -d "$here/tests" ]; then
	mkdir -p "$stage/tests"
	cp "$here"/tests/*.sh "$stage/tests/" 2>/dev/null
fi

# Guest tools: one static program per guest/tools/*.c, in /bin/.
for src in "$here"/tools/*.c; do
	[ -f "$src" ] || continue
	tool=$(basename "$src" .c)
	gcc -static -O2 -Wall -o "$stage/bin/$tool" "$src" ||
		{ echo "mkinitramfs: building $tool from $src failed (gcc, libc6-dev)" >&2; exit 1; }
done

mkdir -p "$(dirname "$out")"
(cd "$stage" && find . -print0 | cpio --null -o -H newc --quiet --owner=0:0) |
	gzip -1 > "$out.tmp" && mv "$out.tmp" "$out"
