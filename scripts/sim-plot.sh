#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make sim`: trcu's engine in the host simulator at 8, 64, 512, 4096 and
# 8192 CPUs, fanout 64, 16, 4 and the single-node shape that stands for
# Classic RCU (one rcu_node: fanout >= CPUs, which a 64-bit qsmask allows
# only up to 64 CPUs), under two loads:
#   sync   one synchronize_trcu() after another, all other CPUs idle (as
#          make bench's root-lock rows: "idle readers")
#   mixed  half the CPUs busy, every CPU posting callbacks, floods,
#          synchronize callers, irqs and NMIs on idle CPUs
# Writes results/sim-<timestamp>/sim.txt (the table, each column beside
# the article's claim it tests), sim.csv and sim.png (gnuplot: root-lock
# acquisitions per GP and GP latency against CPUs).
#   SIM_GPS   grace periods per run (default 100)
#   SIM_SEED  seed of every run (default 1)
set -u

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$TOP" || exit 1
GPS=${SIM_GPS:-100}
SEED=${SIM_SEED:-1}
make -s -C sim || exit 1
res=$TOP/results/sim-$(date +%Y%m%d-%H%M%S)
mkdir -p "$res"
csv=$res/sim.csv
echo "load,cpus,shape,fanout,levels,root_children,root_locks_per_gp,gp_ticks_median,fqs_per_gp,idle_wakeups_per_gp,nudges_per_gp,errors,root_locks_call_per_gp" >"$csv"

field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$2"; }

errors=0
for load in sync mixed; do
	if [ "$load" = sync ]; then largs=(--load sync --idle 100); else largs=(--load mixed --idle 50); fi
	for cpus in 8 64 512 4096 8192; do
		for shape in 64 16 4 single; do
			if [ "$shape" = single ]; then
				[ "$cpus" -le 64 ] || continue
				fan=64
			else
				fan=$shape
			fi
			line=$(./sim/trcu-sim --cpus "$cpus" --fanout "$fan" --gps "$GPS" \
				--seed "$SEED" "${largs[@]}" | grep '^RESULT ')
			e=$(field errors "$line")
			[ "${e:-1}" = 0 ] || errors=$((errors + 1))
			echo "$load,$cpus,$shape,$fan,$(field levels "$line"),$(field root_children "$line"),$(field root_locks_per_gp "$line"),$(field gp_ticks_median "$line"),$(field fqs_per_gp "$line"),$(field idle_wakeups_per_gp "$line"),$(field nudges_per_gp "$line"),$e,$(field root_locks_call_per_gp "$line")" >>"$csv"
		done
	done
done

# The table: each measured column beside the claim it tests.
python3 - "$csv" >"$res/sim.txt" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print("trcu-sim: trcu's engine (module/*.c, unchanged) on simulated CPUs; per grace period of trcu")
print()
print("Claims tested (Hierarchical RCU, 2008):")
print("  A  the root rcu_node lock is taken about once per root child per GP, not once per")
print("     CPU as Classic RCU's one lock: root locks / root children stays near 1 (+ the")
print("     GP kthread's 4 and the updater's 1) however many CPUs there are")
print("  B  GP latency grows with the tree's depth, not with the CPU count")
print("  C  dynticks-idle CPUs are not woken to end a GP (0 idle wakeups per GP)")
print()
for load in ("sync", "mixed"):
    print("load %s:" % load)
    print("  %-5s %-6s %3s %5s | %9s %10s %9s | %8s %8s | %8s %7s | %s" % (
        "CPUs", "shape", "lvl", "kids", "A:root/GP", "A:per kid", "A:in call",
        "B:GPtick", "B:vs 8", "C:woken", "nudges", "errors"))
    base = {}
    for r in rows:
        if r["load"] != load:
            continue
        if r["cpus"] == "8":
            base[r["shape"]] = float(r["gp_ticks_median"] or 0)
        kids = int(r["root_children"] or 1)
        rl = float(r["root_locks_per_gp"] or 0)
        gt = float(r["gp_ticks_median"] or 0)
        b = base.get(r["shape"]) or 0
        print("  %-5s %-6s %3s %5s | %9.2f %10.2f %9s | %8.1f %8s | %8.2f %7s | %s" % (
            r["cpus"], r["shape"], r["levels"], kids, rl, rl / kids,
            r["root_locks_call_per_gp"], gt,
            ("x%.2f" % (gt / b)) if b else "-", float(r["idle_wakeups_per_gp"] or 0),
            r["nudges_per_gp"], r["errors"]))
    print()
print("single = one rcu_node (fanout 64 >= CPUs), Classic RCU's shape: not buildable past")
print("64 CPUs (a qsmask has 64 bits).  kids = root children (CPUs for a single node).")
print("A:in call = root locks per GP taken inside call_trcu() (trcu_request_gp()).")
PY

# The plot: root locks per GP and GP latency against CPUs, per shape and
# load; one data file per line (gnuplot joins the points of a file).
for load in sync mixed; do
	for shape in 64 16 4 single; do
		awk -F, -v l="$load" -v s="$shape" '$1 == l && $3 == s { print $2, $7, $8 }' \
			"$csv" >"$res/$load-$shape.dat"
	done
done
gp=$res/sim.gp
{
	echo "set terminal png size 1200,900 noenhanced"
	echo "set output '$res/sim.png'"
	echo "set multiplot layout 2,2 title 'trcu-sim: engine of trcu.ko on simulated CPUs (seed $SEED, $GPS GPs per point)'"
	echo "set logscale x 2; set key top left; set xlabel 'CPUs'; set grid"
	for load in sync mixed; do
		echo "set title 'root-lock acquisitions per GP, load $load'; set logscale y"
		echo "plot for [s in '64 16 4 single'] '$res/$load-'.s.'.dat' using 1:2 with linespoints title 'fanout '.s"
		echo "set title 'GP latency (median, jiffies), load $load'; unset logscale y"
		echo "plot for [s in '64 16 4 single'] '$res/$load-'.s.'.dat' using 1:3 with linespoints title 'fanout '.s"
	done
	echo "unset multiplot"
} >"$gp"
gnuplot "$gp" || echo "sim: gnuplot failed" >&2
cat "$res/sim.txt"
echo "sim: $res/sim.txt, sim.csv, sim.png; $errors runs with errors"
[ "$errors" -eq 0 ]
