// SPDX-License-Identifier: GPL-2.0
/*
 * trcutorture: torture test for trcu and, as references, the kernel's own
 * RCU and SRCU.  Same idea as the kernel's rcutorture (written anew here):
 *
 * A writer keeps replacing the "current" element of a small pool.  Every
 * removed element then ages by one per grace period (its "pipeline
 * count") until it is freed, at age TT_PIPE_LEN.  Readers pick up the
 * current element inside a read-side critical section, dawdle, and record
 * the element's age as they leave.  An element that was current when the
 * reader found it can be at most one step old (removed, but no full grace
 * period since): a reader that sees age 2 or more watched a grace period
 * end while it was still inside its critical section.  That is the
 * "Reader Pipe" histogram; any count beyond index 1 is a FAILURE.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/kernel.h>
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/delay.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/mutex.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/cpu.h>
#include <linux/random.h>
#include <linux/list.h>

#include "torture.h"

/* ---- parameters ------------------------------------------------------- */

static char *torture_type = "trcu";
module_param(torture_type, charp, 0444);
MODULE_PARM_DESC(torture_type, "Flavour: trcu, trcu_bh, rcu, rcu_bh, srcu (busted* = self-tests)");
static int nreaders = -1;
module_param(nreaders, int, 0444);
MODULE_PARM_DESC(nreaders, "Reader kthreads (-1 = num_online_cpus()-1, at least 1)");
static int nfakewriters = 4;
module_param(nfakewriters, int, 0444);
MODULE_PARM_DESC(nfakewriters, "Kthreads mixing sync / call+wait / barrier");
static int irqreader;
module_param(irqreader, int, 0444);
MODULE_PARM_DESC(irqreader, "1: readers also run read sections from timers");
static int nmireader;
module_param(nmireader, int, 0444);
MODULE_PARM_DESC(nmireader, "1: NMI IPIs to other (preferably idle) CPUs run read sections");
static int n_barrier_cbs;
module_param(n_barrier_cbs, int, 0444);
MODULE_PARM_DESC(n_barrier_cbs, "Kthreads posting a callback per barrier-test round (0 = off)");
static int fwd_progress;
module_param(fwd_progress, int, 0444);
MODULE_PARM_DESC(fwd_progress, "1: periodic callback floods checking forward progress");
static int onoff_interval;
module_param(onoff_interval, int, 0444);
MODULE_PARM_DESC(onoff_interval, "ms between CPU hotplug operations (0 = off)");
static int onoff_holdoff;
module_param(onoff_holdoff, int, 0444);
MODULE_PARM_DESC(onoff_holdoff, "s before the first CPU hotplug operation");
static int test_no_idle_hz = 1;
module_param(test_no_idle_hz, int, 0444);
MODULE_PARM_DESC(test_no_idle_hz, "1: readers pause for some ticks now and then so CPUs go dynticks-idle");
static int stutter;
module_param(stutter, int, 0444);
MODULE_PARM_DESC(stutter, "s of load, then s of pause (0 = off)");
static int stall_cpu;
module_param(stall_cpu, int, 0444);
MODULE_PARM_DESC(stall_cpu, "s to spin in a read section on one CPU (0 = off, max 20)");
static int stall_cpu_holdoff = 10;
module_param(stall_cpu_holdoff, int, 0444);
MODULE_PARM_DESC(stall_cpu_holdoff, "s before the stall is injected");
static int stat_interval = 60;
module_param(stat_interval, int, 0444);
MODULE_PARM_DESC(stat_interval, "s between statistics lines (0 = only at the end)");
static int duration;
module_param(duration, int, 0444);
MODULE_PARM_DESC(duration, "s until the test ends itself (0 = at rmmod)");
static int long_reads;
module_param(long_reads, int, 0444);
MODULE_PARM_DESC(long_reads, "1 in N reader-kthread read sections busy-waits 100 us..2 ms (0 = off)");
static int onoff_leaf;
module_param(onoff_leaf, int, 0444);
MODULE_PARM_DESC(onoff_leaf, "CPUs per trcu leaf: hotplug empties and refills whole leaves (0 = random CPUs)");
static int onoff_cbs;
module_param(onoff_cbs, int, 0444);
MODULE_PARM_DESC(onoff_cbs, "Callbacks posted each jiffy on a CPU while it goes offline (0 = none)");

