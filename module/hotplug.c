// SPDX-License-Identifier: GPL-2.0
/*
 * trcu CPU hotplug: one dynamic state in the "prepare" section, whose
 * callbacks run on a control CPU while the hotplugged CPU is not running.
 *
 * prepare (before the CPU starts): reset its dynticks counters to idle
 *   and set its bits in qsmaskinit.  Setting them this early means no
 *   reader on the new CPU can predate a grace period that ignores it;
 *   until it runs, force_quiescent_state() credits it as idle.
 * dead (after the CPU stopped for good): mark it dead, report the QS
 *   the current normal and expedited GPs may still expect from it, and
 *   adopt its callbacks on the control CPU (excluding a trcu_barrier()
 *   that is queueing its callbacks, see trcu_do_barrier()).
 *
 * Between going offline and dead, the CPU keeps its qsmaskinit bit and is
 * credited only once its dynticks counter shows it reached the idle
 * loop's halt on its way out (see trcu_fqs_check_cpu()), or by the dead
 * step: erring on the side of waiting.
 */
#define pr_fmt(fmt) "trcu: " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/cpuhotplug.h>
#include <linux/cpu.h>
#include <linux/interrupt.h>

#include <trcu.h>
#include "tree.h"

static int trcu_cpuhp_state;

/* Hotplug prepare step for @cpu, on a control CPU.  No locks held. */
static int trcu_cpu_prepare(unsigned int cpu)
{
	int i;

	/* At module init @cpu may be running, but no hook is registered. */
	trcu_dynticks_cpu_init(cpu);
	WRITE_ONCE(per_cpu_ptr(trcu_dynticks, cpu)->dead, false);
	for (i = 0; i < TRCU_NR_FLAVORS; i++)
		trcu_cpu_online_bits(&trcu_states[i], cpu);
	return 0;
}

/*
 * Hotplug dead step for @cpu, on a surviving control CPU.  The dead CPU
 * runs nothing, so its trcu_data may be touched from here.
 */
static int trcu_cpu_dead(unsigned int cpu)
{
	struct trcu_state *rsp;
	int i;

	/*
	 * Dead from here on, for the expedited GPs (which need not hold
	 * CPU hotplug off) and for trcu_barrier() (which may queue its
	 * callback on @cpu's list until the adoption below).
	 */
	WRITE_ONCE(per_cpu_ptr(trcu_dynticks, cpu)->dead, true);
	smp_mb();	/* ->dead before the flags; pairs with exp.c */
	trcu_exp_cpu_dead(cpu);
	for (i = 0; i < TRCU_NR_FLAVORS; i++) {
		rsp = &trcu_states[i];
		trcu_cpu_dead_bits(rsp, cpu);
		mutex_lock(&rsp->barrier_lock);
		local_irq_disable();
		trcu_adopt_cbs(rsp, per_cpu_ptr(rsp->rda, cpu),
			       this_cpu_ptr(rsp->rda));
		local_irq_enable();
		mutex_unlock(&rsp->barrier_lock);
	}
	return 0;
}

/*
 * Register the hotplug state; this runs the prepare step for every CPU
 * already online.  Caller: module init, before the GP kthreads start.
 */
int trcu_hotplug_init(void)
{
	int ret;

	ret = cpuhp_setup_state(CPUHP_BP_PREPARE_DYN, "trcu:prepare",
				trcu_cpu_prepare, trcu_cpu_dead);
	if (ret < 0) {
		pr_err("cpuhp_setup_state failed: %d\n", ret);
		return ret;
	}
	trcu_cpuhp_state = ret;
	return 0;
}

/*
 * Remove the hotplug state without calling the dead step for online
 * CPUs (they are not dead).  Caller: module exit.
 */
void trcu_hotplug_exit(void)
{
	if (trcu_cpuhp_state > 0)
		cpuhp_remove_state_nocalls(trcu_cpuhp_state);
	trcu_cpuhp_state = 0;
}
