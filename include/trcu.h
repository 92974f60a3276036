/* SPDX-License-Identifier: GPL-2.0 */
/*
 * trcu: hierarchical ("tree") RCU as a loadable module, running beside the
 * kernel's own RCU.  This is the only header other modules include.
 *
 * Read side: Classic RCU semantics.  A trcu read-side critical section is a
 * region with preemption disabled; the trcu_bh flavour's is a region with
 * bottom halves disabled.  Both nest, cost no atomics and write no shared
 * memory.  The one exception is NMI context: trcu cannot hook NMI entry on
 * the stock kernel (the context-tracking NMI hooks are noinstr), so a reader
 * running in an NMI that interrupted a dynticks-idle CPU marks that CPU busy
 * itself, through trcu_nmi_reader_enter()/trcu_nmi_reader_exit().  That
 * only touches the current CPU's own counters.
 */
#ifndef _TRCU_H
#define _TRCU_H

#include <linux/types.h>
#include <linux/compiler.h>
#include <linux/preempt.h>
#include <linux/bottom_half.h>
#include <linux/irqflags.h>

struct rcu_head;

/* Out-of-line halves of an NMI-context reader; see the comment above. */
void trcu_nmi_reader_enter(void);
void trcu_nmi_reader_exit(void);

/**
 * trcu_read_lock() - mark the beginning of a trcu read-side critical section
 *
 * A grace period of trcu that begins after this call will not end before
 * the matching trcu_read_unlock().  Nestable; any context including NMI.
 */
static inline void trcu_read_lock(void)
{
	preempt_disable();
	if (unlikely(in_nmi()))
		trcu_nmi_reader_enter();
}

/**
 * trcu_read_unlock() - mark the end of a trcu read-side critical section
 */
static inline void trcu_read_unlock(void)
{
	if (unlikely(in_nmi()))
		trcu_nmi_reader_exit();
	preempt_enable();
}

/**
 * trcu_read_lock_bh() - begin a trcu_bh read-side critical section
 *
 * Disables bottom halves.  In hardirq or NMI context, or with interrupts
 * disabled, bottom halves cannot run on this CPU anyway and
 * local_bh_enable() would complain there, so only preemption is disabled;
 * the bh quiescent-state detector never sees such a context as quiescent.
 */
static inline void trcu_read_lock_bh(void)
{
	if (unlikely(in_hardirq() || in_nmi() || irqs_disabled()))
		trcu_read_lock();
	else
		local_bh_disable();
}

/**
 * trcu_read_unlock_bh() - end a trcu_bh read-side critical section
 */
static inline void trcu_read_unlock_bh(void)
{
	if (unlikely(in_hardirq() || in_nmi() || irqs_disabled()))
		trcu_read_unlock();
	else
		local_bh_enable();
}

/* Update side: all exported GPL, all may be called from any module. */
void call_trcu(struct rcu_head *head, rcu_callback_t func);
void call_trcu_bh(struct rcu_head *head, rcu_callback_t func);
void synchronize_trcu(void);
void synchronize_trcu_bh(void);
void trcu_barrier(void);
void trcu_barrier_bh(void);
long trcu_batches_completed(void);
long trcu_batches_completed_bh(void);

/*
 * Polled grace periods: a cookie names the grace period that must end
 * before what was removed before taking it may be freed.  Wrap-safe.
 */
unsigned long get_state_synchronize_trcu(void);
unsigned long start_poll_synchronize_trcu(void);
bool poll_state_synchronize_trcu(unsigned long cookie);
void cond_synchronize_trcu(unsigned long cookie);
unsigned long get_state_synchronize_trcu_bh(void);
unsigned long start_poll_synchronize_trcu_bh(void);
bool poll_state_synchronize_trcu_bh(unsigned long cookie);
void cond_synchronize_trcu_bh(unsigned long cookie);

/*
 * Expedited grace periods: IPIs the non-idle online CPUs instead of
 * waiting for their ticks.  Concurrent callers share one.
 */
void synchronize_trcu_expedited(void);
void synchronize_trcu_bh_expedited(void);

#endif /* _TRCU_H */
