// SPDX-License-Identifier: GPL-2.0
/*
 * What every part of trcutorture uses: its output lines and error count,
 * the stop flag, sleeping, its kthreads, the random streams, callbacks
 * posted and checked through the flavour, the element readers find and
 * the stutter pause.  main.c, readers.c and stress.c call down into this
 * file and it calls none of them, so torture/ has no cycle
 * (scripts/objgraph-check.sh).  main.c sets it up once, with
 * tt_common_init(), before any kthread starts; the state here is then
 * only changed through the functions below.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/random.h>
#include <linux/prandom.h>
#include <linux/hardirq.h>
#include <linux/rcupdate.h>

#include "torture.h"

static const char *tt_type;		/* torture_type, for every line */
static const struct trcu_torture_ops *tt_ops;
static u64 tt_seed;			/* seed=, or the one picked at load */
static int tt_choice_log;		/* choice_log= */
static atomic_t tt_nerrors;		/* checks that failed (each also printed) */
static bool tt_ending;			/* end of test in progress */
static bool tt_stutter;			/* load currently paused */
static struct tt_elem __rcu *tt_current;	/* what readers find */
static atomic_t tt_nearly;		/* callbacks run before their GP end */
/*
 * Every callback the torture posts goes through tt_call() and every one
 * of them calls tt_cb_check() once when invoked: after the final barrier
 * the two counts must match, or the flavour lost callbacks (e.g. a dead
 * CPU's list cut off when it was adopted).
 */
static atomic_long_t tt_cbs_posted, tt_cbs_invoked;

/* kthreads, stopped in creation order */
#define TT_MAX_THREADS	512
static struct task_struct *tt_threads[TT_MAX_THREADS];
static int tt_nthreads;

/*
 * The run's name, flavour, seed (0: pick one, never 0) and choice_log.
 * Caller: module init, before any kthread or callback.
 */
void tt_common_init(const char *type, const struct trcu_torture_ops *ops,
		    u64 seed, int choice_log)
{
	tt_type = type;
	tt_ops = ops;
	tt_choice_log = choice_log;
	tt_seed = seed;
	while (!tt_seed)
		tt_seed = get_random_u64();
}

/* The seed every stream derives from (the Start line prints it). */
u64 tt_run_seed(void)
{
	return tt_seed;
}

void tt_out(const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	printk(KERN_ALERT "%s-torture: %pV", tt_type, &vaf);
	va_end(args);
}

void tt_fail(const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	atomic_inc(&tt_nerrors);
	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	printk(KERN_ALERT "%s-torture: !!! %pV", tt_type, &vaf);
	va_end(args);
}

/*
 * The element readers find, for a caller inside a read-side critical
 * section of tt_ops (which rcu_dereference() cannot check for trcu).
 */
struct tt_elem *tt_elem_current(void)
{
	return rcu_dereference_raw(tt_current);
}

bool tt_should_stop(void)
{
	return kthread_should_stop() || READ_ONCE(tt_ending);
}

/* Sleep, but wake early when told to stop. */
void tt_sleep(unsigned long j)
{
	if (!tt_should_stop())
		schedule_timeout_interruptible(j);
}

/*
 * A callback's snapshot when it is posted: the flavour's polled-GP cookie
 * where it has one (exact: names the GP the callback must wait for, or
 * an earlier one), else the completed-GP count.
 */
unsigned long tt_cb_snap(void)
{
	if (tt_ops->get_state && tt_ops->poll_state)
		return tt_ops->get_state();
	return tt_ops->get_gp_count();
}

/*
 * A callback invoked while the completed-GP count has not moved since it
 * was posted ran before its grace period ended (e.g. a dead CPU's
 * callbacks run at once).  Exact only where the flavour says so.
 * Every torture callback calls this exactly once: it also counts it as
 * invoked (tt_check_cb_accounting()).
 */
void tt_cb_check(unsigned long snap)
{
	atomic_long_inc(&tt_cbs_invoked);
	if (tt_ops->get_state && tt_ops->poll_state) {
		/*
		 * The cookie was taken before the call, so the callback's
		 * own GP is this one or later: it must have completed.
		 * Catches callbacks posted mid-GP and run after that GP but
		 * before their own, which the count check below cannot.
		 */
		if (!tt_ops->poll_state(snap))
			atomic_inc(&tt_nearly);
		return;
	}
	if (tt_ops->gp_count_strict &&
	    (long)(tt_ops->get_gp_count() - snap) <= 0)
		atomic_inc(&tt_nearly);
}

