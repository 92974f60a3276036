/* SPDX-License-Identifier: GPL-2.0 */
/*
 * trcu: hierarchical ("tree") RCU as a loadable module, running beside the
 * kernel's own RCU.  This is the only header other modules include.
 *
 * Read side: Classic RCU semantics.  A trcu read-side critical section is a
 * region with preemption disabled; the trcu_bh flavour's is a region with
 * bottom halves disabled.  Both nest, cost no atomics and write no shared
 * memory, in every context including NMI: trcu_read_lock() is exactly
 * preempt_disable().  An NMI reader on a dynticks-idle CPU is seen from the
 * outside instead: trcu's NMI handler (first in the NMI_LOCAL list) orders
 * the NMI's entry before its readers, and force_quiescent_state() does not
 * credit an idle CPU whose preempt count shows an NMI (dynticks.c).
 */
#ifndef _TRCU_H
#define _TRCU_H

#include <linux/types.h>
#include <linux/compiler.h>
#include <linux/preempt.h>
#include <linux/bottom_half.h>
#include <linux/irqflags.h>
#include <linux/stddef.h>
#include <linux/build_bug.h>
#include <linux/rcupdate.h>

struct rcu_head;

/*
 * Lockdep: one lockdep_map per flavour, exported by trcu.ko, acquired as
 * a recursive read lock by the read side exactly as the kernel's
 * rcu_read_lock_sched() does (rcu_lock_acquire()/rcu_lock_release(),
 * which compile away without CONFIG_DEBUG_LOCK_ALLOC).  The kernel's
 * rcu_read_lock() also acquires its map from NMI context; lockdep copes
 * (lock_acquire() knows NMIs), so trcu readers stay NMI-safe.
 */
extern struct lockdep_map trcu_lock_map;
extern struct lockdep_map trcu_bh_lock_map;

/**
 * trcu_read_lock() - mark the beginning of a trcu read-side critical section
 *
 * A grace period of trcu that begins after this call will not end before
 * the matching trcu_read_unlock().  Nestable; any context including NMI.
 */
static inline void trcu_read_lock(void)
{
	preempt_disable();
	rcu_lock_acquire(&trcu_lock_map);
}

/**
 * trcu_read_unlock() - mark the end of a trcu read-side critical section
 */
static inline void trcu_read_unlock(void)
{
	rcu_lock_release(&trcu_lock_map);
	preempt_enable();
}

/*
 * The trcu_bh reader contract is rcu_read_lock_bh()'s: a trcu_bh
 * read-side critical section runs in process or softirq context, never in
 * hardirq or NMI context, and interrupts are enabled at its
 * trcu_read_unlock_bh() (local_bh_enable() may run pending softirqs, which
 * enable interrupts; the kernel's lockdep complains there).  It may begin
 * with interrupts disabled.  Code that runs in hardirq or NMI context or
 * with interrupts disabled needs no trcu_bh read lock: bottom halves
 * cannot run there, and trcu never takes such a context for a trcu_bh
 * quiescent state (trcu_read_lock_bh_held() accepts it).
 *
 * The contract is what makes the pair as cheap as the built-in's: no
 * test of the context on the fast path.  With CONFIG_PROVE_RCU a use
 * outside it prints lockdep's "suspicious RCU usage" report and takes a
 * path that keeps the preempt count balanced and runs no softirq with
 * interrupts disabled, so that the debug kernel survives to report it.
 */
void trcu_read_bh_misuse(const char *fn, const char *what);

/**
 * trcu_read_lock_bh() - begin a trcu_bh read-side critical section
 *
 * Disables bottom halves.  Not in hardirq or NMI context (see above).
 */
static inline void trcu_read_lock_bh(void)
{
	if (IS_ENABLED(CONFIG_PROVE_RCU) && unlikely(in_hardirq())) {
		trcu_read_bh_misuse(__func__, "in hardirq or NMI context");
		preempt_disable();
	} else {
		local_bh_disable();
	}
	rcu_lock_acquire(&trcu_bh_lock_map);
}

/**
 * trcu_read_unlock_bh() - end a trcu_bh read-side critical section
 *
 * Enables bottom halves and runs those pending.  With interrupts enabled,
 * not in hardirq or NMI context (see above).
 */
static inline void trcu_read_unlock_bh(void)
{
	rcu_lock_release(&trcu_bh_lock_map);
	if (IS_ENABLED(CONFIG_PROVE_RCU) &&
	    unlikely(in_hardirq() || irqs_disabled())) {
		trcu_read_bh_misuse(__func__,
				    "in hardirq or NMI context or with irqs disabled");
		if (in_hardirq())
			preempt_enable();
		else
			_local_bh_enable();
		return;
	}
	local_bh_enable();
}

#ifdef CONFIG_DEBUG_LOCK_ALLOC
int trcu_read_lock_held(void);
int trcu_read_lock_bh_held(void);
#else
/*
 * Without lockdep, as the kernel's rcu_read_lock_sched_held(): any
 * region with preemption disabled is a trcu (and a trcu_bh) reader.
 */
static inline int trcu_read_lock_held(void)
{
	return !preemptible();
}

static inline int trcu_read_lock_bh_held(void)
{
	return !preemptible();
}
#endif

/*
 * Pointer access.  Built on the kernel's __rcu_dereference_check(), with
 * trcu's own "held" checks: rcu_dereference_check() would also accept
 * the built-in rcu_read_lock(), which does not protect against trcu
 * grace periods.  Under CONFIG_PROVE_RCU a violation prints lockdep's
 * "suspicious RCU usage" report.
 */
#define trcu_dereference_check(p, c) \
	__rcu_dereference_check((p), __UNIQUE_ID(rcu), \
				(c) || trcu_read_lock_held(), __rcu)
#define trcu_dereference_bh_check(p, c) \
	__rcu_dereference_check((p), __UNIQUE_ID(rcu), \
				(c) || trcu_read_lock_bh_held(), __rcu)
#define trcu_dereference(p)		trcu_dereference_check(p, 0)
#define trcu_dereference_bh(p)		trcu_dereference_bh_check(p, 0)
/* Update side, with the update-side lock @c held: no reader protection. */
#define trcu_dereference_protected(p, c) rcu_dereference_protected(p, c)

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

/*
 * kfree_trcu(ptr, rhf): kfree(ptr) after a trcu grace period.  @rhf is
 * the name of a struct rcu_head member of *ptr, used only when no batch
 * page can be allocated; it must lie within the first 4096 bytes.
 * kfree_trcu_barrier() waits for every object queued so far.
 */
#define TRCU_KFREE_IS_OFFSET(f)	((unsigned long)(f) < 4096)
void trcu_kfree_call(struct rcu_head *head, void *ptr);
void kfree_trcu_barrier(void);
#define kfree_trcu(ptr, rhf)						\
do {									\
	typeof(ptr) ___p = (ptr);					\
									\
	BUILD_BUG_ON(!TRCU_KFREE_IS_OFFSET(offsetof(typeof(*___p), rhf))); \
	if (___p)							\
		trcu_kfree_call(&___p->rhf, ___p);			\
} while (0)

#endif /* _TRCU_H */
