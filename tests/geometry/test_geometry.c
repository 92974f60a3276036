// SPDX-License-Identifier: GPL-2.0
/*
 * Host test of module/geometry.c: every shape from 1 to 8192 CPUs, fanout
 * 2..64, exact and balanced, some fanout_leaf != fanout, bad arguments,
 * and the seed's trace.txt rcuhier example for 128 CPUs at fanout 6.
 *
 * Usage: test_geometry EXPECTED-RCUHIER-FILE [ACTUAL-OUTPUT-FILE]
 * Prints "geometry: N cases ok" and exits 0, or lists failures and exits 1.
 *
 *        test_geometry --layout NR_CPUS FANOUT FANOUT_LEAF EXACT
 * prints the node lines rcuhier shows for that shape with the
 * "qsmask/qsmaskinit " fields left out, to check a guest's rcuhier against
 * (strip those fields from it with sed -E 's/[0-9a-f]+\/[0-9a-f]+ //g').
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../module/geometry.h"

#define MAX_NODES	(2 * TRCU_GEOM_MAX_CPUS)

static unsigned long cases;
static unsigned long failures;
static struct trcu_geom_node nodes[MAX_NODES];
static int nchildren[MAX_NODES];
static int cpu_seen[TRCU_GEOM_MAX_CPUS];

#define FAIL(g, ...)							\
	do {								\
		if (failures++ < 20) {					\
			fprintf(stderr, "FAIL n=%d f=%d fl=%d ex=%d: ",	\
				(g)->nr_cpus, (g)->fanout,		\
				(g)->fanout_leaf, (g)->exact);		\
			fprintf(stderr, __VA_ARGS__);			\
			fputc('\n', stderr);				\
		}							\
		return;							\
	} while (0)

static int div_up(int a, int b)
{
	return (a + b - 1) / b;
}

/* Capacity of @levels levels, saturated well above TRCU_GEOM_MAX_CPUS. */
static long capacity(int levels, int f, int fl)
{
	long cap = fl;
	int i;

	for (i = 1; i < levels && cap <= TRCU_GEOM_MAX_CPUS; i++)
		cap *= f;
	return cap;
}

/* Checks on the per-level arrays only: cheap, run for every case. */
static void check_levels(const struct trcu_geom *g, int n, int f, int fl,
			 int exact)
{
	int below = n;
	int sum = 0;
	int i;

	if (g->nr_cpus != n || g->fanout != f || g->fanout_leaf != fl ||
	    g->exact != exact)
		FAIL(g, "parameters not recorded");
	if (g->levels < 1 || g->levels > TRCU_GEOM_MAX_LEVELS)
		FAIL(g, "levels %d out of range", g->levels);
	if (capacity(g->levels, f, fl) < n)
		FAIL(g, "%d levels cannot hold %d CPUs", g->levels, n);
	if (g->levels > 1 && capacity(g->levels - 1, f, fl) >= n)
		FAIL(g, "%d levels not minimal", g->levels);
	if (g->level_cnt[0] != 1)
		FAIL(g, "%d roots", g->level_cnt[0]);

	for (i = g->levels - 1; i >= 0; i--) {
		int fan = i == g->levels - 1 ? fl : f;
		int cnt = g->level_cnt[i];
		int s = g->level_spread[i];

		if (cnt < 1 || s < 1 || s > fan)
			FAIL(g, "level %d: cnt %d spread %d", i, cnt, s);
		if (exact && s != fan)
			FAIL(g, "level %d: exact spread %d != %d", i, s, fan);
		if (!exact && s != div_up(below, cnt))
			FAIL(g, "level %d: balanced spread %d, want %d",
			     i, s, div_up(below, cnt));
		/* Enough nodes for what is below, and none left empty. */
		if ((long)cnt * s < below || (long)(cnt - 1) * s >= below)
			FAIL(g, "level %d: %d nodes of %d for %d below",
			     i, cnt, s, below);
		below = cnt;
	}
	for (i = 0; i < g->levels; i++) {
		if (g->level_first[i] != sum)
			FAIL(g, "level_first[%d] %d, want %d", i,
			     g->level_first[i], sum);
		sum += g->level_cnt[i];
	}
	if (sum != g->nr_nodes || g->nr_nodes > MAX_NODES)
		FAIL(g, "nr_nodes %d, levels sum to %d", g->nr_nodes, sum);
}

