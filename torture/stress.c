// SPDX-License-Identifier: GPL-2.0
/*
 * trcutorture: optional stressors.  Each runs in its own kthread(s),
 * started by tt_stress_start() according to the parameters and stopped
 * with the others by main.c; tt_stress_stop() undoes what is left.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/delay.h>
#include <linux/slab.h>
#include <linux/cpu.h>
#include <linux/llist.h>
#include <linux/wait.h>
#include <linux/mutex.h>
#include <linux/completion.h>
#include <linux/workqueue.h>
#include <linux/ktime.h>
#include <linux/tick.h>
#include <linux/nmi.h>
#include <asm/apic.h>
#include <asm/nmi.h>

#include "torture.h"

/*
 * Flavour and parameters from main.c, copied by tt_stress_start().  Each
 * stressor below keeps its own state and counters, static in its section,
 * and prints them in its own *_line() or *_stats() function, which
 * tt_stress_line() and tt_stress_stats() call in turn.
 */
static struct tt_config tt_cfg;

/* ---- stutter: load for stutter s, pause for stutter s ------------------ */

static long tt_stutter_pauses;		/* pauses begun */

static int tt_stutter(void *arg)
{
	while (!tt_should_stop()) {
		tt_sleep(tt_cfg.stutter * HZ);
		if (tt_should_stop())
			break;
		WRITE_ONCE(tt_stutter_pauses, tt_stutter_pauses + 1);
		tt_stutter_set(true);
		tt_sleep(tt_cfg.stutter * HZ);
		tt_stutter_set(false);
	}
	tt_stutter_set(false);
	return 0;
}

static void tt_stutter_stats(void)
{
	if (tt_cfg.stutter)
		tt_out("stutter: %ld pauses of %d s, load %s\n",
		       READ_ONCE(tt_stutter_pauses), tt_cfg.stutter,
		       tt_stutter_paused() ? "paused" : "running");
}

/* ---- barrier test ------------------------------------------------------ */

/*
 * Each round, every worker posts one callback; once all are posted the
 * coordinator calls the flavour's barrier, after which every one of them
 * must have been invoked.  A callback still pending afterwards (rtbe) is
 * a barrier that returned too early.
 */
struct tt_bar_worker {
	struct rcu_head rh;
	unsigned long cb_gp;		/* tt_cb_snap() at posting */
	bool pending;			/* posted, not yet invoked */
	unsigned long round;		/* last round posted for */
};

static long tt_barrier_attempts, tt_barrier_successes, tt_barrier_errors;
static struct tt_bar_worker *tt_bar_workers;
static unsigned long tt_bar_round;
static atomic_t tt_bar_posting;		/* workers yet to post this round */
static atomic_t tt_bar_invoked;		/* callbacks invoked this round */
static DECLARE_WAIT_QUEUE_HEAD(tt_bar_go_wq);
static DECLARE_WAIT_QUEUE_HEAD(tt_bar_done_wq);

static void tt_bar_cb(struct rcu_head *rh)
{
	struct tt_bar_worker *w = container_of(rh, struct tt_bar_worker, rh);

	tt_cb_check(w->cb_gp);
	atomic_inc(&tt_bar_invoked);
	smp_store_release(&w->pending, false); /* pairs with the worker's acquire */
}

static int tt_bar_worker_fn(void *arg)
{
	struct tt_bar_worker *w = arg;

	while (!tt_should_stop()) {
		wait_event_interruptible(tt_bar_go_wq,
					 READ_ONCE(tt_bar_round) != w->round ||
					 tt_should_stop());
		if (tt_should_stop())
			break;
		w->round = READ_ONCE(tt_bar_round);
		/*
		 * A broken barrier may leave last round's callback pending:
		 * never post an rcu_head twice, that would corrupt the
		 * flavour's lists instead of being reported.
		 */
		while (smp_load_acquire(&w->pending) && !tt_should_stop())
			tt_sleep(1);
		if (tt_should_stop())
			break;
		WRITE_ONCE(w->pending, true);
		w->cb_gp = tt_cb_snap();
		tt_call(&w->rh, tt_bar_cb);
		if (atomic_dec_and_test(&tt_bar_posting))
			wake_up(&tt_bar_done_wq);
	}
	return 0;
}

