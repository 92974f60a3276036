// SPDX-License-Identifier: GPL-2.0
/*
 * Shape of the trcu rcu_node hierarchy, computed at load time.
 *
 * Plain C: built into trcu.ko and, unchanged, into the host test in
 * tests/geometry, which checks every shape from 1 to 8192 CPUs.
 *
 * Level counts follow the seed's NUM_RCU_LVL_x macros, generalised to any
 * number of levels: the leaf level has ceil(nr_cpus / fanout_leaf) nodes
 * and each level above has ceil(count below / fanout) nodes, up to a
 * single root.  Spreads follow the seed's rcu_init_levelspread(): with
 * exact, every spread is the fanout (leaf: fanout_leaf); otherwise each
 * level's spread is ceil(children below / nodes at this level), which
 * spreads the children as evenly as the node count allows.
 *
 * Why no node is ever empty (both modes): at a level with m entities
 * below it (CPUs or nodes) and fanout f, the count is c = ceil(m / f), so
 * f * (c - 1) < m.  The spread s is f (exact) or ceil(m / c) <= f
 * (balanced, since c >= m / f).  The last node starts at child
 * s * (c - 1) <= f * (c - 1) < m, so it has at least one child, and by
 * induction from the leaves at least one CPU.  The test checks this for
 * every shape anyway.
 */
#ifdef __KERNEL__
#include <linux/build_bug.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#else
#include <errno.h>
#include <stdio.h>
#endif

#include "geometry.h"

/* A node's bit must fit in an unsigned long qsmask. */
#ifdef __KERNEL__
static_assert(TRCU_GEOM_MAX_FANOUT <= BITS_PER_LONG);
#else
_Static_assert(TRCU_GEOM_MAX_FANOUT <= 8 * sizeof(unsigned long),
	       "fanout must fit in a qsmask");
#endif

static int trcu_geom_div_up(int a, int b)
{
	return (a + b - 1) / b;
}

/*
 * Fill in @g as described in geometry.h.  Returns 0 or -EINVAL.
 */
int trcu_geom_init(struct trcu_geom *g, int nr_cpus, int fanout,
		   int fanout_leaf, int exact)
{
	struct trcu_geom t = { 0 };
	long cap;
	int below;
	int i;

	if (fanout_leaf == 0)
		fanout_leaf = fanout;
	if (nr_cpus < 1 || nr_cpus > TRCU_GEOM_MAX_CPUS ||
	    fanout < 2 || fanout > TRCU_GEOM_MAX_FANOUT ||
	    fanout_leaf < 2 || fanout_leaf > TRCU_GEOM_MAX_FANOUT)
		return -EINVAL;

	t.nr_cpus = nr_cpus;
	t.fanout = fanout;
	t.fanout_leaf = fanout_leaf;
	t.exact = !!exact;

	/*
	 * Fewest levels whose capacity covers nr_cpus.  cap stays below
	 * 64 * 8192 before each multiply, so a long cannot overflow.
	 */
	t.levels = 1;
	for (cap = fanout_leaf; cap < nr_cpus; cap *= fanout) {
		if (++t.levels > TRCU_GEOM_MAX_LEVELS)
			return -EINVAL;
	}

	/* Node counts, leaves up: ceil(entities below / fanout). */
	t.level_cnt[t.levels - 1] = trcu_geom_div_up(nr_cpus, fanout_leaf);
	for (i = t.levels - 2; i >= 0; i--)
		t.level_cnt[i] = trcu_geom_div_up(t.level_cnt[i + 1], fanout);

	/* Spreads, leaves up; see the comment at the top for emptiness. */
	below = nr_cpus;
	for (i = t.levels - 1; i >= 0; i--) {
		if (t.exact)
			t.level_spread[i] = i == t.levels - 1 ? fanout_leaf
							      : fanout;
		else
			t.level_spread[i] = trcu_geom_div_up(below,
							     t.level_cnt[i]);
		below = t.level_cnt[i];
	}

	for (i = 0; i < t.levels; i++) {
		t.level_first[i] = t.nr_nodes;
		t.nr_nodes += t.level_cnt[i];
	}
	*g = t;
	return 0;
}

/*
 * Describe node @idx.  Ranges come from the strides, as in the seed's
 * rcu_init_one(), so a child's range always lies inside its parent's.
 */
void trcu_geom_node(const struct trcu_geom *g, int idx,
		    struct trcu_geom_node *n)
{
	long stride = 1;
	long lo, hi;
	int lvl, j, i;

	if (idx < 0 || idx >= g->nr_nodes) {
		n->level = -1;
		n->grplo = -1;
		n->grphi = -1;
		n->grpnum = -1;
		n->grpmask = 0;
		n->parent = -1;
		return;
	}
	for (lvl = g->levels - 1; g->level_first[lvl] > idx; lvl--)
		;
	j = idx - g->level_first[lvl];
	for (i = g->levels - 1; i >= lvl; i--)
		stride *= g->level_spread[i];

	lo = j * stride;
	hi = lo + stride - 1;
	if (hi > g->nr_cpus - 1)
		hi = g->nr_cpus - 1;
	n->level = lvl;
	n->grplo = (int)lo;
	n->grphi = (int)hi;
	if (lvl == 0) {
		n->grpnum = 0;
		n->grpmask = 0;
		n->parent = -1;
	} else {
		n->grpnum = j % g->level_spread[lvl - 1];
		n->grpmask = 1UL << n->grpnum;
		n->parent = g->level_first[lvl - 1] +
			    j / g->level_spread[lvl - 1];
	}
}

/* Dense index of @cpu's leaf. */
int trcu_geom_leaf_of_cpu(const struct trcu_geom *g, int cpu)
{
	int leaf = g->levels - 1;

	if (cpu < 0 || cpu >= g->nr_cpus)
		return -1;
	return g->level_first[leaf] + cpu / g->level_spread[leaf];
}

/* @cpu's bit in its leaf's qsmask: its offset from the leaf's grplo. */
int trcu_geom_cpu_bit(const struct trcu_geom *g, int cpu)
{
	if (cpu < 0 || cpu >= g->nr_cpus)
		return -1;
	return cpu % g->level_spread[g->levels - 1];
}

/* One rcuhier node entry, in the seed's trace.txt layout. */
int trcu_geom_fmt_node(char *buf, size_t size, unsigned long qsmask,
		       unsigned long qsmaskinit, int grplo, int grphi,
		       int grpnum)
{
	return snprintf(buf, size, "%lx/%lx %d:%d ^%d    ",
			qsmask, qsmaskinit, grplo, grphi, grpnum);
}
