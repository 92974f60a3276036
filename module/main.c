// SPDX-License-Identifier: GPL-2.0
/*
 * trcu: hierarchical ("tree") RCU as a loadable module, running beside the
 * kernel's own RCU.  Module init and exit: the one place that calls into
 * every part (nothing calls back into it).  Parameters: params.c.
 */
#define pr_fmt(fmt) "trcu: " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/smp.h>
#include <linux/interrupt.h>

#include <trcu.h>
#include "params.h"
#include "tree.h"

/* Kill every per-CPU kick and tasklet.  Exit, after hooks and kthreads. */
static void trcu_kill_tasklets(void)
{
	int cpu, i;

	for (i = 0; i < TRCU_NR_FLAVORS; i++) {
		if (!trcu_states[i].rda)
			continue;
		for_each_possible_cpu(cpu) {
			struct trcu_data *rdp = per_cpu_ptr(trcu_states[i].rda,
							    cpu);

			/* A pending kick would schedule the tasklet again. */
			irq_work_sync(&rdp->kick_work);
			tasklet_kill(&rdp->tasklet);
		}
	}
}

/* Empty IPI: flushes IPIs queued earlier to each CPU (FIFO per CPU). */
static void trcu_ipi_flush(void *unused)
{
}

static int __init trcu_init(void)
{
	int ret, i;

	ret = trcu_check_params();
	if (ret)
		return ret;
	ret = trcu_dynticks_init();
	if (ret)
		return ret;
	trcu_kfree_init();
	trcu_exp_init();
	for (i = 0; i < TRCU_NR_FLAVORS; i++) {
		ret = trcu_tree_init(&trcu_states[i], i);
		if (ret) {
			if (ret == -EINVAL)
				pr_err("invalid fanout=%d fanout_leaf=%d fanout_exact=%d for %u CPUs\n",
				       trcu_fanout, trcu_fanout_leaf,
				       trcu_fanout_exact, nr_cpu_ids);
			goto err_tree;
		}
	}
	ret = trcu_hotplug_init();
	if (ret)
		goto err_tree;
	for (i = 0; i < TRCU_NR_FLAVORS; i++) {
		ret = trcu_gp_kthread_start(&trcu_states[i]);
		if (ret)
			goto err_kthread;
	}
	ret = trcu_hooks_init();
	if (ret)
		goto err_kthread;
	trcu_debugfs_init();
	pr_info("loaded: %d CPUs, %d levels, %d nodes, fanout %d/%d%s\n",
		nr_cpu_ids, trcu_sched_state.geom.levels,
		trcu_sched_state.geom.nr_nodes, trcu_fanout, trcu_fanout_leaf,
		trcu_fanout_exact ? " exact" : "");
	return 0;

err_kthread:
	for (i = 0; i < TRCU_NR_FLAVORS; i++)
		trcu_gp_kthread_stop(&trcu_states[i]);
	trcu_hotplug_exit();
	on_each_cpu(trcu_ipi_flush, NULL, 1);
err_tree:
	trcu_kill_tasklets();
	for (i = 0; i < TRCU_NR_FLAVORS; i++)
		trcu_tree_free(&trcu_states[i]);
	trcu_dynticks_free();
	return ret;
}

/*
 * Unload: wait for every queued callback (both barriers need the hooks
 * and kthreads still running), then stop GP kthreads, hooks and hotplug,
 * flush IPIs the kthreads sent, kill tasklets and free.
 */
static void __exit trcu_exit(void)
{
	int i;

	if (trcu_trace)
		trcu_debugfs_exit();
	trcu_kfree_exit();	/* partial kfree_trcu() batches, before */
	trcu_barrier();		/*  the barrier that waits for them */
	trcu_barrier_bh();
	trcu_exp_exit();	/* expedited GPs: pending wakeups */
	for (i = 0; i < TRCU_NR_FLAVORS; i++) {
		struct trcu_state *rsp = &trcu_states[i];

		trcu_gp_kthread_stop(rsp);
		pr_info("%s: %lu IPI sends by the GP kthread, %llu us in all, longest %llu us\n",
			rsp->name, rsp->n_ipi_send,
			div_u64(rsp->ipi_send_ns, NSEC_PER_USEC),
			div_u64(rsp->ipi_send_max_ns, NSEC_PER_USEC));
	}
	trcu_hooks_exit();
	trcu_hotplug_exit();
	on_each_cpu(trcu_ipi_flush, NULL, 1);
	trcu_kill_tasklets();
	for (i = 0; i < TRCU_NR_FLAVORS; i++)
		trcu_tree_free(&trcu_states[i]);
	trcu_dynticks_free();
	pr_info("unloaded\n");
}

module_init(trcu_init);
module_exit(trcu_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Hierarchical Tree RCU as a loadable module");
