// SPDX-License-Identifier: GPL-2.0
/*
 * trcu grace periods: building the trcu_node hierarchy, starting a grace
 * period, noticing quiescent states (the per-tick work and the context
 * switch the hooks report), reporting them up the tree, forcing them
 * (force_quiescent_state()), ending the grace period.  This is the engine:
 * it knows nothing of how the kernel is hooked (hooks.c calls down into
 * it), and reads the idle counters of dynticks.c.  One GP
 * kthread per flavour does all the starting, forcing and cleaning up, so
 * that a CPU that went tickless-idle with callbacks queued still gets its
 * grace periods: the module cannot hook the kernel's rcu_needs_cpu() to
 * keep the tick alive, and it has no softirq of its own.
 */
#define pr_fmt(fmt) "trcu: " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/kthread.h>
#include <linux/smp.h>
#include <linux/cpumask.h>
#include <linux/jiffies.h>
#include <linux/rcupdate_wait.h>
#include <linux/kprobes.h>
#include <linux/hardirq.h>
#include <linux/preempt.h>

#include <trcu.h>
#include "tree.h"
#include "trcu_trace.h"

struct trcu_state trcu_states[TRCU_NR_FLAVORS];

static void trcu_core_tasklet(struct tasklet_struct *t);

/* ->kick_work: in hardirq, so the tasklet runs at this irq's exit. */
static void trcu_kick_work(struct irq_work *work)
{
	struct trcu_data *rdp = container_of(work, struct trcu_data,
					     kick_work);

	trcu_raise_core(rdp);
}

static void trcu_gp_wake_work(struct irq_work *work)
{
	struct trcu_state *rsp = container_of(work, struct trcu_state,
					      gp_wake_work);

	wake_up(&rsp->gp_wq);
}

/*
 * Wake the GP kthread from a context that may hold any lock: call_trcu()
 * may be called with a runqueue or pi lock held, where a direct wake_up()
 * would deadlock in try_to_wake_up().  The irq_work runs the wakeup from
 * this CPU's next interrupt-enabled moment (a self-IPI), with no lock of
 * the caller held.  A wakeup already pending covers this one.
 */
void trcu_gp_wake_deferred(struct trcu_state *rsp)
{
	irq_work_queue(&rsp->gp_wake_work);
}

/*
 * Build @rsp's hierarchy from the geometry module and set up every
 * possible CPU's trcu_data.  Called once at module init, no locks.
 */
int trcu_tree_init(struct trcu_state *rsp, int flavor)
{
	struct trcu_geom_node gn;
	struct trcu_node *rnp;
	int cpu, i, ret;

	rsp->flavor = flavor;
	rsp->name = flavor == TRCU_FLAVOR_BH ? "trcu_bh" : "trcu";
	ret = trcu_geom_init(&rsp->geom, nr_cpu_ids, trcu_fanout,
			     trcu_fanout_leaf, trcu_fanout_exact);
	if (ret)
		return -EINVAL;
	rsp->node = kcalloc(rsp->geom.nr_nodes, sizeof(*rsp->node),
			    GFP_KERNEL);
	if (!rsp->node)
		return -ENOMEM;
	for (i = 0; i < rsp->geom.levels; i++)
		rsp->level[i] = &rsp->node[rsp->geom.level_first[i]];
	for (i = 0; i < rsp->geom.nr_nodes; i++) {
		rnp = &rsp->node[i];
		trcu_geom_node(&rsp->geom, i, &gn);
		raw_spin_lock_init(&rnp->lock);
		rnp->grpmask = gn.grpmask;
		rnp->grplo = gn.grplo;
		rnp->grphi = gn.grphi;
		rnp->grpnum = gn.grpnum;
		rnp->level = gn.level;
		rnp->gpnum = TRCU_GP_INITVAL;
		rnp->completed = TRCU_GP_INITVAL;
		rnp->gp_needed = TRCU_GP_INITVAL;
		rnp->parent = gn.parent < 0 ? NULL : &rsp->node[gn.parent];
	}

	rsp->rda = alloc_percpu(struct trcu_data);
	if (!rsp->rda || !zalloc_cpumask_var(&rsp->ipi_mask, GFP_KERNEL)) {
		free_percpu(rsp->rda);
		rsp->rda = NULL;
		kfree(rsp->node);
		rsp->node = NULL;
		return -ENOMEM;
	}
	for_each_possible_cpu(cpu) {
		struct trcu_data *rdp = per_cpu_ptr(rsp->rda, cpu);

		rdp->cpu = cpu;
		rdp->rsp = rsp;
		rdp->mynode = &rsp->node[trcu_geom_leaf_of_cpu(&rsp->geom,
							       cpu)];
		rdp->grpmask = 1UL << trcu_geom_cpu_bit(&rsp->geom, cpu);
		rdp->blimit = trcu_blimit;
		/* Grace-period numbers start at TRCU_GP_INITVAL (tree.h). */
		rdp->gpnum = TRCU_GP_INITVAL;
		rdp->completed = TRCU_GP_INITVAL;
		rdp->passed_quiesc_completed = TRCU_GP_INITVAL;
		rdp->gp_requested = TRCU_GP_INITVAL;
		rdp->dynticks = per_cpu_ptr(trcu_dynticks, cpu);
		trcu_init_cblist(rdp);
		tasklet_setup(&rdp->tasklet, trcu_core_tasklet);
		init_irq_work(&rdp->kick_work, trcu_kick_work);
	}

	rsp->gpnum = TRCU_GP_INITVAL;
	rsp->completed = TRCU_GP_INITVAL;
	rsp->gp_needed = TRCU_GP_INITVAL;
	rsp->gp_kthread_cpu = -1;
	rsp->gp_waiter_cpu = -1;
	raw_spin_lock_init(&rsp->onofflock);
	raw_spin_lock_init(&rsp->fqslock);
	init_waitqueue_head(&rsp->gp_wq);
	init_irq_work(&rsp->gp_wake_work, trcu_gp_wake_work);
	mutex_init(&rsp->barrier_mutex);
	init_completion(&rsp->barrier_completion);
	return 0;
}

/* Free what trcu_tree_init() allocated; every tasklet is already dead. */
void trcu_tree_free(struct trcu_state *rsp)
{
	/*
	 * MUTANT unload_leak: every unload leaks the per-CPU trcu_data
	 * (stock LOADUNLOAD: Percpu).  MUTANT node_leak: the node array
	 * (debug kernel, LOADUNLOAD-KMEMLEAK: kmemleak).
	 */
	free_percpu(rsp->rda);
	kfree(rsp->node);
	free_cpumask_var(rsp->ipi_mask);
	rsp->rda = NULL;
	rsp->node = NULL;
}