/* Post a callback through the flavour, counted (see tt_cbs_posted). */
void tt_call(struct rcu_head *head, rcu_callback_t func)
{
	atomic_long_inc(&tt_cbs_posted);
	tt_ops->call(head, func);
}

int tt_spawn(int (*fn)(void *), void *arg, const char *name, int cpu)
{
	struct task_struct *t;

	if (tt_nthreads >= TT_MAX_THREADS)
		return -ENOSPC;
	t = kthread_create(fn, arg, "%s", name);
	if (IS_ERR(t)) {
		pr_err("cannot create kthread %s: %ld\n", name, PTR_ERR(t));
		return PTR_ERR(t);
	}
	if (cpu >= 0)
		kthread_bind(t, cpu);
	/* Threads may return on their own: keep the task for kthread_stop(). */
	get_task_struct(t);
	tt_threads[tt_nthreads++] = t;
	wake_up_process(t);
	return 0;
}

void tt_stop_threads(void)
{
	int i;

	for (i = 0; i < tt_nthreads; i++) {
		kthread_stop(tt_threads[i]);
		put_task_struct(tt_threads[i]);
	}
	tt_nthreads = 0;
}

/* Stream @id of this run's random choices (torture.h). */
void tt_rnd_init(struct tt_rnd *r, u32 id)
{
	u64 s = tt_seed ^ ((u64)id * 0x9e3779b97f4a7c15ULL);

	/* prandom_seed_state() keeps 32 bits of its seed: fold them in. */
	s ^= s >> 31;
	prandom_seed_state(&r->state, s);
	r->id = id;
	r->logged = 0;
	r->hash = 2166136261U;
}

u32 tt_rand(struct tt_rnd *r)
{
	u32 v = prandom_u32_state(&r->state);

	if (r->logged < tt_choice_log) {
		r->hash = (r->hash ^ v) * 16777619U;
		if (++r->logged == tt_choice_log && !in_nmi())
			tt_out("choices: stream %#x first %d values hash %08x\n",
			       r->id, tt_choice_log, r->hash);
	}
	return v;
}

/* A check failed that printed its own line without tt_fail(). */
void tt_count_error(void)
{
	atomic_inc(&tt_nerrors);
}

/* Failed checks so far: the End line says FAILURE if any. */
int tt_errors(void)
{
	return atomic_read(&tt_nerrors);
}

/* Callbacks run before their grace period ended (tt_cb_check()). */
int tt_early_cbs(void)
{
	return atomic_read(&tt_nearly);
}

/* Callbacks posted by tt_call() and invoked (tt_cb_check()) so far. */
void tt_cbs_counts(long *posted, long *invoked)
{
	*posted = atomic_long_read(&tt_cbs_posted);
	*invoked = atomic_long_read(&tt_cbs_invoked);
}

/* End of test: every loop's tt_should_stop() turns true. */
void tt_set_ending(void)
{
	WRITE_ONCE(tt_ending, true);
}

/*
 * The writer publishes @p as the element readers find and gets the one
 * it replaces.  Caller: the writer kthread, the only updater.
 */
struct tt_elem *tt_elem_replace(struct tt_elem *p)
{
	struct tt_elem *old = rcu_dereference_protected(tt_current, true);

	rcu_assign_pointer(tt_current, p);
	return old;
}

void tt_hist_line(char *buf, size_t len, const char *what, long *h,
		  bool bad)
{
	size_t off;
	int i;

	off = scnprintf(buf, len, "%s%s: ", bad ? "!!! " : "", what);
	for (i = 0; i <= TT_PIPE_LEN; i++)
		off += scnprintf(buf + off, len - off, " %ld", h[i]);
	tt_out("%s\n", buf);
}

/* The stutter kthread (stress.c) pauses and resumes the load. */
void tt_stutter_set(bool paused)
{
	WRITE_ONCE(tt_stutter, paused);
}

bool tt_stutter_paused(void)
{
	return READ_ONCE(tt_stutter);
}

/* Every load kthread calls this: while the load is paused, wait here. */
void tt_stutter_wait(void)
{
	while (READ_ONCE(tt_stutter) && !tt_should_stop())
		schedule_timeout_interruptible(HZ / 20 ? HZ / 20 : 1);
}
