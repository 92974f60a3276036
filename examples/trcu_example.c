// SPDX-License-Identifier: GPL-2.0
/*
 * trcu_example: how a driver uses trcu.
 *
 * A hash table of small objects, looked up by reader kthreads without
 * any lock and changed by one updater kthread.  The readers only ever
 * take trcu_read_lock(); the updater serialises against itself (and the
 * teardown) with a spinlock and never frees an object a reader might
 * still hold until a trcu grace period has passed.  It shows the three
 * ways to wait for one:
 *
 *   call_trcu()           a callback runs after the grace period; here
 *                         it poisons the object and frees it
 *   synchronize_trcu()    block until the grace period has passed, then
 *                         poison and free in the caller
 *   kfree_trcu()          kfree() after the grace period, batched by trcu;
 *                         no callback of ours runs
 *
 * Every object carries a magic value that is set to EX_MAGIC_FREED just
 * before it is freed (the kfree_trcu() path cannot do that: there the
 * slab allocator's free-pointer and later reuse overwrite the fields,
 * and the consistency check catches those).  A reader that finds a
 * poisoned or inconsistent object inside its read-side critical section
 * has caught a grace period that ended too early: it counts an error.
 *
 * On unload the threads are stopped, the table is emptied, and then
 * trcu_barrier() and kfree_trcu_barrier() wait for everything still
 * queued: a callback must not run after this module's text is gone, and
 * the object cache cannot be destroyed while objects are waiting to be
 * freed into it.  The last line says what was done:
 *
 *   trcu_example: done: reads R (hits H), updates U (...), frees F (...), errors 0
 *
 * Parameters (all read-only after load):
 *   duration  seconds to run, then idle until unload; 0: until unload
 *   nreaders  reader kthreads (1..64)
 *   nbuckets  hash buckets (1..65536)
 *   nkeys     distinct keys, so at most this many objects (1..1048576)
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/kernel.h>
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/atomic.h>
#include <linux/random.h>
#include <linux/jiffies.h>
#include <trcu.h>

static unsigned int duration;
module_param(duration, uint, 0444);
MODULE_PARM_DESC(duration, "Seconds to run (0: until unload, max 86400)");
static unsigned int nreaders = 2;
module_param(nreaders, uint, 0444);
MODULE_PARM_DESC(nreaders, "Reader kthreads (1..64)");
static unsigned int nbuckets = 64;
module_param(nbuckets, uint, 0444);
MODULE_PARM_DESC(nbuckets, "Hash buckets (1..65536)");
static unsigned int nkeys = 256;
module_param(nkeys, uint, 0444);
MODULE_PARM_DESC(nkeys, "Distinct keys, the most objects at once (1..1048576)");

#define EX_MAGIC_LIVE	0x7472637516c0ffeeULL	/* published or about to be */
#define EX_MAGIC_FREED	0xdeadfa11deadfa11ULL	/* written just before the free */

/*
 * Keys looked up per read-side critical section.  The reader checks each
 * object once more just before trcu_read_unlock(): the longer it holds a
 * pointer, the likelier a grace period that ended too early is seen.
 */
#define EX_LOOKUPS	4

struct ex_obj {
	u64 magic;
	u32 key;
	u32 gen;		/* bumped on every replacement of this key */
	u64 check;		/* ex_check_of(key, gen): detects torn/reused memory */
	struct ex_obj __rcu *next;	/* hash chain */
	struct rcu_head rh;	/* for call_trcu() and kfree_trcu() */
};

struct ex_reader {
	struct task_struct *task;
	unsigned int id;
	unsigned long reads;	/* lookups; read by exit once the thread is gone */
	unsigned long hits;	/* lookups that found an object */
};

/*
 * The table: nbuckets chains, each a singly linked list whose head and
 * next pointers are published with rcu_assign_pointer() and read with
 * trcu_dereference() (readers) or trcu_dereference_protected()
 * (updaters, under ex_lock).
 */
static struct ex_obj __rcu **ex_table;
static DEFINE_SPINLOCK(ex_lock);
static struct kmem_cache *ex_cache;
static struct task_struct *ex_updater;
static struct ex_reader *ex_readers;
static unsigned long ex_end;		/* jiffies at which the threads idle */

/* Updater-only counters (read by exit after the updater has stopped). */
static unsigned long ex_inserts, ex_replaces, ex_removes;
static unsigned long ex_sync_frees, ex_kfree_trcu_frees, ex_teardown;
/* Shared with trcu's callback context: atomics. */
static atomic_long_t ex_cb_queued = ATOMIC_LONG_INIT(0);
static atomic_long_t ex_cb_frees = ATOMIC_LONG_INIT(0);
static atomic_long_t ex_errors = ATOMIC_LONG_INIT(0);

