#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build (once) the debug guest kernel: Debian's linux-source-6.1 configured
# from `make allnoconfig` plus guest/debug.config (lockdep + PROVE_RCU,
# DEBUG_ATOMIC_SLEEP, debugobjects, KASAN, kmemleak, and what trcu needs).
#
#   scripts/debug-kernel.sh              build if needed, print the cache dir
#   scripts/debug-kernel.sh --dir        print the cache dir, build nothing
#                                        (exit 1 if it is not built)
#   scripts/debug-kernel.sh --force      rebuild even if the cache is complete
#
# Cache (never in the repository): ~/.cache/trcu/debug/<key>/ with
#   bzImage                the kernel
#   build/                 the O= build tree: external modules build with
#                          `make -C <key>/build M=...`
#   modules/rcutorture.ko  the kernel's own rcutorture and its torture.ko
#   modules/torture.ko
#   build.log, build-seconds, config-check.txt, complete (stamp, written last)
# where <key> hashes the source package version, guest/debug.config and the
# build recipe below, so a change of any of them builds a new kernel.  The
# source is extracted once per package version to ~/.cache/trcu/debug/src/.
#
# The build runs under `nice` with -j2 (TRCU_DEBUG_JOBS overrides): it
# competes with guest runs on a small machine.
set -u

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${TRCU_CACHE:-$HOME/.cache/trcu}
DEBUG=$CACHE/debug
TARBALL=/usr/src/linux-source-6.1.tar.xz
FRAGMENT=$TOP/guest/debug.config
JOBS=${TRCU_DEBUG_JOBS:-2}
# Bump when the steps below change in a way that changes the result.
RECIPE=1

MODE=build
case "${1:-}" in
'') ;;
--dir) MODE=dir ;;
--force) MODE=force ;;
-h|--help) sed -n '4,24p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
*) echo "debug-kernel: unknown option $1" >&2; exit 2 ;;
esac

log() { echo "debug-kernel: $*" >&2; }

[ -f "$FRAGMENT" ] || { log "$FRAGMENT missing"; exit 1; }
[ -f "$TARBALL" ] || { log "$TARBALL missing (make deps)"; exit 1; }
SRCVER=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null)
[ -n "$SRCVER" ] || SRCVER=$(stat -c '%s-%Y' "$TARBALL")
KEY=$({ echo "src $SRCVER"; echo "recipe $RECIPE"; cat "$FRAGMENT"; } |
	sha256sum | cut -c1-16)
OUT=$DEBUG/$KEY
B=$OUT/build

if [ "$MODE" = dir ]; then
	[ -f "$OUT/complete" ] || exit 1
	echo "$OUT"
	exit 0
fi
if [ "$MODE" = build ] && [ -f "$OUT/complete" ]; then
	echo "$OUT"
	exit 0
fi

mkdir -p "$DEBUG" || exit 1
# One build at a time (run-qemu.sh and check.sh may both ask for it).
exec 9>"$DEBUG/lock"
if ! flock -n 9; then
	log "another build holds $DEBUG/lock, waiting"
	flock 9
fi
if [ "$MODE" = build ] && [ -f "$OUT/complete" ]; then
	echo "$OUT"
	exit 0
fi
rm -f "$OUT/complete"

# --- source: our own pristine copy (an O= build never writes to it) ------
SRCDIR=$DEBUG/src/$SRCVER
SRC=$SRCDIR/linux-source-6.1
if [ ! -f "$SRCDIR/extracted" ]; then
	log "extracting $TARBALL to $SRCDIR"
	rm -rf "$SRCDIR"
	mkdir -p "$SRCDIR" || exit 1
	tar -xJf "$TARBALL" -C "$SRCDIR" || { log "extraction failed"; exit 1; }
	[ -f "$SRC/Makefile" ] || { log "no $SRC/Makefile after extraction"; exit 1; }
	touch "$SRCDIR/extracted"
fi

mkdir -p "$B" || exit 1
BUILDLOG=$OUT/build.log
start=$(date +%s)
log "building in $B (log: $BUILDLOG)"
kmake() {
	nice -n 10 make -C "$SRC" O="$B" ARCH=x86_64 "$@"
}

# --- config: allnoconfig + fragment, then check every wanted option ------
{
	echo "== config $(date -u)"
	kmake KCONFIG_ALLCONFIG="$FRAGMENT" allnoconfig
} >"$BUILDLOG" 2>&1 || { log "allnoconfig failed, see $BUILDLOG"; exit 1; }

# Every `CONFIG_X=value` line of the fragment must be in .config verbatim:
# Kconfig quietly drops options whose dependencies are missing.
bad=0
: >"$OUT/config-check.txt"
while IFS= read -r line; do
	case "$line" in CONFIG_*=*) ;; *) continue ;; esac
	if grep -qxF "$line" "$B/.config"; then
		echo "ok      $line" >>"$OUT/config-check.txt"
	else
		got=$(grep -E "^(# )?${line%%=*}[= ]" "$B/.config" || echo "${line%%=*} absent")
		echo "MISSING $line (got: $got)" >>"$OUT/config-check.txt"
		log "wanted $line, .config has: $got"
		bad=1
	fi
done <"$FRAGMENT"
if [ "$bad" -ne 0 ]; then
	log "config check failed (see $OUT/config-check.txt)"
	exit 1
fi
log "config check: $(grep -c '^ok' "$OUT/config-check.txt") options as wanted"

# --- build: kernel, modules (rcutorture.ko, torture.ko), Module.symvers --
{
	echo "== build $(date -u), -j$JOBS"
	kmake -j"$JOBS" bzImage modules
} >>"$BUILDLOG" 2>&1 || {
	grep -E 'error|Error' "$BUILDLOG" | head -n 20 >&2
	log "build failed, see $BUILDLOG"
	exit 1
}

mkdir -p "$OUT/modules" || exit 1
cp "$B/arch/x86/boot/bzImage" "$OUT/bzImage" || exit 1
for m in kernel/rcu/rcutorture.ko kernel/torture.ko; do
	cp "$B/$m" "$OUT/modules/" || { log "$m not built"; exit 1; }
done
[ -f "$B/Module.symvers" ] || { log "no Module.symvers"; exit 1; }
end=$(date +%s)
echo "$((end - start))" >"$OUT/build-seconds"
echo "$KEY" >"$DEBUG/current"
touch "$OUT/complete"
log "done in $((end - start)) s: $OUT"
echo "$OUT"