/*
 * Walk all nodes: ranges partition each level, children partition their
 * parent's range in grpnum order, masks and parents consistent.  With
 * @all_cpus, also look up every CPU; otherwise only each leaf's ends.
 */
static void check_nodes(const struct trcu_geom *g, int all_cpus)
{
	struct trcu_geom_node bad;
	int leaf_lvl = g->levels - 1;
	int idx, cpu;

	for (idx = 0; idx < g->nr_nodes; idx++) {
		struct trcu_geom_node *n = &nodes[idx];
		struct trcu_geom_node *prev = idx ? &nodes[idx - 1] : NULL;
		struct trcu_geom_node *p;

		trcu_geom_node(g, idx, n);
		nchildren[idx] = 0;
		if (n->level < 0 || n->level >= g->levels ||
		    idx < g->level_first[n->level] ||
		    idx >= g->level_first[n->level] + g->level_cnt[n->level])
			FAIL(g, "node %d: level %d", idx, n->level);
		if (n->grplo > n->grphi || n->grplo < 0 ||
		    n->grphi >= g->nr_cpus)
			FAIL(g, "node %d: range %d:%d", idx, n->grplo,
			     n->grphi);
		/* Level starts at CPU 0; a level's nodes are contiguous. */
		if (idx == g->level_first[n->level]) {
			if (n->grplo != 0)
				FAIL(g, "node %d starts level at %d", idx,
				     n->grplo);
			if (prev && prev->grphi != g->nr_cpus - 1)
				FAIL(g, "level before %d ends at %d", idx,
				     prev->grphi);
		} else if (n->grplo != prev->grphi + 1) {
			FAIL(g, "node %d: %d:%d after %d:%d", idx,
			     n->grplo, n->grphi, prev->grplo, prev->grphi);
		}
		if (n->level == 0) {
			if (n->parent != -1 || n->grpnum != 0 ||
			    n->grpmask != 0)
				FAIL(g, "root: parent %d grpnum %d", n->parent,
				     n->grpnum);
			continue;
		}
		if (n->parent < g->level_first[n->level - 1] ||
		    n->parent >= g->level_first[n->level])
			FAIL(g, "node %d: parent %d", idx, n->parent);
		p = &nodes[n->parent];
		if (n->grpnum != nchildren[n->parent]++)
			FAIL(g, "node %d: grpnum %d, position %d", idx,
			     n->grpnum, nchildren[n->parent] - 1);
		if (n->grpnum >= g->level_spread[n->level - 1] ||
		    n->grpmask != 1UL << n->grpnum)
			FAIL(g, "node %d: grpnum %d grpmask %lx", idx,
			     n->grpnum, n->grpmask);
		if (n->grpnum == 0 && n->grplo != p->grplo)
			FAIL(g, "node %d: first child at %d, parent at %d",
			     idx, n->grplo, p->grplo);
		if (n->grphi > p->grphi)
			FAIL(g, "node %d: ends %d past parent %d", idx,
			     n->grphi, p->grphi);
	}
	if (nodes[g->nr_nodes - 1].grphi != g->nr_cpus - 1)
		FAIL(g, "leaves end at %d", nodes[g->nr_nodes - 1].grphi);

	/* Every parent got at least one child; last children close it. */
	for (idx = 0; idx < g->level_first[leaf_lvl]; idx++) {
		if (nchildren[idx] < 1 ||
		    nchildren[idx] > g->level_spread[nodes[idx].level])
			FAIL(g, "node %d has %d children", idx,
			     nchildren[idx]);
	}
	for (idx = 1; idx < g->nr_nodes; idx++) {
		int last = idx + 1 == g->nr_nodes ||
			   nodes[idx + 1].parent != nodes[idx].parent;

		if (last && nodes[idx].grphi != nodes[nodes[idx].parent].grphi)
			FAIL(g, "node %d: last child ends %d, parent %d", idx,
			     nodes[idx].grphi,
			     nodes[nodes[idx].parent].grphi);
	}

	/* Leaves: size within the leaf spread, lookups agree with ranges. */
	for (idx = g->level_first[leaf_lvl]; idx < g->nr_nodes; idx++) {
		struct trcu_geom_node *n = &nodes[idx];

		if (n->grphi - n->grplo + 1 > g->level_spread[leaf_lvl])
			FAIL(g, "leaf %d: %d CPUs", idx,
			     n->grphi - n->grplo + 1);
		if (all_cpus)	/* looked up one by one below */
			continue;
		if (trcu_geom_leaf_of_cpu(g, n->grplo) != idx ||
		    trcu_geom_leaf_of_cpu(g, n->grphi) != idx ||
		    trcu_geom_cpu_bit(g, n->grplo) != 0 ||
		    trcu_geom_cpu_bit(g, n->grphi) != n->grphi - n->grplo)
			FAIL(g, "leaf %d: lookups of %d:%d disagree", idx,
			     n->grplo, n->grphi);
	}
	if (all_cpus) {
		memset(cpu_seen, 0, sizeof(cpu_seen));
		for (idx = g->level_first[leaf_lvl]; idx < g->nr_nodes; idx++)
			for (cpu = nodes[idx].grplo; cpu <= nodes[idx].grphi;
			     cpu++)
				cpu_seen[cpu]++;
		for (cpu = 0; cpu < g->nr_cpus; cpu++) {
			int leaf = trcu_geom_leaf_of_cpu(g, cpu);

			if (cpu_seen[cpu] != 1)
				FAIL(g, "CPU %d in %d leaves", cpu,
				     cpu_seen[cpu]);
			if (leaf < g->level_first[leaf_lvl] ||
			    leaf >= g->nr_nodes ||
			    cpu < nodes[leaf].grplo ||
			    cpu > nodes[leaf].grphi ||
			    trcu_geom_cpu_bit(g, cpu) !=
			    cpu - nodes[leaf].grplo)
				FAIL(g, "CPU %d: leaf %d bit %d", cpu, leaf,
				     trcu_geom_cpu_bit(g, cpu));
		}
	}

	/* Out-of-range lookups are refused. */
	trcu_geom_node(g, g->nr_nodes, &bad);
	if (bad.level != -1 || trcu_geom_leaf_of_cpu(g, -1) != -1 ||
	    trcu_geom_leaf_of_cpu(g, g->nr_cpus) != -1 ||
	    trcu_geom_cpu_bit(g, g->nr_cpus) != -1)
		FAIL(g, "out-of-range lookup accepted");
}

