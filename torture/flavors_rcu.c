// SPDX-License-Identifier: GPL-2.0
/*
 * The flavours built on the kernel's own RCU and SRCU only.  They live
 * apart from the trcu flavours (flavors.c) because trcuscale_base.ko
 * links them without trcu.ko: it measures the kernel's flavours in the
 * same boot before trcu is loaded.  trcutorture.ko, trcuscale.ko and
 * trcutest.ko link both files.
 */
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/hardirq.h>
#include <linux/irqflags.h>
#include <linux/preempt.h>
#include <linux/rcupdate.h>
#include <linux/srcu.h>

#include "torture.h"

/* ---- rcu: the kernel's own RCU, through its exported API -------------- */

int tt_rcu_readlock(void)
	__acquires(RCU)
{
	rcu_read_lock();
	return 0;
}

void tt_rcu_readunlock(int idx)
	__releases(RCU)
{
	rcu_read_unlock();
}

/*
 * rcu_get_gp_seq() is a sequence number whose low two bits are the state
 * of the current grace period (rcu_seq_ctr() in kernel/rcu/rcu.h, which
 * is internal); the upper bits count grace periods.  The kernel starts it
 * 300 grace periods short of wrapping (to exercise wrap handling), so the
 * counter is taken relative to a base, in modular arithmetic, before the
 * shift: (now >> 2) - (base >> 2) would be garbage across the wrap.
 */
#define TT_RCU_SEQ_CTR_SHIFT	2
static unsigned long tt_rcu_seq_base;

int tt_rcu_init(void)
{
	tt_rcu_seq_base = rcu_get_gp_seq() & ~((1UL << TT_RCU_SEQ_CTR_SHIFT) - 1);
	return 0;
}

unsigned long tt_rcu_gp_count(void)
{
	return (rcu_get_gp_seq() - tt_rcu_seq_base) >> TT_RCU_SEQ_CTR_SHIFT;
}

/* trcuscale's timed loop (see tt_trcu_readsection()). */
static void tt_rcu_readsection(unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++) {
		rcu_read_lock();
		rcu_read_unlock();
	}
}

static const struct trcu_torture_ops tt_rcu_ops = {
	.name		= "rcu",
	.init		= tt_rcu_init,
	.readlock	= tt_rcu_readlock,
	.readunlock	= tt_rcu_readunlock,
	.get_gp_count	= tt_rcu_gp_count,
	.readsection	= tt_rcu_readsection,
	.sync		= synchronize_rcu,
	.call		= call_rcu,
	.cb_barrier	= rcu_barrier,
};

/*
 * ---- rcu_bh: since 5.0 the bh flavour is merged into RCU: readers are
 * bh-disabled regions, updaters use the normal RCU update side.
 * local_bh_enable() must not run in hardirq/NMI context or with irqs off,
 * where bottom halves cannot run anyway: there a preempt-disabled region
 * is an equivalent reader for the merged RCU.
 */
static int tt_rcu_bh_readlock(void)
	__acquires(RCU_BH)
{
	if (in_hardirq() || in_nmi() || irqs_disabled()) {
		rcu_read_lock_sched();
		/* For sparse: both paths hold "RCU_BH" for the caller. */
		__release(RCU_SCHED);
		__acquire(RCU_BH);
		return 1;
	}
	rcu_read_lock_bh();
	return 0;
}

static void tt_rcu_bh_readunlock(int idx)
	__releases(RCU_BH)
{
	if (idx) {
		__release(RCU_BH);
		__acquire(RCU_SCHED);
		rcu_read_unlock_sched();
	} else
		rcu_read_unlock_bh();
}

/* Timed with irqs on by trcuscale, so always the bh-disabled path. */
static void tt_rcu_bh_readsection(unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++) {
		rcu_read_lock_bh();
		rcu_read_unlock_bh();
	}
}