/*
 * Bring this CPU's view of the grace periods up to date with its leaf:
 * a new GP start means a fresh quiescent state is owed (if the leaf waits
 * for us) and any QS seen so far belongs to an older GP, so it is dropped.
 * Reading the leaf rather than the root means a CPU only ever "sees" a
 * GP whose leaf bits are already initialized.
 * Caller: this CPU, irqs disabled, no trcu locks held (tasklet, or the
 * tick probe on a quiescent tick).
 */
notrace void trcu_note_gp_changes(struct trcu_state *rsp,
				  struct trcu_data *rdp)
{
	struct trcu_node *rnp = rdp->mynode;

	lockdep_assert_irqs_disabled();
	if (READ_ONCE(rnp->gpnum) == rdp->gpnum &&
	    READ_ONCE(rnp->completed) == rdp->completed)
		return;
	trcu_node_lock(rnp);
	rdp->completed = rnp->completed;
	if (rnp->gpnum != rdp->gpnum) {
		rdp->gpnum = rnp->gpnum;
		rdp->passed_quiesc = false;
		rdp->qs_pending = !!(rnp->qsmask & rdp->grpmask);
	}
	raw_spin_unlock(&rnp->lock);
}
NOKPROBE_SYMBOL(trcu_note_gp_changes);

/*
 * Clear @mask in @rnp->qsmask for grace period @gpnum and walk up the
 * tree while a node empties, holding one node lock at a time.  When the
 * root empties the GP is over and this returns true: the caller wakes the
 * GP kthread to clean it up (trcu_gp_kthread_wake()) once it holds no
 * raw spinlock -- a wait queue's lock is a sleeping lock on PREEMPT_RT,
 * and lockdep's raw-lock nesting check rejects it under fqslock or
 * onofflock.  Caller holds @rnp->lock, taken with
 * raw_spin_lock_irqsave(.., @flags); it is released here.  @rnp is a
 * leaf (every caller reports CPUs).
 */
bool trcu_report_qs_rnp(struct trcu_state *rsp, struct trcu_node *rnp,
			unsigned long mask, long gpnum, unsigned long flags)
	__releases(rnp->lock)
{
	lockdep_assert_held(&rnp->lock);
	/*
	 * A leaf waits only for CPUs it covers: its qsmask was copied from
	 * qsmaskinit at GP start, and qsmaskinit only grows until a dead
	 * step clears a bit -- under onofflock, which it holds until it has
	 * reported that CPU's QS here too.  So with onofflock free (its
	 * holder's leaf accesses are ordered before ours by this leaf's
	 * lock), qsmask is a subset of qsmaskinit.  Inner nodes are not
	 * checked: a report on its way up may still carry a child's bit
	 * that a dead step has cleared from qsmaskinit meanwhile.
	 */
	WARN_ON_ONCE(!raw_spin_is_locked(&rsp->onofflock) &&
		     (rnp->qsmask & ~rnp->qsmaskinit));
	for (;;) {
		if (!(rnp->qsmask & mask) || rnp->gpnum != gpnum ||
		    rnp->completed == gpnum) {
			/* Already reported, or a stale QS for an old GP. */
			raw_spin_unlock_irqrestore(&rnp->lock, flags);
			return false;
		}
		rnp->qsmask &= ~mask;
		if (rnp->qsmask) {
			raw_spin_unlock_irqrestore(&rnp->lock, flags);
			return false;
		}
		if (!rnp->parent)
			break;
		mask = rnp->grpmask;
		raw_spin_unlock_irqrestore(&rnp->lock, flags);
		rnp = rnp->parent;
		trcu_node_lock_irqsave(rnp, flags);
	}
	raw_spin_unlock_irqrestore(&rnp->lock, flags);
	/* Root empty: the GP kthread notices in its wait condition. */
	return true;
}

/*
 * Wake the GP kthread to look at its wait condition again.  Caller holds
 * no raw spinlock and is not in a context that holds a runqueue lock (use
 * trcu_gp_wake_deferred() there).
 */
void trcu_gp_kthread_wake(struct trcu_state *rsp)
{
	wake_up(&rsp->gp_wq);
}

/*
 * If this CPU has passed a quiescent state for the GP it knows about and
 * that GP still waits for it, report it to its leaf.  A QS recorded while
 * the CPU believed ->completed was N counts only for GP N + 1: the leaf
 * check below drops it if the leaf has moved on to a later GP.
 * Caller: this CPU, irqs disabled, no trcu locks held.
 */
void trcu_check_report_qs(struct trcu_state *rsp, struct trcu_data *rdp)
{
	struct trcu_node *rnp = rdp->mynode;
	unsigned long flags;

	lockdep_assert_irqs_disabled();
	if (!rdp->qs_pending || !rdp->passed_quiesc)
		return;
	/*
	 * Order this CPU's read-side critical sections before the QS
	 * becomes visible; pairs with smp_mb() in trcu_gp_cleanup() before
	 * ->completed is advanced.
	 */
	smp_mb();
	trcu_node_lock_irqsave(rnp, flags);
	if (rnp->gpnum != rdp->gpnum ||
	    rdp->passed_quiesc_completed != rnp->completed) {
		/* QS belongs to an older GP: never credit it to this one. */
		raw_spin_unlock_irqrestore(&rnp->lock, flags);
		return;
	}
	rdp->qs_pending = false;
	trace_trcu_qs_report(rsp->name, rdp->cpu, rdp->gpnum);
	if (trcu_report_qs_rnp(rsp, rnp, rdp->grpmask, rdp->gpnum, flags))
		trcu_gp_kthread_wake(rsp);
}

/*
 * Ask the GP kthread for grace period @gpnum (callbacks of this CPU wait
 * for it).  Cheap when this CPU already asked for it.  The wakeup is
 * deferred, as this runs inside call_trcu().
 *
 * The request climbs from this CPU's leaf to the root one node at a time
 * and stops at the first node that already holds a request for @gpnum or
 * later, or that has already seen GP @gpnum start: whoever recorded that
 * request does not stop either before it meets such a node, so by
 * induction it reaches the root.  When every CPU posts callbacks, each
 * node then passes at most one request per GP to its parent, and the
 * root lock is taken by at most one request per child instead of one per
 * CPU (the simulator counted 1,756 root-lock acquisitions per GP from
 * requests at 4,096 CPUs, fanout 16, before this).
 * Caller: this CPU, irqs disabled, no trcu locks held.
 */
void trcu_request_gp(struct trcu_state *rsp, struct trcu_data *rdp,
		     long gpnum)
{
	struct trcu_node *rnp;
	bool wake = false;

	lockdep_assert_irqs_disabled();
	if (gpnum <= rdp->gp_requested)
		return;
	rdp->gp_requested = gpnum;
	for (rnp = rdp->mynode; rnp->parent; rnp = rnp->parent) {
		trcu_node_lock(rnp);
		if (rnp->gp_needed >= gpnum || rnp->gpnum >= gpnum) {
			raw_spin_unlock(&rnp->lock);
			return;
		}
		rnp->gp_needed = gpnum;
		raw_spin_unlock(&rnp->lock);
	}
	trcu_node_lock(rnp);
	if (gpnum > rsp->gp_needed) {
		WRITE_ONCE(rsp->gp_needed, gpnum);
		wake = true;
	}
	raw_spin_unlock(&rnp->lock);
	if (wake)
		trcu_gp_wake_deferred(rsp);
}

