// SPDX-License-Identifier: GPL-2.0
/*
 * trcutest: one-shot checks of trcu's API beyond the torture, run from
 * module init and selected by parameters (guest scripts lockdep.sh and
 * api.sh load it once per check).  Results are "trcutest:" lines; a
 * failed check makes the load fail with -EIO.
 *
 *   deref=1   correct trcu_dereference*() uses (no lockdep report)
 *   deref=2   trcu_dereference() outside any reader         (bad)
 *   deref=3   trcu_dereference() under rcu_read_lock() only (bad: the
 *             built-in RCU does not hold off trcu grace periods)
 *   deref=4   trcu_dereference_bh() with only preemption off (bad)
 *   deref=5   trcu_dereference_protected(p, false)           (bad)
 *   poll=N    N rounds of the polled API around synchronize_trcu()
 *   bench=N   latency of N synchronize_trcu{,_bh}{,_expedited}() calls,
 *             through the torture's ops tables (flavors.c)
 *   bhirq=1   a trcu_bh reader begun with irqs off and ended with them
 *             on leaves the preempt count as it found it
 *   bhbad=N   trcu_bh readers outside the contract (1: ended with irqs
 *             off, 2: irqs off throughout, 3: in hardirq context), for
 *             CONFIG_PROVE_RCU kernels: must be reported (bad)
 *   kfree=N   kfree_trcu() N objects of a private cache, then
 *             kfree_trcu_barrier(); destroying the cache complains if
 *             any is left.  kfree_nowait=1: kmalloc()ed objects and no
 *             barrier (trcu's unload must drain them)
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/ktime.h>
#include <linux/rcupdate.h>
#include <linux/delay.h>
#include <linux/irq_work.h>
#include <trcu.h>

#include "../torture.h"

static int deref;
module_param(deref, int, 0444);
MODULE_PARM_DESC(deref, "trcu_dereference check: 1 correct, 2..5 incorrect uses");
static int poll;
module_param(poll, int, 0444);
MODULE_PARM_DESC(poll, "Rounds of polled grace periods (0..100000)");
static int bench;
module_param(bench, int, 0444);
MODULE_PARM_DESC(bench, "synchronize_trcu{,_expedited} calls to time (0..10000)");
static int bhirq;
module_param(bhirq, int, 0444);
MODULE_PARM_DESC(bhirq, "1: trcu_bh reader across an irq-state change (0/1)");
static int bhbad;
module_param(bhbad, int, 0444);
MODULE_PARM_DESC(bhbad, "trcu_bh readers outside the contract, 1..3 (CONFIG_PROVE_RCU)");
static int kfree_n;
module_param_named(kfree, kfree_n, int, 0444);
MODULE_PARM_DESC(kfree, "Objects to kfree_trcu() (0..1000000)");
static int kfree_nowait;
module_param(kfree_nowait, int, 0444);
MODULE_PARM_DESC(kfree_nowait, "1: kmalloc objects, no barrier: unload drains (0/1)");

struct tt_obj {
	int val;
	struct rcu_head rh;
};

static struct tt_obj __rcu *tt_ptr;
static struct tt_obj tt_static = { .val = 42 };

/* Correct uses: each inside its reader, or with the update "lock" held. */
static int tt_deref_good(void)
{
	struct tt_obj *p;
	int sum = 0;

	trcu_read_lock();
	p = trcu_dereference(tt_ptr);
	sum += p->val;
	trcu_read_unlock();

	trcu_read_lock_bh();
	p = trcu_dereference_bh(tt_ptr);
	sum += p->val;
	trcu_read_unlock_bh();

	/* A preempt-disabled region is a trcu reader (Classic RCU). */
	preempt_disable();
	p = trcu_dereference(tt_ptr);
	sum += p->val;
	preempt_enable();

	local_bh_disable();
	p = trcu_dereference_bh(tt_ptr);
	sum += p->val;
	local_bh_enable();

	p = trcu_dereference_check(tt_ptr, true);
	sum += p->val;
	p = trcu_dereference_protected(tt_ptr, true);
	sum += p->val;
	pr_info("deref=1: six correct uses done (sum %d)\n", sum);
	return sum == 6 * 42 ? 0 : -EIO;
}