static u64 ex_check_of(u32 key, u32 gen)
{
	return ((u64)key << 32 | gen) ^ 0x5a5a5a5aa5a5a5a5ULL;
}

static struct ex_obj __rcu **ex_bucket(u32 key)
{
	return &ex_table[key % nbuckets];
}

static void ex_error(const char *who, u32 key, const struct ex_obj *p,
		     u64 magic, const char *what)
{
	atomic_long_inc(&ex_errors);
	pr_err_ratelimited("%s: key %u: object %p %s (magic %#llx)\n",
			   who, key, p, what, magic);
}

/*
 * Reader-side validation of an object found under key @key.  Fields are
 * read once each: the object is not ours to lock, and a broken grace
 * period may be changing it under us.
 */
static bool ex_valid(const struct ex_obj *p, u32 key)
{
	u64 magic = READ_ONCE(p->magic);
	u32 k = READ_ONCE(p->key);
	u32 gen = READ_ONCE(p->gen);

	if (magic == EX_MAGIC_FREED) {
		ex_error("reader", key, p, magic, "freed inside a reader");
		return false;
	}
	if (magic != EX_MAGIC_LIVE || k != key ||
	    READ_ONCE(p->check) != ex_check_of(k, gen)) {
		ex_error("reader", key, p, magic, "corrupt (reused memory?)");
		return false;
	}
	return true;
}

/* Caller holds trcu_read_lock(); the result is valid until the unlock. */
static struct ex_obj *ex_lookup(u32 key)
{
	struct ex_obj *p;

	for (p = trcu_dereference(*ex_bucket(key)); p;
	     p = trcu_dereference(p->next))
		if (p->key == key)
			return p;
	return NULL;
}

static bool ex_expired(void)
{
	return duration && time_after(jiffies, ex_end);
}

/* Past the duration: do nothing until kthread_stop() asks us to return. */
static void ex_idle_until_stop(void)
{
	for (;;) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (kthread_should_stop())
			break;
		schedule();
	}
	__set_current_state(TASK_RUNNING);
}

static int ex_reader_fn(void *arg)
{
	struct ex_reader *r = arg;
	struct ex_obj *found[EX_LOOKUPS];
	u32 keys[EX_LOOKUPS];
	int i;

	/* Readers spin; leave the CPU to the updater and trcu's own work. */
	set_user_nice(current, MAX_NICE);
	while (!kthread_should_stop() && !ex_expired()) {
		for (i = 0; i < EX_LOOKUPS; i++)
			keys[i] = get_random_u32_below(nkeys);

		trcu_read_lock();
		for (i = 0; i < EX_LOOKUPS; i++) {
			found[i] = ex_lookup(keys[i]);
			if (found[i] && ex_valid(found[i], keys[i]))
				r->hits++;
		}
		/*
		 * Still inside the critical section, so every object found
		 * above must still be intact, even if the updater has
		 * removed it in the meantime.
		 */
		for (i = 0; i < EX_LOOKUPS; i++)
			if (found[i])
				ex_valid(found[i], keys[i]);
		trcu_read_unlock();
		r->reads += EX_LOOKUPS;

		/* A quiescent state, and fairness on a non-preemptible kernel. */
		cond_resched();
	}
	ex_idle_until_stop();
	return 0;
}

/* Poison, then give the object back: after this no reader may look at it. */
static void ex_free_now(struct ex_obj *p)
{
	WRITE_ONCE(p->magic, EX_MAGIC_FREED);
	kmem_cache_free(ex_cache, p);
}

/* call_trcu() callback: a grace period has passed since @p was unlinked. */
static void ex_free_cb(struct rcu_head *rh)
{
	struct ex_obj *p = container_of(rh, struct ex_obj, rh);

	if (p->magic != EX_MAGIC_LIVE)
		ex_error("callback", p->key, p, p->magic, "freed twice");
	ex_free_now(p);
	atomic_long_inc(&ex_cb_frees);
}

/*
 * Free an object that is no longer reachable from the table.  Readers may
 * still hold it, so it is freed only after a trcu grace period, by one of
 * the three means in turn (synchronize_trcu() only now and then: it
 * blocks the updater for a whole grace period).
 */
