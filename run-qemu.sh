#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot trcu's test guest under QEMU (TCG) and judge the run.
#
#   ./run-qemu.sh                       install what is missing, build, run TREE01
#   ./run-qemu.sh --scenario TREE02,STALL --duration 60
#   ./run-qemu.sh --scenario all
#
# Exit status: 0 if every scenario passed, 1 otherwise (2: usage error).
# Results: results/<timestamp>/<scenario>/{console.log,markers.log,qemu.log,verdict.txt}
# and results/<timestamp>/summary.txt.
set -u

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SCEN_DIR=$TOP/guest/scenarios

usage() {
	cat <<'USAGE'
usage: run-qemu.sh [options]
  --scenario NAME[,NAME...]  scenario(s) from guest/scenarios/ (repeatable; `all` = every one).
                             Default: TREE01
  --duration SECONDS         torture duration (overrides the scenario's DURATION)
  --smp N                    vCPUs (overrides the scenario's SMP)
  --kernel stock|debug|PATH  guest kernel (default stock: /boot/vmlinuz-<KVER>;
                             debug: lockdep/KASAN/kmemleak kernel from scripts/debug-kernel.sh,
                             modules rebuilt for it in build/debug/)
  --kver VERSION             stock kernel version, e.g. 6.12.118+deb12-amd64 (same as
                             KVER=VERSION in the environment; the modules are built for it).
                             Default: what linux-headers-amd64 depends on (6.1)
  --accel tcg|tcg-multi|kvm  default tcg (-accel tcg,thread=single); tcg-multi = thread=multi,
                             which crashes guests that patch kernel text (see README); kvm hangs here
  --results DIR              results directory (default results/<timestamp>)
  --trcu-args "..."          appended to the scenario's trcu.ko parameters (last value wins)
  --torture-args "..."       appended to the scenario's trcutorture.ko parameters
  --boot-args "..."          appended to the guest kernel command line
  --modules-dir DIR          use trcu.ko and trcutorture.ko from DIR (or DIR/module,
                             DIR/torture) instead of building
  --no-build                 use the modules already built in module/ and torture/
  --no-deps                  do not run `make deps` first
  --quiet                    no progress lines while a guest runs
  -h, --help                 this text
USAGE
}

die() {
	echo "run-qemu: $*" >&2
	exit 2
}

# Everything runs inside main(), called on the file's last line, so bash has
# read the whole file before it starts: editing this script while a run is in
# progress cannot break that run.
main() {
SCENARIOS=()
OPT_DURATION=
OPT_SMP=
KERNEL=stock
ACCEL=tcg
RESULTS=
EXTRA_TRCU=
EXTRA_TORTURE=
EXTRA_BOOT=
MODULES_DIR=
NO_BUILD=0
NO_DEPS=0
QUIET=0

while [ "$#" -gt 0 ]; do
	case "$1" in
	--scenario|--scenarios)
		[ "$#" -ge 2 ] || die "$1 needs a value"
		IFS=',' read -r -a parts <<<"$2"
		SCENARIOS+=("${parts[@]}")
		shift 2 ;;
	--scenario=*) IFS=',' read -r -a parts <<<"${1#*=}"; SCENARIOS+=("${parts[@]}"); shift ;;
	--duration) [ "$#" -ge 2 ] || die "$1 needs a value"; OPT_DURATION=$2; shift 2 ;;
	--smp) [ "$#" -ge 2 ] || die "$1 needs a value"; OPT_SMP=$2; shift 2 ;;
	--kernel) [ "$#" -ge 2 ] || die "$1 needs a value"; KERNEL=$2; shift 2 ;;
	--kver) [ "$#" -ge 2 ] || die "$1 needs a value"; KVER=$2; shift 2 ;;
	--accel) [ "$#" -ge 2 ] || die "$1 needs a value"; ACCEL=$2; shift 2 ;;
	--results) [ "$#" -ge 2 ] || die "$1 needs a value"; RESULTS=$2; shift 2 ;;
	--trcu-args) [ "$#" -ge 2 ] || die "$1 needs a value"; EXTRA_TRCU=$2; shift 2 ;;
	--torture-args) [ "$#" -ge 2 ] || die "$1 needs a value"; EXTRA_TORTURE=$2; shift 2 ;;
	--boot-args) [ "$#" -ge 2 ] || die "$1 needs a value"; EXTRA_BOOT=$2; shift 2 ;;
	--modules-dir) [ "$#" -ge 2 ] || die "$1 needs a value"; MODULES_DIR=$2; shift 2 ;;
	--no-build) NO_BUILD=1; shift ;;
	--no-deps) NO_DEPS=1; shift ;;
	--quiet) QUIET=1; shift ;;
	-h|--help) usage; exit 0 ;;
	*) usage >&2; die "unknown option: $1" ;;
	esac
