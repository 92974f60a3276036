#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot trcu's test guest under QEMU (TCG) and judge the run.
#
#   ./run-qemu.sh                       install what is missing, build, run TREE01
#   ./run-qemu.sh --scenario TREE02,STALL --duration 60
#   ./run-qemu.sh --scenario all
#
#   ./run-qemu.sh --scenario all --jobs 2
#
# Exit status: 0 if every scenario passed, 1 otherwise (2: usage error).
# Results: results/<timestamp>/<scenario>/{console.log,markers.log,qemu.log,
# scenario.env,verdict.txt}, results/<timestamp>/summary.{rows,txt} and `jobs`
# (the run directories in list order); scripts/recheck.sh judges them again.
# This is the harness's one guest scheduler: scripts/check.sh, soak.sh and
# bench.sh hand their guests to it.
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
  --jobs N                   N guests at a time (default 1; each single-threaded TCG
                             guest keeps one host core busy).  Verdicts, the summary and
                             its rows still come in list order
  --jobs-file FILE           more guests, one per line:
                               LABEL SCENARIO [duration=S] [modules=DIR] [expect-fail]
                             LABEL names the row and the directory (`:`, `/` become `-`)
  --expect-fail              a scenario passes when its verdict is FAIL (mutant runs);
                             a guest that never booted or a harness error still fails
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

# parse_args "$@": the options into globals (see usage).
parse_args() {
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
		--jobs) [ "$#" -ge 2 ] || die "$1 needs a value"; JOBS=$2; shift 2 ;;
		--jobs-file) [ "$#" -ge 2 ] || die "$1 needs a value"; JOBS_FILE=$2; shift 2 ;;
		--expect-fail) EXPECT_FAIL=1; shift ;;
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
	case "$JOBS" in ''|0|*[!0-9]*) die "--jobs: not a positive number";; esac
	case "$ACCEL" in tcg|tcg-multi|kvm) ;; *) die "--accel must be tcg, tcg-multi or kvm";; esac
}

# add_job LABEL SCENARIO DURATION MODULES EXPECT_FAIL: one guest to run.
# The jobs are parallel arrays, indexed in list order.
add_job() {
	local dir=${1//[:\/]/-} k
	[ -f "$SCEN_DIR/$2" ] || die "no such scenario: $2 (see guest/scenarios/)"
	# The same scenario twice gets a second directory, not the first one's.
	for k in "${J_DIR[@]}"; do
		[ "$k" = "$dir" ] && dir=$dir.${#J_DIR[@]}
	done
	J_LABEL+=("$1")
	J_SCEN+=("$2")
	J_DIR+=("$dir")
	J_DUR+=("$3")
	J_MODS+=("$4")
	J_XFAIL+=("$5")
}

# add_jobs: the jobs of --scenario (`all` = every file of guest/scenarios/)
# and --jobs-file; TREE01 if there are none.
add_jobs() {
	local s f label scen rest w dur mods xfail
	for s in "${SCENARIOS[@]}"; do
		[ -n "$s" ] || continue
		if [ "$s" = all ]; then
			for f in "$SCEN_DIR"/*; do
				[ -f "$f" ] && add_job "${f##*/}" "${f##*/}" "$OPT_DURATION" "" "$EXPECT_FAIL"
			done
		else
			add_job "$s" "$s" "$OPT_DURATION" "" "$EXPECT_FAIL"
		fi
	done
	if [ -n "$JOBS_FILE" ]; then
		[ -r "$JOBS_FILE" ] || die "--jobs-file: cannot read $JOBS_FILE"
		while read -r label scen rest; do
			case "$label" in ''|'#'*) continue ;; esac
			dur=$OPT_DURATION mods='' xfail=$EXPECT_FAIL
			for w in $rest; do
				case "$w" in
				duration=*) dur=${w#*=} ;;
				modules=*) mods=${w#*=} ;;
				expect-fail) xfail=1 ;;
				*) die "--jobs-file: unknown word '$w' for $label" ;;
				esac
			done
			add_job "$label" "$scen" "$dur" "$mods" "$xfail"
		done <"$JOBS_FILE"
	fi
	[ "${#J_SCEN[@]}" -gt 0 ] || add_job TREE01 TREE01 "$OPT_DURATION" "" "$EXPECT_FAIL"
}