static int tt_bar_coordinator(void *arg)
{
	int n;

	while (!tt_should_stop()) {
		tt_stutter_wait();
		atomic_set(&tt_bar_invoked, 0);
		atomic_set(&tt_bar_posting, tt_cfg.n_barrier_cbs);
		WRITE_ONCE(tt_bar_round, tt_bar_round + 1);
		wake_up(&tt_bar_go_wq);
		while (atomic_read(&tt_bar_posting) && !tt_should_stop())
			wait_event_interruptible_timeout(tt_bar_done_wq,
					!atomic_read(&tt_bar_posting) ||
					tt_should_stop(), HZ);
		if (tt_should_stop())
			break;
		WRITE_ONCE(tt_barrier_attempts, tt_barrier_attempts + 1);
		tt_cfg.ops->cb_barrier();
		n = atomic_read(&tt_bar_invoked);
		if (n != tt_cfg.n_barrier_cbs) {
			WRITE_ONCE(tt_barrier_errors, tt_barrier_errors + 1);
			tt_fail("barrier: only %d of %d callbacks invoked when barrier returned\n",
				n, tt_cfg.n_barrier_cbs);
		} else {
			WRITE_ONCE(tt_barrier_successes, tt_barrier_successes + 1);
		}
		tt_sleep(HZ / 10);
	}
	return 0;
}

/* The barrier test's field of the main statistics line: "barrier: S/A:E". */
static size_t tt_bar_line(char *buf, size_t len)
{
	return scnprintf(buf, len, "barrier: %ld/%ld:%ld",
			 READ_ONCE(tt_barrier_successes),
			 READ_ONCE(tt_barrier_attempts),
			 READ_ONCE(tt_barrier_errors));
}

/* Barrier errors so far: the main statistics line's rtbe, and a failure. */
long tt_stress_barrier_errors(void)
{
	return READ_ONCE(tt_barrier_errors);
}

/* ---- forward progress: a callback flood -------------------------------- */

/*
 * Set by the stall injection (tt_stall(), below) while it holds grace
 * periods up: a flood meanwhile is not judged by its grace periods.
 */
static bool tt_stalling;

#define TT_FWD_SECS		3	/* length of one flood */
#define TT_FWD_FIRST_SECS	5	/* before the first flood */
#define TT_FWD_GAP_SECS		20	/* between floods */
/*
 * A memory cap, not a verdict.  On an idle host a poster on an 8-vCPU
 * guest queues 0.6-0.9 million callbacks a second, and the kernel's own
 * RCU, given the same flood in the same scenario, held more than 500000
 * outstanding just as trcu did (2026-12-04): how many are outstanding
 * says how fast the poster is, not whether the engine keeps up.  So at
 * the cap the poster waits, busy in cond_resched() as a flood would be,
 * until half of them have been invoked.  At 32 bytes a callback the cap
 * is 3.2 MB.
 */
#define TT_FWD_CAP		100000
/*
 * What forward progress means here: the engine must bring the cap down
 * to half within this long (a healthy one needs a few grace periods;
 * one that invokes only a trickle, or stopped, does not), and no
 * callback may wait longer than this from posting to invocation (one
 * left behind while the others flow).  Ten seconds, like
 * TT_FWD_EXTRA_SECS, because a vCPU descheduled by a busy host for a few
 * seconds comes back with jiffies advanced and nothing done meanwhile.
 */
#define TT_FWD_MAX_SECS		10
#define TT_FWD_MIN_GPS		2	/* grace periods each flood must see */
/*
 * A flood that saw fewer than TT_FWD_MIN_GPS GPs goes on for up to this
 * long before failing: a guest vCPU descheduled by a busy host for a
 * few seconds comes back with jiffies past the flood's end and no GP in
 * between (seen once in a 300 s FWD on a loaded 2-core host: 152782
 * posted, 1 GP, the next stats line 71 GPs later).  GPs that really
 * stop still fail the flood long before the 21 s stall timeout.
 */
#define TT_FWD_EXTRA_SECS	10

struct tt_fwd_cb {
	struct rcu_head rh;
	unsigned long cb_gp;		/* tt_cb_snap() at posting */
	unsigned long posted;		/* jiffies at posting */
	struct llist_node node;
};

static LLIST_HEAD(tt_fwd_free);		/* invoked, ready for reuse */
static atomic_long_t tt_fwd_invoked;
static atomic_long_t tt_fwd_max_lat;	/* longest posting-to-invocation */

