// SPDX-License-Identifier: GPL-2.0
/*
 * trcu callbacks: the per-CPU four-segment list (see tree.h), moving
 * callbacks along as grace periods start and end, invoking them in
 * batches with bottom halves disabled, adopting a dead CPU's callbacks,
 * and trcu_barrier().  Per-CPU work runs in a per-CPU, per-flavour
 * tasklet scheduled from the tick probe or an IPI: that is softirq
 * context on the CPU that queued the callbacks, which is exactly where
 * Classic RCU invokes them.
 */
#define pr_fmt(fmt) "trcu: " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/smp.h>
#include <linux/cpu.h>
#include <linux/interrupt.h>
#include <linux/slab.h>

#include <trcu.h>
#include "tree.h"
#include "trcu_trace.h"

/* Empty @rdp's callback list.  Caller: init, or owner with irqs off. */
void trcu_init_cblist(struct trcu_data *rdp)
{
	int i;

	rdp->nxtlist = NULL;
	for (i = 0; i < TRCU_NEXT_SIZE; i++) {
		rdp->nxttail[i] = &rdp->nxtlist;
		rdp->nxtcompleted[i] = 0;
	}
}

/* Is segment @i of @rdp empty?  Caller: owner with irqs off. */
static bool trcu_seg_empty(struct trcu_data *rdp, int i)
{
	struct rcu_head **prev = i ? rdp->nxttail[i - 1] : &rdp->nxtlist;

	return rdp->nxttail[i] == prev;
}

/*
 * Move the WAIT and NEXT_READY segments whose grace period has completed
 * to DONE, then close the gap so a waiting NEXT_READY becomes WAIT.
 * Returns true if DONE is not empty.
 * Caller: owner CPU with irqs off (or hotplug on a dead CPU's data).
 */
bool trcu_advance_cbs(struct trcu_state *rsp, struct trcu_data *rdp)
{
	long c = READ_ONCE(rsp->completed);

	/*
	 * Read ->completed before invoking anything it allows; pairs with
	 * the smp_mb() in trcu_gp_cleanup() before ->completed advances.
	 */
	smp_mb();
	if (!trcu_seg_empty(rdp, TRCU_WAIT_TAIL) &&
	    rdp->nxtcompleted[TRCU_WAIT_TAIL] <= c) {
		rdp->nxttail[TRCU_DONE_TAIL] = rdp->nxttail[TRCU_WAIT_TAIL];
		if (!trcu_seg_empty(rdp, TRCU_NEXT_READY_TAIL) &&
		    rdp->nxtcompleted[TRCU_NEXT_READY_TAIL] <= c) {
			rdp->nxttail[TRCU_DONE_TAIL] =
				rdp->nxttail[TRCU_NEXT_READY_TAIL];
			rdp->nxttail[TRCU_WAIT_TAIL] =
				rdp->nxttail[TRCU_NEXT_READY_TAIL];
		}
	}
	if (trcu_seg_empty(rdp, TRCU_WAIT_TAIL) &&
	    !trcu_seg_empty(rdp, TRCU_NEXT_READY_TAIL)) {
		/* NEXT_READY waits for a later GP: it becomes WAIT. */
		rdp->nxttail[TRCU_WAIT_TAIL] =
			rdp->nxttail[TRCU_NEXT_READY_TAIL];
		rdp->nxtcompleted[TRCU_WAIT_TAIL] =
			rdp->nxtcompleted[TRCU_NEXT_READY_TAIL];
	}
	return !trcu_seg_empty(rdp, TRCU_DONE_TAIL);
}

/*
 * Give the NEXT callbacks a grace-period number: ->gpnum + 1 read now,
 * after they were queued, names a GP that has not started yet, so it
 * covers every reader that could see what they free.  They join WAIT or
 * NEXT_READY when that already waits for the same GP.  If both older
 * segments are busy with earlier GPs, they stay in NEXT until those
 * advance.  Then ask the GP kthread for the GP they need.
 * Returns true if callbacks wait for a GP not yet completed.
 * Caller: owner CPU with irqs off.
 */
