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
static void trcu_nudge_cpu(void *info);
static void trcu_kick_cpu(void *info);
static void trcu_barrier_func(void *info);

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
		INIT_CSD(&rdp->nudge_csd, trcu_nudge_cpu, NULL);
		INIT_CSD(&rdp->kick_csd, trcu_kick_cpu, rsp);
		INIT_CSD(&rdp->barrier_csd, trcu_barrier_func, rsp);
	}

	rsp->gpnum = TRCU_GP_INITVAL;
	rsp->completed = TRCU_GP_INITVAL;
	rsp->gp_needed = TRCU_GP_INITVAL;
	raw_spin_lock_init(&rsp->onofflock);
	mutex_init(&rsp->fqs_mutex);
	init_waitqueue_head(&rsp->gp_wq);
	init_waitqueue_head(&rsp->sync_wq);
	init_irq_work(&rsp->gp_wake_work, trcu_gp_wake_work);
	mutex_init(&rsp->barrier_mutex);
	mutex_init(&rsp->barrier_lock);
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
 * and lockdep's raw-lock nesting check rejects it under a node lock or
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
		WRITE_ONCE(rsp->gp_req_jiffies, jiffies);
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
	trcu_gpk_check(rsp);	/* gp_kthread.c: starved? */
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
 * Caller: force_quiescent_state(), fqs_mutex held, irqs off.
 */
