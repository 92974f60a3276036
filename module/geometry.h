/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shape of the trcu rcu_node hierarchy.
 *
 * The seed computed this at compile time from NR_CPUS and CONFIG_RCU_FANOUT
 * and stopped at three levels.  trcu computes it at load time from
 * nr_cpu_ids and the fanout module parameters, with as many levels as
 * needed.  This file and geometry.c are plain C with no kernel types so
 * that tests/geometry can build and check them on the host with gcc: the
 * kernel module and the host test run the very same code.
 *
 * Nodes live in a dense array, root first, then level by level (the
 * seed's rcu_state ->node[] "heap" layout).  Node j of level i covers
 * CPUs [j * stride(i), (j + 1) * stride(i) - 1] clipped to nr_cpus - 1,
 * where stride(i) is the product of the spreads of level i and below.
 */
#ifndef _TRCU_GEOMETRY_H
#define _TRCU_GEOMETRY_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stddef.h>
#endif

#define TRCU_GEOM_MAX_CPUS	8192	/* stock Debian kernel's NR_CPUS */
#define TRCU_GEOM_MAX_FANOUT	64	/* bits in a qsmask (BITS_PER_LONG) */
#define TRCU_GEOM_MAX_LEVELS	16	/* 8192 CPUs at fanout 2 need 13 */

/* Whole-hierarchy shape, filled in by trcu_geom_init(). */
struct trcu_geom {
	int nr_cpus;		/* CPUs covered: 0 .. nr_cpus - 1 */
	int fanout;		/* max children of a non-leaf node */
	int fanout_leaf;	/* max CPUs of a leaf node */
	int exact;		/* 1: spreads are fanout exactly (seed's */
				/*  CONFIG_RCU_FANOUT_EXACT); 0: balanced */
	int levels;		/* 1 = root is the only (leaf) node */
	int level_cnt[TRCU_GEOM_MAX_LEVELS];
				/* nodes per level, level 0 = root */
	int level_first[TRCU_GEOM_MAX_LEVELS];
				/* dense index of the level's first node */
	int level_spread[TRCU_GEOM_MAX_LEVELS];
				/* children per node at this level (CPUs */
				/*  for the leaf level); the last node of */
				/*  a level may have fewer, never zero */
	int nr_nodes;		/* sum of level_cnt[] */
};

/* One node of the hierarchy, as returned by trcu_geom_node(). */
struct trcu_geom_node {
	int level;		/* 0 = root, levels - 1 = leaves */
	int grplo;		/* lowest CPU covered */
	int grphi;		/* highest CPU covered (inclusive) */
	int grpnum;		/* index among its parent's children */
				/*  (0 for the root) */
	unsigned long grpmask;	/* 1UL << grpnum: its bit in the parent's */
				/*  qsmask; 0 for the root, which has no */
				/*  parent (as in the seed) */
	int parent;		/* dense index of the parent, -1 for root */
};

/*
 * Compute the shape for @nr_cpus CPUs.  @fanout_leaf 0 means @fanout;
 * @exact nonzero means every level's spread is the fanout.  Returns 0, or
 * -22 (-EINVAL) if nr_cpus is outside 1..TRCU_GEOM_MAX_CPUS, a fanout is
 * outside 2..TRCU_GEOM_MAX_FANOUT, or TRCU_GEOM_MAX_LEVELS levels cannot
 * cover nr_cpus.  @g is left untouched on error.
 */
int trcu_geom_init(struct trcu_geom *g, int nr_cpus, int fanout,
		   int fanout_leaf, int exact);

/* Describe node @idx (dense index); *n gets level -1 if idx is invalid. */
void trcu_geom_node(const struct trcu_geom *g, int idx,
		    struct trcu_geom_node *n);

/* Dense index of @cpu's leaf node, or -1 if cpu is out of range. */
int trcu_geom_leaf_of_cpu(const struct trcu_geom *g, int cpu);

/* @cpu's bit number in its leaf's qsmask, or -1 if cpu is out of range. */
int trcu_geom_cpu_bit(const struct trcu_geom *g, int cpu);

/*
 * Format one node the way rcuhier shows it ("qsmask/qsmaskinit lo:hi ^grpnum"
 * followed by four spaces, as in the seed's trace.txt) into @buf of @size
 * bytes.  Shared by debugfs.c and the host test so that the test checks
 * the layout debugfs prints.  Returns the snprintf() length.
 */
#define TRCU_GEOM_FMT_NODE_MAX	64	/* enough for any node */
int trcu_geom_fmt_node(char *buf, size_t size, unsigned long qsmask,
		       unsigned long qsmaskinit, int grplo, int grphi,
		       int grpnum);

#endif /* _TRCU_GEOMETRY_H */
