// SPDX-License-Identifier: GPL-2.0
/*
 * trcu callbacks: the per-CPU four-segment list (see tree.h), moving
 * callbacks along as grace periods start and end, invoking them in
 * batches with bottom halves disabled, adopting a dead CPU's callbacks.
 * A leaf, as the kernel's segmented callback list: it calls nothing of
 * trcu's but the parameters and the trace events, and returns what the
 * engine (tree.c) must do -- request a GP, reschedule the core tasklet.
 * call_trcu(), the core tasklet that runs this per CPU (softirq on the
 * CPU that queued the callbacks, exactly where Classic RCU invokes them)
 * and trcu_barrier() are the engine's.
 */
#define pr_fmt(fmt) "trcu: " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/smp.h>
#include <linux/cpu.h>
#include <linux/interrupt.h>
#include <linux/slab.h>
#include <linux/sched.h>
#include <linux/timekeeping.h>

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
 * Walk @rdp's list and check that the tails are met in segment order
 * (each at or after the previous one) and that it holds no more than
 * ->qlen callbacks (fewer while trcu_invoke_cbs() has a batch out of the
 * list), exactly ->qlen if @exact.  O(n), so only under CONFIG_PROVE_RCU
 * (the debug kernel), where a broken list should be caught where it
 * breaks rather than as a lost callback much later, and only at points
 * that are not per call_trcu(): a batch's end and adoption.  Longer lists
 * than TRCU_CBLIST_WALK_MAX (floods) are not walked, which bounds the
 * cost per batch.  Caller: owner CPU with irqs off, or hotplug.
 */
#define TRCU_CBLIST_WALK_MAX	1000
static void trcu_cblist_walk(struct trcu_data *rdp, bool exact)
{
	struct rcu_head **pos = &rdp->nxtlist;
	long n = 0;
	int i = 0;

	if (!IS_ENABLED(CONFIG_PROVE_RCU) || rdp->qlen > TRCU_CBLIST_WALK_MAX)
		return;

	for (;;) {
		while (i < TRCU_NEXT_SIZE && rdp->nxttail[i] == pos)
			i++;
		if (!*pos)
			break;
		pos = &(*pos)->next;
		if (WARN_ON_ONCE(++n > rdp->qlen))
			return;
	}
	/* Every tail met on the way, the last one at the list's end. */
	WARN_ON_ONCE(i != TRCU_NEXT_SIZE || rdp->nxttail[i - 1] != pos);
	WARN_ON_ONCE(exact && n != rdp->qlen);
}

/*
 * Cheap (O(1)) consistency checks of @rdp's segmented list, after every
 * change of it.  An empty segment's tail equals the previous one's, so a
 * tail at the head forces all earlier tails there too; the last tail ends
 * the list; an empty list has every tail at the head; queued callbacks
 * are counted in ->qlen.
 * Caller: owner CPU with irqs off (or hotplug on a dead CPU's data).
 */
static void trcu_cblist_check(struct trcu_data *rdp)
{
	int i;

	for (i = TRCU_NEXT_SIZE - 1; i > 0; i--)
		WARN_ON_ONCE(rdp->nxttail[i] == &rdp->nxtlist &&
			     rdp->nxttail[i - 1] != &rdp->nxtlist);
	WARN_ON_ONCE(*rdp->nxttail[TRCU_NEXT_TAIL]);
	WARN_ON_ONCE(!rdp->nxtlist !=
		     (rdp->nxttail[TRCU_NEXT_TAIL] == &rdp->nxtlist));
	WARN_ON_ONCE(rdp->qlen < 0 || (rdp->nxtlist && !rdp->qlen));
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

	lockdep_assert_irqs_disabled();
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
	trcu_cblist_check(rdp);
	return !trcu_seg_empty(rdp, TRCU_DONE_TAIL);
}

/*
 * Give the NEXT callbacks a grace-period number: ->gpnum + 1 read now,
 * after they were queued, names a GP that has not started yet, so it
 * covers every reader that could see what they free.  They join WAIT or
 * NEXT_READY when that already waits for the same GP.  If both older
 * segments are busy with earlier GPs, they stay in NEXT until those
 * advance.  Returns true, with the newest GP the numbered segments wait
 * for in *@gpnum, if there is one: the caller asks the GP kthread for it
 * (this file only keeps the list).
 * Caller: owner CPU with irqs off.
 */
bool trcu_accelerate_cbs(struct trcu_state *rsp, struct trcu_data *rdp,
			 long *gpnum)
{
	long c;
	int i;

	lockdep_assert_irqs_disabled();
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
		trcu_cblist_check(rdp);
	}
	/* The newest GP any numbered segment waits for: the caller asks. */
	for (i = TRCU_NEXT_READY_TAIL; i >= TRCU_WAIT_TAIL; i--) {
		if (!trcu_seg_empty(rdp, i)) {
			*gpnum = rdp->nxtcompleted[i];
			return true;
		}
	}
	return false;
}

/*
 * Can the core tasklet invoke some of @rdp's callbacks now: ready ones,
 * or ones whose GP has completed (trcu_advance_cbs() makes them ready)?
 * New callbacks without a GP number do not count: numbering them may
 * have to wait for an older segment's GP.
 * Caller: owner CPU with irqs off.
 */