/*
 * The idle loop is about to halt this CPU (cpu_idle tracepoint, irqs
 * off).  Once halted it gets no tick, so callbacks of its whose grace
 * period has ended would wait for its next wakeup: trcu_gp_cleanup()
 * IPIs only CPUs it finds dynticks-idle, and misses one that is in an
 * irq from idle at that moment, or the CPU the GP kthread itself ran on.
 * So look here, after trcu_idle_sleep()'s fully ordered increment, and
 * if some are invocable, let a self-IPI run the core tasklet at once
 * (the halt returns at once too).  With trcu_gp_cleanup()'s smp_mb()
 * between ->completed and its dynticks peek, either the cleanup sees
 * this CPU idle and IPIs it, or this sees the new ->completed.  The
 * kernel keeps such a CPU's tick instead (rcu_needs_cpu()), which trcu
 * cannot hook.  Callbacks still waiting for a GP need no tick: the GP's
 * end is what this check catches.
 */
notrace void trcu_idle_enter(void)
{
	struct trcu_state *rsp;
	struct trcu_data *rdp;

	if (!trcu_idle_sleep())
		return;
	for (rsp = trcu_states; rsp < trcu_states + TRCU_NR_FLAVORS; rsp++) {
		rdp = this_cpu_ptr(rsp->rda);
		if (trcu_cbs_invocable(rsp, rdp))
			irq_work_queue(&rdp->kick_work);
	}
}
NOKPROBE_SYMBOL(trcu_idle_enter);

/*
 * Booted preempt=full (sampled at load by hooks.c, which then hooks
 * rcu_note_context_switch()): the nudge IPI asks for a reschedule.
 */
bool trcu_preempt_full;

/*
 * Count an IPI trcu is about to send to @cpu, and whether it will wake
 * the CPU from dynticks-idle (debugfs rcustats).  Senders on different
 * CPUs may race on the plain increments; these are statistics only.
 */
void trcu_count_ipi(struct trcu_state *rsp, int cpu)
{
	struct trcu_data *rdp = per_cpu_ptr(rsp->rda, cpu);

	WRITE_ONCE(rdp->n_ipi, rdp->n_ipi + 1);
	if (trcu_dynticks_cpu_idle(cpu))
		WRITE_ONCE(rdp->n_ipi_idle, rdp->n_ipi_idle + 1);
}

/*
 * Per-tick work of one flavour: record a quiescent state if @qs, check
 * for a self-detected stall, and schedule the core tasklet if there is
 * anything for it (new GP, QS to report, callbacks to move or run).
 * Caller: tick probe or nudge IPI on this CPU, irqs off.
 */
static notrace void trcu_tick_flavor(struct trcu_state *rsp, bool qs)
{
	struct trcu_data *rdp = this_cpu_ptr(rsp->rda);
	struct trcu_node *rnp = rdp->mynode;

	if (qs) {
		/*
		 * A quiescent tick that finds a new GP in the leaf notices
		 * it first, so the QS counts for it: otherwise the tasklet
		 * would notice the GP, drop this QS, and the CPU would need
		 * another tick.  Takes the leaf lock once per GP per CPU.
		 */
		if (READ_ONCE(rnp->gpnum) != rdp->gpnum)
			trcu_note_gp_changes(rsp, rdp);
		rdp->passed_quiesc = true;
		rdp->passed_quiesc_completed = rdp->completed;
		trcu_exp_report_qs(rsp->flavor);	/* exp.c */
	}
	trcu_stall_check_self(rsp, rdp);
	if (READ_ONCE(rnp->gpnum) != rdp->gpnum ||
	    READ_ONCE(rnp->completed) != rdp->completed ||
	    (rdp->qs_pending && rdp->passed_quiesc) ||
	    trcu_cbs_ready(rsp, rdp))
		trcu_raise_core(rdp);
}
NOKPROBE_SYMBOL(trcu_tick_flavor);

/*
 * Tick (or nudge IPI) on this CPU.  @intr_count is the preempt_count()
 * of the interrupted context, @user_tick whether it was user mode: see
 * trcu_ctx_quiescent() for what makes it a QS of each flavour.
 * Caller: hardirq, irqs off.
 */
notrace void trcu_check_callbacks(int user_tick, int intr_count)
{
	trcu_tick_flavor(&trcu_sched_state,
			 trcu_ctx_quiescent(TRCU_FLAVOR_SCHED, user_tick,
					    intr_count));
	trcu_tick_flavor(&trcu_bh_state,
			 trcu_ctx_quiescent(TRCU_FLAVOR_BH, user_tick,
					    intr_count));
}
NOKPROBE_SYMBOL(trcu_check_callbacks);

/*
 * A QS for both flavours on this CPU: flags only (plus an irq_work for a
 * waiting expedited GP), so any hook may call it, even under the
 * runqueue lock.  Caller: a hook, preemption or irqs off.
 */
notrace void trcu_qs_all_flavors(void)
{
	struct trcu_data *rdp;
	int i;

	trcu_dynticks_running();
	for (i = 0; i < TRCU_NR_FLAVORS; i++) {
		rdp = this_cpu_ptr(trcu_states[i].rda);
		rdp->passed_quiesc = true;
		rdp->passed_quiesc_completed = rdp->completed;
		trcu_exp_report_qs(i);	/* exp.c: flags + irq_work only */
	}
}
NOKPROBE_SYMBOL(trcu_qs_all_flavors);

/*
 * Set @cpu's bit in its leaf's qsmaskinit, and the leaf's (and so on up)
 * in its parent's when the leaf had none: from the next GP on, the CPU
 * must report quiescent states.  Called from the hotplug prepare step,
 * before the CPU runs, so no reader on it can predate a GP that misses
 * it.  Caller: process context, no trcu locks held.
 */
void trcu_cpu_online_bits(struct trcu_state *rsp, int cpu)
{
	struct trcu_data *rdp = per_cpu_ptr(rsp->rda, cpu);
	struct trcu_node *rnp = rdp->mynode;
	unsigned long mask = rdp->grpmask;
	unsigned long flags;
	bool was_empty;

	raw_spin_lock_irqsave(&rsp->onofflock, flags);
	for (; rnp; rnp = rnp->parent) {
		trcu_node_lock(rnp);
		was_empty = !rnp->qsmaskinit;
		rnp->qsmaskinit |= mask;
		if (rnp == rdp->mynode) {
			/* Nothing owed for a GP that started without us. */
			rdp->gpnum = rnp->gpnum;
			rdp->completed = rnp->completed;
			rdp->qs_pending = false;
			rdp->passed_quiesc = false;
		}
		raw_spin_unlock(&rnp->lock);
		if (!was_empty)
			break;
		mask = rnp->grpmask;
	}
	rdp->beenonline = true;
	raw_spin_unlock_irqrestore(&rsp->onofflock, flags);
}