kver() {
	dpkg-query -W -f='${Depends}' linux-headers-amd64 2>/dev/null |
		grep -o 'linux-headers-[^ ,]*' | head -n 1 | sed 's/^linux-headers-//'
}

# setup_kernel: KVER and BZIMAGE (the debug kernel is built if not cached).
setup_kernel() {
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
}

# build_into LOG TARGET...: make, or show the errors and exit.
build_into() {
	local log=$1
	shift
	mkdir -p "$TOP/build"
	echo "run-qemu: building modules (log: ${log#"$TOP"/})"
	if ! make -C "$TOP" "$@" >"$log" 2>&1; then
		grep -E 'error|Error' "$log" | head -n 20 >&2
		echo "run-qemu: build failed, see ${log#"$TOP"/}" >&2
		exit 1
	fi
}

# setup_modules: MOD_SRC, the default modules directory of the jobs.
setup_modules() {
	local m
	MOD_SRC=
	for m in "${J_MODS[@]}"; do
		[ -z "$m" ] && MOD_SRC=default
	done
	# Every job names its own modules (a jobs file): nothing to build here.
	[ -n "$MOD_SRC" ] || return 0
	if [ -n "$MODULES_DIR" ]; then
		MOD_SRC=$MODULES_DIR
	elif [ "$KERNEL" = debug ]; then
		# The stock build in module/ and torture/ does not load into the
		# debug kernel: build a copy of the sources against its build tree.
		MOD_SRC=$TOP/build/debug
		[ "$NO_BUILD" -eq 0 ] && build_into "$TOP/build/debug.log" debug-modules
	else
		MOD_SRC=$TOP
		[ "$NO_BUILD" -eq 0 ] && build_into "$TOP/build/build.log"
	fi
	# Refuse a wrong default directory before any guest boots.
	find_modules "$MOD_SRC" || exit 1
}

find_ko() {
	local d
	for d in "$1" "$1/module" "$1/torture"; do
		if [ -f "$d/$2" ]; then
			echo "$d/$2"
			return 0
		fi
	done
	return 1
}

