// SPDX-License-Identifier: GPL-2.0
/*
 * trcu CPU stall warnings.  When a grace period has run stall_timeout
 * seconds, a CPU that still owes it a quiescent state reports itself from
 * its own tick ("self-detected"); if it cannot (irqs off, or no tick),
 * the GP kthread reports it a little later ("detected").  ->jiffies_stall
 * is pushed forward with cmpxchg() so that exactly one of them prints,
 * and the next check comes after a longer recheck interval.
 */
#define pr_fmt(fmt) "trcu: " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/jiffies.h>
#include <linux/kprobes.h>
#include <linux/sched.h>

#include <trcu.h>
#include "tree.h"
#include "trcu_trace.h"

/* Let the stalled CPU take a tick or two before others rat on it. */
#define TRCU_STALL_RAT_DELAY	2

/* Recheck interval after a report: three times the timeout. */
static unsigned long trcu_stall_recheck(void)
{
	return 3UL * trcu_stall_timeout * HZ;
}

/* A GP starts: arm the stall timer.  Caller holds the root node lock. */
void trcu_stall_gp_start(struct trcu_state *rsp)
{
	lockdep_assert_held(&trcu_root(rsp)->lock);
	rsp->gp_start = jiffies;
	WRITE_ONCE(rsp->jiffies_stall,
		   jiffies + (unsigned long)trcu_stall_timeout * HZ);
}

/*
 * Claim the right to report a stall due at @js.  Returns true for the
 * one caller that moved ->jiffies_stall forward.
 */
static bool trcu_stall_claim(struct trcu_state *rsp, unsigned long js)
{
	return cmpxchg(&rsp->jiffies_stall, js,
		       jiffies + trcu_stall_recheck()) == js;
}

/*
 * From this CPU's tick: if the GP is overdue and still waits for this
 * CPU, say so.  Caller: tick probe, irqs off.
 */
notrace void trcu_stall_check_self(struct trcu_state *rsp,
				   struct trcu_data *rdp)
{
	struct trcu_node *rnp = rdp->mynode;
	unsigned long js;
	long gpnum;

	lockdep_assert_irqs_disabled();
	if (!trcu_stall_timeout)
		return;
	gpnum = READ_ONCE(rsp->gpnum);
	smp_rmb();	/* pairs with smp_wmb() in trcu_gp_init() */
	js = READ_ONCE(rsp->jiffies_stall);
	if (gpnum == READ_ONCE(rsp->completed) || time_before(jiffies, js))
		return;
	if (READ_ONCE(rnp->gpnum) != gpnum ||
	    !(READ_ONCE(rnp->qsmask) & rdp->grpmask)) {
		/*
		 * Not us.  Rat on the holdouts from here too: the GP
		 * kthread may be stuck behind the stalled CPU (its timer
		 * sits on that CPU's timer wheel).
		 */
		if (time_after_eq(jiffies, js + TRCU_STALL_RAT_DELAY))
			trcu_stall_check_others(rsp);
		return;
	}
	if (!trcu_stall_claim(rsp, js))
		return;
	trace_trcu_stall(rsp->name, rdp->cpu, gpnum, true);
	pr_err("INFO: %s self-detected stall on CPU %d (gp %ld, %lu jiffies)\n",
	       rsp->name, rdp->cpu, gpnum, jiffies - rsp->gp_start);
}
NOKPROBE_SYMBOL(trcu_stall_check_self);

/*
 * The overdue GP waits for no CPU: every leaf is clear.  Either a QS
 * report is still on its way up (the root has bits), or all reports are
 * in and the GP kthread has not ended the GP (root clear): it has not run
 * since, starved on its CPU.  Say which, with what the kthread looks like,
 * as the kernel's "kthread starved" message does.  The trace event names
 * the CPU that holds the GP up: the starved kthread's (bound to a
 * synchronize caller's CPU that then spun with preemption off, as
 * trcutorture's stall_cpu does), or -1 for a report still on its way.
 */
static notrace void trcu_stall_hierarchy(struct trcu_state *rsp, long gpnum)
{
	unsigned long root = READ_ONCE(trcu_root(rsp)->qsmask);
	struct task_struct *t = rsp->gp_kthread;

	trace_trcu_stall(rsp->name, !root && t ? (int)task_cpu(t) : -1,
			 gpnum, false);
	pr_err("INFO: %s detected stall in the hierarchy (gp %ld, %lu jiffies): no CPU owes a QS, root qsmask %#lx (%s)\n",
	       rsp->name, gpnum, jiffies - rsp->gp_start, root,
	       root ? "a report on its way up, or lost" :
		      "GP kthread has not ended it");
	if (t)
		pr_err("INFO: %s GP kthread last woke %lu jiffies ago, state %#x, CPU %d\n",
		       rsp->name, jiffies - READ_ONCE(rsp->gp_activity),
		       READ_ONCE(t->__state), task_cpu(t));
}
NOKPROBE_SYMBOL(trcu_stall_hierarchy);

/*
 * Report every CPU the overdue GP still waits for, once per stall
 * interval.  Caller: GP kthread, or another CPU's tick (irqs off); no
 * trcu locks held.
 */
notrace void trcu_stall_check_others(struct trcu_state *rsp)
{
	struct trcu_node *rnp;
	unsigned long js, mask, flags;
	long gpnum;
	int cpu, n = 0;

	if (!trcu_stall_timeout)
		return;
	gpnum = READ_ONCE(rsp->gpnum);
	smp_rmb();	/* pairs with smp_wmb() in trcu_gp_init() */
	js = READ_ONCE(rsp->jiffies_stall);
	if (gpnum == READ_ONCE(rsp->completed) ||
	    time_before(jiffies, js + TRCU_STALL_RAT_DELAY))
		return;
	if (!trcu_stall_claim(rsp, js))
		return;
	trcu_for_each_leaf(rsp, rnp) {
		trcu_node_lock_irqsave(rnp, flags);
		mask = rnp->gpnum == gpnum ? rnp->qsmask : 0;
		raw_spin_unlock_irqrestore(&rnp->lock, flags);
		for (cpu = rnp->grplo; mask && cpu <= rnp->grphi; cpu++) {
			if (!(mask & per_cpu_ptr(rsp->rda, cpu)->grpmask))
				continue;
			trace_trcu_stall(rsp->name, cpu, gpnum, false);
			pr_err("INFO: %s detected stall on CPU %d (gp %ld, %lu jiffies)\n",
			       rsp->name, cpu, gpnum, jiffies - rsp->gp_start);
			n++;
		}
	}
	if (!n)
		trcu_stall_hierarchy(rsp, gpnum);
}
NOKPROBE_SYMBOL(trcu_stall_check_others);