/*
 * @cpu is dead: remove its bit from qsmaskinit (and empty nodes from
 * their parents'), and report the quiescent state the current GP may
 * still expect from it -- a dead CPU runs no readers.
 * Caller: hotplug dead step on a surviving CPU, no trcu locks held.
 */
void trcu_cpu_dead_bits(struct trcu_state *rsp, int cpu)
{
	struct trcu_data *rdp = per_cpu_ptr(rsp->rda, cpu);
	struct trcu_node *leaf = rdp->mynode;
	struct trcu_node *rnp;
	unsigned long mask = rdp->grpmask;
	unsigned long flags, flags2;
	bool empty, wake = false;

	raw_spin_lock_irqsave(&rsp->onofflock, flags);
	for (rnp = leaf; rnp; rnp = rnp->parent) {
		trcu_node_lock(rnp);
		rnp->qsmaskinit &= ~mask;
		empty = !rnp->qsmaskinit;
		raw_spin_unlock(&rnp->lock);
		if (!empty)
			break;
		mask = rnp->grpmask;
	}
	/* Order the CPU's last accesses before the QS report below. */
	smp_mb();
	trcu_node_lock_irqsave(leaf, flags2);
	if (leaf->qsmask & rdp->grpmask) {
		rdp->offline_fqs++;
		wake = trcu_report_qs_rnp(rsp, leaf, rdp->grpmask,
					  leaf->gpnum, flags2);
	} else {
		raw_spin_unlock_irqrestore(&leaf->lock, flags2);
	}
	rdp->qs_pending = false;
	raw_spin_unlock_irqrestore(&rsp->onofflock, flags);
	if (wake)
		trcu_gp_kthread_wake(rsp);
}

/*
 * IPI handler sent to a busy holdout.  Taking the interrupt is the
 * nudge; in addition, look at the interrupted context as the tick would:
 * preempt_count() here is the interrupted one plus HARDIRQ_OFFSET, so a
 * user-mode or preemptible kernel context (0), or the idle loop (1, idle
 * task), is a quiescent state.
 */
static void trcu_nudge_cpu(void *info)
{
	int intr_count = preempt_count() - HARDIRQ_OFFSET;

	if (!in_hardirq())
		return;
	trcu_check_callbacks(0, intr_count);
	/*
	 * preempt=full, interrupted with preemption disabled (maybe inside
	 * a reader): ask for a reschedule, so that the preempt_enable()
	 * ending that section enters __schedule(), a QS for the
	 * rcu_note_context_switch() hook even if no other task runs.
	 */
	if (trcu_preempt_full && intr_count && !is_idle_task(current)) {
		set_tsk_need_resched(current);
		set_preempt_need_resched();
	}
}

/*
 * Decide about one CPU whose bit is still set in a leaf's qsmask for the
 * current GP: return true if it is in (or passed through) an extended
 * quiescent state.  Phase 1 only snapshots.
 * Caller: force_quiescent_state(), fqslock held.
 */
static bool trcu_fqs_check_cpu(struct trcu_state *rsp, struct trcu_data *rdp,
			       bool snapshot)
{
	bool nmi;
	int d;

	lockdep_assert_held(&rsp->fqslock);
	/*
	 * No blanket credit for an offline CPU: between clearing its online
	 * bit and dying it still runs (stop-machine tail, the idle loop's
	 * way to play_dead, maybe an interrupt).  It is credited below once
	 * its counter shows it reached the idle loop's last step on that way
	 * (trcu_idle_dead()), or by the hotplug dead step.  A CPU being
	 * brought up is credited until it is marked online
	 * (trcu_dynticks_not_started()).
	 */
	/*
	 * The CPU running this scan (the GP kthread's, irqs off under
	 * fqslock) is in no reader of either flavour, and this GP started
	 * before the kthread got here: a QS.  Without this, from 16 vCPUs
	 * on, busy GPs needed a second scan (make bench: 1.94 scans per GP)
	 * for the CPU doing the scanning.
	 */
	if (rdp->cpu == smp_processor_id())
		goto qs;
	if (!trcu_dynticks_enabled)
		return false;
	/*
	 * Even ->dynticks: idle now, a QS unless an NMI (maybe a reader)
	 * runs there.  Changed since phase 1: the CPU went idle or left it
	 * since, ending any reader (NMI ones too) it had at the snapshot.
	 */
	d = trcu_dynticks_sample(rdp->cpu, &nmi);
	if (trcu_dynticks_not_started(rdp->cpu))
		goto qs;
	if (snapshot) {
		rdp->dynticks_snap = d;
		if (!(d & 1) && !nmi)
			goto qs;
		return false;
	}
	if (d != rdp->dynticks_snap || (!(d & 1) && !nmi))
		goto qs;
	return false;
qs:
	if (cpu_online(rdp->cpu))
		rdp->dynticks_fqs++;
	else
		rdp->offline_fqs++;
	return true;
}

/*
 * Send @func to every CPU in @rsp->ipi_mask but this one, without waiting
 * for it to run, and count the time the sending took (rcustats ipi_send);
 * nothing if the mask is empty.
 * One smp_call_function_many() gives each target its own entry of this
 * CPU's per-target set, so the IPIs go out together.  A loop of
 * smp_call_function_single(wait=0) reuses one entry of the sender and,
 * before each send, waits until the previous target has run the previous
 * function: one holdout with irqs off held up every send behind it.
 * This CPU is left out: the GP kthread runs here, in no reader, and a
 * nudge or kick sent to itself (run at once, not from an interrupt) did
 * nothing.  Caller: the GP kthread, the only sender, so the mask and the
 * counters need no lock; no locks held, irqs on.
 */
static void trcu_send_ipis(struct trcu_state *rsp, smp_call_func_t func,
			   void *info)
{
	u64 t;

	if (cpumask_empty(rsp->ipi_mask))
		return;
	t = ktime_get_ns();
	preempt_disable();	/* smp_call_function_many() wants it */
	smp_call_function_many(rsp->ipi_mask, func, info, false);
	preempt_enable();
	t = ktime_get_ns() - t;
	rsp->n_ipi_send++;
	rsp->ipi_send_ns += t;
	if (t > rsp->ipi_send_max_ns)
		rsp->ipi_send_max_ns = t;
}

/*
 * force_quiescent_state(): phase 1 (first call of a GP) snapshots the
 * dynticks counters of every CPU the GP still waits for and credits those
 * idle right now; later calls credit those whose counter moved or is
 * even, and IPI the remaining (busy, online) holdouts.  Idle and
 * offline CPUs are never IPIed.  @init: the scan right after GP start,
 * a phase 1 that leaves the first timed call a phase 1 too, so that busy
 * CPUs get as long as before to report before they are IPIed.
 * Caller: GP kthread, no locks held.
 */
