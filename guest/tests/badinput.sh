#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# BADINPUT: every trcu.ko and trcutorture.ko parameter gets 0, 1, 65, -1,
# a number beyond 32 bits, a word and an empty value, plus boundaries and
# combinations.  A refused value must fail insmod with the expected errno,
# leave no module behind and log exactly one "<module>: " line naming the
# parameter (our own checks also name the allowed range; the kernel's own
# parser, which rejects what is not an int before our code runs, names the
# parameter and the value).  An accepted value must load and unload (and a
# torture with it must end in SUCCESS).  At the end a normal load and a
# short torture must still work: the guest survived.
#
# Expectation codes (busybox insmod prints strerror of the errno):
#   o  loads and unloads
#   E  EINVAL   "Invalid argument"  (our range check, or not an int)
#   R  ERANGE   "Numerical result out of range" (kstrtoint: beyond 32 bits)
#   W  loads: the kernel ignores an unknown parameter with a warning
. /tests/lib.sh

M=/lib/modules
HUGE=99999999999
NOK=0
NBAD=0

# The guest is slow (TCG, a loaded host): every fork counts, so try()
# uses shell pattern matching and one awk per row.
is_loaded() { [ -d "/sys/module/$1" ]; }

# errno_ok CODE OUTPUT: does insmod's message match the expected errno?
errno_ok() {
	case "$1:$2" in
	E:*'Invalid argument'*|R:*'out of range'*) return 0 ;;
	esac
	return 1
}

# mod_lines MOD: the distinct "MOD: " lines of the log, without timestamps.
# busybox insmod tries finit_module() and, when that fails, init_module():
# the kernel refuses twice and logs the same line twice.
mod_lines() {
	dmesg | awk -v m="] $1: " 'index($0, m) {
		sub(/^\[[^]]*\] /, "")
		if (!seen[$0]++)
			print
	}'
}

# try MOD CODE NAME ARGS...: insmod MOD.ko ARGS, judge against CODE (see
# the top); NAME is the parameter the error line must name.
try() {
	local mod=$1 code=$2 name=$3 tag out rc lines line
	shift 3
	tag="$mod:$*"
	# shellcheck disable=SC3060  # busybox ash has it; saves a fork
	tag=${tag// /,}
	# A fresh log per row (cheaper than diffing a growing one; the host
	# judges the console, not this buffer).
	dmesg -c >/dev/null
	# A light torture first (the row's own values come later and win):
	# seven spinning readers would leave the shell little CPU in TCG.
	[ "$mod" = trcutorture ] && set -- nreaders=1 nfakewriters=1 "$@"
	insmod "$M/$mod.ko" "$@" </dev/null >/tmp/insmod.out 2>&1
	rc=$?
	read -r out </tmp/insmod.out
	lines=$(mod_lines "$mod")
	if [ "$code" = W ]; then
		# The kernel ignores unknown module parameters with a warning
		# (unknown_module_param_cb()): they cannot be refused.
		if [ "$rc" -ne 0 ]; then
			fail "bad-$tag" "refused: rc=$rc $out"
		else
			case "$lines" in
			*"unknown parameter '$name' ignored"*)
				if rmmod "$mod"; then
					pass "bad-$tag" "loaded with the kernel's warning: unknown parameter '$name' ignored"
				else
					fail "bad-$tag" "rmmod failed"
				fi ;;
			*)
				fail "bad-$tag" "no 'unknown parameter' warning"
				rmmod "$mod" ;;
			esac
		fi
		return
	fi
	if [ "$code" = o ]; then
		if [ "$rc" -ne 0 ]; then
			fail "bad-$tag" "refused a valid value: rc=$rc $out; $lines"
			return
		fi
		if [ "$mod" = trcutorture ]; then
			rmmod trcutorture
			rc=$?
			line=$(dmesg | grep -e '-torture:--- End of test' -e '!!!')
			if [ "$rc" -ne 0 ]; then
				fail "bad-$tag" "loaded but rmmod failed rc=$rc"
				return
			fi
			case "$line" in
			*'End of test: SUCCESS'*)
				NOK=$((NOK + 1))
				pass "bad-$tag" "loaded, torture SUCCESS, unloaded" ;;
			*)
				fail "bad-$tag" "torture did not end in SUCCESS: $line" ;;
			esac
		else
			case "$lines" in
			*'trcu: loaded:'*) ;;
			*)
				fail "bad-$tag" "no 'trcu: loaded:' line"
				rmmod trcu
				return ;;
			esac
			if rmmod trcu; then
				NOK=$((NOK + 1))
				pass "bad-$tag" "loaded and unloaded"
			else
				fail "bad-$tag" "loaded but rmmod failed"
			fi
		fi
		return
	fi
	# Refusals.
	if [ "$rc" -eq 0 ]; then
		fail "bad-$tag" "accepted an invalid value (want $code)"
		rmmod "$mod"
		return
	fi
	if is_loaded "$mod"; then
		fail "bad-$tag" "insmod failed but $mod is still listed"
		return
	fi
	if ! errno_ok "$code" "$out"; then
		fail "bad-$tag" "wrong error (want $code): $out"
		return
	fi
	line=${lines%%
*}
	if [ "$line" != "$lines" ] || [ -z "$line" ]; then
		fail "bad-$tag" "want exactly one distinct '$mod:' line, got: $lines"
		return
	fi
	# It names the parameter and is ours, "invalid NAME=V: allowed range
	# LO..HI" (or the flavour list; qlowmark's names qhimark too), or the
	# kernel parser's "`V' invalid for parameter `NAME'".
	case "$line" in
	*"$name"*) ;;
	*)
		fail "bad-$tag" "does not name $name: $line"
		return ;;
	esac
	case "$line" in
	*"invalid "*=*": allowed"*|*"invalid "*=*": must be one of"*|*"invalid for parameter"*) ;;
	*)
		fail "bad-$tag" "unclear message: $line"
		return ;;
	esac
	NBAD=$((NBAD + 1))
	pass "bad-$tag" "$code: $line"
}