static bool trcu_fqs_check_cpu(struct trcu_state *rsp, struct trcu_data *rdp,
			       bool snapshot)
{
	bool nmi;
	int d;

	lockdep_assert_held(&rsp->fqs_mutex);
	lockdep_assert_irqs_disabled();
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
	 * The CPU running this scan (the GP kthread's, irqs off for this
	 * leaf) is in no reader of either flavour, and this GP started
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

/* The two kinds of IPI the GP kthread sends, one csd each per target. */
enum trcu_ipi_kind {
	TRCU_IPI_NUDGE,		/* trcu_nudge_cpu(): a busy holdout */
	TRCU_IPI_KICK,		/* trcu_kick_cpu(): callbacks now ready */
};

/*
 * Send an IPI of @kind to every CPU in @rsp->ipi_mask but this one,
 * without waiting for it, and count the time the sending took (rcustats
 * ipi_send); nothing if the mask is empty.
 *
 * Each target has one csd of each kind (in its trcu_data), and a csd
 * whose previous IPI has not run yet is not sent again: that target is
 * skipped this time (rcudata's ib), since the IPI still in flight does
 * the same job when it arrives.  So the sender never spins: the kernel's
 * smp_call_function_many() and _single() wait, before reusing the
 * sender's own csd for a target, until that target has run the previous
 * function, and one holdout with irqs off held up the GP kthread, with
 * preemption off, for as long as it kept them off.  This CPU is left
 * out: the GP kthread runs here, in no reader.  Caller: the GP kthread,
 * the only sender of these csds, so the mask, the csds and the counters
 * need no lock; no locks held, irqs on.
 */
static void trcu_send_ipis(struct trcu_state *rsp, enum trcu_ipi_kind kind)
{
	struct trcu_data *rdp;
	int cpu, self;
	u64 t;

	if (cpumask_empty(rsp->ipi_mask))
		return;
	t = ktime_get_ns();
	self = get_cpu();
	for_each_cpu(cpu, rsp->ipi_mask) {
		if (cpu == self)
			continue;
		rdp = per_cpu_ptr(rsp->rda, cpu);
		if (smp_call_function_single_async(cpu, kind == TRCU_IPI_NUDGE ?
						   &rdp->nudge_csd :
						   &rdp->kick_csd) == -EBUSY)
			rdp->ipi_busy++;
	}
	put_cpu();
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
	mutex_lock(&rsp->fqs_mutex);
	rsp->n_force_qs++;
	gpnum = READ_ONCE(rsp->gpnum);
	if (gpnum == READ_ONCE(rsp->completed)) {
		rsp->n_force_qs_ngp++;
		mutex_unlock(&rsp->fqs_mutex);
		return;
	}
	snapshot = rsp->signaled == TRCU_SAVE_DYNTICK;	/* set at GP init */
	/*
	 * Order the counter reads below after whatever this GP's start
	 * and the earlier scans saw: each read is then an acquire of the
	 * CPU's own fully ordered counter updates (dynticks.c).
	 */
	smp_mb();
	/*
	 * Irqs are off for one leaf at a time, not for the whole scan: the
	 * work at GP start is O(CPUs), and with irqs off across all of it
	 * this CPU took no interrupt for that long at every GP.
	 */
	trcu_for_each_leaf(rsp, rnp) {
		mask = READ_ONCE(rnp->qsmask);
		if (!mask)
			continue;
		qs = 0;
		local_irq_save(flags);
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
		if (!qs) {
			local_irq_restore(flags);
			continue;
		}
		credited += hweight_long(qs);
		trcu_node_lock(rnp);
		/* Only this GP's bits; trcu_report_qs_rnp() checks too. */
		if (rnp->gpnum != gpnum) {
			raw_spin_unlock_irqrestore(&rnp->lock, flags);
			continue;
		}
		/*
		 * No wakeup when the root empties: this is the GP kthread,
		 * which checks its wait condition before it sleeps again.
		 */
		trcu_report_qs_rnp(rsp, rnp, qs & rnp->qsmask, gpnum, flags);
	}
	if (!init)
		rsp->signaled = TRCU_FORCE_QS;
	mutex_unlock(&rsp->fqs_mutex);
	trace_trcu_fqs(rsp->name, gpnum, snapshot, credited,
		       cpumask_weight(rsp->ipi_mask));
	for_each_cpu(cpu, rsp->ipi_mask) {
		per_cpu_ptr(rsp->rda, cpu)->resched_ipi++;
		trcu_count_ipi(rsp, cpu);
	}
	trcu_send_ipis(rsp, TRCU_IPI_NUDGE);
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
 * End the grace period whose root qsmask emptied: advance ->completed at
 * the root, then in every node so CPUs notice from their leaves.  CPUs
 * with callbacks that sleep in dynticks-idle get no tick to run them, so
 * they get an IPI; CPUs without callbacks are left alone.  Then wake the
 * synchronize callers whose GP this was.
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
	trcu_send_ipis(rsp, TRCU_IPI_KICK);
	/*
	 * synchronize callers wait for ->completed, not for a callback:
	 * wake them here, as the kernel does since 6.9
	 * (rcu_normal_wake_from_gp), so that their wait ends with the GP
	 * on whatever CPU they sleep, busy or not, without waiting for that
	 * CPU's tick or softirq to run a callback.  The wait queue's lock
	 * orders the ->completed store before their check.
	 */
	if (wq_has_sleeper(&rsp->sync_wq))
		wake_up_all(&rsp->sync_wq);
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
 * had to wake an idle CPU.
 */
static void trcu_gp_sleep_snap(struct trcu_state *rsp)
{
	int cpu;

	if (!trcu_trace)
		return;
	for_each_online_cpu(cpu)
		per_cpu_ptr(rsp->rda, cpu)->gpk_dt_snap =
			trcu_dynticks_snap(cpu);
}

/* @req: the wait that ended was the one for a GP request. */
static void trcu_gp_woke(struct trcu_state *rsp, bool req)
{
	struct trcu_data *rdp;
	int cpu;

	/* Stall warning and starvation watch: when it last ran. */
	trcu_gpk_ran(rsp);
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
		trcu_gpk_ran(rsp);
	}
	return 0;
}

/*
 * Start @rsp's GP kthread: its class and placement are gp_kthread.c's.
 * Module init, no locks.
 */
int trcu_gp_kthread_start(struct trcu_state *rsp)
{
	return trcu_gpk_start(rsp, trcu_gp_kthread);
}

/* Stop @rsp's GP kthread.  Module exit, after the barriers. */
void trcu_gp_kthread_stop(struct trcu_state *rsp)
{
	/* No call_trcu() runs any more: let a queued wakeup finish. */
	irq_work_sync(&rsp->gp_wake_work);
	trcu_gpk_stop(rsp);
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
 * Ask online @cpu to queue its barrier callback, without waiting for it
 * to do so: a CPU with irqs off must not hold the barrier's caller in a
 * spin (smp_call_function_single() with wait), only in its sleep on the
 * completion.  The csd is free: the previous barrier, which ->barrier_mutex
 * waited for, ended only after this CPU had run its function (an async
 * csd is released before its function runs).  An IPI queued to a CPU that
 * goes offline runs there on its way down (the kernel flushes the queue
 * of a dying CPU) and its callback is adopted with the rest.  0 if sent,
 * else the CPU is offline.  Caller: trcu_do_barrier(), ->barrier_lock held.
 */
static int trcu_barrier_ipi(struct trcu_state *rsp, int cpu)
{
	struct trcu_data *rdp = per_cpu_ptr(rsp->rda, cpu);
	int ret;

	lockdep_assert_held(&rsp->barrier_lock);
	ret = smp_call_function_single_async(cpu, &rdp->barrier_csd);
	WARN_ON_ONCE(ret == -EBUSY);
	return ret;
}

/*
 * Queue @cpu's barrier callback behind its others, @cpu being offline.
 * Dead (its hotplug dead step has begun), its list is touched by nobody
 * but the adoption, which ->barrier_lock holds off: queue it there, and
 * the adoption moves it, in order, to the adopter.  Offline and not yet
 * dead, the CPU may still run for a moment: wait for its dead step to
 * begin (a hotplug operation that is running cannot wait for us: the
 * dead step takes ->barrier_lock only after setting ->dead).  Returns
 * false if the callbacks were adopted meanwhile (nothing to queue).
 * Caller: trcu_do_barrier(), ->barrier_lock held.
 */
static bool trcu_barrier_offline(struct trcu_state *rsp, int cpu)
{
	struct trcu_data *rdp = per_cpu_ptr(rsp->rda, cpu);
	unsigned long flags;

	lockdep_assert_held(&rsp->barrier_lock);
	while (!READ_ONCE(per_cpu_ptr(trcu_dynticks, cpu)->dead)) {
		if (cpu_online(cpu))
			return false;	/* back: the caller IPIs it */
		schedule_timeout_uninterruptible(1);
	}
	smp_mb();	/* ->dead before its list: pairs with hotplug.c */
	if (!READ_ONCE(rdp->qlen))
		return false;
	rdp->barrier.func = trcu_barrier_callback;
	rdp->barrier.next = NULL;
	local_irq_save(flags);
	trcu_cblist_enqueue(rdp, &rdp->barrier);
	local_irq_restore(flags);
	return true;
}

/*
 * Wait for every callback of @rsp queued before the call.  CPUs with no
 * callbacks (idle ones in particular) are skipped, not disturbed.
 * CPU hotplug is not held off, so that a caller may hold its read lock
 * (as kernel code calls rcu_barrier()): ->barrier_lock keeps the dead
 * step's adoption out while the barrier callbacks are queued, an online
 * CPU gets its callback by IPI, and a dead CPU whose callbacks are not
 * adopted yet gets it queued on its list, which the adoption then moves
 * in order.  Caller: process context, no locks but perhaps the CPU
 * hotplug read lock.
 */
static void trcu_do_barrier(struct trcu_state *rsp)
{
	int cpu;

	mutex_lock(&rsp->barrier_mutex);
	mutex_lock(&rsp->barrier_lock);
	reinit_completion(&rsp->barrier_completion);
	atomic_set(&rsp->barrier_cpu_count, 1);
	/*
	 * Callers' earlier call_trcu()s (their ->qlen increments) are seen
	 * by the ->qlen reads below; pairs with the irq-disabled update in
	 * __call_trcu() being complete before the caller came here.
	 */
	smp_mb();
	for_each_possible_cpu(cpu) {
		struct trcu_data *rdp = per_cpu_ptr(rsp->rda, cpu);

		if (!READ_ONCE(rdp->qlen))
			continue;
		atomic_inc(&rsp->barrier_cpu_count);
		if (cpu_online(cpu)) {
			trcu_count_ipi(rsp, cpu);
			if (!trcu_barrier_ipi(rsp, cpu))
				continue;
		}
		if (!trcu_barrier_offline(rsp, cpu) &&
		    !(cpu_online(cpu) && !trcu_barrier_ipi(rsp, cpu)))
			atomic_dec(&rsp->barrier_cpu_count);
	}
	mutex_unlock(&rsp->barrier_lock);
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

/*
 * Wait for a grace period of @rsp: ask for the first GP to start after
 * this call and sleep until the GP kthread has ended it.  No callback is
 * queued, so the wait ends with the GP, not when this CPU next gets to
 * invoke callbacks (a CPU hogged by another task, or flooded, may not
 * for a long time).  The GP number is ->gpnum + 1 read after a full
 * barrier, as for callbacks (tree.h): that GP starts after every reader
 * that this caller must wait for had begun.  Caller: may sleep, no
 * locks held but perhaps the CPU hotplug read lock.
 */
static void trcu_synchronize(struct trcu_state *rsp)
{
	unsigned long flags;
	long gpnum;

	might_sleep();
	smp_mb();	/* The caller's updates before the ->gpnum read. */
	local_irq_save(flags);
	gpnum = READ_ONCE(rsp->gpnum) + 1;
	trcu_request_gp(rsp, this_cpu_ptr(rsp->rda), gpnum);
	local_irq_restore(flags);
	wait_event(rsp->sync_wq, READ_ONCE(rsp->completed) - gpnum >= 0);
	smp_mb();	/* The GP before the caller's frees. */
}

/**
 * synchronize_trcu() - wait until all pre-existing trcu readers finished
 */
void synchronize_trcu(void)
{
	trcu_synchronize(&trcu_sched_state);
}
EXPORT_SYMBOL_GPL(synchronize_trcu);

/**
 * synchronize_trcu_bh() - wait until all pre-existing trcu_bh readers
 * finished
 */
void synchronize_trcu_bh(void)
{
	trcu_synchronize(&trcu_bh_state);
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