static void trcu_force_quiescent_state(struct trcu_state *rsp, bool init)
{
	struct trcu_node *rnp;
	unsigned long flags, mask, qs;
	bool snapshot;
	long gpnum;
	int cpu, credited = 0;

	cpumask_clear(rsp->ipi_mask);
	raw_spin_lock_irqsave(&rsp->fqslock, flags);
	rsp->n_force_qs++;
	gpnum = READ_ONCE(rsp->gpnum);
	if (gpnum == READ_ONCE(rsp->completed)) {
		rsp->n_force_qs_ngp++;
		raw_spin_unlock_irqrestore(&rsp->fqslock, flags);
		return;
	}
	snapshot = rsp->signaled == TRCU_SAVE_DYNTICK;	/* set at GP init */
	trcu_for_each_leaf(rsp, rnp) {
		unsigned long f2;

		qs = 0;
		mask = READ_ONCE(rnp->qsmask);
		for (cpu = rnp->grplo; mask && cpu <= rnp->grphi; cpu++) {
			struct trcu_data *rdp = per_cpu_ptr(rsp->rda, cpu);

			if (!(mask & rdp->grpmask))
				continue;
			if (trcu_fqs_check_cpu(rsp, rdp, snapshot))
				qs |= rdp->grpmask;
			else if (!snapshot && cpu_online(cpu) &&
				 !trcu_dynticks_cpu_idle(cpu))
				cpumask_set_cpu(cpu, rsp->ipi_mask);
		}
		if (!qs)
			continue;
		credited += hweight_long(qs);
		trcu_node_lock_irqsave(rnp, f2);
		/* Only this GP's bits; trcu_report_qs_rnp() checks too. */
		if (rnp->gpnum != gpnum) {
			raw_spin_unlock_irqrestore(&rnp->lock, f2);
			continue;
		}
		/*
		 * No wakeup when the root empties: this is the GP kthread,
		 * which checks its wait condition before it sleeps again.
		 */
		trcu_report_qs_rnp(rsp, rnp, qs & rnp->qsmask, gpnum, f2);
	}
	if (!init)
		rsp->signaled = TRCU_FORCE_QS;
	raw_spin_unlock_irqrestore(&rsp->fqslock, flags);
	trace_trcu_fqs(rsp->name, gpnum, snapshot, credited,
		       cpumask_weight(rsp->ipi_mask));
	for_each_cpu(cpu, rsp->ipi_mask) {
		per_cpu_ptr(rsp->rda, cpu)->resched_ipi++;
		trcu_count_ipi(rsp, cpu);
	}
	/* IPIs need irqs on: sent after dropping fqslock. */
	trcu_send_ipis(rsp, trcu_nudge_cpu, NULL);
}

/* Does @rsp need a new grace period?  Lockless peek by the GP kthread. */
static bool trcu_gp_wanted(struct trcu_state *rsp)
{
	return READ_ONCE(rsp->gp_needed) > READ_ONCE(rsp->gpnum);
}

/*
 * Start a grace period: bump ->gpnum, then copy qsmaskinit into qsmask
 * top-down, each node under its own lock, all under onofflock so hotplug
 * cannot change qsmaskinit half-way.  A CPU only notices the GP once its
 * leaf is initialized (trcu_note_gp_changes()), and parents are done
 * before children, so every QS report finds its parents ready.
 * Caller: the GP kthread, no locks held.
 */
static void trcu_gp_init(struct trcu_state *rsp)
{
	struct trcu_node *rnp, *root = trcu_root(rsp);
	long gpnum;

	raw_spin_lock_irq(&rsp->onofflock);
	trcu_node_lock(root);
	gpnum = rsp->completed + 1;
	rsp->signaled = TRCU_SAVE_DYNTICK;
	rsp->jiffies_force_qs = jiffies + trcu_jiffies_till_first_fqs;
	/*
	 * Arm the stall timer before publishing the new ->gpnum: the
	 * lockless stall checks read ->gpnum, then ->jiffies_stall, and
	 * would otherwise judge the new GP by the old deadline (a false
	 * "stall" of 0 jiffies, seen on a fresh load).
	 */
	trcu_stall_gp_start(rsp);
	smp_wmb();	/* deadline before ->gpnum; pairs with stall.c */
	WRITE_ONCE(rsp->gpnum, gpnum);
	raw_spin_unlock(&root->lock);
	trace_trcu_gp_start(rsp->name, gpnum);
	/*
	 * Order the ->gpnum update before any CPU can see the leaf change,
	 * and the callbacks queued before (their ->gpnum reads in
	 * trcu_accelerate_cbs(), which pair with this) inside this GP.
	 */
	smp_mb();
	trcu_for_each_node(rsp, rnp) {
		trcu_node_lock(rnp);
		/*
		 * The last GP ended only when the root emptied, which needs
		 * every node that owed it a QS to have emptied first: a bit
		 * left here is a lost or misdirected report.
		 */
		WARN_ON_ONCE(rnp->qsmask);
		rnp->qsmask = rnp->qsmaskinit;
		WRITE_ONCE(rnp->completed, rsp->completed);
		WRITE_ONCE(rnp->gpnum, gpnum);
		raw_spin_unlock(&rnp->lock);
	}
	raw_spin_unlock_irq(&rsp->onofflock);
}

/*
 * IPI handler: run this CPU's core tasklet (its callbacks are ready).
 * An idle CPU that polls need_resched runs it from its idle loop
 * (flush_smp_call_function_queue()), not from an interrupt: a tasklet
 * raised there is left to ksoftirqd, which is parked while the CPU is
 * coming up or going down, and the idle loop then warned "NOHZ
 * tick-stop error: local softirq work is pending, handler #40" (seen in
 * a 300 s TREE06 with hotplug).  There, schedule it from a self-IPI.
 */
static void trcu_kick_cpu(void *info)
{
	struct trcu_state *rsp = info;
	struct trcu_data *rdp = this_cpu_ptr(rsp->rda);

	if (in_interrupt())
		trcu_raise_core(rdp);
	else
		irq_work_queue(&rdp->kick_work);
}

/*
 * A GP with a synchronize caller runs its kthread on the caller's CPU
 * (trcu_gp_follow_waiter()), whose callback the cleanup just made
 * invocable.  Busy, that CPU gets no kick from the cleanup and would
 * invoke it at its next tick; under TCG the tick may come a whole round
 * of the emulator later (trace, 32 busy vCPUs: GP end at +0.24 s, the
 * caller woken at +0.37 s).  So run its tasklet now, from a self-IPI
 * (from process context a tasklet would wait for ksoftirqd).  Idle, the
 * CPU's idle entry would send that same self-IPI a little later.
 *
 * Only for such a GP (kthread bound): a call_trcu() flood on the CPU the
 * unbound kthread last ran on would otherwise note each GP's end at
 * once and request the next, and the SCHED_FIFO kthread would run GPs
 * back to back on the flooding CPU (make bench, 8 vCPUs: 60,000
 * callbacks/s instead of 930,000).  Without a waiter the tick paces them.
 * Caller: the GP kthread, no locks held.
 */