static void tt_fwd_cb_fn(struct rcu_head *rh)
{
	struct tt_fwd_cb *cb = container_of(rh, struct tt_fwd_cb, rh);
	long lat = jiffies - cb->posted;
	long old = atomic_long_read(&tt_fwd_max_lat);

	tt_cb_check(cb->cb_gp);
	/* Callbacks may run on several CPUs: a lock-free maximum. */
	while (lat > old && !atomic_long_try_cmpxchg(&tt_fwd_max_lat, &old, lat))
		;
	atomic_long_inc(&tt_fwd_invoked);
	llist_add(&cb->node, &tt_fwd_free);
}

static void tt_fwd_free_all(struct llist_node *list)
{
	struct tt_fwd_cb *cb, *n;

	llist_for_each_entry_safe(cb, n, list, node)
		kfree(cb);
}

/*
 * At the cap: wait, busy, until half of the outstanding callbacks have
 * been invoked.  Returns false if that took longer than TT_FWD_MAX_SECS;
 * *held accumulates the jiffies spent here.
 */
static bool tt_fwd_wait_drain(long posted, unsigned long *held)
{
	unsigned long start = jiffies;
	bool ok = true;
	long out;

	for (;;) {
		out = posted - atomic_long_read(&tt_fwd_invoked);
		if (out <= TT_FWD_CAP / 2 || tt_should_stop())
			break;
		if (time_after(jiffies, start + TT_FWD_MAX_SECS * HZ)) {
			tt_fail("fwd_progress: %ld callbacks still outstanding after %d s at the cap of %d\n",
				out, TT_FWD_MAX_SECS, TT_FWD_CAP);
			ok = false;
			break;
		}
		cond_resched();
	}
	*held += jiffies - start;
	return ok;
}

static void tt_fwd_flood(void)
{
	unsigned long gp0 = tt_cfg.ops->get_gp_count(), gps, secs, held = 0;
	unsigned long start = jiffies, end = start + TT_FWD_SECS * HZ;
	struct llist_node *mine = NULL;
	long posted = 0, peak = 0, out, lat;
	bool stalled = READ_ONCE(tt_stalling);
	struct tt_fwd_cb *cb;

	atomic_long_set(&tt_fwd_invoked, 0);
	atomic_long_set(&tt_fwd_max_lat, 0);
	while (!tt_should_stop()) {
		if (time_after_eq(jiffies, end) &&
		    (tt_cfg.ops->get_gp_count() - gp0 >= TT_FWD_MIN_GPS ||
		     time_after_eq(jiffies, end + TT_FWD_EXTRA_SECS * HZ)))
			break;
		out = posted - atomic_long_read(&tt_fwd_invoked);
		if (out > peak)
			peak = out;
		if (out >= TT_FWD_CAP) {
			stalled |= READ_ONCE(tt_stalling);
			/* After an injected stall, keep flooding regardless. */
			if (!tt_fwd_wait_drain(posted, &held) && !stalled)
				break;
			continue;
		}
		if (!mine)
			mine = llist_del_all(&tt_fwd_free);
		if (mine) {
			cb = llist_entry(mine, struct tt_fwd_cb, node);
			mine = mine->next;
		} else {
			cb = kmalloc(sizeof(*cb), GFP_KERNEL | __GFP_NOWARN);
			if (!cb) {
				tt_sleep(1);
				continue;
			}
		}
		cb->cb_gp = tt_cb_snap();
		cb->posted = jiffies;
		tt_call(&cb->rh, tt_fwd_cb_fn);
		posted++;
		if (!(posted & 0x3f))
			cond_resched();
		stalled |= READ_ONCE(tt_stalling);
	}
	gps = tt_cfg.ops->get_gp_count() - gp0;
	secs = (jiffies - start + HZ / 2) / HZ;
	tt_cfg.ops->cb_barrier();
	lat = atomic_long_read(&tt_fwd_max_lat);
	tt_out("fwd_progress: flood of %lu s: posted %ld invoked %ld peak outstanding %ld (cap %d, %u ms at it) gps +%lu, longest wait %u ms\n",
	       secs, posted, atomic_long_read(&tt_fwd_invoked), peak,
	       TT_FWD_CAP, jiffies_to_msecs(held), gps,
	       jiffies_to_msecs(lat));
	/* An injected stall legitimately holds grace periods up. */
	stalled |= READ_ONCE(tt_stalling);
	if (gps < TT_FWD_MIN_GPS && !stalled && !tt_should_stop())
		tt_fail("fwd_progress: grace periods not advancing: %lu in %lu s of flood\n",
			gps, secs);
	if (lat > TT_FWD_MAX_SECS * HZ && !stalled)
		tt_fail("fwd_progress: a callback waited %u ms to be invoked, limit %d s\n",
			jiffies_to_msecs(lat), TT_FWD_MAX_SECS);
	out = posted - atomic_long_read(&tt_fwd_invoked);
	if (out)
		tt_fail("fwd_progress: %ld callbacks not invoked after barrier\n", out);
	/* Keep memory in use only during a flood. */
	tt_fwd_free_all(mine);
	tt_fwd_free_all(llist_del_all(&tt_fwd_free));
}

