#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# DEBUGFS: ROUNDS rounds of: insmod trcu.ko trace=1 (fanout varies), let
# READERS background readers cat every file of /sys/kernel/debug/trcu/ in
# a tight loop while a background loop takes CPUs 1..N-1 offline and back
# online, then rmmod trcu under that load.  Inside each round:
#   - writing, truncating, removing and creating files there must fail
#     and leave the contents readable;
#   - a file held open pins trcu.ko: rmmod must fail while it is open;
#   - after closing it, rmmod is retried (EBUSY while a reader happens to
#     hold a file) until it works, at most 30 s.
# The readers keep running across unload and reload (their opens then
# fail, which is the point).  The verdict checks the console for oopses
# and warnings.
. /tests/lib.sh

M=/lib/modules
D=/sys/kernel/debug/trcu
ROUNDS=${ROUNDS:-6}
READERS=${READERS:-4}
cpus=$(grep -c ^processor /proc/cpuinfo)

# reader N: read every file in a loop; on TERM write the count of files
# read to /tmp/reads.N.
reader() {
	local n=0
	trap 'echo "$n" > /tmp/reads.$1; exit 0' TERM
	while :; do
		for f in "$D"/rcudata "$D"/rcugp "$D"/rcuhier; do
			cat "$f" >/dev/null 2>&1 && n=$((n + 1))
		done
	done
}

# hotplug: offline and online CPUs 1..cpus-1 in turn, forever; on TERM
# write the number of successful operations and bring every CPU back.
hotplug() {
	local n=0 c=1
	trap 'echo "$n" > /tmp/hotplug.ops; exit 0' TERM
	while :; do
		if echo 0 > /sys/devices/system/cpu/cpu$c/online 2>/dev/null; then
			n=$((n + 1))
		fi
		sleep 0.1
		if echo 1 > /sys/devices/system/cpu/cpu$c/online 2>/dev/null; then
			n=$((n + 1))
		fi
		c=$((c % (cpus - 1) + 1))
	done
}

# ro_checks R: every way to modify the trcu directory must fail.
ro_checks() {
	local r=$1 f bad=
	for f in rcudata rcugp rcuhier; do
		if echo 1 > "$D/$f" 2>/dev/null; then
			bad="$bad write:$f"
		fi
		if printf '' 2>/dev/null > "$D/$f"; then
			# O_TRUNC on a seq_file debugfs file has no effect, but
			# the open for writing itself must not succeed quietly
			# and then lose the contents.
			cat "$D/$f" | grep -q . || bad="$bad truncated:$f"
		fi
		if rm -f "$D/$f" 2>/dev/null && [ ! -e "$D/$f" ]; then
			bad="$bad removed:$f"
		fi
	done
	if touch "$D/newfile" 2>/dev/null || [ -e "$D/newfile" ]; then
		bad="$bad created:newfile"
	fi
	if mkdir "$D/newdir" 2>/dev/null; then
		bad="$bad created:newdir"
	fi
	if [ -n "$bad" ]; then
		fail "dfs-$r-readonly" "modified:$bad"
	else
		pass "dfs-$r-readonly" "write, truncate, rm, touch, mkdir all refused"
	fi
}

if [ "$cpus" -lt 2 ]; then
	fail dfs-cpus "needs 2 or more vCPUs"
	exit 1
fi
for f in /tmp/reads.* /tmp/hotplug.ops; do rm -f "$f"; done

pids=
i=1
while [ "$i" -le "$READERS" ]; do
	reader "$i" &
	pids="$pids $!"
	i=$((i + 1))
done
hotplug &
hp_pid=$!

r=1
for f in 2 4 8 64 3 16; do
	[ "$r" -le "$ROUNDS" ] || break
	if ! insmod "$M/trcu.ko" trace=1 fanout="$f"; then
		fail "dfs-$r-insmod" "insmod trcu.ko fanout=$f failed"
		break
	fi
	# Let the readers and the hotplug loop work on the loaded module.
	sleep 3
	ro_checks "$r"
	# A held-open file pins the module.
	exec 3< "$D/rcudata"
	if rmmod trcu 2>/dev/null; then
		fail "dfs-$r-pin" "rmmod trcu succeeded with a debugfs file open"
		exec 3<&-
		break
	fi
	# Read the held file after the failed rmmod: still valid.
	if cat <&3 | grep -q .; then
		pass "dfs-$r-pin" "rmmod refused while a file was open; the file still reads"
	else
		fail "dfs-$r-pin" "held file unreadable after the failed rmmod"
	fi
	exec 3<&-
	tries=0
	while ! rmmod trcu 2>/dev/null; do
		tries=$((tries + 1))
		if [ "$tries" -ge 300 ]; then
			break
		fi
		sleep 0.1
	done
	if [ -d /sys/module/trcu ]; then
		fail "dfs-$r-rmmod" "rmmod trcu still failing after $tries tries"
		break
	fi
	pass "dfs-$r-rmmod" "fanout=$f unloaded after $tries busy retries"
	if [ -e "$D" ]; then
		fail "dfs-$r-gone" "$D still exists after rmmod"
	fi
	r=$((r + 1))
done

kill -TERM $pids "$hp_pid"
wait
reads=0
for f in /tmp/reads.*; do
	[ -f "$f" ] && reads=$((reads + $(cat "$f")))
done
ops=$(cat /tmp/hotplug.ops 2>/dev/null)
# Bring every CPU back (the loop may have been stopped mid-way).
c=1
while [ "$c" -lt "$cpus" ]; do
	echo 1 > /sys/devices/system/cpu/cpu$c/online 2>/dev/null
	c=$((c + 1))
done
online=$(grep -c ^processor /proc/cpuinfo)
if [ "$reads" -gt 0 ] && [ "${ops:-0}" -gt 0 ] && [ "$online" -eq "$cpus" ]; then
	pass dfs-load "$reads file reads by $READERS readers, ${ops} CPU hotplug operations, $((r - 1)) load/unload rounds, $online CPUs online at the end"
else
	fail dfs-load "reads=$reads hotplug ops=${ops:-none} online=$online/$cpus"
fi
exit "$FAILED"