/* @depth 0: levels only; 1: and every node; 2: and every CPU's lookup. */
static void check_one(int n, int f, int fl, int exact, int depth)
{
	struct trcu_geom g;
	unsigned long before = failures;
	int ret;

	cases++;
	ret = trcu_geom_init(&g, n, f, fl, exact);
	if (ret) {
		if (failures++ < 20)
			fprintf(stderr, "FAIL n=%d f=%d fl=%d ex=%d: init %d\n",
				n, f, fl, exact, ret);
		return;
	}
	check_levels(&g, n, f, fl ? fl : f, exact);
	if (failures == before && depth)
		check_nodes(&g, depth > 1);
}

static void check_bad(int n, int f, int fl, int exact)
{
	struct trcu_geom g, orig;
	int ret;

	cases++;
	memset(&g, 0xa5, sizeof(g));
	orig = g;
	ret = trcu_geom_init(&g, n, f, fl, exact);
	if (ret != -22 || memcmp(&g, &orig, sizeof(g))) {
		if (failures++ < 20)
			fprintf(stderr,
				"FAIL bad n=%d f=%d fl=%d ex=%d: init %d\n",
				n, f, fl, exact, ret);
	}
}

/*
 * Print the rcuhier node lines for @g, the way debugfs.c does, with the
 * qsmaskinit a hierarchy gets when CPUs 0..online-1 are online and the
 * qsmask it has while the CPUs in @pending still owe a quiescent state.
 */