static void trcu_gp_kick_self(struct trcu_state *rsp)
{
	struct trcu_data *rdp;

	if (READ_ONCE(rsp->gp_kthread_cpu) < 0)
		return;
	local_irq_disable();
	rdp = this_cpu_ptr(rsp->rda);
	if (trcu_cbs_invocable(rsp, rdp))
		irq_work_queue(&rdp->kick_work);
	local_irq_enable();
}

/*
 * End the grace period whose root qsmask emptied: advance ->completed at
 * the root, then in every node so CPUs notice from their leaves.  CPUs
 * with callbacks that sleep in dynticks-idle get no tick to run them, so
 * they get an IPI; CPUs without callbacks are left alone.
 * Caller: the GP kthread, no locks held.
 */
static void trcu_gp_cleanup(struct trcu_state *rsp)
{
	struct trcu_node *rnp, *root = trcu_root(rsp);
	int cpu;

	/*
	 * Every QS report for this GP is ordered before what follows
	 * (root lock chain); make it a full barrier so that callbacks
	 * invoked after seeing the new ->completed (smp_mb() in
	 * trcu_advance_cbs()) follow every pre-existing reader.  Pairs with
	 * the smp_mb() in trcu_check_report_qs() and the fully ordered
	 * dynticks atomics read by force_quiescent_state().
	 */
	smp_mb();
	trcu_node_lock_irq(root);
	WRITE_ONCE(rsp->completed, rsp->gpnum);
	raw_spin_unlock_irq(&root->lock);
	trace_trcu_gp_end(rsp->name, rsp->completed, jiffies - rsp->gp_start);
	trcu_for_each_node(rsp, rnp) {
		trcu_node_lock_irq(rnp);
		WRITE_ONCE(rnp->completed, rsp->completed);
		raw_spin_unlock_irq(&rnp->lock);
	}
	smp_mb();	/* ->completed before the qlen/idle peeks below. */
	cpumask_clear(rsp->ipi_mask);
	for_each_online_cpu(cpu) {
		struct trcu_data *rdp = per_cpu_ptr(rsp->rda, cpu);

		if (READ_ONCE(rdp->qlen) && trcu_dynticks_cpu_idle(cpu)) {
			trcu_count_ipi(rsp, cpu);
			cpumask_set_cpu(cpu, rsp->ipi_mask);
		}
	}
	trcu_send_ipis(rsp, trcu_kick_cpu, rsp);
	trcu_gp_kick_self(rsp);
}

/* Root qsmask empty while a GP runs: the GP may be cleaned up. */
static bool trcu_gp_done(struct trcu_state *rsp)
{
	return !READ_ONCE(trcu_root(rsp)->qsmask);
}

/*
 * rcustats (trace=1): before the GP kthread sleeps, snapshot the idle
 * counter of each CPU it may wake on; when it wakes, the CPU it runs on
 * has been dynticks-idle meanwhile iff its counter moved, so this wakeup
 * had to wake an idle CPU.  Bound, it wakes where it is bound: one
 * snapshot, not a walk over every CPU on each idle GP's path (~0.7 us
 * per CPU under TCG, in the 8 -> 128 vCPU latency growth).  A wakeup
 * elsewhere compares with an older snapshot and counts as idle: the
 * count errs high, never low.
 */
static void trcu_gp_sleep_snap(struct trcu_state *rsp)
{
	int cpu = READ_ONCE(rsp->gp_kthread_cpu);

	if (!trcu_trace)
		return;
	if (cpu >= 0) {
		per_cpu_ptr(rsp->rda, cpu)->gpk_dt_snap =
			trcu_dynticks_snap(cpu);
		return;
	}
	for_each_online_cpu(cpu)
		per_cpu_ptr(rsp->rda, cpu)->gpk_dt_snap =
			trcu_dynticks_snap(cpu);
}

/* @req: the wait that ended was the one for a GP request. */
static void trcu_gp_woke(struct trcu_state *rsp, bool req)
{
	struct trcu_data *rdp;
	int cpu;

	/* For the stall warning: how long since the kthread last ran. */
	WRITE_ONCE(rsp->gp_activity, jiffies);
	if (!trcu_trace)
		return;
	cpu = raw_smp_processor_id();
	rdp = per_cpu_ptr(rsp->rda, cpu);
	if (trcu_dynticks_snap(cpu) == rdp->gpk_dt_snap)
		return;
	WRITE_ONCE(rdp->n_wake_idle, rdp->n_wake_idle + 1);
	if (req)
		WRITE_ONCE(rdp->n_wake_idle_req, rdp->n_wake_idle_req + 1);
}

/*
 * Run the GP kthread on the CPU of a synchronize caller, if one asked
 * since it last looked, else wherever the scheduler likes.
 *
 * The scheduler wakes a task on the CPU it last ran on if that CPU is
 * idle, so an unbound GP kthread woke an idle CPU for every GP request
 * (make bench: 101 of 202 idle-CPU wakeups in 101 GPs) and had its
 * first-scan timer fire there too.  Bound to the caller's CPU, the next
 * request from there -- the caller is running when it asks -- wakes it
 * there, and the caller's wait leaves that CPU free for it.  Callers of
 * call_trcu() keep running instead: bound to a CPU flooding callbacks
 * the kthread took its time from the poster and invoked/s fell to 0.55-
 * 0.86 of the kernel's (8 vCPUs), so without a waiter it is unbound and
 * works in parallel on another CPU.  A CPU that is going away refuses
 * the bind, or the scheduler moves the kthread off it later.  The hint
 * is read and cleared without atomics: losing one only moves the
 * kthread less.  Caller: the GP kthread, no locks held.
 */
static void trcu_gp_follow_waiter(struct trcu_state *rsp)
{
	int cpu = READ_ONCE(rsp->gp_waiter_cpu);

	if (cpu >= 0)
		WRITE_ONCE(rsp->gp_waiter_cpu, -1);
	if (cpu < 0 || !cpu_online(cpu)) {
		if (READ_ONCE(rsp->gp_kthread_cpu) >= 0 &&
		    !set_cpus_allowed_ptr(current, cpu_possible_mask))
			WRITE_ONCE(rsp->gp_kthread_cpu, -1);
		return;
	}
	if (cpu == READ_ONCE(rsp->gp_kthread_cpu) &&
	    cpu == raw_smp_processor_id())
		return;
	if (!set_cpus_allowed_ptr(current, cpumask_of(cpu)))
		WRITE_ONCE(rsp->gp_kthread_cpu, cpu);
}