static int tt_deref_bad(int which)
{
	struct tt_obj *p = NULL;

	switch (which) {
	case 2:
		p = trcu_dereference(tt_ptr);
		break;
	case 3:
		rcu_read_lock();
		p = trcu_dereference(tt_ptr);
		rcu_read_unlock();
		break;
	case 4:
		preempt_disable();
		p = trcu_dereference_bh(tt_ptr);
		preempt_enable();
		break;
	case 5:
		p = trcu_dereference_protected(tt_ptr, false);
		break;
	}
	pr_info("deref=%d: incorrect use done (val %d)\n", which,
		p ? p->val : -1);
	return 0;
}

static int tt_poll(int n)
{
	unsigned long c, c0 = get_state_synchronize_trcu();
	bool crossed = false;
	int i, bad = 0, waited;

	for (i = 0; i < n; i++) {
		c = get_state_synchronize_trcu();
		if (c < ULONG_MAX / 2 && c0 > ULONG_MAX / 2)
			crossed = true;
		synchronize_trcu();
		if (!poll_state_synchronize_trcu(c)) {
			pr_err("FAIL: cookie %lu not done after synchronize_trcu()\n",
			       c);
			bad++;
		}
		cond_synchronize_trcu(c);	/* must return at once */
		c = start_poll_synchronize_trcu();
		for (waited = 0; !poll_state_synchronize_trcu(c); waited++) {
			if (waited > 10000) {
				pr_err("FAIL: start_poll cookie %lu not done in 10 s\n",
				       c);
				return -EIO;
			}
			usleep_range(1000, 1100);
		}
		c = start_poll_synchronize_trcu_bh();
		cond_synchronize_trcu_bh(c);
		if (!poll_state_synchronize_trcu_bh(c)) {
			pr_err("FAIL: bh cookie %lu not done after cond_synchronize\n",
			       c);
			bad++;
		}
	}
	c = get_state_synchronize_trcu();
	pr_info("poll=%d: first cookie %lu, last %lu, crossed ULONG_MAX->0: %s, errors %d\n",
		n, c0, c, crossed ? "yes" : "no", bad);
	return bad ? -EIO : 0;
}

static void tt_bench_one(const struct trcu_torture_ops *ops, int n)
{
	ktime_t t0 = ktime_get(), t;
	s64 min = S64_MAX, max = 0, d;
	int i;

	for (i = 0; i < n; i++) {
		t = ktime_get();
		ops->sync();
		d = ktime_us_delta(ktime_get(), t);
		min = min(min, d);
		max = max(max, d);
	}
	pr_info("bench: %s sync x%d: avg %lld us, min %lld us, max %lld us\n",
		ops->name, n, ktime_us_delta(ktime_get(), t0) / n, min, max);
}

/* trcu's flavours: normal and expedited grace periods, each of both. */
static const char * const tt_bench_flavors[] = {
	"trcu", "trcu_exp", "trcu_bh", "trcu_bh_exp",
};

static int tt_bench(int n)
{
	const struct trcu_torture_ops *ops;
	int i;

	for (i = 0; i < ARRAY_SIZE(tt_bench_flavors); i++) {
		ops = trcu_torture_ops_find(tt_bench_flavors[i]);
		if (!ops) {
			pr_err("bench: no flavour %s\n", tt_bench_flavors[i]);
			return -EIO;
		}
		tt_bench_one(ops, n);
	}
	return 0;
}

/*
 * Compare the preempt count after a bh reader with the one before.  On a
 * mismatch, put it back by hand so the guest survives to report it.
 */
static int tt_bhirq_verdict(const char *what, int before)
{
	int after = preempt_count();

	if (after == before)
		return 0;
	__preempt_count_sub(after - before);
	pr_err("bh reader %s: preempt count %#x before, %#x after\n",
	       what, before, after);
	return -EIO;
}

/*
 * A reader may begin with irqs disabled and end with them enabled (as
 * rcu_read_lock_bh() allows); the lock and the unlock must still undo
 * each other.
 */
static int tt_bhirq(void)
{
	unsigned long flags;
	int pc, ret;

	pc = preempt_count();
	local_irq_save(flags);
	trcu_read_lock_bh();
	local_irq_restore(flags);
	trcu_read_unlock_bh();
	ret = tt_bhirq_verdict("irqs off at lock, on at unlock", pc);
	if (!ret)
		pr_info("bhirq=1: irqs off at lock, on at unlock: balanced\n");
	return ret;
}

/*
 * bhbad=1..3: trcu_bh readers outside their contract (trcu.h), for the
 * debug kernel's check: 1 ends one with irqs disabled, 2 runs one with
 * irqs disabled throughout, 3 runs one in hardirq context (an irq_work,
 * a self-IPI here).  Each must be reported as suspicious RCU usage and
 * leave the preempt count balanced.  Only with CONFIG_PROVE_RCU: without
 * it these are real bugs (softirqs run with irqs disabled).
 */