static int tt_fwd(void *arg)
{
	tt_sleep(TT_FWD_FIRST_SECS * HZ);
	while (!tt_should_stop()) {
		tt_stutter_wait();
		if (tt_should_stop())
			break;
		tt_fwd_flood();
		tt_sleep(TT_FWD_GAP_SECS * HZ);
	}
	return 0;
}

/* ---- CPU hotplug ------------------------------------------------------- */

/*
 * onoff_cbs: callbacks posted on a CPU while it goes offline, so that at
 * its dead step it still has callbacks waiting for grace periods (not
 * only DONE ones) and the adopter must take them past its own DONE
 * segment.  Posting only once before remove_cpu() was not enough: the
 * offline path takes longer than a few grace periods, so every one of
 * those callbacks was DONE (or invoked) at the dead step (HOTPLUG-LEAF,
 * 12 offlines, debugfs adopt_not_done=0).  So tt_onoff_poster posts a
 * batch by IPI every jiffy until the CPU is offline; the last ones land
 * in the CPU's last moments (an IPI queued before the CPU is marked
 * offline runs on it while it dies).  Each frees itself; the accounting
 * in main.c checks that every one ran.
 */
struct tt_burst_cb {
	struct rcu_head rh;
	unsigned long cb_gp;		/* tt_cb_snap() at posting */
	struct tt_burst_cb *next;	/* chain handed to the IPI */
};

static long tt_online_attempts, tt_online_successes;
static long tt_offline_attempts, tt_offline_successes;
static long tt_burst_posted;		/* onoff_cbs callbacks posted */
static atomic_long_t tt_burst_outstanding; /* ... and not invoked yet */
static int tt_burst_cpu = -1;		/* CPU going offline, or -1 */
static DECLARE_WAIT_QUEUE_HEAD(tt_burst_wq);
static DEFINE_MUTEX(tt_burst_mutex);	/* held across one burst */
static long tt_obar_n, tt_obar_max_ms;	/* onoff_barrier: done, longest */

static void tt_burst_cb_fn(struct rcu_head *rh)
{
	struct tt_burst_cb *cb = container_of(rh, struct tt_burst_cb, rh);

	tt_cb_check(cb->cb_gp);
	kfree(cb);
	atomic_long_dec(&tt_burst_outstanding);
}

/* IPI handler on the CPU about to go offline: post the chain there. */
static void tt_burst_post(void *info)
{
	struct tt_burst_cb *cb = info, *next;

	for (; cb; cb = next) {
		next = cb->next;
		cb->cb_gp = tt_cb_snap();
		atomic_long_inc(&tt_burst_outstanding);
		tt_call(&cb->rh, tt_burst_cb_fn);
	}
}

static void tt_onoff_burst(int cpu)
{
	struct tt_burst_cb *chain = NULL, *cb;
	int i, n = 0;

	for (i = 0; i < tt_cfg.onoff_cbs; i++) {
		cb = kmalloc(sizeof(*cb), GFP_KERNEL);
		if (!cb)
			break;
		cb->next = chain;
		chain = cb;
		n++;
	}
	if (!chain)
		return;
	/* The caller holds no hotplug lock: the CPU may already be gone. */
	if (smp_call_function_single(cpu, tt_burst_post, chain, 1))
		tt_burst_post(chain);	/* post them here instead */
	WRITE_ONCE(tt_burst_posted, tt_burst_posted + n);
}

