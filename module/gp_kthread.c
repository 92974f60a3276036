// SPDX-License-Identifier: GPL-2.0
/*
 * Where trcu's grace-period kthreads run, and what happens when they
 * cannot run.  The rules, as the kernel's own RCU keeps them:
 *
 *  - A GP kthread is a normal (SCHED_OTHER) task unless the kthread_prio
 *    parameter asks for SCHED_FIFO at that priority.  A real-time GP
 *    kthread is no cure for starvation: RT throttling stops the whole RT
 *    class on a CPU, and a task of equal or higher priority holds it off
 *    as well.
 *  - Its affinity is the one it was created with (kthreadd's: the
 *    kernel's housekeeping CPUs under isolcpus= or nohz_full=), or what an
 *    administrator set since.  trcu never widens it and never binds the
 *    kthread to a CPU of its own choosing: a kthread bound to one CPU
 *    stops every grace period while anything holds that CPU.
 *  - Any CPU's tick watches it (trcu_gpk_check()).  A kthread that was
 *    wanted (a GP requested, or one running, whose scans it must do) and
 *    has not run for TRCU_GPK_STARVED is starved: a work item on an
 *    unbound workqueue asks the CPU it sits on what runs there, says so,
 *    and narrows its affinity by that one CPU, so that the scheduler
 *    moves it to another CPU at once (a queued task is moved without
 *    having to run first).  When it has run again and TRCU_GPK_HOLD has
 *    passed, the kthread itself puts back the affinity it had, unless an
 *    administrator changed it meanwhile.  Still not running after
 *    stall_timeout (a mask with nowhere else to go), the work reports a
 *    stall: a GP that was requested and never started is reported too,
 *    which the stall checks of stall.c, which look only at running GPs,
 *    cannot do.
 *
 * This file knows the GP kthread only as a task and a few fields of
 * trcu_state: the grace-period loop itself is tree.c's.
 */
#define pr_fmt(fmt) "trcu: " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/sched/types.h>
#include <uapi/linux/sched/types.h>
#include <linux/cpumask.h>
#include <linux/workqueue.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/kprobes.h>
#include <linux/smp.h>
#include <linux/string.h>

#include <trcu.h>
#include "tree.h"

/*
 * Not run for this long while wanted: starved.  Long against the
 * kthread's own period while a GP runs (a wakeup every
 * jiffies_till_force_qs), short against a stall timeout, so that a GP
 * held up by one CPU is moved along well inside a second.
 */
static unsigned long trcu_gpk_starved_jiffies(void)
{
	return max_t(unsigned long, HZ / 5, 8UL * trcu_jiffies_till_force_qs);
}

/* A narrowed affinity is kept this long before the old one comes back. */
#define TRCU_GPK_HOLD		(10 * HZ)

/* How long the work waits for the starved CPU to say what it runs. */
#define TRCU_GPK_ASK_MS		20

/* ->gpk_state: how far the current starvation episode was reported. */
#define TRCU_GPK_OK		0
#define TRCU_GPK_MOVING		1	/* starved: work queued to move it */
#define TRCU_GPK_STALLED	2	/* and still not running: a stall */

/*
 * Since when the kthread has been wanted without running, or 0 when it
 * is not wanted: the last time it ran, or the GP request that came in
 * after that.  Lockless, from any CPU's tick.
 */
static unsigned long trcu_gpk_wanted_since(struct trcu_state *rsp)
{
	unsigned long act = READ_ONCE(rsp->gp_activity);
	unsigned long req = READ_ONCE(rsp->gp_req_jiffies);
	long gpnum = READ_ONCE(rsp->gpnum);

	if (gpnum != READ_ONCE(rsp->completed))
		return act;
	if (READ_ONCE(rsp->gp_needed) <= gpnum)
		return 0;
	return time_after(req, act) ? req : act;
}

/*
 * From every CPU's tick, both flavours: is @rsp's GP kthread starved?
 * Queues the work at most once per stage of an episode (the kthread
 * ends it, trcu_gpk_ran()).  Caller: tick probe, irqs off.
 */
notrace void trcu_gpk_check(struct trcu_state *rsp)
{
	unsigned long since, j = jiffies;
	int state = READ_ONCE(rsp->gpk_state);

	if (!READ_ONCE(rsp->gpk_watch))
		return;
	since = trcu_gpk_wanted_since(rsp);
	if (!since)
		return;
	if (state == TRCU_GPK_OK &&
	    time_after_eq(j, since + trcu_gpk_starved_jiffies())) {
		if (cmpxchg(&rsp->gpk_state, state, TRCU_GPK_MOVING) != state)
			return;
	} else if (state == TRCU_GPK_MOVING && trcu_stall_timeout &&
		   time_after_eq(j, since +
				 (unsigned long)trcu_stall_timeout * HZ)) {
		if (cmpxchg(&rsp->gpk_state, state, TRCU_GPK_STALLED) != state)
			return;
	} else {
		return;
	}
	WRITE_ONCE(rsp->gpk_since, since);
	queue_work(system_unbound_wq, &rsp->gpk_work);
}
NOKPROBE_SYMBOL(trcu_gpk_check);

