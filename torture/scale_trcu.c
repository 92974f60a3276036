// SPDX-License-Identifier: GPL-2.0
/*
 * trcuscale.ko: the benchmarks (scale.c) over every flavour, trcu's
 * included, so it needs trcu.ko loaded.
 */
#include <linux/module.h>

#include "torture.h"
#include "scale.h"

/* The torture's flavours, and those only the benchmarks use (floor, rcu_exp). */
static const struct trcu_torture_ops *trcuscale_find(const char *name)
{
	return trcu_torture_ops_find(name) ?: tt_rcu_flavor_find(name);
}

static int __init trcuscale_init(void)
{
	return trcuscale_run(trcuscale_find);
}

static void __exit trcuscale_exit(void)
{
	/* Everything was waited for in init. */
}

module_init(trcuscale_init);
module_exit(trcuscale_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("trcu benchmarks against RCU and SRCU");