/* onoff_cbs: one batch a jiffy on the CPU tt_onoff_one() takes down. */
static int tt_onoff_poster(void *arg)
{
	int cpu;

	while (!tt_should_stop()) {
		wait_event_interruptible_timeout(tt_burst_wq,
						 READ_ONCE(tt_burst_cpu) >= 0 ||
						 tt_should_stop(), HZ);
		cpu = READ_ONCE(tt_burst_cpu);
		while (cpu >= 0 && READ_ONCE(tt_burst_cpu) == cpu &&
		       cpu_online(cpu) && !tt_should_stop()) {
			mutex_lock(&tt_burst_mutex);
			tt_onoff_burst(cpu);
			mutex_unlock(&tt_burst_mutex);
			schedule_timeout_uninterruptible(1);
		}
	}
	return 0;
}

/*
 * onoff_barrier: right after @cpu went offline, and while it stays so,
 * the flavour's barrier must return and every onoff_cbs callback posted
 * before it (most of them on @cpu, in its last moments) must have run.
 * A barrier that skips a CPU whose callbacks were not adopted returns
 * early (callbacks left); one that waits for a dead CPU's list, which
 * nobody invokes until the CPU comes back, never returns while this
 * kthread keeps the CPU down.  So the barrier runs in a work item and
 * this kthread waits TT_OBAR_SECS for it, then reports the hang and
 * brings the CPU back so that the run can end.
 */
#define TT_OBAR_SECS	10

struct tt_obar {
	struct work_struct work;
	struct completion done;
};

static void tt_obar_fn(struct work_struct *work)
{
	struct tt_obar *b = container_of(work, struct tt_obar, work);

	tt_cfg.ops->cb_barrier();
	complete(&b->done);
}

static void tt_onoff_barrier(int cpu)
{
	struct tt_obar b;
	unsigned long t = jiffies;
	long left, ms;

	/* No burst half posted: each one counted is queued. */
	mutex_lock(&tt_burst_mutex);
	mutex_unlock(&tt_burst_mutex);
	INIT_WORK_ONSTACK(&b.work, tt_obar_fn);
	init_completion(&b.done);
	queue_work(system_unbound_wq, &b.work);
	if (!wait_for_completion_timeout(&b.done, TT_OBAR_SECS * HZ)) {
		tt_fail("onoff_barrier: barrier not done %d s after CPU %d went offline\n",
			TT_OBAR_SECS, cpu);
		if (add_cpu(cpu))
			tt_out("onoff: onlining CPU %d failed\n", cpu);
		wait_for_completion(&b.done);
	}
	destroy_work_on_stack(&b.work);
	ms = jiffies_to_msecs(jiffies - t);
	left = atomic_long_read(&tt_burst_outstanding);
	if (left)
		tt_fail("onoff_barrier: %ld callbacks posted on CPUs going offline not invoked when the barrier returned (CPU %d offline)\n",
			left, cpu);
	WRITE_ONCE(tt_obar_n, tt_obar_n + 1);
	if (ms > tt_obar_max_ms)
		WRITE_ONCE(tt_obar_max_ms, ms);
}

/*
 * Toggle CPU @cpu, never CPU 0 (which always stays online, so the last
 * online CPU is never offlined).  Only legal operations are counted as
 * attempts, so attempts and successes should match.
 */
static void tt_onoff_one(int cpu)
{
	int ret;

	if (cpu_online(cpu)) {
		if (num_online_cpus() <= 1)
			return;
		if (tt_cfg.onoff_cbs) {
			WRITE_ONCE(tt_burst_cpu, cpu);
			wake_up(&tt_burst_wq);
		}
		WRITE_ONCE(tt_offline_attempts, tt_offline_attempts + 1);
		ret = remove_cpu(cpu);
		WRITE_ONCE(tt_burst_cpu, -1);
		if (!ret)
			WRITE_ONCE(tt_offline_successes, tt_offline_successes + 1);
		if (!ret && tt_cfg.onoff_barrier)
			tt_onoff_barrier(cpu);
		else if (ret)
			tt_out("onoff: offlining CPU %d failed: %d\n", cpu, ret);
	} else {
		WRITE_ONCE(tt_online_attempts, tt_online_attempts + 1);
		ret = add_cpu(cpu);
		if (!ret)
			WRITE_ONCE(tt_online_successes, tt_online_successes + 1);
		else
			tt_out("onoff: onlining CPU %d failed: %d\n", cpu, ret);
	}
}