/*
 * A synchronize caller on @cpu finds the GP kthread unbound: the first
 * request since load, or since a stretch of call_trcu() without waiters.
 * Bind the sleeping kthread here, before the request wakes it, or the
 * scheduler wakes it where it last ran, idle or not (make bench: the one
 * idle-CPU wakeup left in 101 GPs, the first request).  Asleep, it only
 * has its mask changed: no migration, no IPI.  While a GP runs it is
 * awake and rebinds itself at the next GP start anyway, so leave it.
 * A race with that rebinding only leaves ->gp_kthread_cpu stale, which
 * trcu_gp_follow_waiter() corrects.  Caller: may sleep, no locks held.
 */
static void trcu_gp_bind_to_waiter(struct trcu_state *rsp, int cpu)
{
	if (READ_ONCE(rsp->gp_kthread_cpu) >= 0 ||
	    READ_ONCE(rsp->gpnum) != READ_ONCE(rsp->completed) ||
	    !rsp->gp_kthread)
		return;
	if (!set_cpus_allowed_ptr(rsp->gp_kthread, cpumask_of(cpu)))
		WRITE_ONCE(rsp->gp_kthread_cpu, cpu);
}

/*
 * Per-flavour GP kthread: sleep until some CPU asks for a GP, start it,
 * force quiescent states every jiffies_till_force_qs while it runs, check
 * for stalls, clean it up.  Sleeps without any timer when idle.
 */
static int trcu_gp_kthread(void *arg)
{
	struct trcu_state *rsp = arg;
	long j;

	for (;;) {
		trcu_gp_sleep_snap(rsp);
		wait_event_idle(rsp->gp_wq, trcu_gp_wanted(rsp) ||
					    kthread_should_stop());
		trcu_gp_woke(rsp, true);
		if (kthread_should_stop())
			break;
		trcu_gp_follow_waiter(rsp);
		trcu_gp_init(rsp);
		/*
		 * Credit the CPUs idle right now, and this one, at once: on
		 * an otherwise idle machine that ends the GP here, and no
		 * timer has to wake this (idle) CPU for the first scan.
		 */
		trcu_force_quiescent_state(rsp, true);
		for (;;) {
			j = READ_ONCE(rsp->jiffies_force_qs) - jiffies;
			if (j < 1)
				j = 1;
			trcu_gp_sleep_snap(rsp);
			wait_event_idle_timeout(rsp->gp_wq,
				trcu_gp_done(rsp) || kthread_should_stop() ||
				test_bit(TRCU_GP_FLAG_FQS, &rsp->gp_flags), j);
			trcu_gp_woke(rsp, false);
			if (trcu_gp_done(rsp) || kthread_should_stop())
				break;
			if (test_and_clear_bit(TRCU_GP_FLAG_FQS, &rsp->gp_flags) ||
			    time_after_eq(jiffies, rsp->jiffies_force_qs)) {
				trcu_force_quiescent_state(rsp, false);
				rsp->jiffies_force_qs = jiffies +
					trcu_jiffies_till_force_qs;
			}
			trcu_stall_check_others(rsp);
			cond_resched();
		}
		if (kthread_should_stop())
			break;
		trcu_gp_cleanup(rsp);
	}
	return 0;
}

/*
 * Start @rsp's GP kthread.  SCHED_FIFO at the lowest priority, as the
 * kernel's own GP kthreads with RCU_BOOST: bound to a requester that is
 * busy with CPU-bound tasks (trcu_gp_follow_waiter()), a normal task
 * waited its CFS turn behind them for every scan and for the cleanup
 * (make bench, 8 busy vCPUs: busy synchronize 1.8 s -> 3.0 s when
 * bound), and an unbound one woken onto a busy CPU waited there up to
 * 10 s until the load balancer moved it (trace, 32 busy vCPUs).  It
 * never spins: each wait is a sleep.  Module init, no locks.
 */
int trcu_gp_kthread_start(struct trcu_state *rsp)
{
	struct task_struct *t;

	t = kthread_create(trcu_gp_kthread, rsp, "%s_gp", rsp->name);
	if (IS_ERR(t))
		return PTR_ERR(t);
	sched_set_fifo_low(t);
	rsp->gp_kthread = t;
	wake_up_process(t);
	return 0;
}

/* Stop @rsp's GP kthread.  Module exit, after the barriers. */
void trcu_gp_kthread_stop(struct trcu_state *rsp)
{
	/* No call_trcu() runs any more: let a queued wakeup finish. */
	irq_work_sync(&rsp->gp_wake_work);
	if (rsp->gp_kthread)
		kthread_stop(rsp->gp_kthread);
	rsp->gp_kthread = NULL;
}

/*
 * Number @rdp's new callbacks (callbacks.c) and ask the GP kthread for
 * the newest GP they wait for.  Caller: owner CPU with irqs off.
 */
static void trcu_accelerate_gp(struct trcu_state *rsp, struct trcu_data *rdp)
{
	long gpnum;

	if (trcu_accelerate_cbs(rsp, rdp, &gpnum))
		trcu_request_gp(rsp, rdp, gpnum);
}

/*
 * Hotplug dead step: move dead CPU @dead's callbacks to @rdp
 * (trcu_cblist_adopt()), number them, and run the core tasklet if some
 * are ready.  Caller: @rdp's CPU, irqs off; @dead's CPU is dead.
 */
void trcu_adopt_cbs(struct trcu_state *rsp, struct trcu_data *dead,
		    struct trcu_data *rdp)
{
	if (!trcu_cblist_adopt(rsp, dead, rdp))
		return;
	trcu_accelerate_gp(rsp, rdp);
	if (trcu_cbs_done(rdp))
		trcu_raise_core(rdp);
}

/*
 * The per-CPU core work of one flavour: notice GP start/end, report a
 * pending quiescent state, advance and number callbacks, invoke the
 * ready ones.  Tasklets of a dead CPU are moved to a survivor by the
 * softirq code, so always work on the CPU we run on.
 * Caller: softirq (tasklet), irqs on.
 */
static void trcu_core_tasklet(struct tasklet_struct *t)
{
	struct trcu_data *rdp = from_tasklet(rdp, t, tasklet);
	struct trcu_state *rsp = rdp->rsp;
	unsigned long flags;
	bool done;

	local_irq_save(flags);
	rdp = this_cpu_ptr(rsp->rda);
	trcu_note_gp_changes(rsp, rdp);
	trcu_check_report_qs(rsp, rdp);
	done = trcu_advance_cbs(rsp, rdp);
	trcu_accelerate_gp(rsp, rdp);
	local_irq_restore(flags);
	if (done && trcu_invoke_cbs(rsp, rdp)) {
		local_irq_save(flags);
		trcu_raise_core(rdp);
		local_irq_restore(flags);
	}
}

/*
 * Queue @head on this CPU's NEXT segment and number it at once, so that
 * a trcu with no grace period running starts one without waiting for a
 * tick.  Any context but NMI, with any lock held: the GP kthread is
 * woken through an irq_work, never directly.
 */