static int onoff_barrier;
module_param(onoff_barrier, int, 0444);
MODULE_PARM_DESC(onoff_barrier, "After each offline, the flavour's barrier with that CPU still offline; every onoff_cbs callback must have run (0/1)");
static int max_gp_ms = -1;
module_param(max_gp_ms, int, 0444);
MODULE_PARM_DESC(max_gp_ms, "Longest average ms per GP over the test (-1 = flavour default, 0 = no check)");
static ulong seed;
module_param(seed, ulong, 0444);
MODULE_PARM_DESC(seed, "Seed of every kthread's random choices (0 = one picked at load; the Start line gives it)");
static int choice_log;
module_param(choice_log, int, 0444);
MODULE_PARM_DESC(choice_log, "Each random stream prints a hash of its first N values once, to compare two runs (0 = off)");

/* ---- state of the test ------------------------------------------------ */

static const struct trcu_torture_ops *tt_ops;
static int tt_nreaders;			/* readers actually started */
static unsigned long tt_gp_start;	/* get_gp_count() at start of test */

/* The element pool.  Static, so a late reader never touches freed memory. */
#define TT_NELEMS	(10 * TT_PIPE_LEN)

static struct tt_elem tt_pool[TT_NELEMS];
static LIST_HEAD(tt_freelist);
static DEFINE_SPINLOCK(tt_freelist_lock);	/* also taken from callbacks */
static unsigned long tt_version;
static LIST_HEAD(tt_removed);			/* writer only: sync-based pipeline */
static atomic_t tt_nalloc, tt_nalloc_fail, tt_nfree;
static atomic_t tt_cbs_inflight;		/* writer's pipeline callbacks */
static atomic_t tt_wcount[TT_PIPE_LEN + 1];	/* Free-Block Circulation */
static unsigned long tt_start_jiffies;		/* for the GP-rate floor */

static struct task_struct *tt_shutdown_task;
static bool tt_ended;			/* end line printed */
static DEFINE_MUTEX(tt_end_mutex);

/* ---- helpers ---------------------------------------------------------- */

static unsigned long tt_gps(void)
{
	return tt_ops->get_gp_count() - tt_gp_start;
}


/* ---- element pool and pipeline ---------------------------------------- */

static struct tt_elem *tt_alloc(void)
{
	struct tt_elem *p = NULL;
	unsigned long flags;

	spin_lock_irqsave(&tt_freelist_lock, flags);
	if (!list_empty(&tt_freelist)) {
		p = list_first_entry(&tt_freelist, struct tt_elem, node);
		list_del(&p->node);
	}
	spin_unlock_irqrestore(&tt_freelist_lock, flags);
	if (p)
		atomic_inc(&tt_nalloc);
	else
		atomic_inc(&tt_nalloc_fail);
	return p;
}

static void tt_free(struct tt_elem *p)
{
	unsigned long flags;

	atomic_inc(&tt_nfree);
	spin_lock_irqsave(&tt_freelist_lock, flags);
	list_add_tail(&p->node, &tt_freelist);
	spin_unlock_irqrestore(&tt_freelist_lock, flags);
}

/*
 * Age a removed element by one grace period.  Returns true when it has
 * reached the end of the pipeline: it is then marked freed (mbtest = 0)
 * and the caller puts it back on the freelist.
 */
static bool tt_pipe_update_one(struct tt_elem *p)
{
	int i = READ_ONCE(p->pipe);

	atomic_inc(&tt_wcount[min(i, TT_PIPE_LEN)]);
	WRITE_ONCE(p->pipe, i + 1);
	if (i + 1 >= TT_PIPE_LEN) {
		WRITE_ONCE(p->mbtest, 0);
		return true;
	}
	return false;
}