static bool tt_onoff_ok(int cpu)
{
	return cpu > 0 && cpu < nr_cpu_ids && cpu_possible(cpu) &&
	       cpu_present(cpu) && cpu_is_hotpluggable(cpu);
}

/*
 * onoff_leaf=N: the next CPU to toggle when trcu's leaves hold N CPUs
 * each (CPUs lN..lN+N-1 in leaf l).  Leaf after leaf, except CPU 0's:
 * offline every CPU of the leaf, one per interval, so that the leaf
 * empties and its bit leaves its parent (and, at fanout 2, the parent's
 * its grandparent's), then online them again so it refills.
 */
static int tt_onoff_leaf_next(int *leaf, int *step)
{
	int nleaves = DIV_ROUND_UP(nr_cpu_ids, tt_cfg.onoff_leaf);
	int cpu;

	if (nleaves < 2)
		return -1;
	if (*step >= 2 * tt_cfg.onoff_leaf) {
		*step = 0;
		*leaf = *leaf + 1 < nleaves ? *leaf + 1 : 1;
	}
	/* Steps 0..N-1 take the leaf's CPUs down, N..2N-1 bring them up. */
	cpu = *leaf * tt_cfg.onoff_leaf + *step % tt_cfg.onoff_leaf;
	if ((*step < tt_cfg.onoff_leaf) != !!cpu_online(cpu))
		cpu = -1;	/* already in the wanted state: skip */
	(*step)++;
	return cpu;
}

static int tt_onoff(void *arg)
{
	struct tt_rnd rnd;
	int cpu, leaf = 1, step = 0;

	tt_rnd_init(&rnd, TT_RND_ONOFF);
	tt_sleep(tt_cfg.onoff_holdoff * HZ);
	while (!tt_should_stop()) {
		tt_sleep(max(1UL, msecs_to_jiffies(tt_cfg.onoff_interval)));
		if (tt_should_stop() || nr_cpu_ids < 2)
			break;
		if (tt_cfg.onoff_leaf)
			cpu = tt_onoff_leaf_next(&leaf, &step);
		else
			cpu = 1 + tt_rand(&rnd) % (nr_cpu_ids - 1);
		if (tt_onoff_ok(cpu))
			tt_onoff_one(cpu);
	}
	/* Leave the machine as we found it: everything online. */
	for_each_present_cpu(cpu)
		if (cpu && !cpu_online(cpu) && cpu_is_hotpluggable(cpu))
			tt_onoff_one(cpu);
	return 0;
}

/* Hotplug's field of the main statistics line: "onoff: a/b:c/d". */
static size_t tt_onoff_line(char *buf, size_t len)
{
	return scnprintf(buf, len, "onoff: %ld/%ld:%ld/%ld",
			 READ_ONCE(tt_online_successes),
			 READ_ONCE(tt_online_attempts),
			 READ_ONCE(tt_offline_successes),
			 READ_ONCE(tt_offline_attempts));
}

static void tt_onoff_stats(void)
{
	if (tt_cfg.onoff_interval)
		tt_out("hotplug: online %ld/%ld offline %ld/%ld, %ld callbacks posted on CPUs going offline (onoff_leaf=%d)\n",
		       READ_ONCE(tt_online_successes),
		       READ_ONCE(tt_online_attempts),
		       READ_ONCE(tt_offline_successes),
		       READ_ONCE(tt_offline_attempts),
		       READ_ONCE(tt_burst_posted), tt_cfg.onoff_leaf);
	if (tt_cfg.onoff_barrier)
		tt_out("hotplug: %ld barriers with the CPU just offlined still offline, longest %ld ms\n",
		       READ_ONCE(tt_obar_n), READ_ONCE(tt_obar_max_ms));
}

/* ---- stall injection --------------------------------------------------- */

/*
 * Spin on one CPU inside a read-side critical section with preemption
 * disabled, so it can report no quiescent state, for stall_cpu seconds:
 * the flavour's stall detector should report it.  Hotplug is held off
 * meanwhile so the CPU cannot vanish under us, and the soft-lockup
 * watchdog is kept quiet (stall_cpu is capped below the kernel's own RCU
 * stall timeout).
 */