static void ex_retire(struct ex_obj *p, unsigned int how)
{
	if (how % 64 == 0) {
		synchronize_trcu();
		ex_free_now(p);
		ex_sync_frees++;
	} else if (how % 2) {
		atomic_long_inc(&ex_cb_queued);
		call_trcu(&p->rh, ex_free_cb);
	} else {
		/*
		 * kfree() takes objects of any kmem_cache (SLUB, SLAB).  The
		 * object stays allocated from ex_cache until trcu frees it,
		 * hence kfree_trcu_barrier() before kmem_cache_destroy().
		 */
		kfree_trcu(p, rh);
		ex_kfree_trcu_frees++;
	}
}

/*
 * One update of key @key: insert it if absent, else replace or remove
 * it.  Returns the object to retire (NULL if none) so that the caller
 * waits for the grace period outside ex_lock (synchronize_trcu() sleeps).
 */
static struct ex_obj *ex_update(u32 key, struct ex_obj *new, bool remove)
{
	struct ex_obj __rcu **link = ex_bucket(key);
	struct ex_obj *p;

	lockdep_assert_held(&ex_lock);
	for (;;) {
		p = trcu_dereference_protected(*link, lockdep_is_held(&ex_lock));
		if (!p || p->key == key)
			break;
		link = &p->next;
	}

	if (!p) {			/* absent: insert at the chain's head */
		link = ex_bucket(key);
		new->gen = 0;
		new->check = ex_check_of(key, new->gen);
		RCU_INIT_POINTER(new->next,
				 trcu_dereference_protected(*link,
							    lockdep_is_held(&ex_lock)));
		/* Orders the initialisation of *new before its publication. */
		rcu_assign_pointer(*link, new);
		ex_inserts++;
		return NULL;
	}
	if (remove) {
		/*
		 * p->next stays as it is: a reader standing on p still
		 * reaches the rest of the chain.
		 */
		rcu_assign_pointer(*link,
				   trcu_dereference_protected(p->next,
							      lockdep_is_held(&ex_lock)));
		ex_removes++;
	} else {
		new->gen = p->gen + 1;
		new->check = ex_check_of(key, new->gen);
		RCU_INIT_POINTER(new->next,
				 trcu_dereference_protected(p->next,
							    lockdep_is_held(&ex_lock)));
		rcu_assign_pointer(*link, new);
		ex_replaces++;
	}
	return p;
}

static int ex_updater_fn(void *arg)
{
	unsigned int iter = 0, retired = 0;

	while (!kthread_should_stop() && !ex_expired()) {
		u32 key = get_random_u32_below(nkeys);
		bool remove = get_random_u32_below(4) == 0;
		struct ex_obj *new, *old;

		/*
		 * Allocate before taking ex_lock (GFP_KERNEL may sleep), even
		 * though a removal will not need it.  A removal of an absent
		 * key inserts it instead.
		 */
		new = kmem_cache_alloc(ex_cache, GFP_KERNEL);
		if (!new) {
			/* Not an error of trcu's: try again later. */
			schedule_timeout_interruptible(1);
			continue;
		}
		new->magic = EX_MAGIC_LIVE;
		new->key = key;

		spin_lock(&ex_lock);
		old = ex_update(key, new, remove);
		spin_unlock(&ex_lock);

		/* ex_update() did not use @new when it removed an object. */
		if (remove && old)
			kmem_cache_free(ex_cache, new);
		if (old)
			ex_retire(old, retired++);

		/*
		 * Let the other tasks on this CPU run now and then; a short
		 * sleep also lets trcu's callbacks catch up with the updates.
		 */
		if (++iter % 64 == 0)
			schedule_timeout_interruptible(1);
		else
			cond_resched();
	}
	ex_idle_until_stop();
	return 0;
}

/*
 * Unlink every object.  The threads are stopped, but a real driver's
 * readers (interrupt handlers, other tasks) could still be inside a
 * critical section, so the objects still go through call_trcu().
 */
static void ex_empty_table(void)
{
	struct ex_obj *p;
	unsigned int b;

	spin_lock(&ex_lock);
	for (b = 0; b < nbuckets; b++) {
		while ((p = trcu_dereference_protected(ex_table[b],
						       lockdep_is_held(&ex_lock)))) {
			rcu_assign_pointer(ex_table[b],
					   trcu_dereference_protected(p->next,
								      lockdep_is_held(&ex_lock)));
			atomic_long_inc(&ex_cb_queued);
			call_trcu(&p->rh, ex_free_cb);
			ex_teardown++;
		}
	}
	spin_unlock(&ex_lock);
}