# Every parameter a matrix covered, as mod.param (see check_covered()).
MATRIX_PARAMS=
# check_covered MOD: each parameter MOD shows in sysfs was in its matrix.
check_covered() {
	local p missing=
	for p in /sys/module/"$1"/parameters/*; do
		[ -e "$p" ] || continue
		case " $MATRIX_PARAMS " in
		*" $1.${p##*/} "*) ;;
		*) missing="$missing ${p##*/}" ;;
		esac
	done
	if [ -n "$missing" ]; then
		fail "bad-$1-covered" "parameters not in the table:$missing"
	else
		pass "bad-$1-covered" "every parameter of $1 tried"
	fi
}

# matrix MOD: stdin rows "param e0 e1 e65 e-1 ehuge eabc eempty".
matrix() {
	local mod=$1 param codes v c
	while read -r param codes; do
		case "$param" in ''|'#'*) continue ;; esac
		MATRIX_PARAMS="$MATRIX_PARAMS $mod.$param"
		# shellcheck disable=SC2086  # the codes are words
		set -- $codes
		for v in 0 1 65 -1 "$HUGE" abc EMPTY; do
			c=$1
			shift
			[ "$v" = EMPTY ] && v=
			try "$mod" "$c" "$param" "$param=$v"
		done
	done
}

# rows: stdin rows "mod code name args..." (boundaries and combinations).
rows() {
	local mod code name args
	while read -r mod code name args; do
		case "$mod" in ''|'#'*) continue ;; esac
		# shellcheck disable=SC2086
		try "$mod" "$code" "$name" $args
	done
}

cpus=$(grep -c ^processor /proc/cpuinfo)
if [ "$cpus" -ne 8 ]; then
	fail bad-cpus "needs 8 vCPUs, has $cpus"
	exit 1
fi

# Baseline first: the first load also prints the one-time taint and
# signature lines, which must not count against a refusal's single line.
try trcu o - trace=1
insmod "$M/trcu.ko" </dev/null
try trcutorture o - duration=1
rmmod trcu

# ---- trcu.ko: the table ------------------------------------------------
# HZ is 250 on Debian's kernels: jiffies_till_force_qs allows 1..250.
# qhimark=1 and 65 are refused because the default qlowmark (100) then
# exceeds qhimark.
#  param                   0 1 65 -1 huge abc empty
matrix trcu <<'EOF'
fanout                     E E E  E  R    E   E
fanout_leaf                o E E  E  R    E   E
fanout_exact               o o E  E  R    E   E
dynticks                   o o E  E  R    E   E
stall_timeout              o o o  E  R    E   E
jiffies_till_force_qs      E o o  E  R    E   E
jiffies_till_first_fqs     E o o  E  R    E   E
kfree_nobatch              o o E  E  R    E   E
kthread_prio               o o o  E  R    E   E
batch_us                   E E E  E  R    E   E
blimit                     E o o  E  R    E   E
qhimark                    E E E  E  R    E   E
qlowmark                   o o o  E  R    E   E
trace                      o o E  E  R    E   E
EOF

rows <<'EOF'
# mod code name args
trcu o fanout fanout=2
trcu o fanout fanout=64
trcu R fanout fanout=3000000000
trcu E fanout fanout
trcu o fanout fanout=0x10
trcu o fanout_leaf fanout=2 fanout_leaf=64
trcu o fanout_leaf fanout=64 fanout_leaf=2
trcu o fanout_leaf fanout=2 fanout_leaf=2 fanout_exact=1
trcu o stall_timeout stall_timeout=300
trcu E stall_timeout stall_timeout=301
trcu o jiffies_till_force_qs jiffies_till_force_qs=250
trcu E jiffies_till_force_qs jiffies_till_force_qs=251
trcu o jiffies_till_first_fqs jiffies_till_first_fqs=250
trcu E jiffies_till_first_fqs jiffies_till_first_fqs=251
trcu o kthread_prio kthread_prio=99
trcu E kthread_prio kthread_prio=100
trcu o batch_us batch_us=100
trcu o batch_us batch_us=100000
trcu E batch_us batch_us=100001
trcu o blimit blimit=10000
trcu E blimit blimit=10001
trcu o qhimark qhimark=100
trcu o qhimark qhimark=10000000
trcu E qhimark qhimark=10000001
trcu o qlowmark qhimark=60 qlowmark=60
trcu E qlowmark qhimark=50 qlowmark=60
trcu E qlowmark qlowmark=10001
trcu E fanout fanout=1 blimit=0
trcu W bogus bogus=1
EOF