bool trcu_accelerate_cbs(struct trcu_state *rsp, struct trcu_data *rdp)
{
	long c;
	int i;

	if (!trcu_seg_empty(rdp, TRCU_NEXT_TAIL)) {
		/*
		 * Queueing before the ->gpnum read; pairs with smp_mb() in
		 * trcu_gp_init() after ->gpnum is bumped.
		 */
		smp_mb();
		c = READ_ONCE(rsp->gpnum) + 1;
		if (!trcu_seg_empty(rdp, TRCU_NEXT_READY_TAIL)) {
			if (rdp->nxtcompleted[TRCU_NEXT_READY_TAIL] == c)
				rdp->nxttail[TRCU_NEXT_READY_TAIL] =
					rdp->nxttail[TRCU_NEXT_TAIL];
		} else if (!trcu_seg_empty(rdp, TRCU_WAIT_TAIL) &&
			   rdp->nxtcompleted[TRCU_WAIT_TAIL] != c) {
			rdp->nxttail[TRCU_NEXT_READY_TAIL] =
				rdp->nxttail[TRCU_NEXT_TAIL];
			rdp->nxtcompleted[TRCU_NEXT_READY_TAIL] = c;
		} else {
			/* WAIT is empty or waits for GP c too. */
			rdp->nxttail[TRCU_WAIT_TAIL] =
				rdp->nxttail[TRCU_NEXT_TAIL];
			rdp->nxttail[TRCU_NEXT_READY_TAIL] =
				rdp->nxttail[TRCU_NEXT_TAIL];
			rdp->nxtcompleted[TRCU_WAIT_TAIL] = c;
		}
	}
	/* Request the newest GP any numbered segment waits for. */
	for (i = TRCU_NEXT_READY_TAIL; i >= TRCU_WAIT_TAIL; i--) {
		if (!trcu_seg_empty(rdp, i)) {
			trcu_request_gp(rsp, rdp, rdp->nxtcompleted[i]);
			return true;
		}
	}
	return !trcu_seg_empty(rdp, TRCU_NEXT_TAIL);
}

/*
 * Is there work for the core tasklet among @rdp's callbacks: ready ones,
 * ones whose GP completed, or new ones without a GP number?
 * Caller: owner CPU with irqs off (tick probe).
 */
bool trcu_cbs_ready(struct trcu_state *rsp, struct trcu_data *rdp)
{
	long c = READ_ONCE(rsp->completed);

	if (!rdp->nxtlist)
		return false;
	if (!trcu_seg_empty(rdp, TRCU_DONE_TAIL) ||
	    !trcu_seg_empty(rdp, TRCU_NEXT_TAIL))
		return true;
	return !trcu_seg_empty(rdp, TRCU_WAIT_TAIL) &&
	       rdp->nxtcompleted[TRCU_WAIT_TAIL] <= c;
}

/*
 * Invoke at most ->blimit callbacks of the DONE segment (all of them
 * while ->qlen is above qhimark), and reschedule the tasklet for the
 * rest.  Caller: owner CPU's core tasklet (softirq: bh disabled), irqs on.
 */
void trcu_invoke_cbs(struct trcu_state *rsp, struct trcu_data *rdp)
{
	struct rcu_head *list, *next, **tail;
	unsigned long flags;
	long count = 0;
	int i;

	local_irq_save(flags);
	list = rdp->nxtlist;
	tail = rdp->nxttail[TRCU_DONE_TAIL];
	if (tail == &rdp->nxtlist) {
		local_irq_restore(flags);
		return;
	}
	rdp->nxtlist = *tail;
	*tail = NULL;
	for (i = TRCU_NEXT_SIZE - 1; i >= 0; i--)
		if (rdp->nxttail[i] == tail)
			rdp->nxttail[i] = &rdp->nxtlist;
	local_irq_restore(flags);
	trace_trcu_batch_start(rsp->name, READ_ONCE(rdp->qlen), rdp->blimit);

	while (list) {
		next = list->next;
		prefetch(next);
		/*
		 * kfree_trcu()'s fallback (kfree.c) queues an object's own
		 * head with the head's offset in the object as "function":
		 * no function lives in the first page.
		 */
		if (TRCU_KFREE_IS_OFFSET(list->func))
			kfree((void *)list - (unsigned long)list->func);
		else
			list->func(list);
		list = next;
		if (++count >= rdp->blimit)
			break;
	}

	local_irq_save(flags);
	/* Put back what the batch limit left, at the head of DONE. */
	if (list) {
		*tail = rdp->nxtlist;
		rdp->nxtlist = list;
		for (i = 0; i < TRCU_NEXT_SIZE; i++) {
			if (rdp->nxttail[i] == &rdp->nxtlist)
				rdp->nxttail[i] = tail;
			else
				break;
		}
	}
	/* Decremented only now, so trcu_barrier() sees in-flight ones. */
	WRITE_ONCE(rdp->qlen, rdp->qlen - count);
	rdp->n_cbs_invoked += count;
	trace_trcu_batch_end(rsp->name, count);
	if (rdp->blimit == LONG_MAX && rdp->qlen <= trcu_qlowmark)
		rdp->blimit = trcu_blimit;
	if (!trcu_seg_empty(rdp, TRCU_DONE_TAIL))
		trcu_raise_core(rdp);
	local_irq_restore(flags);
}