bool trcu_cbs_invocable(struct trcu_state *rsp, struct trcu_data *rdp)
{
	lockdep_assert_irqs_disabled();
	if (!rdp->nxtlist)
		return false;
	if (!trcu_seg_empty(rdp, TRCU_DONE_TAIL))
		return true;
	return !trcu_seg_empty(rdp, TRCU_WAIT_TAIL) &&
	       rdp->nxtcompleted[TRCU_WAIT_TAIL] <= READ_ONCE(rsp->completed);
}

/*
 * Is there work for the core tasklet among @rdp's callbacks: invocable
 * ones, or new ones without a GP number?
 * Caller: owner CPU with irqs off (tick probe).
 */
bool trcu_cbs_ready(struct trcu_state *rsp, struct trcu_data *rdp)
{
	return trcu_cbs_invocable(rsp, rdp) ||
	       !trcu_seg_empty(rdp, TRCU_NEXT_TAIL);
}

/*
 * Invoke at most ->blimit callbacks of the DONE segment.  While ->qlen
 * is above qhimark there is no count limit, but a batch still ends once
 * it has run batch_us, or when a task wants this CPU (need_resched()),
 * both looked at every 32 callbacks past the normal blimit: softirq work
 * is not preemptible, and a flood's whole DONE segment in one go kept
 * the CPU from its tasks for as long as it took.  Returns true if ready
 * ones are left: the caller reschedules the core tasklet for them, and
 * the softirq code hands them to ksoftirqd once it has run long enough.
 * Caller: owner CPU's core tasklet (softirq: bh disabled), irqs on.
 */
bool trcu_invoke_cbs(struct trcu_state *rsp, struct trcu_data *rdp)
{
	struct rcu_head *list, *next, **tail;
	u64 start, limit = (u64)trcu_batch_us * NSEC_PER_USEC;
	unsigned long flags;
	long count = 0;
	bool more;
	int i;

	local_irq_save(flags);
	list = rdp->nxtlist;
	tail = rdp->nxttail[TRCU_DONE_TAIL];
	if (tail == &rdp->nxtlist) {
		local_irq_restore(flags);
		return false;
	}
	rdp->nxtlist = *tail;
	*tail = NULL;
	for (i = TRCU_NEXT_SIZE - 1; i >= 0; i--)
		if (rdp->nxttail[i] == tail)
			rdp->nxttail[i] = &rdp->nxtlist;
	local_irq_restore(flags);
	trace_trcu_batch_start(rsp->name, READ_ONCE(rdp->qlen), rdp->blimit);
	start = ktime_get_ns();

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
		if (!(count & 31) && count >= trcu_blimit &&
		    (need_resched() || ktime_get_ns() - start >= limit))
			break;
	}
	start = ktime_get_ns() - start;

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
	if (count > rdp->batch_max)
		WRITE_ONCE(rdp->batch_max, count);
	if (start > rdp->batch_max_ns)
		WRITE_ONCE(rdp->batch_max_ns, start);
	/* Decremented only now, so trcu_barrier() sees in-flight ones. */
	WRITE_ONCE(rdp->qlen, rdp->qlen - count);
	trcu_cblist_check(rdp);
	trcu_cblist_walk(rdp, false);
	trace_trcu_batch_end(rsp->name, count);
	if (rdp->blimit == LONG_MAX && rdp->qlen <= trcu_qlowmark)
		rdp->blimit = trcu_blimit;
	if (rdp->qlen < rdp->qlen_last_fqs)
		rdp->qlen_last_fqs = rdp->qlen;
	more = !trcu_seg_empty(rdp, TRCU_DONE_TAIL);
	local_irq_restore(flags);
	return more;
}

/*
 * Move all of dead CPU @dead's callbacks to @rdp: its DONE ones behind
 * @rdp's DONE, all others behind @rdp's NEXT, to get a fresh GP number
 * (waiting longer is always safe).  Order among @dead's callbacks is
 * kept, which trcu_barrier() relies on.  Returns false if @dead had
 * none; else the caller numbers @rdp's NEXT (trcu_accelerate_cbs()).
 * Caller: hotplug dead step on @rdp's CPU, irqs off; @dead's CPU is dead.
 */
bool trcu_cblist_adopt(struct trcu_state *rsp, struct trcu_data *dead,
		       struct trcu_data *rdp)
{
	struct rcu_head *rest, **pos;
	int i;

	lockdep_assert_irqs_disabled();
	if (!dead->nxtlist)
		return false;
	/* A dead CPU invokes nothing: every callback is on its list. */
	trcu_cblist_check(dead);
	trcu_cblist_walk(dead, true);
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
	WRITE_ONCE(dead->qlen, 0);
	trcu_init_cblist(dead);
	trcu_cblist_check(rdp);
	trcu_cblist_walk(rdp, false);
	return true;
}

/* Has @rdp callbacks ready to invoke?  Caller: owner, irqs off. */
bool trcu_cbs_done(struct trcu_data *rdp)
{
	return !trcu_seg_empty(rdp, TRCU_DONE_TAIL);
}

/*
 * Queue @head at the end of @rdp's NEXT segment and count it.
 * Caller: owner CPU with irqs off.
 */
void trcu_cblist_enqueue(struct trcu_data *rdp, struct rcu_head *head)
{
	*rdp->nxttail[TRCU_NEXT_TAIL] = head;
	rdp->nxttail[TRCU_NEXT_TAIL] = &head->next;
	WRITE_ONCE(rdp->qlen, rdp->qlen + 1);
	trcu_cblist_check(rdp);
}
