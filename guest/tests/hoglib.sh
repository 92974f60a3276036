#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Helpers of the liveness scenarios (rtspin.sh, hogmore.sh, isolated.sh,
# irqsoff.sh, flood.sh), sourced after lib.sh; not a scenario of its own.  They drive
# trcuhog.ko (torture/trcuhog.c) and compare trcu with the kernel's RCU
# measured in the same load.
#
# The budget of every rate comparison (rate_budget):
#   - trcu's count of calls >= 1/5 of the kernel RCU's (a trcu that only
#     advances by a slow path, or every few seconds, is far below that;
#     the kernel's RCU under the same hog sets the pace the hardware and
#     TCG allow);
#   - trcu's longest single wait <= the kernel RCU's + 1 s (a wait that
#     lasts as long as the hog does is the failure shown);
#   - no call of either still in progress stuck_ms (1 s) after the end.

M=/lib/modules
HOG_LOG=

# hog_run SECS ARGS...: insmod trcuhog.ko ARGS, wait up to SECS s for its
# DONE line, rmmod it (waiting at most 60 s: a call stuck for good keeps
# the module).  HOG_LOG: its report lines.  0 if it loaded, reported and
# unloaded.
hog_run() {
	local secs=$1 n w=0 pid
	shift
	n=$(dmesg_lines)
	HOG_LOG=
	insmod $M/trcuhog.ko "$@" || return 1
	while [ "$w" -lt "$secs" ]; do
		dmesg_since "$n" | grep -q 'trcuhog: DONE' && break
		sleep 1
		w=$((w + 1))
	done
	HOG_LOG=$(dmesg_since "$n" | grep 'trcuhog: ' | sed 's/.*trcuhog: //')
	rmmod trcuhog &
	pid=$!
	w=0
	while kill -0 "$pid" 2>/dev/null && [ "$w" -lt 60 ]; do
		sleep 1
		w=$((w + 1))
	done
	if kill -0 "$pid" 2>/dev/null; then
		fail hog-rmmod "rmmod trcuhog still waiting after 60 s (a call stuck for good?)"
		return 1
	fi
	wait "$pid" || return 1
	echo "$HOG_LOG" | grep -q '^DONE' || return 1
}

# hog_flat: HOG_LOG on one line (for a detail).
hog_flat() {
	echo "$HOG_LOG" | tr '\n' ';'
}

# rate_val FLAVOR OP CPU KEY: KEY of the RATE line of that driver in HOG_LOG.
rate_val() {
	echo "$HOG_LOG" | grep "^RATE .* flavor=$1 op=$2 cpu=$3 " | head -n 1 |
		tr ' ' '\n' | sed -n "s/^$4=//p"
}

# rate_desc FLAVOR OP CPU: "n=.. max_us=.. stuck=.." of that driver.
rate_desc() {
	echo "$(rate_val "$1" "$2" "$3" n) $(rate_val "$1" "$2" "$3" max_us) $(rate_val "$1" "$2" "$3" stuck)" |
		awk '{ printf "n=%s max_us=%s stuck=%s", $1, $2, $3 }'
}

# rate_budget NAME EXTRA "FLAVOR OP CPU" "FLAVOR OP CPU": the first driver
# (trcu) against the second (the kernel's RCU), with the budget above;
# EXTRA goes in front of the detail.
rate_budget() {
	local name=$1 extra=$2 tn tm ts rn rm rs d why=
	# shellcheck disable=SC2086  # the triples are meant to split
	set -- $3 $4
	tn=$(rate_val "$1" "$2" "$3" n)
	tm=$(rate_val "$1" "$2" "$3" max_us)
	ts=$(rate_val "$1" "$2" "$3" stuck)
	rn=$(rate_val "$4" "$5" "$6" n)
	rm=$(rate_val "$4" "$5" "$6" max_us)
	rs=$(rate_val "$4" "$5" "$6" stuck)
	d="${extra:+$extra: }$1 $2 cpu$3 n=$tn max_us=$tm stuck=$ts; $4 $5 cpu$6 n=$rn max_us=$rm stuck=$rs"
	if [ -z "$tn" ] || [ -z "$rn" ] || [ -z "$tm" ] || [ -z "$rm" ]; then
		fail "$name" "no RATE line: $d"
		return
	fi
	[ "$ts" = 0 ] || why="$why; $1 call stuck"
	[ "$rs" = 0 ] || why="$why; $4 call stuck"
	[ $((tn * 5)) -ge "$rn" ] || why="$why; $1 n < 1/5 of $4's"
	[ "$tm" -le $((rm + 1000000)) ] || why="$why; $1 max_us > $4's + 1 s"
	pass_unless "$name" "$why" "$d"
}

# pass_unless NAME WHY DETAIL: pass NAME if WHY (reasons, each "; "-led) is
# empty, else fail it with the reasons in front of DETAIL.
pass_unless() {
	if [ -z "$2" ]; then
		pass "$1" "$3"
	else
		fail "$1" "${2#; }: $3"
	fi
}

# gp_where: both GP kthreads' last CPU and affinity, for a detail.
gp_where() {
	local k p
	for k in trcu_gp trcu_bh_gp; do
		p=$(gp_pid $k)
		printf '%s on cpu%s allowed %s, ' "$k" "$(last_cpu "$p")" "$(allowed "$p")"
	done | sed 's/, $//'
}

# gp_pid NAME: pid of the kthread called NAME (trcu_gp, trcu_bh_gp), or "".
gp_pid() {
	local f
	for f in /proc/[0-9]*/comm; do
		[ "$(cat "$f" 2>/dev/null)" = "$1" ] || continue
		f=${f#/proc/}
		echo "${f%/comm}"
		return
	done
}

# last_cpu PID: the CPU it last ran on (field 39 of /proc/PID/stat; the
# comm of a trcu kthread has no blank).
last_cpu() {
	awk '{ print $39 }' "/proc/$1/stat" 2>/dev/null
}

# allowed PID: its Cpus_allowed_list.
allowed() {
	sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "/proc/$1/status" 2>/dev/null
}

# cpus_of LIST: "0-2,5" -> "0 1 2 5".
cpus_of() {
	echo "$1" | tr ',' '\n' | awk -F- 'NF { hi = (NF > 1) ? $2 : $1;
		for (c = $1; c <= hi; c++) printf "%d ", c }'
}

# in_list CPU LIST: CPU is one of LIST's CPUs.
in_list() {
	case " $(cpus_of "$2") " in
	*" $1 "*) return 0 ;;
	esac
	return 1
}

# subset LIST1 LIST2: every CPU of LIST1 is in LIST2.
subset() {
	local c
	for c in $(cpus_of "$1"); do
		in_list "$c" "$2" || return 1
	done
	return 0
}

# stat_val FLAVOR KEY: KEY=value in FLAVOR's part of debugfs rcustats
# (from "FLAVOR: gps=" to the next flavour's line), or "".
stat_val() {
	awk -v f="$1:" -v k="$2" '
		/^[a-z_]+: gps=/ { inside = ($1 == f); next }
		inside { for (i = 1; i <= NF; i++) {
			split($i, a, "="); if (a[1] == k) { print a[2]; exit } } }' \
		/sys/kernel/debug/trcu/rcustats 2>/dev/null
}