static int tt_stall(void *arg)
{
	unsigned long stop_at;
	int cpu, idx;

	tt_sleep(tt_cfg.stall_cpu_holdoff * HZ);
	if (tt_should_stop())
		return 0;
	cpus_read_lock();
	cpu = cpumask_last(cpu_online_mask);
	set_cpus_allowed_ptr(current, cpumask_of(cpu));
	tt_out("stall_cpu: stalling CPU %d for %d s\n", cpu, tt_cfg.stall_cpu);
	WRITE_ONCE(tt_stalling, true);
	idx = tt_cfg.ops->readlock();
	preempt_disable();
	stop_at = jiffies + tt_cfg.stall_cpu * HZ;
	while (time_before(jiffies, stop_at)) {
		touch_softlockup_watchdog();
		cpu_relax();
	}
	preempt_enable();
	tt_cfg.ops->readunlock(idx);
	WRITE_ONCE(tt_stalling, false);
	cpus_read_unlock();
	tt_out("stall_cpu: CPU %d released\n", cpu);
	return 0;
}

/* ---- NMI readers -------------------------------------------------------- */

/*
 * Every few ticks, pick another online CPU, preferably one that is idle
 * (its nohz idle time kept growing over the last two ticks: idle_cpu() is
 * not exported), and send it an NMI IPI.  The NMI runs a read-side
 * critical section of a few hundred microseconds to a few milliseconds.
 * On an idle CPU that is the case trcu cannot hook (NMI entry is
 * noinstr): the reader must mark the CPU busy itself.
 */
static DEFINE_PER_CPU(int, tt_nmi_pending);	/* an NMI from us is due */
static DEFINE_PER_CPU(struct tt_rnd, tt_nmi_rnd);
static atomic_long_t tt_nmi_sent, tt_nmi_handled, tt_nmi_idle;
static bool tt_nmi_registered;

static int tt_nmi_handler(unsigned int reason, struct pt_regs *regs)
{
	if (!this_cpu_read(tt_nmi_pending))
		return NMI_DONE;
	this_cpu_write(tt_nmi_pending, 0);
	atomic_long_inc(&tt_nmi_handled);
	if (is_idle_task(current))
		atomic_long_inc(&tt_nmi_idle);
	tt_read_one(this_cpu_ptr(&tt_nmi_rnd), TT_CTX_NMI);
	return NMI_HANDLED;
}

static int tt_nmi_pick(struct tt_rnd *rnd, u64 *idle0, ktime_t t0)
{
	s64 elapsed = ktime_us_delta(ktime_get(), t0);
	int cpu, self = raw_smp_processor_id(), n = 0, nidle = 0, pick;
	u64 idle;

	for_each_online_cpu(cpu) {
		if (cpu == self)
			continue;
		n++;
		idle = get_cpu_idle_time_us(cpu, NULL);
		if (idle != (u64)-1 && idle0[cpu] != (u64)-1 &&
		    idle - idle0[cpu] >= elapsed * 9 / 10)
			nidle++;
	}
	if (!n)
		return -1;
	pick = tt_rand(rnd) % (nidle ? nidle : n);
	for_each_online_cpu(cpu) {
		if (cpu == self)
			continue;
		idle = get_cpu_idle_time_us(cpu, NULL);
		if (nidle && (idle == (u64)-1 || idle0[cpu] == (u64)-1 ||
			      idle - idle0[cpu] < elapsed * 9 / 10))
			continue;
		if (!pick--)
			return cpu;
	}
	return -1;
}

static int tt_nmi_sender(void *arg)
{
	struct tt_rnd rnd;
	ktime_t t0;
	u64 *idle0;
	int cpu;

	idle0 = kcalloc(nr_cpu_ids, sizeof(*idle0), GFP_KERNEL);
	if (!idle0)
		return -ENOMEM;
	tt_rnd_init(&rnd, TT_RND_NMI);
	while (!tt_should_stop()) {
		tt_stutter_wait();
		cpus_read_lock();
		for_each_online_cpu(cpu)
			idle0[cpu] = get_cpu_idle_time_us(cpu, NULL);
		t0 = ktime_get();
		cpus_read_unlock();
		tt_sleep(2 + tt_rand(&rnd) % 4);
		cpus_read_lock();
		/* Stay on this CPU: the target must be another one. */
		migrate_disable();
		cpu = tt_nmi_pick(&rnd, idle0, t0);
		if (cpu >= 0 && !per_cpu(tt_nmi_pending, cpu)) {
			per_cpu(tt_nmi_pending, cpu) = 1;
			/* Flag visible before the NMI lands: pairs with the handler. */
			smp_mb();
			apic->send_IPI(cpu, NMI_VECTOR);
			atomic_long_inc(&tt_nmi_sent);
		}
		migrate_enable();
		cpus_read_unlock();
		for_each_possible_cpu(cpu)
			idle0[cpu] = (u64)-1;
	}
	kfree(idle0);
	return 0;
}