# find_modules DIR: TRCU_KO, TORTURE_KO and EXTRA_KOS from DIR, or say why not.
find_modules() {
	local f vm
	TRCU_KO=$(find_ko "$1" trcu.ko) || { echo "run-qemu: trcu.ko not found under $1" >&2; return 1; }
	TORTURE_KO=$(find_ko "$1" trcutorture.ko) || { echo "run-qemu: trcutorture.ko not found under $1" >&2; return 1; }
	# Modules built for another kernel would only fail at insmod in the
	# guest ("Invalid module format"): say so here.
	if [ "$KERNEL" = stock ]; then
		vm=$(modinfo -F vermagic "$TRCU_KO" 2>/dev/null)
		if [ -n "$vm" ] && [ "${vm%% *}" != "$KVER" ]; then
			echo "run-qemu: $TRCU_KO is built for ${vm%% *}, the guest kernel is $KVER (rebuild: make KVER=$KVER, or drop --no-build)" >&2
			return 1
		fi
	fi
	# Every other module beside trcutorture.ko (test and measurement
	# modules) goes into the guest's /lib/modules too, for script scenarios.
	EXTRA_KOS=()
	for f in "$(dirname "$TORTURE_KO")"/*.ko; do
		[ -f "$f" ] && [ "$f" != "$TORTURE_KO" ] && [ "$f" != "$TRCU_KO" ] && EXTRA_KOS+=("$f")
	done
	# The example user of trcu (scenario EXAMPLE), if built there.
	for f in "$1"/examples/*.ko; do
		[ -f "$f" ] && EXTRA_KOS+=("$f")
	done
	# The debug kernel's own rcutorture.ko and torture.ko (scenario REF-UPSTREAM).
	if [ "$KERNEL" = debug ]; then
		EXTRA_KOS+=("$DEBUG_OUT/modules/rcutorture.ko" "$DEBUG_OUT/modules/torture.ko")
	fi
	return 0
}

# Quote a value for /scenario.env (read by busybox sh): single quotes.
shq() {
	printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"
}

# env_line KEY...: KEY='value' lines for scenario.env.
env_lines() {
	local k
	for k in "$@"; do
		echo "$k=$(shq "${!k}")"
	done
}

# load_scenario NAME DURATION: the defaults, then the scenario file, then the
# command line's overrides, into the scenario variables.
# shellcheck disable=SC2034  # they reach scenario.env through env_lines
load_scenario() {
	# shellcheck disable=SC1090,SC1091  # scenario files are data in shell syntax
	. "$TOP/guest/scenario-defaults"
	# shellcheck disable=SC1090
	. "$SCEN_DIR/$1"
	KIND=script
	if [ -z "$SCRIPT" ]; then
		KIND=torture
		TRCU_ARGS="$TORTURE_TRCU_ARGS${TRCU_ARGS:+ $TRCU_ARGS}"
		TORTURE_ARGS="$TORTURE_TORTURE_ARGS${TORTURE_ARGS:+ $TORTURE_ARGS}"
		# The debug kernel (KASAN, lockdep) is several times slower: its
		# GP-rate floor is 4 x the flavour's 800 ms per GP (IRQ-NMI gave
		# 1250 ms per GP there beside 6 other guests).  A scenario's own
		# max_gp_ms still wins.
		[ "$KERNEL" = debug ] && TORTURE_ARGS="max_gp_ms=3200 $TORTURE_ARGS"
	fi
	[ -n "$2" ] && DURATION=$2
	[ -n "$OPT_SMP" ] && SMP=$OPT_SMP
	TRCU_ARGS="$TRCU_ARGS${EXTRA_TRCU:+ $EXTRA_TRCU}"
	TORTURE_ARGS="$TORTURE_ARGS${EXTRA_TORTURE:+ $EXTRA_TORTURE}"
	BOOT_ARGS="$BOOT_ARGS${EXTRA_BOOT:+ $EXTRA_BOOT}"
	# The torture's seed: the one asked for (the last seed= wins, as for
	# insmod), else one picked here, so that scenario.env and a failure's
	# verdict say how to replay the run's random choices.
	SEED=
	if [ "$KIND" = torture ]; then
		SEED=$(echo "$TORTURE_ARGS" | tr ' ' '\n' | sed -n 's/^seed=//p' | tail -n 1)
		if [ -z "$SEED" ]; then
			SEED=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
			[ "$SEED" = 0 ] && SEED=1
			TORTURE_ARGS="$TORTURE_ARGS seed=$SEED"
		fi
	fi
	SCENARIO_ERROR=
	case "$ICOUNT" in
	''|[0-9]) ;;
	*) SCENARIO_ERROR="ICOUNT=$ICOUNT: want a shift of 0..9" ;;
	esac
	CPUS=$SMP
	[ -n "$MAXCPUS" ] && [ "$MAXCPUS" -gt "$CPUS" ] && CPUS=$MAXCPUS
	# Watchdog: twice the duration + 2 min, + 3 s per vCPU for TCG boot.
	WATCHDOG=$((DURATION * 2 + 120 + CPUS * 3))
	# The debug kernel (KASAN, lockdep, kmemleak scans) boots and runs slower.
	[ "$KERNEL" = debug ] && WATCHDOG=$((WATCHDOG + 600))
	return 0
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

QEMU_PID=
cleanup() {
	if [ -n "$QEMU_PID" ] && kill -0 "$QEMU_PID" 2>/dev/null; then
		kill "$QEMU_PID" 2>/dev/null
		sleep 1
		kill -9 "$QEMU_PID" 2>/dev/null
	fi
	QEMU_PID=
}

# qemu_cmd DIR INITRD: the QEMU command line, into QEMU_CMD (and SMP_ARG) and
# DIR/qemu.cmd.
qemu_cmd() {
	# Memory: 2 GiB, plus 32 MiB per vCPU beyond 8 (per-CPU areas, torture kthreads).
	local mem=$((2048 + (SMP > 8 ? (SMP - 8) * 32 : 0)))
	SMP_ARG=$SMP
	[ -n "$MAXCPUS" ] && SMP_ARG="$SMP,maxcpus=$MAXCPUS"
	# Single-threaded TCG by default: with thread=multi, QEMU 7.2 lets a
	# vCPU run a stale int3 after the kernel's text_poke_bp() has finished
	# patching an ftrace site, so registering trcu's kprobes on hot
	# functions (__cond_resched, irq_enter_rcu, tick_nohz_idle_enter)
	# crashed the guest (RIP 0 / unhandled int3) in 2 of 2 boots of 60
	# insmod/rmmod cycles; thread=single ran 60 of 60 cleanly.
	local accel_arg="tcg,thread=single"
	[ "$ACCEL" = tcg-multi ] && accel_arg="tcg,thread=multi"
	[ "$ACCEL" = kvm ] && accel_arg=kvm
	# The debug kernel checks raw-lock nesting, and the 8250 console driver
	# of 6.1 takes a spinlock_t: any printk from hardirq (a slow hrtimer
	# interrupt's own warning under TCG, a stall warning from the tick)
	# would trip it.  There the kernel log goes through the early serial
	# console instead, which writes to the UART without a lock, and no
	# real console is enabled (no console is named "none").
	local console="console=ttyS0"
	[ "$KERNEL" = debug ] && console="earlyprintk=serial,ttyS0,115200,keep console=none"
	local append="$console cryptomgr.notests printk.time=1 panic=-1 oops=panic loglevel=7${BOOT_ARGS:+ $BOOT_ARGS}"
	QEMU_CMD=(qemu-system-x86_64 -accel "$accel_arg" -m "$mem" -smp "$SMP_ARG"
		-nodefaults -display none -no-reboot
		-kernel "$BZIMAGE" -initrd "$2" -append "$append"
		-serial "file:$1/console.log" -serial "file:$1/markers.log")
	# ICOUNT=shift: guest time is instructions (2^shift ns each), not the
	# host's clock, so a cost measured in the guest is an instruction count
	# that host load cannot change.  sleep=off: when every vCPU halts the
	# clock jumps to the next timer instead of waiting for the host.
	[ -n "$ICOUNT" ] && QEMU_CMD+=(-icount "shift=$ICOUNT,sleep=off")
	printf '%q ' "${QEMU_CMD[@]}" >"$1/qemu.cmd"
	echo >>"$1/qemu.cmd"
}

# fail_grace CONSOLE ELAPSED: when a torture has failed, how long it may go on.
# A torture that already failed does not get the whole watchdog: a broken
# trcu (the mutants) often cannot finish its callbacks, so the torture's end
# or the unload hangs.  After the first "!!!" line it gets the duration +
# 60 s, after its FAILURE end line 60 s (time for a hung-task report).  Not
# for script scenarios: they provoke failures on purpose.  Uses FAILED_AT and
# GRACE of watch_guest().
fail_grace() {
	[ -z "$SCRIPT" ] && [ "$GRACE" -ne 60 ] || return 0
	if grep -q 'End of test: FAILURE' "$1" 2>/dev/null; then
		FAILED_AT=$2
		GRACE=60
	elif [ -z "$FAILED_AT" ] && grep -q '!!!' "$1" 2>/dev/null; then
		FAILED_AT=$2
		GRACE=$((DURATION + 60))
	fi
}

# watch_guest DIR LABEL: wait for QEMU_PID; kill it when the watchdog or the
# failed-torture grace expires (KILLED says why).  Progress every 10 s.
watch_guest() {
	local dir=$1 label=$2 start=$SECONDS elapsed next=10 booted=''
	FAILED_AT='' GRACE=0 KILLED=''
	while kill -0 "$QEMU_PID" 2>/dev/null; do
		sleep 1
		elapsed=$((SECONDS - start))
		if [ -z "$booted" ] && grep -q 'TRCU-MARK: START' "$dir/markers.log" 2>/dev/null; then
			booted=$elapsed
			[ "$QUIET" -eq 0 ] && echo "  $label: reached /init after ${booted}s (wall)"
			echo "$booted" >"$dir/boot-seconds"
		fi
		fail_grace "$dir/console.log" "$elapsed"
		if [ -n "$FAILED_AT" ] && [ $((elapsed - FAILED_AT)) -ge "$GRACE" ]; then
			KILLED="guest killed after ${elapsed}s, ${GRACE}s after the torture failed"
		elif [ "$elapsed" -ge "$WATCHDOG" ]; then
			KILLED="watchdog: guest killed after ${elapsed}s"
		fi
		if [ -n "$KILLED" ]; then
			echo "  $label: $KILLED"
			cleanup
			break
		fi
		if [ "$QUIET" -eq 0 ] && [ "$elapsed" -ge "$next" ]; then
			echo "  $label +${elapsed}s: $(progress_of "$dir/console.log" "$dir/markers.log")"
			next=$((next + 10))
		fi
	done
	[ -n "$QEMU_PID" ] && wait "$QEMU_PID" 2>/dev/null
	QEMU_PID=
}

# boot_guest DIR LABEL IDX: build the initramfs, boot, watch; KILLED, WALL.
# Returns 1 (with HARNESS_ERROR) if the guest could not be started.
boot_guest() {
	local dir=$1 initrd=$1/initramfs.cpio.gz start=$SECONDS
	if ! "$TOP/guest/mkinitramfs.sh" "$initrd" "$TRCU_KO" "$TORTURE_KO" "$dir/scenario.env" \
		"${EXTRA_KOS[@]}" >"$dir/mkinitramfs.log" 2>&1; then
		cat "$dir/mkinitramfs.log" >&2
		HARNESS_ERROR="initramfs build failed"
		return 1
	fi
	qemu_cmd "$dir" "$initrd"
	: >"$dir/console.log"
	: >"$dir/markers.log"
	echo "[$3/${#J_SCEN[@]}] $2: smp $SMP_ARG, duration ${DURATION}s, watchdog ${WATCHDOG}s, results $dir"
	"${QEMU_CMD[@]}" </dev/null >"$dir/qemu.log" 2>&1 &
	QEMU_PID=$!
	watch_guest "$dir" "$2"
	WALL=$((SECONDS - start))
	rm -f "$initrd"
}

# judge_dir DIR LABEL: DIR/verdict.txt from DIR's scenario.env and logs, the
# same way scripts/recheck.sh judges it later.
judge_dir() {
	python3 "$TOP/scripts/verdict.py" --dir "$1" >"$1/verdict.txt"
	local rc=$?
	[ -s "$1/verdict.txt" ] && return "$rc"
	{
		echo "VERDICT $2: FAIL: harness: verdict.py failed (rc $rc)"
		printf 'RESULT\t%s\n' "$(python3 "$TOP/scripts/verdict.py" --make-row "$2" FAIL \
			"harness: verdict.py failed (rc $rc)")"
	} >"$1/verdict.txt"
	return 1
}

# run_one I: job I in its own directory: scenario.env, guest, verdict.txt.
# Runs in a subshell of the scheduler (run_jobs), so it may set globals.
# shellcheck disable=SC2034  # they reach scenario.env through env_lines
run_one() {
	local i=$1 label=${J_LABEL[$1]} dir=$RESULTS/${J_DIR[$1]}
	trap cleanup EXIT
	trap 'exit 143' TERM HUP
	trap '' INT
	load_scenario "${J_SCEN[$i]}" "${J_DUR[$i]}"
	SCENARIO=${J_SCEN[$i]} LABEL=$label EXPECT_FAIL=${J_XFAIL[$i]}
	MODULES=${J_MODS[$i]:-$MOD_SRC} HARNESS_ERROR='' KILLED='' WALL=0
	rm -rf "$dir"
	mkdir -p "$dir"
	# Everything the guest's /init reads, and everything the verdict needs
	# (scripts/recheck.sh judges the directory again from it).
	env_lines SCENARIO TRCU_ARGS TORTURE_ARGS DURATION GUEST_CMD GUEST_POST_CMD SCRIPT \
		SMP CYCLES LABEL KIND EXPECT_STALL EXPECT_FAIL KERNEL MAXCPUS BOOT_ARGS ICOUNT \
		WATCHDOG MODULES SEED >"$dir/scenario.env"
	if [ -n "$SCENARIO_ERROR" ]; then
		HARNESS_ERROR="guest/scenarios/$SCENARIO: $SCENARIO_ERROR"
	elif [ -n "$SCRIPT" ] && [ ! -f "$TOP/guest/tests/$SCRIPT.sh" ]; then
		HARNESS_ERROR="no guest/tests/$SCRIPT.sh"
	elif ! find_modules "$MODULES" 2>"$dir/modules.log"; then
		HARNESS_ERROR=$(head -n 1 "$dir/modules.log")
	else
		boot_guest "$dir" "$label" "$((i + 1))"
	fi
	env_lines KILLED WALL HARNESS_ERROR >>"$dir/scenario.env"
	judge_dir "$dir" "$label"
}

# report_job I: job I's verdict, its summary row, the counts (list order).
report_job() {
	local label=${J_LABEL[$1]} dir=$RESULTS/${J_DIR[$1]} row
	[ -s "$dir/verdict.txt" ] || {
		echo "VERDICT $label: FAIL: harness: the run ended without a verdict"
		printf 'RESULT\t%s\n' "$(python3 "$TOP/scripts/verdict.py" --make-row "$label" FAIL \
			"harness: the run ended without a verdict")"
	} >"$dir/verdict.txt"
	grep -E '^(VERDICT|RESULT)' "$dir/verdict.txt"
	row=$(python3 "$TOP/scripts/verdict.py" --row <"$dir/verdict.txt")
	echo "  $label: wall $(cut -f 6 <<<"$row")s, console $dir/console.log"
	printf '%s\n' "$row" >>"$RESULTS/summary.rows"
	if [ "$(cut -f 2 <<<"$row")" = PASS ]; then
		PASS=$((PASS + 1))
	else
		FAIL=$((FAIL + 1))
	fi
	python3 "$TOP/scripts/verdict.py" --summary "$RESULTS/summary.rows" >"$RESULTS/summary.txt"
}

# stop_jobs: end the running guests (each lane's trap kills its QEMU).
# shellcheck disable=SC2317  # called from traps
stop_jobs() {
	[ "${#RUNNING[@]}" -gt 0 ] || return 0
	kill -TERM "${RUNNING[@]}" 2>/dev/null
	wait "${RUNNING[@]}" 2>/dev/null
	RUNNING=()
}

# run_jobs: every job, JOBS guests at a time (one lane each); reports come in
# list order, each as soon as it and all before it have finished.
run_jobs() {
	local count=${#J_SCEN[@]} i=0 next=0 pid p
	local -a left
	local -A idx_of=() done_=()
	while [ "$next" -lt "$count" ]; do
		while [ "$i" -lt "$count" ] && [ "${#RUNNING[@]}" -lt "$JOBS" ]; do
			run_one "$i" &
			idx_of[$!]=$i
			RUNNING+=("$!")
			i=$((i + 1))
		done
		pid=
		wait -n -p pid "${RUNNING[@]}" 2>/dev/null
		left=()
		for p in "${RUNNING[@]}"; do
			# No pid: no child left to wait for (should not happen).
			if [ -z "$pid" ] || [ "$p" = "$pid" ]; then
				done_[${idx_of[$p]}]=1
			else
				left+=("$p")
			fi
		done
		RUNNING=("${left[@]}")
		while [ "$next" -lt "$i" ] && [ -n "${done_[$next]:-}" ]; do
			report_job "$next"
			next=$((next + 1))
		done
	done
}

# Everything runs inside main(), called on the file's last line, so bash has
# read the whole file before it starts: editing this script while a run is in
# progress cannot break that run.
main() {
	SCENARIOS=() OPT_DURATION='' OPT_SMP='' KERNEL=stock ACCEL=tcg RESULTS=''
	EXTRA_TRCU='' EXTRA_TORTURE='' EXTRA_BOOT='' MODULES_DIR='' NO_BUILD=0 NO_DEPS=0
	QUIET=0 JOBS=1 JOBS_FILE='' EXPECT_FAIL=0 DEBUG_OUT=''
	J_LABEL=() J_SCEN=() J_DIR=() J_DUR=() J_MODS=() J_XFAIL=() RUNNING=() PASS=0 FAIL=0
	parse_args "$@"
	add_jobs
	if [ "$NO_DEPS" -eq 0 ]; then
		"$TOP/scripts/deps.sh" || { echo "run-qemu: make deps failed" >&2; exit 1; }
	fi
	setup_kernel
	setup_modules
	[ -n "$RESULTS" ] || RESULTS=$TOP/results/$(date +%Y%m%d-%H%M%S)
	mkdir -p "$RESULTS" || exit 1
	RESULTS=$(cd "$RESULTS" && pwd)
	: >"$RESULTS/summary.rows"
	printf '%s\n' "${J_DIR[@]}" >"$RESULTS/jobs"
	trap stop_jobs EXIT
	trap 'stop_jobs; exit 130' INT
	trap 'stop_jobs; exit 143' TERM HUP
	run_jobs
	echo
	cat "$RESULTS/summary.txt"
	echo "$PASS passed, $FAIL failed"
	[ "$FAIL" -eq 0 ]
}

# One line: bash has read it completely before main runs.
main "$@"; exit "$?"