/* IPI on the starved kthread's CPU: what runs here? */
static void trcu_gpk_ask(void *info)
{
	struct trcu_state *rsp = info;

	rsp->gpk_holder_pid = task_pid_nr(current);
	strscpy(rsp->gpk_holder, current->comm, sizeof(rsp->gpk_holder));
	/* publish the name: pairs with the acquire in trcu_gpk_name_holder() */
	smp_store_release(&rsp->gpk_answered, true);
}

/*
 * Ask @cpu what it runs, without ever spinning on it: the csd is used
 * once per episode, and a CPU with irqs off that does not answer within
 * TRCU_GPK_ASK_MS is named as such.  A csd still in flight from an
 * earlier episode is left alone.  Caller: the work, may sleep.
 */
static void trcu_gpk_name_holder(struct trcu_state *rsp, int cpu)
{
	int i;

	strscpy(rsp->gpk_holder, "(no answer: irqs off?)",
		sizeof(rsp->gpk_holder));
	rsp->gpk_holder_pid = -1;
	WRITE_ONCE(rsp->gpk_answered, false);
	if (smp_call_function_single_async(cpu, &rsp->gpk_csd))
		return;
	for (i = 0; i < TRCU_GPK_ASK_MS; i++) {
		/* pairs with trcu_gpk_ask()'s release: the name is complete */
		if (smp_load_acquire(&rsp->gpk_answered))
			return;
		msleep(1);
	}
}

/* Does @mask hold an online CPU other than @cpu? */
static bool trcu_gpk_other_cpu(const struct cpumask *mask, int cpu)
{
	int c;

	for_each_online_cpu(c)
		if (c != cpu && cpumask_test_cpu(c, mask))
			return true;
	return false;
}

/*
 * The starvation work: name the CPU and the task holding the kthread,
 * then move it off that CPU (TRCU_GPK_MOVING), or report the stall
 * (TRCU_GPK_STALLED).  Process context on an unbound worker.
 */
static void trcu_gpk_work(struct work_struct *work)
{
	struct trcu_state *rsp = container_of(work, struct trcu_state,
					      gpk_work);
	struct task_struct *t = rsp->gp_kthread;
	unsigned long since = READ_ONCE(rsp->gpk_since);
	int state = READ_ONCE(rsp->gpk_state);
	long gpnum = READ_ONCE(rsp->gpnum);
	bool started = gpnum != READ_ONCE(rsp->completed);
	int cpu;

	if (!t || state == TRCU_GPK_OK)
		return;		/* it ran meanwhile */
	mutex_lock(&rsp->gpk_mutex);
	cpu = task_cpu(t);
	trcu_gpk_name_holder(rsp, cpu);
	if (state == TRCU_GPK_STALLED) {
		pr_err("INFO: %s detected stall of its GP kthread: %s %ld, kthread not run for %lu jiffies, on CPU %d held by %s[%d]\n",
		       rsp->name, started ? "GP running" : "GP requested and not started",
		       started ? gpnum : gpnum + 1, jiffies - since, cpu,
		       rsp->gpk_holder, rsp->gpk_holder_pid);
		goto out;
	}
	rsp->n_gpk_starved++;
	/*
	 * Narrow from the affinity the kthread was given, not from the one
	 * an earlier move left: a kthread starved on one CPU after another
	 * would otherwise lose a CPU per episode until none is left.  If
	 * its mask is no longer the one this file set (an administrator's
	 * taskset, or the scheduler's fallback when hotplug emptied it),
	 * that mask is the new baseline.
	 */
	if (!rsp->gpk_moved || !cpumask_equal(&t->cpus_mask, rsp->gpk_mask))
		cpumask_copy(rsp->gpk_saved, &t->cpus_mask);
	if (!trcu_gpk_other_cpu(rsp->gpk_saved, cpu)) {
		pr_warn("%s GP kthread starved %lu jiffies on CPU %d by %s[%d]; its affinity leaves it nowhere else to go\n",
			rsp->name, jiffies - since, cpu, rsp->gpk_holder,
			rsp->gpk_holder_pid);
		goto out;
	}
	cpumask_andnot(rsp->gpk_mask, rsp->gpk_saved, cpumask_of(cpu));
	if (set_cpus_allowed_ptr(t, rsp->gpk_mask)) {
		/* hotplug raced: keep gpk_mask the mask this file last set */
		cpumask_copy(rsp->gpk_mask, &t->cpus_mask);
		goto out;
	}
	rsp->gpk_moved = true;
	rsp->gpk_moved_at = jiffies;
	rsp->n_gpk_moved++;
	pr_info("%s GP kthread starved %lu jiffies on CPU %d by %s[%d]: moved off it for %d s\n",
		rsp->name, jiffies - since, cpu, rsp->gpk_holder,
		rsp->gpk_holder_pid, TRCU_GPK_HOLD / HZ);
out:
	mutex_unlock(&rsp->gpk_mutex);
}