static int tt_bhbad_pc;
static int tt_bhbad_ret;

static void tt_bhbad_irq(struct irq_work *w)
{
	tt_bhbad_pc = preempt_count();
	trcu_read_lock_bh();
	trcu_read_unlock_bh();
	tt_bhbad_ret = tt_bhirq_verdict("in hardirq context", tt_bhbad_pc);
}

static int tt_bhbad(int which)
{
	struct irq_work work = IRQ_WORK_INIT_HARD(tt_bhbad_irq);
	unsigned long flags;
	int pc, ret = 0;

	if (!IS_ENABLED(CONFIG_PROVE_RCU)) {
		pr_err("bhbad=%d needs a CONFIG_PROVE_RCU kernel\n", which);
		return -EINVAL;
	}
	pc = preempt_count();
	switch (which) {
	case 1:
		trcu_read_lock_bh();
		local_irq_save(flags);
		trcu_read_unlock_bh();
		local_irq_restore(flags);
		ret = tt_bhirq_verdict("irqs on at lock, off at unlock", pc);
		break;
	case 2:
		local_irq_save(flags);
		trcu_read_lock_bh();
		trcu_read_unlock_bh();
		local_irq_restore(flags);
		ret = tt_bhirq_verdict("irqs off throughout", pc);
		break;
	case 3:
		irq_work_queue(&work);
		irq_work_sync(&work);
		ret = tt_bhbad_ret;
		break;
	}
	pr_info("bhbad=%d: incorrect use done, preempt count %s\n", which,
		ret ? "unbalanced" : "balanced");
	return ret;
}

static void tt_ctor(void *obj)
{
	((struct tt_obj *)obj)->val = -1;
}

static int tt_kfree(int n)
{
	struct kmem_cache *cache = NULL;
	struct tt_obj *p;
	int i;

	if (!kfree_nowait) {
		/*
		 * The constructor keeps SLUB from merging this cache into a
		 * kmalloc one: only an unmerged cache checks, when destroyed,
		 * that every object was freed.
		 */
		cache = kmem_cache_create("trcutest_kfree", sizeof(*p), 0, 0,
					  tt_ctor);
		if (!cache)
			return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		p = cache ? kmem_cache_alloc(cache, GFP_KERNEL) :
			    kmalloc(sizeof(*p), GFP_KERNEL);
		if (!p)
			break;
		p->val = i;
		kfree_trcu(p, rh);
		if (!(i & 1023))
			cond_resched();
	}
	pr_info("kfree=%d: queued %d objects%s\n", n, i,
		kfree_nowait ? ", not waiting" : "");
	if (!cache)
		return 0;
	kfree_trcu_barrier();
	/* Complains ("Objects remaining") if kfree_trcu() missed any. */
	kmem_cache_destroy(cache);
	pr_info("kfree=%d: barrier done, cache destroyed\n", n);
	return 0;
}

static int __init tt_test_init(void)
{
	int ret = 0;

	if (deref < 0 || deref > 5 || poll < 0 || poll > 100000 ||
	    bench < 0 || bench > 10000 || kfree_n < 0 || kfree_n > 1000000 ||
	    kfree_nowait < 0 || kfree_nowait > 1 || bhirq < 0 || bhirq > 1 || bhbad < 0 || bhbad > 3) {
		pr_err("invalid parameters: deref 0..5, poll 0..100000, bench 0..10000, kfree 0..1000000, kfree_nowait 0/1, bhirq 0/1, bhbad 0..3\n");
		return -EINVAL;
	}
	RCU_INIT_POINTER(tt_ptr, &tt_static);
	if (deref == 1)
		ret = tt_deref_good();
	else if (deref)
		ret = tt_deref_bad(deref);
	if (!ret && poll)
		ret = tt_poll(poll);
	if (!ret && bench)
		ret = tt_bench(bench);
	if (!ret && bhirq)
		ret = tt_bhirq();
	if (!ret && bhbad)
		ret = tt_bhbad(bhbad);
	if (!ret && kfree_n)
		ret = tt_kfree(kfree_n);
	return ret;
}

static void __exit tt_test_exit(void)
{
}

module_init(tt_test_init);
module_exit(tt_test_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("One-shot checks of the trcu API");