static void __call_trcu(struct trcu_state *rsp, struct rcu_head *head,
			rcu_callback_t func)
{
	struct trcu_data *rdp;
	unsigned long flags;

	head->func = func;
	head->next = NULL;
	local_irq_save(flags);
	rdp = this_cpu_ptr(rsp->rda);
	trcu_cblist_enqueue(rdp, head);
	if (unlikely(rdp->qlen > trcu_qhimark)) {
		/* Flooded: lift the batch limit and push the GP along. */
		/*
		 * MUTANT cb_trickle: the batch limit is never lifted and what
		 * it leaves waits for the next tick (FWD: ->blimit per tick).
		 */
		rdp->blimit = LONG_MAX;
		/*
		 * A forced scan per qhimark callbacks queued above the
		 * queue's last low point, as the kernel's __call_rcu_core():
		 * asking at every call made the GP kthread scan for nearly
		 * every callback, and bound to this CPU (the requester) and
		 * SCHED_FIFO it preempted the poster each time.
		 */
		if (rdp->qlen > rdp->qlen_last_fqs + trcu_qhimark) {
			rdp->qlen_last_fqs = rdp->qlen;
			if (!test_and_set_bit(TRCU_GP_FLAG_FQS,
					      &rsp->gp_flags))
				trcu_gp_wake_deferred(rsp);
		}
	}
	trcu_accelerate_gp(rsp, rdp);
	local_irq_restore(flags);
}

/**
 * call_trcu() - queue a callback to run after a trcu grace period
 * @head: structure to be used for queueing the callback
 * @func: function to invoke, with bottom halves disabled, on this CPU
 */
void call_trcu(struct rcu_head *head, rcu_callback_t func)
{
	__call_trcu(&trcu_sched_state, head, func);
}
EXPORT_SYMBOL_GPL(call_trcu);

/**
 * call_trcu_bh() - queue a callback to run after a trcu_bh grace period
 * @head: structure to be used for queueing the callback
 * @func: function to invoke
 */
void call_trcu_bh(struct rcu_head *head, rcu_callback_t func)
{
	__call_trcu(&trcu_bh_state, head, func);
}
EXPORT_SYMBOL_GPL(call_trcu_bh);

/* trcu_barrier()'s callback: the last one wakes the waiter. */
static void trcu_barrier_callback(struct rcu_head *head)
{
	struct trcu_data *rdp = container_of(head, struct trcu_data, barrier);
	struct trcu_state *rsp = rdp->rsp;

	if (atomic_dec_and_test(&rsp->barrier_cpu_count))
		complete(&rsp->barrier_completion);
}

/* IPI handler: queue this CPU's barrier callback behind its others. */
static void trcu_barrier_func(void *info)
{
	struct trcu_state *rsp = info;
	struct trcu_data *rdp = this_cpu_ptr(rsp->rda);

	__call_trcu(rsp, &rdp->barrier, trcu_barrier_callback);
}

/*
 * Wait for every callback of @rsp queued before the call.  CPUs with no
 * callbacks (idle ones in particular) are skipped, not disturbed.
 * Hotplug is held off while the barrier callbacks are queued; a CPU
 * that dies afterwards hands its barrier callback, in order, to the
 * adopter.  Caller: process context, no locks.
 */
static void trcu_do_barrier(struct trcu_state *rsp)
{
	int cpu;

	mutex_lock(&rsp->barrier_mutex);
	cpus_read_lock();
	reinit_completion(&rsp->barrier_completion);
	atomic_set(&rsp->barrier_cpu_count, 1);
	/*
	 * Callers' earlier call_trcu()s (their ->qlen increments) are seen
	 * by the ->qlen reads below; pairs with the irq-disabled update in
	 * __call_trcu() being complete before the caller came here.
	 */
	smp_mb();
	for_each_online_cpu(cpu) {
		struct trcu_data *rdp = per_cpu_ptr(rsp->rda, cpu);

		if (!READ_ONCE(rdp->qlen))
			continue;
		atomic_inc(&rsp->barrier_cpu_count);
		trcu_count_ipi(rsp, cpu);
		smp_call_function_single(cpu, trcu_barrier_func, rsp, 1);
	}
	cpus_read_unlock();
	if (atomic_dec_and_test(&rsp->barrier_cpu_count))
		complete(&rsp->barrier_completion);
	wait_for_completion(&rsp->barrier_completion);
	mutex_unlock(&rsp->barrier_mutex);
}

/**
 * trcu_barrier() - wait for all trcu callbacks queued before the call
 */
void trcu_barrier(void)
{
	trcu_do_barrier(&trcu_sched_state);
}
EXPORT_SYMBOL_GPL(trcu_barrier);

/**
 * trcu_barrier_bh() - wait for all trcu_bh callbacks queued before
 */
void trcu_barrier_bh(void)
{
	trcu_do_barrier(&trcu_bh_state);
}
EXPORT_SYMBOL_GPL(trcu_barrier_bh);

/* Wait for a grace period of @rsp, by queueing a callback and sleeping. */
static void trcu_synchronize(struct trcu_state *rsp,
			     void (*call)(struct rcu_head *, rcu_callback_t))
{
	struct rcu_synchronize rs;
	int cpu = raw_smp_processor_id();	/* a hint: may move */

	might_sleep();
	init_rcu_head_on_stack(&rs.head);
	init_completion(&rs.completion);
	/* Where the GP kthread should run: trcu_gp_follow_waiter(). */
	WRITE_ONCE(rsp->gp_waiter_cpu, cpu);
	trcu_gp_bind_to_waiter(rsp, cpu);
	call(&rs.head, wakeme_after_rcu);
	wait_for_completion(&rs.completion);
	destroy_rcu_head_on_stack(&rs.head);
}

/**
 * synchronize_trcu() - wait until all pre-existing trcu readers finished
 */
void synchronize_trcu(void)
{
	trcu_synchronize(&trcu_sched_state, call_trcu);
}
EXPORT_SYMBOL_GPL(synchronize_trcu);

/**
 * synchronize_trcu_bh() - wait until all pre-existing trcu_bh readers
 * finished
 */
void synchronize_trcu_bh(void)
{
	trcu_synchronize(&trcu_bh_state, call_trcu_bh);
}
EXPORT_SYMBOL_GPL(synchronize_trcu_bh);

/*
 * Count of completed trcu grace periods.  Starts at TRCU_GP_INITVAL
 * (negative), so only differences between two calls are meaningful.
 */
long trcu_batches_completed(void)
{
	return READ_ONCE(trcu_sched_state.completed);
}
EXPORT_SYMBOL_GPL(trcu_batches_completed);

/* Count of completed trcu_bh grace periods (differences only). */
long trcu_batches_completed_bh(void)
{
	return READ_ONCE(trcu_bh_state.completed);
}
EXPORT_SYMBOL_GPL(trcu_batches_completed_bh);