static void tt_nmi_stats(void)
{
	if (tt_cfg.nmireader)
		tt_out("nmi: sent %ld handled %ld in-idle %ld\n",
		       atomic_long_read(&tt_nmi_sent),
		       atomic_long_read(&tt_nmi_handled),
		       atomic_long_read(&tt_nmi_idle));
}

/* ---- start / stop / stats --------------------------------------------- */

int tt_stress_start(const struct tt_config *cfg)
{
	char name[32];
	int err = 0, cpu, i;

	tt_cfg = *cfg;

	if (tt_cfg.stutter)
		err = tt_spawn(tt_stutter, NULL, "tt_stutter", -1);
	if (!err && tt_cfg.n_barrier_cbs) {
		tt_bar_workers = kcalloc(tt_cfg.n_barrier_cbs, sizeof(*tt_bar_workers),
					 GFP_KERNEL);
		if (!tt_bar_workers)
			return -ENOMEM;
		for (i = 0; !err && i < tt_cfg.n_barrier_cbs; i++) {
			snprintf(name, sizeof(name), "tt_barrier/%d", i);
			err = tt_spawn(tt_bar_worker_fn, &tt_bar_workers[i], name, -1);
		}
		if (!err)
			err = tt_spawn(tt_bar_coordinator, NULL, "tt_barrier", -1);
	}
	if (!err && tt_cfg.fwd_progress)
		err = tt_spawn(tt_fwd, NULL, "tt_fwd_prog", -1);
	if (!err && tt_cfg.onoff_interval && tt_cfg.onoff_cbs)
		err = tt_spawn(tt_onoff_poster, NULL, "tt_onoff_cbs", -1);
	if (!err && tt_cfg.onoff_interval)
		err = tt_spawn(tt_onoff, NULL, "tt_onoff", -1);
	if (!err && tt_cfg.stall_cpu)
		err = tt_spawn(tt_stall, NULL, "tt_stall", -1);
	if (!err && tt_cfg.nmireader) {
		for_each_possible_cpu(cpu)
			tt_rnd_init(per_cpu_ptr(&tt_nmi_rnd, cpu),
				    TT_RND_NMI_CPU + cpu);
		err = register_nmi_handler(NMI_LOCAL, tt_nmi_handler, 0,
					   "trcutorture");
		if (err) {
			pr_err("register_nmi_handler failed: %d\n", err);
			return err;
		}
		tt_nmi_registered = true;
		err = tt_spawn(tt_nmi_sender, NULL, "tt_nmi", -1);
	}
	return err;
}

/* Called after all kthreads have been stopped. */
void tt_stress_stop(void)
{
	if (tt_nmi_registered) {
		/* Waits for handlers in flight (synchronize_rcu() inside). */
		unregister_nmi_handler(NMI_LOCAL, "trcutorture");
		tt_nmi_registered = false;
	}
	if (tt_bar_workers) {
		tt_cfg.ops->cb_barrier();
		kfree(tt_bar_workers);
		tt_bar_workers = NULL;
	}
	tt_stutter_set(false);
}

/*
 * The barrier and hotplug fields of the main statistics line, in the
 * format scripts/verdict.py parses: "barrier: S/A:E onoff: a/b:c/d".
 */
void tt_stress_line(char *buf, size_t len)
{
	size_t off = tt_bar_line(buf, len);

	off += scnprintf(buf + off, len - off, " ");
	tt_onoff_line(buf + off, len - off);
}

/* The stressors' lines of a statistics block. */
void tt_stress_stats(void)
{
	tt_stutter_stats();
	tt_onoff_stats();
	tt_nmi_stats();
}