static void ex_stop_threads(void)
{
	unsigned int i;

	if (ex_updater)
		kthread_stop(ex_updater);
	ex_updater = NULL;
	for (i = 0; i < nreaders; i++) {
		if (ex_readers[i].task)
			kthread_stop(ex_readers[i].task);
		ex_readers[i].task = NULL;
	}
}

static int __init ex_check_params(void)
{
	if (duration > 86400 || nreaders < 1 || nreaders > 64 ||
	    nbuckets < 1 || nbuckets > 65536 || nkeys < 1 || nkeys > 1048576) {
		pr_err("bad parameters: duration=%u (0..86400) nreaders=%u (1..64) nbuckets=%u (1..65536) nkeys=%u (1..1048576)\n",
		       duration, nreaders, nbuckets, nkeys);
		return -EINVAL;
	}
	return 0;
}

static int __init ex_init(void)
{
	unsigned int i;
	int ret;

	ret = ex_check_params();
	if (ret)
		return ret;

	ex_table = kcalloc(nbuckets, sizeof(*ex_table), GFP_KERNEL);
	ex_readers = kcalloc(nreaders, sizeof(*ex_readers), GFP_KERNEL);
	ex_cache = KMEM_CACHE(ex_obj, 0);
	if (!ex_table || !ex_readers || !ex_cache) {
		ret = -ENOMEM;
		goto err_free;
	}

	ex_end = jiffies + (unsigned long)duration * HZ;
	for (i = 0; i < nreaders; i++) {
		struct task_struct *t;

		ex_readers[i].id = i;
		t = kthread_run(ex_reader_fn, &ex_readers[i], "trcu_ex_rd/%u", i);
		if (IS_ERR(t)) {
			ret = PTR_ERR(t);
			goto err_stop;
		}
		ex_readers[i].task = t;
	}
	ex_updater = kthread_run(ex_updater_fn, NULL, "trcu_ex_upd");
	if (IS_ERR(ex_updater)) {
		ret = PTR_ERR(ex_updater);
		ex_updater = NULL;
		goto err_stop;
	}

	pr_info("started: %u readers, %u buckets, %u keys, duration %u s\n",
		nreaders, nbuckets, nkeys, duration);
	return 0;

err_stop:
	/* The same teardown as unload: objects may already be queued. */
	ex_stop_threads();
	ex_empty_table();
	trcu_barrier();
	kfree_trcu_barrier();
err_free:
	kmem_cache_destroy(ex_cache);	/* NULL is fine */
	kfree(ex_readers);
	kfree(ex_table);
	pr_err("load failed: %d\n", ret);
	return ret;
}

static void __exit ex_exit(void)
{
	unsigned long reads = 0, hits = 0, cb_queued, cb_frees;
	unsigned int i;

	ex_stop_threads();
	ex_empty_table();
	/*
	 * Every call_trcu() callback names ex_free_cb, in this module's text:
	 * wait until all have run.  kfree_trcu() calls back nothing of ours,
	 * but its objects are still allocated from ex_cache until trcu frees
	 * them: wait for those too before destroying the cache.
	 */
	trcu_barrier();
	kfree_trcu_barrier();

	cb_queued = atomic_long_read(&ex_cb_queued);
	cb_frees = atomic_long_read(&ex_cb_frees);
	if (cb_frees != cb_queued) {
		atomic_long_inc(&ex_errors);
		pr_err("trcu_barrier() returned with %lu of %lu callbacks not run\n",
		       cb_queued - cb_frees, cb_queued);
	}
	kmem_cache_destroy(ex_cache);

	for (i = 0; i < nreaders; i++) {
		reads += ex_readers[i].reads;
		hits += ex_readers[i].hits;
	}
	kfree(ex_readers);
	kfree(ex_table);

	pr_info("done: reads %lu (hits %lu), updates %lu (inserts %lu, replaces %lu, removes %lu), frees %lu (call_trcu %lu, synchronize_trcu %lu, kfree_trcu %lu, teardown %lu), errors %ld\n",
		reads, hits, ex_inserts + ex_replaces + ex_removes,
		ex_inserts, ex_replaces, ex_removes,
		cb_frees - ex_teardown + ex_sync_frees + ex_kfree_trcu_frees,
		cb_frees - ex_teardown, ex_sync_frees, ex_kfree_trcu_frees,
		ex_teardown, atomic_long_read(&ex_errors));
}

module_init(ex_init);
module_exit(ex_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("trcu example: an RCU-protected hash table, as a driver would use trcu");