# ---- trcutorture.ko ----------------------------------------------------
# Without trcu.ko its trcu symbols are unresolved: insmod must fail.
n=$(dmesg_lines)
if out=$(insmod "$M/trcutorture.ko" </dev/null 2>&1); then
	fail bad-torture-without-trcu "loaded without trcu.ko"
	rmmod trcutorture
elif is_loaded trcutorture; then
	fail bad-torture-without-trcu "still listed after a failed insmod"
elif ! dmesg_since "$n" | grep -q 'trcutorture: Unknown symbol'; then
	fail bad-torture-without-trcu "no 'Unknown symbol' line: $out"
else
	pass bad-torture-without-trcu "$out"
fi

if ! insmod "$M/trcu.ko" </dev/null; then
	fail bad-trcu-reload "insmod trcu.ko failed"
	exit 1
fi
check_covered trcu
#  param                   0 1 65 -1 huge abc empty
matrix trcutorture <<'EOF'
torture_type               E E E  E  E    E   E
nreaders                   E o o  o  R    E   E
nfakewriters               o o E  E  R    E   E
irqreader                  o o E  E  R    E   E
nmireader                  o o E  E  R    E   E
n_barrier_cbs              o o E  E  R    E   E
fwd_progress               o o E  E  R    E   E
onoff_interval             o o o  E  R    E   E
onoff_holdoff              o o o  E  R    E   E
test_no_idle_hz            o o E  E  R    E   E
stutter                    o o o  E  R    E   E
stall_cpu                  o o E  E  R    E   E
stall_cpu_holdoff          o o o  E  R    E   E
stat_interval              o o o  E  R    E   E
duration                   o o o  E  R    E   E
long_reads                 o o o  E  R    E   E
onoff_leaf                 o o E  E  R    E   E
onoff_cbs                  o o o  E  R    E   E
onoff_barrier              o E E  E  R    E   E
seed                       o o o  E  o    E   E
choice_log                 o o o  E  R    E   E
max_gp_ms                  o o o  o  R    E   E
EOF

rows <<'EOF'
trcutorture o torture_type torture_type=trcu_bh
trcutorture o torture_type torture_type=rcu
trcutorture o torture_type torture_type=rcu_bh
trcutorture o torture_type torture_type=srcu
trcutorture E torture_type torture_type=nope nreaders=2
trcutorture o nreaders nreaders=256
trcutorture E nreaders nreaders=257
trcutorture E nreaders nreaders=-2
trcutorture E nreaders nreaders=99999
trcutorture o nfakewriters nfakewriters=64
trcutorture o n_barrier_cbs n_barrier_cbs=64
trcutorture o onoff_interval onoff_interval=3600000
trcutorture E onoff_interval onoff_interval=3600001
trcutorture o stall_cpu stall_cpu=20
trcutorture E stall_cpu stall_cpu=21
trcutorture E duration duration=86401
trcutorture o onoff_leaf onoff_leaf=64
trcutorture E onoff_cbs onoff_cbs=10001
trcutorture o onoff_barrier onoff_barrier=1 onoff_interval=1000 onoff_cbs=1
trcutorture E onoff_barrier onoff_barrier=1 onoff_interval=1000
trcutorture E onoff_barrier onoff_barrier=1 onoff_cbs=1
trcutorture o seed seed=18446744073709551615
trcutorture R seed seed=18446744073709551616
trcutorture o choice_log choice_log=100000
trcutorture E choice_log choice_log=100001
trcutorture E max_gp_ms max_gp_ms=-2
trcutorture W bogus bogus=1
EOF

# ---- still alive: a normal torture, then unload -------------------------
n=$(dmesg_lines)
if insmod "$M/trcutorture.ko" duration=3 stat_interval=1 </dev/null; then
	check_covered trcutorture
	w=0
	while [ "$w" -lt 60 ] && ! dmesg_since "$n" | grep -q -e '-torture:--- End of test'; do
		sleep 1
		w=$((w + 1))
	done
	rmmod trcutorture
	if dmesg_since "$n" | grep -q -e 'trcu-torture:--- End of test: SUCCESS'; then
		pass bad-still-alive "3 s torture SUCCESS after $NBAD refusals and $NOK good loads"
	else
		fail bad-still-alive "final torture did not succeed"
	fi
else
	fail bad-still-alive "final insmod trcutorture failed"
fi
check bad-final-rmmod rmmod trcu
mark "BADINPUT refused $NBAD, accepted $NOK"
exit "$FAILED"
