#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The object graph of trcu.ko and its cycle check (a `make check` host item,
# also `make objgraph`).  An edge A -> B means A.o uses a symbol that B.o
# defines, as nm(1) reports them: the graph comes from the built objects,
# never from a hand-kept list.  trcu's files are meant to form layers (each
# calls only down), so that a part can be read, changed and tested without
# the ones above it; a cycle means two parts know each other.  Prints every
# edge, then either "no cycle" or each cycle found, and fails on a cycle.
#   scripts/objgraph-check.sh [DIR]   objects of DIR (default module/)
#   scripts/objgraph-check.sh DIR MOD the objects of module MOD only, as
#                                     DIR/Kbuild's "MOD-y :=" line lists
#                                     them (torture/ builds five modules)
# The objects must be built (make); the link output trcu.o and the
# generated trcu.mod.o are not part of the graph.
set -u

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DIR=${1:-$TOP/module}
MOD=${2:-}

objs=()
if [ -n "$MOD" ]; then
	for o in $(sed -n "s/^$MOD-y[[:space:]]*:=//p" "$DIR/Kbuild"); do
		[ -e "$DIR/$o" ] && objs+=("$DIR/$o")
	done
else
	for o in "$DIR"/*.o; do
		[ -e "$o" ] || continue		# no match: the pattern itself
		case "$(basename "$o")" in
		trcu.o | *.mod.o) continue ;;
		esac
		objs+=("$o")
	done
fi
if [ "${#objs[@]}" -eq 0 ]; then
	echo "objgraph: FAIL: no objects in $DIR (run make first)"
	exit 1
fi

# "name def|use symbol" lines, then the edges and a cycle search in awk.
for o in "${objs[@]}"; do
	name=$(basename "$o" .o)
	nm "$o" | awk -v n="$name" '
		$1 == "U" { print n, "use", $2; next }
		NF == 3 && $2 ~ /^[TDBRVW]$/ { print n, "def", $3 }'
done | awk '
	$2 == "def" { def[$3] = $1; nodes[$1] = 1; next }
	$2 == "use" { use[++nu] = $1 " " $3; nodes[$1] = 1 }
	END {
		for (i = 1; i <= nu; i++) {
			split(use[i], f, " ")
			if (!(f[2] in def) || def[f[2]] == f[1])
				continue
			e = f[1] " " def[f[2]]
			if (!(e in edge)) {
				edge[e] = f[2]
				ne++
			}
		}
		n = 0
		for (v in nodes)
			names[++n] = v
		# Sort node names (small n) for stable output.
		for (i = 1; i <= n; i++)
			for (j = i + 1; j <= n; j++)
				if (names[j] < names[i]) {
					t = names[i]; names[i] = names[j]; names[j] = t
				}
		printf "objgraph: %d objects, %d edges (A -> B (sym): A.o uses sym, one of the symbols B.o defines)\n", n, ne
		for (i = 1; i <= n; i++)
			for (j = 1; j <= n; j++) {
				e = names[i] " " names[j]
				if (e in edge)
					printf "  %s -> %s (%s)\n", names[i], names[j], edge[e]
			}
		# Depth-first search; a back edge closes a cycle, printed
		# from the stack.  Each distinct cycle is printed once.
		for (i = 1; i <= n; i++)
			color[names[i]] = 0
		ncyc = 0
		for (i = 1; i <= n; i++) {
			if (color[names[i]])
				continue
			sp = 0
			stack[++sp] = names[i]; idx[sp] = 0
			color[names[i]] = 1
			while (sp > 0) {
				v = stack[sp]
				if (idx[sp] >= n) {
					color[v] = 2
					sp--
					continue
				}
				w = names[++idx[sp]]
				if (!((v " " w) in edge))
					continue
				if (color[w] == 1) {
					c = ""
					for (k = 1; k <= sp; k++)
						if (stack[k] == w)
							break
					for (; k <= sp; k++)
						c = c stack[k] " -> "
					c = c w
					if (!(c in seen)) {
						seen[c] = 1
						ncyc++
						printf "objgraph: cycle: %s\n", c
					}
				} else if (color[w] == 0) {
					color[w] = 1
					stack[++sp] = w; idx[sp] = 0
				}
			}
		}
		if (ncyc) {
			printf "objgraph: FAIL: %d cycles\n", ncyc
			exit 1
		}
		printf "objgraph: no cycle: %d objects, %d edges\n", n, ne
	}'
