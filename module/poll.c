// SPDX-License-Identifier: GPL-2.0
/*
 * trcu polled grace periods.  A cookie is the number of the grace period
 * that must complete before whatever the caller removed may be freed:
 * ->gpnum + 1, read after a full barrier.  If no GP is running, GP
 * ->gpnum + 1 has not started and so will wait for every reader that
 * exists now; if one is running it may have started before the caller's
 * removal, so only the one after it (also ->gpnum + 1) is sure to cover
 * them.  The same argument numbers callbacks in trcu_accelerate_cbs().
 *
 * Cookies are the engine's signed GP numbers seen as unsigned long.  The
 * engine starts at TRCU_GP_INITVAL (tree.h), so cookies wrap from
 * ULONG_MAX to 0 early in every run; they are compared with
 * ULONG_CMP_GE(), correct as long as the caller polls within ULONG_MAX/2
 * grace periods of taking the cookie.
 */
#define pr_fmt(fmt) "trcu: " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/rcupdate.h>

#include <trcu.h>
#include "tree.h"

/* Snapshot the GP that must complete; see the comment at the top. */
unsigned long trcu_poll_get_state(struct trcu_state *rsp)
{
	unsigned long cookie;

	/*
	 * The caller's removal before the ->gpnum read; pairs with the
	 * smp_mb() in trcu_gp_init() after ->gpnum is bumped, as for
	 * callbacks in trcu_accelerate_cbs().
	 */
	smp_mb();
	cookie = (unsigned long)READ_ONCE(rsp->gpnum) + 1;
	return cookie;
}

/* Has the GP named by @cookie completed?  Full barrier if so. */
static bool trcu_poll_state(struct trcu_state *rsp, unsigned long cookie)
{
	unsigned long c = (unsigned long)READ_ONCE(rsp->completed);

	if (!ULONG_CMP_GE(c, cookie))
		return false;
	/*
	 * Frees that follow happen after the GP end; pairs with the
	 * smp_mb() in trcu_gp_cleanup() before ->completed advances.
	 */
	smp_mb();
	return true;
}

/* Take a cookie and make sure the GP kthread will run its GP. */
static unsigned long trcu_start_poll(struct trcu_state *rsp)
{
	unsigned long cookie, flags;

	cookie = trcu_poll_get_state(rsp);
	/* trcu_request_gp() wants this CPU's data with irqs off. */
	local_irq_save(flags);
	trcu_request_gp(rsp, this_cpu_ptr(rsp->rda), (long)cookie);
	local_irq_restore(flags);
	return cookie;
}

/**
 * get_state_synchronize_trcu() - snapshot the trcu grace-period state
 *
 * Returns a cookie for poll_state_synchronize_trcu() or
 * cond_synchronize_trcu().  Does not start a grace period: some other
 * user of trcu must, or use start_poll_synchronize_trcu().
 */
unsigned long get_state_synchronize_trcu(void)
{
	return trcu_poll_get_state(&trcu_sched_state);
}
EXPORT_SYMBOL_GPL(get_state_synchronize_trcu);

/**
 * start_poll_synchronize_trcu() - snapshot the state and request its GP
 *
 * Like get_state_synchronize_trcu(), and also asks trcu's GP kthread for
 * the grace period the cookie waits for.  Any context but NMI.
 */
unsigned long start_poll_synchronize_trcu(void)
{
	return trcu_start_poll(&trcu_sched_state);
}
EXPORT_SYMBOL_GPL(start_poll_synchronize_trcu);

/**
 * poll_state_synchronize_trcu() - has a trcu grace period passed?
 * @cookie: value from get_state_synchronize_trcu() or
 *	    start_poll_synchronize_trcu()
 *
 * Returns true if a full trcu grace period has elapsed since the cookie
 * was taken; the caller may then free what it removed before taking it.
 */
bool poll_state_synchronize_trcu(unsigned long cookie)
{
	return trcu_poll_state(&trcu_sched_state, cookie);
}
EXPORT_SYMBOL_GPL(poll_state_synchronize_trcu);

/**
 * cond_synchronize_trcu() - wait for a trcu GP unless one already passed
 * @cookie: value from get_state_synchronize_trcu() or
 *	    start_poll_synchronize_trcu()
 */
void cond_synchronize_trcu(unsigned long cookie)
{
	might_sleep();
	if (!trcu_poll_state(&trcu_sched_state, cookie))
		synchronize_trcu();
}
EXPORT_SYMBOL_GPL(cond_synchronize_trcu);

/** get_state_synchronize_trcu_bh() - trcu_bh get_state_synchronize_trcu() */
unsigned long get_state_synchronize_trcu_bh(void)
{
	return trcu_poll_get_state(&trcu_bh_state);
}
EXPORT_SYMBOL_GPL(get_state_synchronize_trcu_bh);

/** start_poll_synchronize_trcu_bh() - trcu_bh start_poll_synchronize_trcu() */
unsigned long start_poll_synchronize_trcu_bh(void)
{
	return trcu_start_poll(&trcu_bh_state);
}
EXPORT_SYMBOL_GPL(start_poll_synchronize_trcu_bh);

/** poll_state_synchronize_trcu_bh() - trcu_bh poll_state_synchronize_trcu() */
bool poll_state_synchronize_trcu_bh(unsigned long cookie)
{
	return trcu_poll_state(&trcu_bh_state, cookie);
}
EXPORT_SYMBOL_GPL(poll_state_synchronize_trcu_bh);

/** cond_synchronize_trcu_bh() - trcu_bh cond_synchronize_trcu() */
void cond_synchronize_trcu_bh(unsigned long cookie)
{
	might_sleep();
	if (!trcu_poll_state(&trcu_bh_state, cookie))
		synchronize_trcu_bh();
}
EXPORT_SYMBOL_GPL(cond_synchronize_trcu_bh);