static void print_hier(FILE *out, const struct trcu_geom *g, int online,
		       const int *pending, int npending)
{
	static unsigned long qsmask[MAX_NODES], qsmaskinit[MAX_NODES];
	char buf[TRCU_GEOM_FMT_NODE_MAX];
	struct trcu_geom_node n;
	int cpu, idx, lvl, i;

	memset(qsmask, 0, sizeof(qsmask));
	memset(qsmaskinit, 0, sizeof(qsmaskinit));
	for (cpu = 0; cpu < online; cpu++) {
		unsigned long mask = 1UL << trcu_geom_cpu_bit(g, cpu);

		for (idx = trcu_geom_leaf_of_cpu(g, cpu); idx >= 0;
		     idx = n.parent) {
			qsmaskinit[idx] |= mask;
			trcu_geom_node(g, idx, &n);
			mask = n.grpmask;
		}
	}
	for (i = 0; i < npending; i++) {
		unsigned long mask = 1UL << trcu_geom_cpu_bit(g, pending[i]);

		for (idx = trcu_geom_leaf_of_cpu(g, pending[i]); idx >= 0;
		     idx = n.parent) {
			qsmask[idx] |= mask;
			trcu_geom_node(g, idx, &n);
			mask = n.grpmask;
		}
	}
	for (lvl = 0; lvl < g->levels; lvl++) {
		for (i = 0; i < g->level_cnt[lvl]; i++) {
			idx = g->level_first[lvl] + i;
			trcu_geom_node(g, idx, &n);
			trcu_geom_fmt_node(buf, sizeof(buf), qsmask[idx],
					   qsmaskinit[idx], n.grplo, n.grphi,
					   n.grpnum);
			fputs(buf, out);
		}
		fputc('\n', out);
	}
}

/*
 * The seed's trace.txt example: 8 of 128 CPUs online, fanout 6; "rcu"
 * still waits for CPUs 2 and 4 (qsmask 14 in the first leaf), "rcu_bh"
 * is idle.  The c=/g=/nfqs line is dynamic and left out.
 */
static void check_rcuhier(const char *expected, const char *actual)
{
	static char want[1 << 16], got[1 << 16];
	static const int pending[] = { 2, 4 };
	struct trcu_geom g;
	size_t nwant, ngot;
	FILE *f;

	cases++;
	if (trcu_geom_init(&g, 128, 6, 0, 0)) {
		failures++;
		fprintf(stderr, "FAIL rcuhier: init\n");
		return;
	}
	f = fopen(actual, "w+");
	if (!f) {
		perror(actual);
		exit(2);
	}
	fputs("rcu:\n", f);
	print_hier(f, &g, 8, pending, 2);
	fputs("rcu_bh:\n", f);
	print_hier(f, &g, 8, NULL, 0);
	rewind(f);
	ngot = fread(got, 1, sizeof(got), f);
	fclose(f);

	f = fopen(expected, "r");
	if (!f) {
		perror(expected);
		exit(2);
	}
	nwant = fread(want, 1, sizeof(want), f);
	fclose(f);

	if (nwant != ngot || memcmp(want, got, ngot)) {
		failures++;
		fprintf(stderr, "FAIL rcuhier: %s differs from %s\n",
			actual, expected);
	}
}