/* Call-based pipeline: one invocation per grace period, re-posted. */
static void tt_pipe_cb(struct rcu_head *rh)
{
	struct tt_elem *p = container_of(rh, struct tt_elem, rh);

	tt_cb_check(p->cb_gp);
	if (tt_pipe_update_one(p)) {
		tt_free(p);
		atomic_dec(&tt_cbs_inflight);
	} else {
		p->cb_gp = tt_cb_snap();
		tt_call(&p->rh, tt_pipe_cb);
	}
}

/* Sync-based pipeline: after a synchronous grace period, age everything. */
static void tt_pipe_update_removed(void)
{
	struct tt_elem *p, *n;

	list_for_each_entry_safe(p, n, &tt_removed, node) {
		if (tt_pipe_update_one(p)) {
			list_del(&p->node);
			tt_free(p);
		}
	}
}

/* ---- writer and fake writers ------------------------------------------ */

/* Polled waits done by the writer (flavours with a cookie API). */
static unsigned long tt_n_cond_sync, tt_n_poll;

/* Waits done with the CPU hotplug read lock held (tt_hotplug_lock()). */
static atomic_long_t tt_n_hp_locked;

/*
 * One wait in four holds the CPU hotplug read lock, as kernel code may
 * around synchronize_rcu(), synchronize_rcu_expedited() or rcu_barrier()
 * (and rcutorture does): a flavour whose wait takes a lock that nests
 * around cpu_hotplug_lock then shows up in lockdep, or deadlocks against
 * the hotplug kthread.  Returns whether it took the lock.
 */
static bool tt_hotplug_lock(struct tt_rnd *rnd)
{
	if (tt_rand(rnd) & 0x18)
		return false;
	cpus_read_lock();
	atomic_long_inc(&tt_n_hp_locked);
	return true;
}

static void tt_hotplug_unlock(bool locked)
{
	if (locked)
		cpus_read_unlock();
}

/*
 * The writer's synchronous wait for the removed element.  Flavours with
 * polled grace periods use them half of the time: a cookie taken now,
 * some work, then cond_sync() (which may find the GP already over), or
 * start_poll() and a poll loop.  A cookie that completes too early lets
 * the element age while readers still hold it: Reader Pipe errors.
 */
static void tt_writer_wait(struct tt_rnd *rnd)
{
	unsigned long cookie;
	u32 r = tt_rand(rnd);
	bool hp = tt_hotplug_lock(rnd);

	if (!tt_ops->get_state || !(r & 2)) {
		tt_ops->sync();
	} else if (r & 4) {
		cookie = tt_ops->get_state();
		usleep_range(100, 2000);
		tt_ops->cond_sync(cookie);
		tt_n_cond_sync++;
	} else {
		cookie = tt_ops->start_poll();
		while (!tt_ops->poll_state(cookie))
			usleep_range(200, 1000);
		tt_n_poll++;
	}
	tt_hotplug_unlock(hp);
}

static int tt_writer(void *arg)
{
	struct tt_rnd rnd;
	struct tt_elem *p, *old;

	tt_rnd_init(&rnd, TT_RND_WRITER);
	while (!tt_should_stop()) {
		tt_stutter_wait();
		usleep_range(500, 1500);
		p = tt_alloc();
		if (!p) {
			/* Pool exhausted: age the removed list if there is one. */
			if (!list_empty(&tt_removed)) {
				tt_ops->sync();
				tt_pipe_update_removed();
			} else {
				tt_sleep(1);
			}
			continue;
		}
		p->pipe = 0;
		p->mbtest = 1;
		p->ver = tt_version + 1;
		udelay(tt_rand(&rnd) & 0xff);
		old = tt_elem_replace(p);
		WRITE_ONCE(tt_version, tt_version + 1);
		if (!old)
			continue;
		/* Removal: age 0 -> 1.  Readers may still legitimately hold it. */
		tt_pipe_update_one(old);
		if (tt_rand(&rnd) & 1) {
			atomic_inc(&tt_cbs_inflight);
			old->cb_gp = tt_cb_snap();
			tt_call(&old->rh, tt_pipe_cb);
		} else {
			list_add(&old->node, &tt_removed);
			tt_writer_wait(&rnd);
			tt_pipe_update_removed();
		}
	}
	return 0;
}

