// SPDX-License-Identifier: GPL-2.0
/*
 * kfree_trcu(): free an object after a trcu grace period without a
 * callback of the caller's.  Pointers are collected per CPU into page-
 * sized batches; a batch goes to call_trcu() (one rcu_head for up to
 * ~500 objects) when it is full, or when its flush work runs, at most
 * TRCU_KFREE_DELAY after its first pointer.  If no batch page can be
 * allocated (GFP_NOWAIT: callers may be atomic), the object's own
 * rcu_head is queued instead, with the head's offset inside the object
 * in place of a callback function; trcu_invoke_cbs() recognises small
 * "function" values and kfree()s the object (as the kernel's own
 * kvfree_rcu does).
 *
 * Module unload flushes every partial batch before the final
 * trcu_barrier(), so rmmod waits for every object still queued.
 */
#define pr_fmt(fmt) "trcu: " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/gfp.h>
#include <linux/workqueue.h>
#include <linux/percpu.h>

#include <trcu.h>
#include "tree.h"

/* A batch flushes at most this long after its first pointer. */
#define TRCU_KFREE_DELAY	(HZ / 50 ?: 1)

struct trcu_kfree_batch {
	struct rcu_head rh;		/* Queued with call_trcu(). */
	int nr;				/* Pointers in ptrs[]. */
	void *ptrs[];			/* Objects to kfree(). */
};

#define TRCU_KFREE_MAX \
	((PAGE_SIZE - sizeof(struct trcu_kfree_batch)) / sizeof(void *))

struct trcu_kfree_cpu {
	raw_spinlock_t lock;		/* Guards cur; the flush work may */
					/*  run on another CPU (hotplug). */
	struct trcu_kfree_batch *cur;	/* Batch being filled, or NULL. */
	struct delayed_work flush;	/* Hands a partial batch over. */
	bool flush_queued;		/* flush is pending. */
};

static DEFINE_PER_CPU(struct trcu_kfree_cpu, trcu_kfree_cpus);
static atomic_long_t trcu_kfree_batches, trcu_kfree_fallbacks;

/* Batch callback, after the grace period: free every object, then it. */
static void trcu_kfree_batch_cb(struct rcu_head *rh)
{
	struct trcu_kfree_batch *b = container_of(rh, struct trcu_kfree_batch,
						  rh);
	int i;

	for (i = 0; i < b->nr; i++)
		kfree(b->ptrs[i]);
	free_page((unsigned long)b);
}

/* Take @kc's batch, if any.  Caller holds @kc->lock. */
static struct trcu_kfree_batch *trcu_kfree_take(struct trcu_kfree_cpu *kc)
{
	struct trcu_kfree_batch *b = kc->cur;

	lockdep_assert_held(&kc->lock);
	kc->cur = NULL;
	return b;
}

static void trcu_kfree_submit(struct trcu_kfree_batch *b)
{
	if (!b)
		return;
	atomic_long_inc(&trcu_kfree_batches);
	call_trcu(&b->rh, trcu_kfree_batch_cb);
}

/* Flush work: hand @kc's partial batch to trcu. */
static void trcu_kfree_flush_work(struct work_struct *work)
{
	struct trcu_kfree_cpu *kc = container_of(to_delayed_work(work),
						 struct trcu_kfree_cpu, flush);
	struct trcu_kfree_batch *b;
	unsigned long flags;

	raw_spin_lock_irqsave(&kc->lock, flags);
	kc->flush_queued = false;
	b = trcu_kfree_take(kc);
	raw_spin_unlock_irqrestore(&kc->lock, flags);
	trcu_kfree_submit(b);
}

/**
 * trcu_kfree_call() - kfree() @ptr after a trcu grace period
 * @head: rcu_head inside the object @ptr points to
 * @ptr: start of the object, as kmalloc() returned it
 *
 * Use the kfree_trcu() macro.  Any context but NMI, with any lock held.
 */