/* --layout: print one shape's rcuhier node lines without the masks. */
static int print_layout(int argc, char **argv)
{
	char buf[TRCU_GEOM_FMT_NODE_MAX];
	struct trcu_geom_node n;
	struct trcu_geom g;
	int lvl, i;

	if (argc != 6 ||
	    trcu_geom_init(&g, atoi(argv[2]), atoi(argv[3]), atoi(argv[4]),
			   atoi(argv[5]))) {
		fprintf(stderr, "usage: %s --layout NR_CPUS FANOUT FANOUT_LEAF EXACT (a valid shape)\n",
			argv[0]);
		return 2;
	}
	for (lvl = 0; lvl < g.levels; lvl++) {
		for (i = 0; i < g.level_cnt[lvl]; i++) {
			trcu_geom_node(&g, g.level_first[lvl] + i, &n);
			trcu_geom_fmt_node(buf, sizeof(buf), 0, 0, n.grplo,
					   n.grphi, n.grpnum);
			fputs(buf + strlen("0/0 "), stdout);
		}
		putchar('\n');
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const int leaf_fanouts[] = { 2, 3, 4, 5, 16, 33, 64 };
	static const int fanouts[] = { 2, 3, 6, 8, 64 };
	static const int bad_fanouts[] = { 0, 1, 65, -1 };
	int n, f, ex, i, j;

	if (argc > 1 && !strcmp(argv[1], "--layout"))
		return print_layout(argc, argv);
	if (argc < 2) {
		fprintf(stderr, "usage: %s EXPECTED [ACTUAL]\n", argv[0]);
		return 2;
	}

	/*
	 * All shapes get the level checks.  Walking every node of every
	 * shape would take about 20 s of CPU on this 2-core machine shared
	 * with guests, so nodes are walked for up to 2048 CPUs, for every
	 * third count above, and where the count is at or just past a
	 * multiple of the fanout (where leaves fill up or a new one starts);
	 * every CPU is looked up for up to 512 CPUs, the top 64 counts and
	 * every 37th.  Node walks check each leaf's two ends, which with
	 * the contiguity checks covers every CPU too.
	 */
	for (ex = 0; ex <= 1; ex++)
		for (f = 2; f <= TRCU_GEOM_MAX_FANOUT; f++)
			for (n = 1; n <= TRCU_GEOM_MAX_CPUS; n++)
				check_one(n, f, 0, ex,
					  n <= 512 || n % 37 == 0 ||
					  n > TRCU_GEOM_MAX_CPUS - 64 ? 2 :
					  n <= 2048 || n % 3 == 0 ||
					  n % f <= 1 ? 1 : 0);

	/* fanout_leaf != fanout, every CPU looked up. */
	for (ex = 0; ex <= 1; ex++)
		for (i = 0; i < (int)(sizeof(fanouts) / sizeof(*fanouts)); i++)
			for (j = 0; j < (int)(sizeof(leaf_fanouts) /
					      sizeof(*leaf_fanouts)); j++)
				for (n = 1; n <= TRCU_GEOM_MAX_CPUS;
				     n += n < 300 ? 1 : 97)
					check_one(n, fanouts[i],
						  leaf_fanouts[j], ex, 1);

	/* Bad arguments leave the geometry alone and give -EINVAL. */
	for (ex = 0; ex <= 1; ex++) {
		check_bad(0, 6, 0, ex);
		check_bad(-1, 6, 0, ex);
		check_bad(TRCU_GEOM_MAX_CPUS + 1, 6, 0, ex);
		for (i = 0; i < 4; i++) {
			check_bad(128, bad_fanouts[i], 0, ex);
			check_bad(128, bad_fanouts[i], 6, ex);
			if (bad_fanouts[i])	/* fanout_leaf 0 = fanout */
				check_bad(128, 6, bad_fanouts[i], ex);
		}
	}

	check_rcuhier(argv[1], argc > 2 ? argv[2] : "rcuhier-128-6.out");

	if (failures) {
		printf("geometry: %lu of %lu cases FAILED\n", failures, cases);
		return 1;
	}
	printf("geometry: %lu cases ok\n", cases);
	return 0;
}