done

case "$OPT_DURATION" in ''|*[!0-9]*) [ -z "$OPT_DURATION" ] || die "--duration: not a number";; esac
case "$OPT_SMP" in ''|*[!0-9]*) [ -z "$OPT_SMP" ] || die "--smp: not a number";; esac
case "$ACCEL" in tcg|tcg-multi|kvm) ;; *) die "--accel must be tcg, tcg-multi or kvm";; esac

[ "${#SCENARIOS[@]}" -gt 0 ] || SCENARIOS=(TREE01)
expanded=()
for s in "${SCENARIOS[@]}"; do
	[ -n "$s" ] || continue
	if [ "$s" = all ]; then
		for f in "$SCEN_DIR"/*; do
			[ -f "$f" ] && expanded+=("$(basename "$f")")
		done
	else
		[ -f "$SCEN_DIR/$s" ] || die "no such scenario: $s (see guest/scenarios/)"
		expanded+=("$s")
	fi
done
SCENARIOS=("${expanded[@]}")

# --- packages, kernel, modules -------------------------------------------
if [ "$NO_DEPS" -eq 0 ]; then
	"$TOP/scripts/deps.sh" || { echo "run-qemu: make deps failed" >&2; exit 1; }
fi

kver() {
	dpkg-query -W -f='${Depends}' linux-headers-amd64 2>/dev/null |
		grep -o 'linux-headers-[^ ,]*' | head -n 1 | sed 's/^linux-headers-//'
}
KVER=${KVER:-$(kver)}
# `make` below (and its kbuild) must build for the same kernel we boot.
export KVER

case "$KERNEL" in
stock)
	[ -n "$KVER" ] || { echo "run-qemu: cannot tell the kernel version (is linux-headers-amd64 installed?)" >&2; exit 1; }
	BZIMAGE=/boot/vmlinuz-$KVER ;;
debug)
	# Lockdep/KASAN/kmemleak kernel from guest/debug.config, cached in
	# ~/.cache/trcu/debug/<key>/ (built now if missing: long, see README).
	if ! DEBUG_OUT=$("$TOP/scripts/debug-kernel.sh"); then
		echo "run-qemu: --kernel debug: building the debug kernel failed" >&2
		exit 1
	fi
	BZIMAGE=$DEBUG_OUT/bzImage ;;
*)
	BZIMAGE=$KERNEL ;;
esac
[ -r "$BZIMAGE" ] || { echo "run-qemu: kernel image $BZIMAGE not readable" >&2; exit 1; }

if [ -n "$MODULES_DIR" ]; then
	MOD_SRC=$MODULES_DIR
elif [ "$KERNEL" = debug ]; then
	# The stock build in module/ and torture/ does not load into the debug
	# kernel: build a copy of the sources against its build tree.
	MOD_SRC=$TOP/build/debug
	if [ "$NO_BUILD" -eq 0 ]; then
		mkdir -p "$TOP/build"
		echo "run-qemu: building modules for the debug kernel (log: build/debug.log)"
		if ! make -C "$TOP" debug-modules >"$TOP/build/debug.log" 2>&1; then
			grep -E 'error|Error' "$TOP/build/debug.log" | head -n 20 >&2
			echo "run-qemu: debug module build failed, see build/debug.log" >&2
			exit 1
		fi
	fi
elif [ "$NO_BUILD" -eq 0 ]; then
	mkdir -p "$TOP/build"
	echo "run-qemu: building modules (log: build/build.log)"
	if ! make -C "$TOP" >"$TOP/build/build.log" 2>&1; then
		grep -E 'error|Error' "$TOP/build/build.log" | head -n 20 >&2
		echo "run-qemu: build failed, see build/build.log" >&2
		exit 1
	fi
	MOD_SRC=$TOP
else
	MOD_SRC=$TOP
fi

find_ko() {
	local d
	for d in "$MOD_SRC" "$MOD_SRC/module" "$MOD_SRC/torture"; do
		if [ -f "$d/$1" ]; then
			echo "$d/$1"
			return 0
		fi
	done
	return 1
}
TRCU_KO=$(find_ko trcu.ko) || { echo "run-qemu: trcu.ko not found under $MOD_SRC" >&2; exit 1; }
TORTURE_KO=$(find_ko trcutorture.ko) || { echo "run-qemu: trcutorture.ko not found under $MOD_SRC" >&2; exit 1; }
# Modules built for another kernel would only fail at insmod in the guest
# ("Invalid module format"): say so here.
if [ "$KERNEL" = stock ]; then
	vm=$(modinfo -F vermagic "$TRCU_KO" 2>/dev/null)
	if [ -n "$vm" ] && [ "${vm%% *}" != "$KVER" ]; then
		echo "run-qemu: $TRCU_KO is built for ${vm%% *}, the guest kernel is $KVER (rebuild: make KVER=$KVER, or drop --no-build)" >&2
		exit 1
	fi
fi
# Every other module beside trcutorture.ko (test and measurement modules)
# goes into the guest's /lib/modules too, for script scenarios.
EXTRA_KOS=()
for f in "$(dirname "$TORTURE_KO")"/*.ko; do
	[ -f "$f" ] && [ "$f" != "$TORTURE_KO" ] && [ "$f" != "$TRCU_KO" ] && EXTRA_KOS+=("$f")
done
# The debug kernel's own rcutorture.ko and torture.ko (scenario REF-UPSTREAM).
if [ "$KERNEL" = debug ]; then
	EXTRA_KOS+=("$DEBUG_OUT/modules/rcutorture.ko" "$DEBUG_OUT/modules/torture.ko")
fi

[ -n "$RESULTS" ] || RESULTS=$TOP/results/$(date +%Y%m%d-%H%M%S)
mkdir -p "$RESULTS" || exit 1
RESULTS=$(cd "$RESULTS" && pwd)

# --- guest handling ------------------------------------------------------
QEMU_PID=
cleanup() {
	if [ -n "$QEMU_PID" ] && kill -0 "$QEMU_PID" 2>/dev/null; then
		kill "$QEMU_PID" 2>/dev/null
		sleep 1
		kill -9 "$QEMU_PID" 2>/dev/null
	fi
	QEMU_PID=
}
trap cleanup EXIT
trap 'cleanup; exit 130' INT
trap 'cleanup; exit 143' TERM HUP

# Quote a value for /scenario.env (read by busybox sh): single quotes.
shq() {
	printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"
}

# Last torture stats line, shortened for the progress display.
progress_of() {
	local log=$1 line
	if ! grep -q 'TRCU-MARK: START' "$2" 2>/dev/null; then
		echo "booting"
		return
	fi
	line=$(grep -a -e '-torture: rtc:' "$log" | tail -n 1)
	if [ -z "$line" ]; then
		echo "in /init, no torture stats yet"
		return
	fi
	printf '%s\n' "$line" | sed -n 's/^.*\] *\([a-z_]*-torture\):.* ver: \([0-9]*\).*onoff: \([0-9/:]*\)\(.* gps: \([0-9]*\)\)\{0,1\}.*$/\1 ver \2 onoff \3 gps \5/p'
}

# run_one NAME: boot one scenario, print and record its verdict.  Returns 0 on PASS.
run_one() {
	local name=$1 idx=$2 total=$3
	local dir=$RESULTS/$name
	local SMP MAXCPUS BOOT_ARGS TRCU_ARGS TORTURE_ARGS DURATION
	local EXPECT_STALL GUEST_CMD GUEST_POST_CMD SCRIPT CYCLES
	local TORTURE_TRCU_ARGS TORTURE_TORTURE_ARGS
	rm -rf "$dir"
	mkdir -p "$dir"
	# shellcheck disable=SC1090,SC1091  # scenario files are data in shell syntax
	. "$TOP/guest/scenario-defaults"
	# shellcheck disable=SC1090
	. "$SCEN_DIR/$name"
	if [ -z "$SCRIPT" ]; then
		TRCU_ARGS="$TORTURE_TRCU_ARGS${TRCU_ARGS:+ $TRCU_ARGS}"
		TORTURE_ARGS="$TORTURE_TORTURE_ARGS${TORTURE_ARGS:+ $TORTURE_ARGS}"
	fi
	[ -n "$OPT_DURATION" ] && DURATION=$OPT_DURATION
	[ -n "$OPT_SMP" ] && SMP=$OPT_SMP
	TRCU_ARGS="$TRCU_ARGS${EXTRA_TRCU:+ $EXTRA_TRCU}"
	TORTURE_ARGS="$TORTURE_ARGS${EXTRA_TORTURE:+ $EXTRA_TORTURE}"
	BOOT_ARGS="$BOOT_ARGS${EXTRA_BOOT:+ $EXTRA_BOOT}"

	{
		echo "SCENARIO=$(shq "$name")"
		echo "TRCU_ARGS=$(shq "$TRCU_ARGS")"
		echo "TORTURE_ARGS=$(shq "$TORTURE_ARGS")"
		echo "DURATION=$(shq "$DURATION")"
		echo "GUEST_CMD=$(shq "$GUEST_CMD")"
		echo "GUEST_POST_CMD=$(shq "$GUEST_POST_CMD")"
		echo "SCRIPT=$(shq "$SCRIPT")"
		echo "SMP=$(shq "$SMP")"
		echo "CYCLES=$(shq "$CYCLES")"
	} >"$dir/scenario.env"
	if [ -n "$SCRIPT" ] && [ ! -f "$TOP/guest/tests/$SCRIPT.sh" ]; then
		echo "VERDICT $name: FAIL: harness: no guest/tests/$SCRIPT.sh" | tee "$dir/verdict.txt"
		printf '%s\tFAIL\t-\t-\t-\t0\t-\tharness: no guest/tests/%s.sh\n' "$name" "$SCRIPT" >>"$RESULTS/summary.rows"
		return 1
	fi

	local initrd=$dir/initramfs.cpio.gz
	if ! "$TOP/guest/mkinitramfs.sh" "$initrd" "$TRCU_KO" "$TORTURE_KO" "$dir/scenario.env" \
		"${EXTRA_KOS[@]}" >"$dir/mkinitramfs.log" 2>&1; then
		cat "$dir/mkinitramfs.log" >&2
		echo "VERDICT $name: FAIL: harness: initramfs build failed" | tee "$dir/verdict.txt"
		printf '%s\tFAIL\t-\t-\t-\t0\t-\tharness: initramfs build failed\n' "$name" >>"$RESULTS/summary.rows"
		return 1
	fi

	# Memory: 2 GiB, plus 32 MiB per vCPU beyond 8 (per-CPU areas, torture kthreads).
	local mem=$((2048 + (SMP > 8 ? (SMP - 8) * 32 : 0)))
	local smp_arg=$SMP
	[ -n "$MAXCPUS" ] && smp_arg="$SMP,maxcpus=$MAXCPUS"
	# Single-threaded TCG by default: with thread=multi, QEMU 7.2 lets a
	# vCPU run a stale int3 after the kernel's text_poke_bp() has finished
	# patching an ftrace site, so registering trcu's kprobes on hot
	# functions (__cond_resched, irq_enter_rcu, tick_nohz_idle_enter)
	# crashed the guest (RIP 0 / unhandled int3) in 2 of 2 boots of 60
	# insmod/rmmod cycles; thread=single ran 60 of 60 cleanly.
	local accel_arg="tcg,thread=single"
	[ "$ACCEL" = tcg-multi ] && accel_arg="tcg,thread=multi"
	[ "$ACCEL" = kvm ] && accel_arg=kvm
	# Watchdog: twice the duration + 2 min, + 3 s per vCPU for TCG boot.
	local cpus=$SMP
	[ -n "$MAXCPUS" ] && [ "$MAXCPUS" -gt "$cpus" ] && cpus=$MAXCPUS
	local limit=$((DURATION * 2 + 120 + cpus * 3))
	# The debug kernel (KASAN, lockdep, kmemleak scans) boots and runs slower.
	[ "$KERNEL" = debug ] && limit=$((limit + 600))
	local append="console=ttyS0 cryptomgr.notests printk.time=1 panic=-1 oops=panic loglevel=7${BOOT_ARGS:+ $BOOT_ARGS}"
	local console=$dir/console.log markers=$dir/markers.log
	: >"$console"
	: >"$markers"

	local -a cmd=(qemu-system-x86_64 -accel "$accel_arg" -m "$mem" -smp "$smp_arg"
		-nodefaults -display none -no-reboot
		-kernel "$BZIMAGE" -initrd "$initrd" -append "$append"
		-serial "file:$console" -serial "file:$markers")
	printf '%q ' "${cmd[@]}" >"$dir/qemu.cmd"
	echo >>"$dir/qemu.cmd"

	echo "[$idx/$total] $name: smp $smp_arg, duration ${DURATION}s, watchdog ${limit}s, results $dir"
	local start=$SECONDS
	"${cmd[@]}" </dev/null >"$dir/qemu.log" 2>&1 &
	QEMU_PID=$!
	local killed='' elapsed next=10 booted='' failed_at='' fail_grace=0
	while kill -0 "$QEMU_PID" 2>/dev/null; do
		sleep 1
		elapsed=$((SECONDS - start))
		if [ -z "$booted" ] && grep -q 'TRCU-MARK: START' "$markers" 2>/dev/null; then
			booted=$elapsed
			[ "$QUIET" -eq 0 ] && echo "  $name: reached /init after ${booted}s (wall)"
			echo "$booted" >"$dir/boot-seconds"
		fi
		# A torture that already failed does not get the whole watchdog:
		# a broken trcu (the mutants) often cannot finish its callbacks,
		# so the torture's end or the unload hangs.  After the first
		# "!!!" line it gets the duration + 60 s, after its FAILURE end
		# line 60 s (time for a hung-task report).  Not for script
		# scenarios: they provoke failures on purpose.
		if [ -z "$SCRIPT" ] && [ "$fail_grace" -ne 60 ]; then
			if grep -q 'End of test: FAILURE' "$console" 2>/dev/null; then
				failed_at=$elapsed
				fail_grace=60
			elif [ -z "$failed_at" ] && grep -q '!!!' "$console" 2>/dev/null; then
				failed_at=$elapsed
				fail_grace=$((DURATION + 60))
			fi
		fi
		if [ -n "$failed_at" ] && [ $((elapsed - failed_at)) -ge "$fail_grace" ]; then
			killed="guest killed after ${elapsed}s, ${fail_grace}s after the torture failed"
			echo "  $name: $killed"
			cleanup
			break
		fi
		if [ "$elapsed" -ge "$limit" ]; then
			killed="watchdog: guest killed after ${elapsed}s"
			echo "  $name: $killed"
			cleanup
			break
		fi
		if [ "$QUIET" -eq 0 ] && [ "$elapsed" -ge "$next" ]; then
			echo "  $name +${elapsed}s: $(progress_of "$console" "$markers")"
			next=$((next + 10))
		fi
	done
	[ -n "$QEMU_PID" ] && wait "$QEMU_PID" 2>/dev/null
	QEMU_PID=
	local wall=$((SECONDS - start))
	rm -f "$initrd"

	local -a vargs=(--scenario "$name" --console "$console" --markers "$markers"
		--expect-stall "$EXPECT_STALL" --trcu-args "$TRCU_ARGS" --wall "$wall")
	[ -n "$SCRIPT" ] && vargs+=(--script "$SCRIPT")
	[ -n "$killed" ] && vargs+=(--killed "$killed")
	python3 "$TOP/scripts/verdict.py" "${vargs[@]}" >"$dir/verdict.txt"
	local rc=$?
	if [ ! -s "$dir/verdict.txt" ]; then
		echo "VERDICT $name: FAIL: harness: verdict.py failed (rc $rc)" >"$dir/verdict.txt"
		rc=1
	fi
	grep '^VERDICT' "$dir/verdict.txt"
	echo "  $name: wall ${wall}s, console $console"
	python3 "$TOP/scripts/verdict.py" --row <"$dir/verdict.txt" >>"$RESULTS/summary.rows"
	return "$rc"
}

write_summary() {
	python3 "$TOP/scripts/verdict.py" --summary "$RESULTS/summary.rows" >"$RESULTS/summary.txt"
}

pass=0
fail=0
i=0
for s in "${SCENARIOS[@]}"; do
	i=$((i + 1))
	if run_one "$s" "$i" "${#SCENARIOS[@]}"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
	fi
	write_summary
done

echo
cat "$RESULTS/summary.txt"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
}

# One line: bash has read it completely before main runs.
main "$@"; exit "$?"