void trcu_kfree_call(struct rcu_head *head, void *ptr)
{
	struct trcu_kfree_cpu *kc;
	struct trcu_kfree_batch *b, *full = NULL, *spare = NULL;
	unsigned long flags;

	/* Irqs off first: the CPU (and so kc) cannot change under us. */
	local_irq_save(flags);
	kc = this_cpu_ptr(&trcu_kfree_cpus);
	/*
	 * A new batch page is allocated before taking kc->lock: the page
	 * allocator takes sleeping locks on PREEMPT_RT (spinlock_t), which
	 * must never nest inside a raw spinlock.  Only the flush work (on
	 * another CPU during hotplug) can change ->cur meanwhile, and only
	 * to NULL, so a page allocated here is either used or given back.
	 */
	if (!READ_ONCE(kc->cur) && !trcu_kfree_nobatch)
		spare = (void *)__get_free_page(GFP_NOWAIT | __GFP_NOWARN);
	raw_spin_lock(&kc->lock);
	b = kc->cur;
	if (!b && spare) {
		b = spare;
		spare = NULL;
		b->nr = 0;
		kc->cur = b;
	}
	if (!b) {
		/* No page (or kfree_nobatch=1, which tests this path). */
		raw_spin_unlock_irqrestore(&kc->lock, flags);
		/* This object's own head, its offset as the "function". */
		atomic_long_inc(&trcu_kfree_fallbacks);
		call_trcu(head, (rcu_callback_t)((unsigned long)head -
						 (unsigned long)ptr));
		return;
	}
	b->ptrs[b->nr++] = ptr;
	if (b->nr == TRCU_KFREE_MAX)
		full = trcu_kfree_take(kc);
	else if (!kc->flush_queued)
		kc->flush_queued = queue_delayed_work_on(smp_processor_id(),
							 system_wq, &kc->flush,
							 TRCU_KFREE_DELAY);
	raw_spin_unlock_irqrestore(&kc->lock, flags);
	if (spare)
		free_page((unsigned long)spare);
	trcu_kfree_submit(full);
}
EXPORT_SYMBOL_GPL(trcu_kfree_call);

/* Hand every CPU's partial batch to trcu now.  Process context. */
static void trcu_kfree_flush_all(void)
{
	struct trcu_kfree_cpu *kc;
	int cpu;

	for_each_possible_cpu(cpu) {
		kc = per_cpu_ptr(&trcu_kfree_cpus, cpu);
		/* Queued work would flush too; doing it here is the same. */
		flush_delayed_work(&kc->flush);
		trcu_kfree_flush_work(&kc->flush.work);
	}
}

/**
 * kfree_trcu_barrier() - wait until every kfree_trcu() so far has freed
 *
 * Flushes the partially filled batches and waits for their grace period
 * and callbacks.  Process context.
 */
void kfree_trcu_barrier(void)
{
	might_sleep();
	trcu_kfree_flush_all();
	trcu_barrier();
}
EXPORT_SYMBOL_GPL(kfree_trcu_barrier);

/* Module init: every CPU's batch empty. */
void trcu_kfree_init(void)
{
	struct trcu_kfree_cpu *kc;
	int cpu;

	for_each_possible_cpu(cpu) {
		kc = per_cpu_ptr(&trcu_kfree_cpus, cpu);
		raw_spin_lock_init(&kc->lock);
		INIT_DELAYED_WORK(&kc->flush, trcu_kfree_flush_work);
	}
}

/*
 * Module exit, before the final trcu_barrier(): no kfree_trcu() caller
 * is left (they are modules using our symbols), so after this flush the
 * barrier waits for every object.
 */
void trcu_kfree_exit(void)
{
	trcu_kfree_flush_all();
	pr_info("kfree_trcu: %ld batches, %ld single objects\n",
		atomic_long_read(&trcu_kfree_batches),
		atomic_long_read(&trcu_kfree_fallbacks));
}