/*
 * The GP kthread ran: end a starvation episode, and once the hold time
 * has passed give back the affinity it had before it was moved -- unless
 * somebody else changed it since.  Caller: the GP kthread, no locks.
 */
void trcu_gpk_ran(struct trcu_state *rsp)
{
	WRITE_ONCE(rsp->gp_activity, jiffies);
	if (READ_ONCE(rsp->gpk_state) != TRCU_GPK_OK)
		WRITE_ONCE(rsp->gpk_state, TRCU_GPK_OK);
	if (likely(!READ_ONCE(rsp->gpk_moved)) ||
	    time_before(jiffies, rsp->gpk_moved_at + TRCU_GPK_HOLD))
		return;
	mutex_lock(&rsp->gpk_mutex);
	if (rsp->gpk_moved && cpumask_equal(&current->cpus_mask, rsp->gpk_mask))
		set_cpus_allowed_ptr(current, rsp->gpk_saved);
	rsp->gpk_moved = false;
	mutex_unlock(&rsp->gpk_mutex);
}

/* Parameter kthread_prio: 0 SCHED_OTHER, 1..99 SCHED_FIFO at it. */
static void trcu_gpk_set_class(struct task_struct *t)
{
	struct sched_attr attr = {
		.size = sizeof(attr),
		.sched_policy = SCHED_FIFO,
		.sched_priority = trcu_kthread_prio,
	};

	if (!trcu_kthread_prio)
		return;		/* kthreads are created SCHED_OTHER, nice 0 */
	if (sched_setattr_nocheck(t, &attr))
		pr_warn("kthread_prio=%d not applied: GP kthread stays SCHED_OTHER\n",
			trcu_kthread_prio);
}

/*
 * Create and start @rsp's GP kthread running @fn(@rsp), with the class
 * of kthread_prio and kthreadd's affinity, and watch it from the tick.
 * Module init, no locks.
 */
int trcu_gpk_start(struct trcu_state *rsp, int (*fn)(void *))
{
	struct task_struct *t;

	mutex_init(&rsp->gpk_mutex);
	INIT_WORK(&rsp->gpk_work, trcu_gpk_work);
	INIT_CSD(&rsp->gpk_csd, trcu_gpk_ask, rsp);
	if (!zalloc_cpumask_var(&rsp->gpk_mask, GFP_KERNEL))
		return -ENOMEM;
	if (!zalloc_cpumask_var(&rsp->gpk_saved, GFP_KERNEL)) {
		free_cpumask_var(rsp->gpk_mask);
		return -ENOMEM;
	}
	t = kthread_create(fn, rsp, "%s_gp", rsp->name);
	if (IS_ERR(t)) {
		free_cpumask_var(rsp->gpk_saved);
		free_cpumask_var(rsp->gpk_mask);
		return PTR_ERR(t);
	}
	trcu_gpk_set_class(t);
	rsp->gp_activity = jiffies;
	rsp->gp_kthread = t;
	wake_up_process(t);
	WRITE_ONCE(rsp->gpk_watch, true);
	return 0;
}

/*
 * Stop watching and stop @rsp's GP kthread.  A tick that read ->gpk_watch
 * set runs in a kprobe handler with preemption off, so one synchronize
 * of the kernel's RCU waits for it; the work can then be flushed for
 * good.  Module exit (or a failed init), no locks.
 */
void trcu_gpk_stop(struct trcu_state *rsp)
{
	if (!rsp->gp_kthread)
		return;
	WRITE_ONCE(rsp->gpk_watch, false);
	synchronize_rcu();
	cancel_work_sync(&rsp->gpk_work);
	kthread_stop(rsp->gp_kthread);
	rsp->gp_kthread = NULL;
	free_cpumask_var(rsp->gpk_saved);
	free_cpumask_var(rsp->gpk_mask);
}