/*
 * The per-CPU core work of one flavour: notice GP start/end, report a
 * pending quiescent state, advance and number callbacks, invoke the
 * ready ones.  Tasklets of a dead CPU are moved to a survivor by the
 * softirq code, so always work on the CPU we run on.
 * Caller: softirq (tasklet), irqs on.
 */
void trcu_core_tasklet(struct tasklet_struct *t)
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
	trcu_accelerate_cbs(rsp, rdp);
	local_irq_restore(flags);
	if (done)
		trcu_invoke_cbs(rsp, rdp);
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
	*rdp->nxttail[TRCU_NEXT_TAIL] = head;
	rdp->nxttail[TRCU_NEXT_TAIL] = &head->next;
	WRITE_ONCE(rdp->qlen, rdp->qlen + 1);
	if (unlikely(rdp->qlen > trcu_qhimark)) {
		/* Flooded: lift the batch limit and push the GP along. */
		/*
		 * MUTANT cb_trickle: the batch limit is never lifted and what
		 * it leaves waits for the next tick (FWD: ->blimit per tick).
		 */
		rdp->blimit = LONG_MAX;
		if (!test_and_set_bit(TRCU_GP_FLAG_FQS, &rsp->gp_flags))
			trcu_gp_wake_deferred(rsp);
	}
	trcu_accelerate_cbs(rsp, rdp);
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

/*
 * Move all of dead CPU @dead's callbacks to @rdp: its DONE ones behind
 * @rdp's DONE, all others behind @rdp's NEXT, to get a fresh GP number
 * (waiting longer is always safe).  Order among @dead's callbacks is
 * kept, which trcu_barrier() relies on.
 * Caller: hotplug dead step on @rdp's CPU, irqs off; @dead's CPU is dead.
 */
void trcu_adopt_cbs(struct trcu_state *rsp, struct trcu_data *dead,
		    struct trcu_data *rdp)
{
	struct rcu_head *rest, **pos;
	int i;

	if (!dead->nxtlist)
		return;
	trcu_advance_cbs(rsp, dead);
	rest = *dead->nxttail[TRCU_DONE_TAIL];
	if (dead->nxttail[TRCU_DONE_TAIL] != &dead->nxtlist) {
		pos = rdp->nxttail[TRCU_DONE_TAIL];
		*dead->nxttail[TRCU_DONE_TAIL] = *pos;
		*pos = dead->nxtlist;
		for (i = TRCU_NEXT_SIZE - 1; i >= TRCU_DONE_TAIL; i--)
			if (rdp->nxttail[i] == pos)
				rdp->nxttail[i] = dead->nxttail[TRCU_DONE_TAIL];
	}
	if (rest) {
		*rdp->nxttail[TRCU_NEXT_TAIL] = rest;
		rdp->nxttail[TRCU_NEXT_TAIL] = dead->nxttail[TRCU_NEXT_TAIL];
		/* debugfs rcustats: did hotplug tests reach this case? */
		rsp->n_adopt_not_done++;
	}
	WRITE_ONCE(rdp->qlen, rdp->qlen + dead->qlen);
	rdp->n_cbs_adopted += dead->qlen;
	WRITE_ONCE(dead->qlen, 0);
	trcu_init_cblist(dead);
	trcu_accelerate_cbs(rsp, rdp);
	if (!trcu_seg_empty(rdp, TRCU_DONE_TAIL))
		trcu_raise_core(rdp);
}

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
void trcu_do_barrier(struct trcu_state *rsp)
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
