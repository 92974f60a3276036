// SPDX-License-Identifier: GPL-2.0
/*
 * trcuscale_base.ko: the benchmarks (scale.c) over the kernel's own
 * flavours only (flavors_rcu.c), with no reference to trcu.ko: it loads
 * before trcu does, so the hook-tax and energy tests have a baseline from
 * the same boot.  The trcu flavours fail its load with -ENOENT.
 */
#include <linux/module.h>

#include "torture.h"
#include "scale.h"

static int __init trcuscale_base_init(void)
{
	return trcuscale_run(tt_rcu_flavor_find);
}

static void __exit trcuscale_base_exit(void)
{
	/* Everything was waited for in init. */
}

module_init(trcuscale_base_init);
module_exit(trcuscale_base_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("trcu benchmarks, the kernel's RCU and SRCU only (no trcu.ko)");