struct tt_cb_wait {
	struct rcu_head rh;
	unsigned long cb_gp;		/* tt_cb_snap() at posting */
	struct completion done;
};

static void tt_cb_wait_cb(struct rcu_head *rh)
{
	struct tt_cb_wait *w = container_of(rh, struct tt_cb_wait, rh);

	tt_cb_check(w->cb_gp);
	complete(&w->done);
}

/* Extra update-side load, mixing the three ways to wait for readers. */
static int tt_fakewriter(void *arg)
{
	struct tt_rnd rnd;
	struct tt_cb_wait w;
	bool hp;

	tt_rnd_init(&rnd, TT_RND_FAKE + (u32)(uintptr_t)arg);
	while (!tt_should_stop()) {
		tt_stutter_wait();
		tt_sleep(1 + tt_rand(&rnd) % 3);
		switch (tt_rand(&rnd) % 4) {
		case 0:
			hp = tt_hotplug_lock(&rnd);
			tt_ops->cb_barrier();
			tt_hotplug_unlock(hp);
			break;
		case 1:
			init_completion(&w.done);
			w.cb_gp = tt_cb_snap();
			tt_call(&w.rh, tt_cb_wait_cb);
			wait_for_completion(&w.done);
			break;
		default:
			hp = tt_hotplug_lock(&rnd);
			tt_ops->sync();
			tt_hotplug_unlock(hp);
			break;
		}
	}
	return 0;
}

/* ---- statistics -------------------------------------------------------- */

static void tt_stats_print(void)
{
	bool bad;
	long rtbe;
	int mberror = tt_readers_mberror();
	char *buf;
	long wc[TT_PIPE_LEN + 1];
	int i;

	buf = kmalloc(512, GFP_KERNEL);
	if (!buf)
		return;
	bad = tt_readers_pipe_bad();
	rtbe = tt_stress_barrier_errors();
	tt_stress_line(buf, 512);
	tt_out("rtc: 0000000000000000 ver: %lu tfle: %d rta: %d rtaf: %d rtf: %d rtmbe: %d rtbe: %ld rtbke: 0 rtbre: 0 rtbf: 0 rtb: 0 nt: %ld %s gps: %lu\n",
	       READ_ONCE(tt_version), list_empty(&tt_freelist),
	       atomic_read(&tt_nalloc), atomic_read(&tt_nalloc_fail),
	       atomic_read(&tt_nfree), mberror,
	       rtbe, tt_readers_ntimers(), buf, tt_gps());
	if (bad || mberror || rtbe)
		tt_count_error();
	if (tt_early_cbs())
		tt_fail("%d callbacks invoked before their grace period ended\n",
			tt_early_cbs());
	tt_readers_stats(buf, 512, bad || mberror);
	for (i = 0; i <= TT_PIPE_LEN; i++)
		wc[i] = atomic_read(&tt_wcount[i]);
	tt_hist_line(buf, 512, "Free-Block Circulation", wc, false);
	if (tt_ops->get_state)
		tt_out("polled: cond_sync %lu poll %lu\n",
		       READ_ONCE(tt_n_cond_sync), READ_ONCE(tt_n_poll));
	tt_out("waits with the hotplug lock held: %ld\n",
	       atomic_long_read(&tt_n_hp_locked));
	tt_stress_stats();
	kfree(buf);
}

static int tt_stats(void *arg)
{
	while (!tt_should_stop()) {
		tt_sleep(stat_interval * HZ);
		if (!tt_should_stop())
			tt_stats_print();
	}
	return 0;
}

/* ---- start and end of test ------------------------------------------- */

static void tt_params(char *buf, size_t len)
{
	scnprintf(buf, len,
		  "torture_type=%s nreaders=%d nfakewriters=%d irqreader=%d nmireader=%d n_barrier_cbs=%d fwd_progress=%d onoff_interval=%d onoff_holdoff=%d test_no_idle_hz=%d stutter=%d stall_cpu=%d stall_cpu_holdoff=%d stat_interval=%d duration=%d long_reads=%d onoff_leaf=%d onoff_cbs=%d onoff_barrier=%d max_gp_ms=%d seed=%llu choice_log=%d",
		  torture_type, tt_nreaders, nfakewriters, irqreader, nmireader,
		  n_barrier_cbs, fwd_progress, onoff_interval, onoff_holdoff,
		  test_no_idle_hz, stutter, stall_cpu, stall_cpu_holdoff,
		  stat_interval, duration, long_reads, onoff_leaf, onoff_cbs,
		  onoff_barrier, max_gp_ms, tt_run_seed(), choice_log);
}

