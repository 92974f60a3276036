// SPDX-License-Identifier: GPL-2.0
/*
 * trcutorture: one ops table per flavour under test.  Adding a flavour
 * (e.g. an expedited one) means adding one table and one line in
 * tt_flavors[]; the kernel's flavours are in flavors_rcu.c.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/hardirq.h>
#include <linux/irqflags.h>
#include <linux/rcupdate.h>
#include <linux/srcu.h>
#include <linux/delay.h>
#include <trcu.h>

#include "torture.h"

/* ---- trcu: Classic RCU from trcu.ko ---------------------------------- */

/*
 * Default GP-rate floor of the trcu flavours, as the longest average time
 * per grace period over the test (tt_check_gp_rate()): 800 ms, i.e. at
 * least 1.25 GPs/s.  An engine advancing only by a slow path that acts
 * once a second cannot beat 1000 ms per GP (mutant slow_gp: 1235 ms, 0.81
 * GPs/s, TREE01); the slowest clean trcu runs measured were 208 ms per GP
 * (TREE01 beside other guests and a busy host) and, in a 30-minute soak
 * six guests at a time on two host cores, 600 ms (TREE08, where the
 * kernel's own RCU under the same torture managed 580 ms: the writer's
 * pace, not the engine's).  The reference flavours have none.
 */
#define TT_TRCU_MAX_GP_MS	800

static int tt_trcu_readlock(void)
{
	trcu_read_lock();
	return 0;
}

static void tt_trcu_readunlock(int idx)
{
	trcu_read_unlock();
}

static unsigned long tt_trcu_gp_count(void)
{
	return trcu_batches_completed();
}

/*
 * trcuscale times @n of these at a time: the loop is here, so that no
 * indirect call sits between the pairs it measures.
 */
static void tt_trcu_readsection(unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++) {
		trcu_read_lock();
		trcu_read_unlock();
	}
}

static const struct trcu_torture_ops tt_trcu_ops = {
	.name		= "trcu",
	.gp_count_strict = true,
	.max_gp_ms	= TT_TRCU_MAX_GP_MS,
	.readlock	= tt_trcu_readlock,
	.readunlock	= tt_trcu_readunlock,
	.get_gp_count	= tt_trcu_gp_count,
	.readsection	= tt_trcu_readsection,
	.sync		= synchronize_trcu,
	.call		= call_trcu,
	.cb_barrier	= trcu_barrier,
	.get_state	= get_state_synchronize_trcu,
	.start_poll	= start_poll_synchronize_trcu,
	.poll_state	= poll_state_synchronize_trcu,
	.cond_sync	= cond_synchronize_trcu,
};

/*
 * ---- trcu_exp: trcu with expedited grace periods for every synchronous
 * wait (writer and fake writers); callbacks and barriers are trcu's.
 */
static const struct trcu_torture_ops tt_trcu_exp_ops = {
	.name		= "trcu_exp",
	.gp_count_strict = true,
	.max_gp_ms	= TT_TRCU_MAX_GP_MS,
	.readlock	= tt_trcu_readlock,
	.readunlock	= tt_trcu_readunlock,
	.get_gp_count	= tt_trcu_gp_count,
	.sync		= synchronize_trcu_expedited,
	.call		= call_trcu,
	.cb_barrier	= trcu_barrier,
};

/*
 * ---- trcu_bh: trcu's bottom-half flavour.  trcu_read_lock_bh() is for
 * process and softirq context with irqs enabled at the unlock (trcu.h).
 * A timer reader runs in softirq context and takes it; an NMI reader, or
 * one in hardirq context or with irqs off, may not: there bottom halves
 * cannot run and trcu never sees a trcu_bh quiescent state, so the
 * region itself is the reader (with preemption disabled, as any reader
 * of the contract has it).  The torture then checks that trcu_bh grace
 * periods honour such regions, as trcu_read_lock_bh_held() says they do.
 */
static int tt_trcu_bh_readlock(void)
{
	if (in_hardirq() || irqs_disabled()) {
		preempt_disable();
		return 1;
	}
	trcu_read_lock_bh();
	return 0;
}

static void tt_trcu_bh_readunlock(int idx)
{
	if (idx)
		preempt_enable();
	else
		trcu_read_unlock_bh();
}

static unsigned long tt_trcu_bh_gp_count(void)
{
	return trcu_batches_completed_bh();
}

static void tt_trcu_bh_readsection(unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++) {
		trcu_read_lock_bh();
		trcu_read_unlock_bh();
	}
}

static const struct trcu_torture_ops tt_trcu_bh_ops = {
	.name		= "trcu_bh",
	.gp_count_strict = true,
	.max_gp_ms	= TT_TRCU_MAX_GP_MS,
	.readlock	= tt_trcu_bh_readlock,
	.readunlock	= tt_trcu_bh_readunlock,
	.get_gp_count	= tt_trcu_bh_gp_count,
	.readsection	= tt_trcu_bh_readsection,
	.bh_readers	= true,
	.sync		= synchronize_trcu_bh,
	.call		= call_trcu_bh,
	.cb_barrier	= trcu_barrier_bh,
	.get_state	= get_state_synchronize_trcu_bh,
	.start_poll	= start_poll_synchronize_trcu_bh,
	.poll_state	= poll_state_synchronize_trcu_bh,
	.cond_sync	= cond_synchronize_trcu_bh,
};

