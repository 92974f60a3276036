// SPDX-License-Identifier: GPL-2.0
/*
 * trcu module parameters (read-only after load) and their validation.  A
 * unit of their own, at the bottom of the object graph: every part reads
 * them, and this file calls nothing of trcu's.
 */
#define pr_fmt(fmt) "trcu: " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>

#include "params.h"

int trcu_fanout = 64;
module_param_named(fanout, trcu_fanout, int, 0444);
MODULE_PARM_DESC(fanout, "Children per trcu_node (2..64)");

int trcu_fanout_leaf;
module_param_named(fanout_leaf, trcu_fanout_leaf, int, 0444);
MODULE_PARM_DESC(fanout_leaf, "CPUs per leaf trcu_node (2..64, 0 = fanout)");

int trcu_fanout_exact;
module_param_named(fanout_exact, trcu_fanout_exact, int, 0444);
MODULE_PARM_DESC(fanout_exact, "1: nodes exactly fanout wide (0/1)");

int trcu_dynticks_enabled = 1;
module_param_named(dynticks, trcu_dynticks_enabled, int, 0444);
MODULE_PARM_DESC(dynticks, "Track dynticks-idle CPUs (0/1)");

int trcu_stall_timeout = 21;
module_param_named(stall_timeout, trcu_stall_timeout, int, 0444);
MODULE_PARM_DESC(stall_timeout, "CPU stall warning timeout, s (0 = off, max 300)");

int trcu_jiffies_till_force_qs = 3;
module_param_named(jiffies_till_force_qs, trcu_jiffies_till_force_qs, int,
		   0444);
MODULE_PARM_DESC(jiffies_till_force_qs, "Jiffies between forcing QS (1..HZ)");

/*
 * The first force_quiescent_state() of a GP only snapshots the dynticks
 * counters and credits idle CPUs (no IPIs), so it can come early: on an
 * idle system that ends the GP.  One jiffy, like the kernel's own RCU at
 * HZ <= 250, rather than the seed's 3 (the idle synchronize latency this
 * halves is in Documentation/measurements.rst).
 */
int trcu_jiffies_till_first_fqs = 1;
module_param_named(jiffies_till_first_fqs, trcu_jiffies_till_first_fqs, int,
		   0444);
MODULE_PARM_DESC(jiffies_till_first_fqs, "Jiffies from GP start to the first forcing of QS (1..HZ)");

int trcu_blimit = 10;
module_param_named(blimit, trcu_blimit, int, 0444);
MODULE_PARM_DESC(blimit, "Callbacks invoked per batch (1..10000)");

int trcu_qhimark = 10000;
module_param_named(qhimark, trcu_qhimark, int, 0444);
MODULE_PARM_DESC(qhimark, "Queue length above which batches are unlimited (1..10000000)");

int trcu_qlowmark = 100;
module_param_named(qlowmark, trcu_qlowmark, int, 0444);
MODULE_PARM_DESC(qlowmark, "Queue length below which blimit applies again (0..qhimark)");

/*
 * The GP kthreads' class: 0, SCHED_OTHER, as the kernel's own unless
 * RCU boosting is configured (rcutree.kthread_prio); 1..99, SCHED_FIFO at
 * that priority.  Either way they keep kthreadd's affinity (gp_kthread.c).
 */
int trcu_kthread_prio;
module_param_named(kthread_prio, trcu_kthread_prio, int, 0444);
MODULE_PARM_DESC(kthread_prio, "GP kthreads: 0 SCHED_OTHER, 1..99 SCHED_FIFO priority");

/*
 * Time one flooded callback batch may take before the rest waits for a
 * later softirq (or ksoftirqd), as the kernel's rcutree.rcu_resched_ns.
 */
int trcu_batch_us = 3000;
module_param_named(batch_us, trcu_batch_us, int, 0444);
MODULE_PARM_DESC(batch_us, "Longest flooded callback batch, us (100..100000)");

int trcu_kfree_nobatch;
module_param_named(kfree_nobatch, trcu_kfree_nobatch, int, 0444);
MODULE_PARM_DESC(kfree_nobatch, "Test: kfree_trcu() never batches (0/1)");

int trcu_trace = 1;
module_param_named(trace, trcu_trace, int, 0444);
MODULE_PARM_DESC(trace, "Create debugfs trcu/ files (0/1)");

/* Check @val against [@lo, @hi]; print the one "trcu:" line if not. */
static bool trcu_param_bad(const char *name, int val, int lo, int hi)
{
	if (val >= lo && val <= hi)
		return false;
	pr_err("invalid %s=%d: allowed range %d..%d\n", name, val, lo, hi);
	return true;
}

/*
 * Validate every parameter; -EINVAL names the first bad one.  Fills in
 * fanout_leaf = fanout when 0.  Module init, before anything reads them.
 */
int trcu_check_params(void)
{
	if (trcu_param_bad("fanout", trcu_fanout, 2, 64))
		return -EINVAL;
	if (trcu_fanout_leaf && (trcu_fanout_leaf < 2 || trcu_fanout_leaf > 64)) {
		/* 0 is valid too: say so, or "2..64" would mislead. */
		pr_err("invalid fanout_leaf=%d: allowed 0 (= fanout) or 2..64\n",
		       trcu_fanout_leaf);
		return -EINVAL;
	}
	if (trcu_param_bad("fanout_exact", trcu_fanout_exact, 0, 1) ||
	    trcu_param_bad("dynticks", trcu_dynticks_enabled, 0, 1) ||
	    trcu_param_bad("stall_timeout", trcu_stall_timeout, 0, 300) ||
	    trcu_param_bad("jiffies_till_force_qs",
			   trcu_jiffies_till_force_qs, 1, HZ) ||
	    trcu_param_bad("jiffies_till_first_fqs",
			   trcu_jiffies_till_first_fqs, 1, HZ) ||
	    trcu_param_bad("blimit", trcu_blimit, 1, 10000) ||
	    trcu_param_bad("qhimark", trcu_qhimark, 1, 10000000) ||
	    trcu_param_bad("qlowmark", trcu_qlowmark, 0, 10000000) ||
	    trcu_param_bad("kfree_nobatch", trcu_kfree_nobatch, 0, 1) ||
	    trcu_param_bad("kthread_prio", trcu_kthread_prio, 0, 99) ||
	    trcu_param_bad("batch_us", trcu_batch_us, 100, 100000) ||
	    trcu_param_bad("trace", trcu_trace, 0, 1))
		return -EINVAL;
	/*
	 * blimit goes unlimited above qhimark and back below qlowmark: with
	 * qlowmark > qhimark that hysteresis is inverted.  Name both values,
	 * since the user may have set only one of them (defaults 10000/100).
	 */
	if (trcu_qlowmark > trcu_qhimark) {
		pr_err("invalid qlowmark=%d: allowed range 0..qhimark (qhimark=%d)\n",
		       trcu_qlowmark, trcu_qhimark);
		return -EINVAL;
	}
	if (!trcu_fanout_leaf)
		trcu_fanout_leaf = trcu_fanout;
	return 0;
}