static void tt_print_end(void)
{
	char buf[560];

	tt_params(buf, sizeof(buf));
	printk(KERN_ALERT "%s-torture:--- End of test: %s: %s\n", torture_type,
	       tt_errors() ? "FAILURE" : "SUCCESS", buf);
}

/*
 * Grace periods must still be completing before we try to stop threads
 * that may be waiting for one; otherwise the stop would hang with no
 * verdict.  Waits long enough to outlast an injected stall.
 */
static bool tt_gps_advancing(void)
{
	unsigned long snap = tt_ops->get_gp_count();
	unsigned long deadline = jiffies + (10 + stall_cpu) * HZ;

	while (time_before(jiffies, deadline)) {
		if (tt_ops->get_gp_count() != snap)
			return true;
		schedule_timeout_uninterruptible(HZ / 10);
	}
	return false;
}

/*
 * Shorter tests are not judged by their GP rate: the first grace periods
 * wait for the readers to start, and LOADUNLOAD's 2 s runs (removed
 * while running half of the time) would measure start-up, not the engine.
 */
#define TT_GP_RATE_MIN_SECS	10

/*
 * The GP-rate floor: an engine whose grace periods only end by its slow
 * path (a GP kthread that acts once a second, only the idle credit) is
 * correct and passes every other check, but is broken all the same.
 * Judged as the average time per grace period in guest time, which a
 * loaded host stretches (TCG guest time is host time): hence the wide
 * margin of the default (flavors.c).  The time an injected stall holds
 * grace periods up is not counted.
 */
static void tt_check_gp_rate(unsigned long gps, unsigned long now)
{
	unsigned long elapsed = now - tt_start_jiffies;
	int limit = max_gp_ms >= 0 ? max_gp_ms : tt_ops->max_gp_ms;
	unsigned long secs, ms, rate100;

	if (stall_cpu && elapsed > stall_cpu * HZ)
		elapsed -= stall_cpu * HZ;
	secs = elapsed / HZ;
	if (secs < TT_GP_RATE_MIN_SECS) {
		tt_out("gp rate: not checked, only %lu s of torture (need %d)\n",
		       secs, TT_GP_RATE_MIN_SECS);
		return;
	}
	ms = jiffies_to_msecs(elapsed);
	rate100 = gps * 100 * HZ / elapsed;
	if (limit && (!gps || ms / gps > limit))
		tt_fail("gp rate: %lu.%02lu GPs/s over %lu s, %lu ms per GP, beyond the limit of %d ms (max_gp_ms)\n",
			rate100 / 100, rate100 % 100, secs, gps ? ms / gps : ms,
			limit);
	else
		tt_out("gp rate: %lu.%02lu GPs/s over %lu s, %lu ms per GP (limit %d)\n",
		       rate100 / 100, rate100 % 100, secs, gps ? ms / gps : ms,
		       limit);
}

/*
 * After the final barrier every callback posted must have been invoked
 * exactly once.  Fewer: the flavour lost some (or the barrier returned
 * too early); more: one ran twice.
 */
static void tt_check_cb_accounting(void)
{
	long posted, invoked;

	tt_cbs_counts(&posted, &invoked);

	if (posted != invoked)
		tt_fail("callbacks: posted %ld, invoked %ld after the final barrier (%ld missing)\n",
			posted, invoked, posted - invoked);
	else
		tt_out("callbacks: posted %ld, invoked %ld\n", posted, invoked);
}