static const struct trcu_torture_ops tt_rcu_bh_ops = {
	.name		= "rcu_bh",
	.init		= tt_rcu_init,
	.readlock	= tt_rcu_bh_readlock,
	.readunlock	= tt_rcu_bh_readunlock,
	.get_gp_count	= tt_rcu_gp_count,
	.readsection	= tt_rcu_bh_readsection,
	.bh_readers	= true,
	.sync		= synchronize_rcu,
	.call		= call_rcu,
	.cb_barrier	= rcu_barrier,
};

/*
 * ---- srcu on a module-local srcu_struct.  Readers may sleep.  6.1's tree
 * SRCU read lock is a this_cpu_inc(), a single instruction on x86, so
 * timer and NMI readers are safe on this architecture.
 */
static struct srcu_struct tt_srcu;

static int tt_srcu_init(void)
{
	return init_srcu_struct(&tt_srcu);
}

static void tt_srcu_cleanup(void)
{
	cleanup_srcu_struct(&tt_srcu);
}

static int tt_srcu_readlock(void)
	__acquires(&tt_srcu)
{
	return srcu_read_lock(&tt_srcu);
}

static void tt_srcu_readunlock(int idx)
	__releases(&tt_srcu)
{
	srcu_read_unlock(&tt_srcu, idx);
}

static void tt_srcu_readsection(unsigned long n)
{
	unsigned long i;
	int idx;

	for (i = 0; i < n; i++) {
		idx = srcu_read_lock(&tt_srcu);
		srcu_read_unlock(&tt_srcu, idx);
	}
}

static unsigned long tt_srcu_gp_count(void)
{
	return srcu_batches_completed(&tt_srcu);
}

static void tt_srcu_sync(void)
{
	synchronize_srcu(&tt_srcu);
}

static void tt_srcu_call(struct rcu_head *head, rcu_callback_t func)
{
	call_srcu(&tt_srcu, head, func);
}

static void tt_srcu_barrier(void)
{
	srcu_barrier(&tt_srcu);
}

static const struct trcu_torture_ops tt_srcu_ops = {
	.name		= "srcu",
	.init		= tt_srcu_init,
	.cleanup	= tt_srcu_cleanup,
	.readlock	= tt_srcu_readlock,
	.readunlock	= tt_srcu_readunlock,
	.get_gp_count	= tt_srcu_gp_count,
	.readsection	= tt_srcu_readsection,
	.sync		= tt_srcu_sync,
	.call		= tt_srcu_call,
	.cb_barrier	= tt_srcu_barrier,
	.sleepable_readers = true,
};

/*
 * ---- rcu_exp: rcu with expedited synchronous waits.  Only trcuscale
 * looks it up (gp latency against trcu_exp); the torture's list has no
 * entry for it.
 */
static const struct trcu_torture_ops tt_rcu_exp_ops = {
	.name		= "rcu_exp",
	.init		= tt_rcu_init,
	.readlock	= tt_rcu_readlock,
	.readunlock	= tt_rcu_readunlock,
	.get_gp_count	= tt_rcu_gp_count,
	.sync		= synchronize_rcu_expedited,
	.call		= call_rcu,
	.cb_barrier	= rcu_barrier,
};

/*
 * ---- floor: a preempt-disabled region, the cheapest reader there can be
 * (trcu's own is exactly that).  trcuscale's read test reports it as the
 * cost of the loop itself; it has no update side, so nothing else can
 * use it.
 */
static void tt_floor_readsection(unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++) {
		preempt_disable();
		preempt_enable();
	}
}

static const struct trcu_torture_ops tt_floor_ops = {
	.name		= "floor",
	.readsection	= tt_floor_readsection,
};

static const struct trcu_torture_ops *const tt_rcu_flavors[] = {
	&tt_rcu_ops, &tt_rcu_bh_ops, &tt_srcu_ops, &tt_rcu_exp_ops,
	&tt_floor_ops,
};

/* The flavour called @name among those of this file, or NULL. */
const struct trcu_torture_ops *tt_rcu_flavor_find(const char *name)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(tt_rcu_flavors); i++)
		if (name && !strcmp(name, tt_rcu_flavors[i]->name))
			return tt_rcu_flavors[i];
	return NULL;
}