/* ---- trcu_bh_exp: trcu_bh with expedited synchronous waits ------------ */
static const struct trcu_torture_ops tt_trcu_bh_exp_ops = {
	.name		= "trcu_bh_exp",
	.gp_count_strict = true,
	.max_gp_ms	= TT_TRCU_MAX_GP_MS,
	.readlock	= tt_trcu_bh_readlock,
	.readunlock	= tt_trcu_bh_readunlock,
	.get_gp_count	= tt_trcu_bh_gp_count,
	.sync		= synchronize_trcu_bh_expedited,
	.call		= call_trcu_bh,
	.cb_barrier	= trcu_barrier_bh,
};

/*
 * ---- Deliberately broken flavours (rcutorture's "busted"): the torture
 * must report FAILURE on each; they prove its checks can fire.
 *
 * busted:     no grace period at all: sync returns at once, callbacks run
 *             at once.  Caught by the Reader Pipe check and rtmbe.
 * busted_bar: real RCU grace periods, but the barrier does not wait.
 *             Caught by the barrier test (rtbe).
 * busted_gp:  real grace periods but the completed-GP counter never moves.
 *             Caught by forward progress ("grace periods not advancing")
 *             and the end-of-test gps check.
 */
static unsigned long tt_busted_count;

static unsigned long tt_busted_gp_count(void)
{
	return READ_ONCE(tt_busted_count);
}

static void tt_busted_sync(void)
{
	WRITE_ONCE(tt_busted_count, tt_busted_count + 1);
}

static void tt_busted_call(struct rcu_head *head, rcu_callback_t func)
{
	tt_busted_sync();
	func(head);
}

static void tt_busted_barrier(void)
{
}

static unsigned long tt_frozen_gp_count(void)
{
	return 0;
}

static const struct trcu_torture_ops tt_busted_ops = {
	.name		= "busted",
	.readlock	= tt_rcu_readlock,
	.readunlock	= tt_rcu_readunlock,
	.get_gp_count	= tt_busted_gp_count,
	.sync		= tt_busted_sync,
	.call		= tt_busted_call,
	.cb_barrier	= tt_busted_barrier,
	.selftest	= true,
};

static const struct trcu_torture_ops tt_busted_bar_ops = {
	.name		= "busted_bar",
	.init		= tt_rcu_init,
	.readlock	= tt_rcu_readlock,
	.readunlock	= tt_rcu_readunlock,
	.get_gp_count	= tt_rcu_gp_count,
	.sync		= synchronize_rcu,
	.call		= call_rcu,
	.cb_barrier	= tt_busted_barrier,
	.cleanup	= rcu_barrier,	/* the real one, before unload */
	.selftest	= true,
};

static const struct trcu_torture_ops tt_busted_gp_ops = {
	.name		= "busted_gp",
	.readlock	= tt_rcu_readlock,
	.readunlock	= tt_rcu_readunlock,
	.get_gp_count	= tt_frozen_gp_count,
	.sync		= synchronize_rcu,
	.call		= call_rcu,
	.cb_barrier	= rcu_barrier,
	.selftest	= true,
};

static const struct trcu_torture_ops *const tt_flavors[] = {
	&tt_trcu_ops, &tt_trcu_bh_ops, &tt_trcu_exp_ops, &tt_trcu_bh_exp_ops,
	&tt_busted_ops, &tt_busted_bar_ops, &tt_busted_gp_ops,
};

/*
 * The kernel's flavours the torture takes as references, found by name
 * in flavors_rcu.c (which also has rcu_exp and floor, for trcuscale only).
 */
static const char *const tt_ref_flavors[] = { "rcu", "rcu_bh", "srcu" };

/* The @i-th flavour of the torture's list, or NULL past its end. */
static const struct trcu_torture_ops *tt_flavor_at(size_t i)
{
	if (i < ARRAY_SIZE(tt_flavors))
		return tt_flavors[i];
	i -= ARRAY_SIZE(tt_flavors);
	if (i < ARRAY_SIZE(tt_ref_flavors))
		return tt_rcu_flavor_find(tt_ref_flavors[i]);
	return NULL;
}

const struct trcu_torture_ops *trcu_torture_ops_find(const char *name)
{
	const struct trcu_torture_ops *ops;
	size_t i;

	for (i = 0; name && (ops = tt_flavor_at(i)); i++)
		if (!strcmp(name, ops->name))
			return ops;
	return NULL;
}

void trcu_torture_ops_list(char *buf, size_t len)
{
	const struct trcu_torture_ops *ops;
	size_t off = 0, i;

	buf[0] = '\0';
	for (i = 0; (ops = tt_flavor_at(i)); i++)
		off += scnprintf(buf + off, len - off, "%s%s", i ? " " : "",
				 ops->name);
}