static void tt_end_test(void)
{
	unsigned long gps, now;
	bool stuck;
	int i;

	mutex_lock(&tt_end_mutex);
	if (tt_ended) {
		mutex_unlock(&tt_end_mutex);
		return;
	}
	now = jiffies;
	gps = tt_gps();
	stuck = !tt_gps_advancing();
	if (!stuck)
		tt_check_gp_rate(gps, now);
	if (stuck) {
		/* Say so now: stopping the threads below may never finish. */
		tt_fail("grace periods not advancing: gps: %lu unchanged for %d s\n",
			tt_gps(), 10 + stall_cpu);
		tt_stats_print();
		tt_print_end();
	}
	tt_set_ending();
	tt_stop_threads();
	tt_stress_stop();
	/*
	 * Drain the callback pipeline: each element needs up to TT_PIPE_LEN
	 * grace periods, each barrier waits for one round of re-posts.
	 */
	for (i = 0; i <= TT_PIPE_LEN + 1 && atomic_read(&tt_cbs_inflight); i++)
		tt_ops->cb_barrier();
	tt_ops->cb_barrier();
	if (atomic_read(&tt_cbs_inflight))
		tt_fail("%d pipeline callbacks never invoked\n",
			atomic_read(&tt_cbs_inflight));
	tt_check_cb_accounting();
	if (!stuck) {
		tt_stats_print();
		tt_print_end();
	}
	tt_ended = true;
	mutex_unlock(&tt_end_mutex);
}

static int tt_shutdown(void *arg)
{
	unsigned long end = jiffies + duration * HZ;

	while (!kthread_should_stop() && time_before(jiffies, end))
		schedule_timeout_interruptible(end - jiffies);
	if (!kthread_should_stop())
		tt_end_test();
	/* kthread_stop() from rmmod must find us still here. */
	while (!kthread_should_stop())
		schedule_timeout_interruptible(HZ);
	return 0;
}

/* ---- parameter checking ---------------------------------------------- */

static int tt_check_range(const char *name, int val, int lo, int hi,
			  const char *why)
{
	if (val >= lo && val <= hi)
		return 0;
	pr_err("invalid %s=%d: allowed range %d..%d%s%s\n", name, val, lo, hi,
	       why ? " " : "", why ? why : "");
	return -EINVAL;
}

static int tt_check_params(void)
{
	char list[128];
	int err = 0;

	tt_ops = trcu_torture_ops_find(torture_type);
	if (!tt_ops) {
		trcu_torture_ops_list(list, sizeof(list));
		pr_err("invalid torture_type=%s: must be one of: %s\n",
		       torture_type ? torture_type : "(null)", list);
		return -EINVAL;
	}
	if (nreaders != -1)
		err |= tt_check_range("nreaders", nreaders, 1, 256,
				      "(or -1 for num_online_cpus()-1)");
	err |= tt_check_range("nfakewriters", nfakewriters, 0, 64, NULL);
	err |= tt_check_range("irqreader", irqreader, 0, 1, NULL);
	err |= tt_check_range("nmireader", nmireader, 0, 1, NULL);
	err |= tt_check_range("n_barrier_cbs", n_barrier_cbs, 0, 64, NULL);
	err |= tt_check_range("fwd_progress", fwd_progress, 0, 1, NULL);
	err |= tt_check_range("onoff_interval", onoff_interval, 0, 3600000, "(ms)");
	err |= tt_check_range("onoff_holdoff", onoff_holdoff, 0, 3600, "(s)");
	err |= tt_check_range("test_no_idle_hz", test_no_idle_hz, 0, 1, NULL);
	err |= tt_check_range("stutter", stutter, 0, 3600, "(s)");
	err |= tt_check_range("stall_cpu", stall_cpu, 0, 20,
			      "(s; longer trips the kernel's own RCU stall and soft-lockup detectors)");
	err |= tt_check_range("stall_cpu_holdoff", stall_cpu_holdoff, 0, 3600, "(s)");
	err |= tt_check_range("stat_interval", stat_interval, 0, 3600, "(s)");
	err |= tt_check_range("duration", duration, 0, 86400, "(s)");
	err |= tt_check_range("long_reads", long_reads, 0, 1000000,
			      "(1 in N reads is long; 0 = off)");
	err |= tt_check_range("onoff_leaf", onoff_leaf, 0, 64,
			      "(CPUs per leaf; 0 = random CPUs)");
	err |= tt_check_range("onoff_cbs", onoff_cbs, 0, 10000, NULL);
	err |= tt_check_range("onoff_barrier", onoff_barrier, 0, 1, NULL);
	err |= tt_check_range("choice_log", choice_log, 0, 100000, NULL);
	if (onoff_barrier == 1 && (!onoff_interval || !onoff_cbs)) {
		pr_err("invalid onoff_barrier=1: allowed only with onoff_interval and onoff_cbs set\n");
		err = -EINVAL;
	}
	err |= tt_check_range("max_gp_ms", max_gp_ms, -1, 3600000,
			      "(ms per GP; -1 = flavour default, 0 = off)");
	return err ? -EINVAL : 0;
}

/* ---- init / exit ------------------------------------------------------ */

static void tt_cleanup(void)
{
	tt_set_ending();
	tt_stop_threads();
	tt_stress_stop();
	if (tt_ops) {
		tt_ops->cb_barrier();
		if (tt_ops->cleanup)
			tt_ops->cleanup();
	}
	tt_readers_free();
}

static int __init trcutorture_init(void)
{
	char name[32];
	char buf[560];
	struct tt_config cfg = {
		.irqreader = irqreader, .nmireader = nmireader,
		.n_barrier_cbs = n_barrier_cbs, .fwd_progress = fwd_progress,
		.onoff_interval = onoff_interval, .onoff_holdoff = onoff_holdoff,
		.onoff_leaf = onoff_leaf, .onoff_cbs = onoff_cbs,
		.onoff_barrier = onoff_barrier,
		.test_no_idle_hz = test_no_idle_hz, .stutter = stutter,
		.stall_cpu = stall_cpu, .stall_cpu_holdoff = stall_cpu_holdoff,
		.duration = duration, .long_reads = long_reads,
	};
	int err, i;

	/* cfg holds the raw values: nothing starts unless they pass. */
	err = tt_check_params();
	if (err)
		return err;
	/* Before any stream is seeded: every kthread's derives from it. */
	tt_common_init(torture_type, tt_ops, seed, choice_log);
	tt_nreaders = nreaders == -1 ? max(1, (int)num_online_cpus() - 1) : nreaders;
	cfg.ops = tt_ops;
	cfg.nreaders = tt_nreaders;
	if (tt_ops->init) {
		err = tt_ops->init();
		if (err)
			return err;
	}
	for (i = 0; i < TT_NELEMS; i++)
		list_add_tail(&tt_pool[i].node, &tt_freelist);
	tt_gp_start = tt_ops->get_gp_count();
	tt_start_jiffies = jiffies;
	tt_params(buf, sizeof(buf));
	printk(KERN_ALERT "%s-torture:--- Start of test: %s\n", torture_type, buf);
	if (tt_ops->selftest)
		tt_out("deliberately broken flavour: this test must FAIL\n");

	err = tt_spawn(tt_writer, NULL, "tt_writer", -1);
	for (i = 0; !err && i < nfakewriters; i++) {
		snprintf(name, sizeof(name), "tt_fakewriter/%d", i);
		err = tt_spawn(tt_fakewriter, (void *)(uintptr_t)i, name, -1);
	}
	if (!err)
		err = tt_readers_start(&cfg);
	if (!err && stat_interval)
		err = tt_spawn(tt_stats, NULL, "tt_stats", -1);
	if (!err)
		err = tt_stress_start(&cfg);
	if (err)
		goto fail;
	if (duration) {
		tt_shutdown_task = kthread_run(tt_shutdown, NULL, "tt_shutdown");
		if (IS_ERR(tt_shutdown_task)) {
			err = PTR_ERR(tt_shutdown_task);
			tt_shutdown_task = NULL;
			goto fail;
		}
	}
	return 0;

fail:
	pr_err("init failed: %d\n", err);
	tt_cleanup();
	return err;
}

static void __exit trcutorture_exit(void)
{
	if (tt_shutdown_task)
		kthread_stop(tt_shutdown_task);
	tt_end_test();
	tt_cleanup();
}

module_init(trcutorture_init);
module_exit(trcutorture_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Torture test for trcu, RCU and SRCU");
