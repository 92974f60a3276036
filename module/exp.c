// SPDX-License-Identifier: GPL-2.0
/*
 * trcu expedited grace periods.  Instead of waiting for every CPU's next
 * tick, context switch or force_quiescent_state() pass, an expedited GP
 * looks at each online CPU right away:
 *
 *  - the CPU running the caller is quiescent (the caller may sleep, so it
 *    is no reader, and readers do not get preempted);
 *  - a dynticks-idle CPU (even ->dynticks, no NMI reader) is quiescent and
 *    is left alone: no IPI;
 *  - every other CPU gets an IPI.  The handler looks at the context it
 *    interrupted, as the tick probe does: no reader there means the CPU
 *    reports at once.  Otherwise the CPU is asked (need_resched) to
 *    report at its next context switch, quiescent tick or cond_resched()
 *    (the hooks in hooks.c call trcu_exp_report_qs()).  The stock kernel
 *    runs PREEMPT_DYNAMIC in voluntary mode, where preempt_enable() does
 *    not reschedule, so that is usually the next tick.
 *
 * The waiter also re-checks its holdouts every jiffy: one that went
 * dynticks-idle meanwhile is quiescent, and a busy one is IPIed again.
 *
 * Concurrent callers share grace periods through ->seq (even: idle, odd:
 * one running, as the kernel's expedited_sequence): a caller needs the
 * first expedited GP that starts after it arrived, snapshots the ->seq
 * value that GP will leave behind, and returns as soon as ->seq reaches
 * it -- often without running a GP of its own.  ->mutex admits one GP at
 * a time; callers that queue on it during a GP are all served by the next.
 *
 * CPU hotplug is not held off: a caller may hold the CPU hotplug read
 * lock, as callers of the kernel's synchronize_rcu_expedited() may.  A
 * CPU that comes online during the GP runs no reader older than the GP;
 * one that goes away is reported by the hotplug dead step
 * (trcu_exp_cpu_dead()), or by the GP itself when that step has already
 * run: the GP raises a CPU's flag, then looks at its trcu_dynticks ->dead,
 * the dead step sets ->dead, then looks at the flags, each with a full
 * barrier between.
 *
 * IPIs go out through one csd per CPU and flavour, used only by the GP
 * running under ->mutex; one still in flight (a CPU with irqs off since
 * an earlier IPI) is not sent again and never waited for: when it
 * arrives it looks at the flag of the GP running then.
 *
 * Both flavours: the trcu_bh rule for "not a reader" is the tick's
 * (interrupted context not in softirq, bh-disabled, hardirq or NMI).
 */
#define pr_fmt(fmt) "trcu: " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/smp.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/sched.h>
#include <linux/hardirq.h>
#include <linux/preempt.h>
#include <linux/irq_work.h>
#include <linux/kprobes.h>
#include <linux/wait.h>

#include <trcu.h>
#include "tree.h"

struct trcu_exp {
	int flavor;			/* TRCU_FLAVOR_*. */
	unsigned long seq;		/* Even: idle; odd: GP running. */
	struct mutex mutex;		/* One expedited GP at a time. */
	atomic_t pending;		/* CPUs still owing a QS (+1 while */
					/*  the IPIs are being sent). */
	wait_queue_head_t wq;		/* The GP's waiter sleeps here. */
	struct irq_work wake_work;	/* Wakes it from hook context. */
	struct cpumask mask;		/* CPUs IPIed by the current GP. */
	unsigned long n_gps;		/* Expedited GPs run. */
	unsigned long n_shared;		/* Callers served by another's GP. */
	unsigned long n_ipis;		/* IPIs sent (first and repeated). */
	unsigned long n_idle;		/* CPUs skipped as dynticks-idle. */
};

/*
 * Per CPU and flavour: the current expedited GP waits for this CPU.  Set
 * by the waiter before the IPI, cleared by whoever reports (xchg(), so
 * exactly once).
 */
static DEFINE_PER_CPU(int, trcu_exp_need_qs[TRCU_NR_FLAVORS]);

/* Per CPU and flavour: the csd of the expedited IPI (see the top). */
static DEFINE_PER_CPU(call_single_data_t, trcu_exp_csd[TRCU_NR_FLAVORS]);

static void trcu_exp_wake(struct irq_work *work);

static struct trcu_exp trcu_exps[TRCU_NR_FLAVORS] = {
	[TRCU_FLAVOR_SCHED] = {
		.flavor = TRCU_FLAVOR_SCHED,
		.mutex = __MUTEX_INITIALIZER(trcu_exps[TRCU_FLAVOR_SCHED].mutex),
		.wq = __WAIT_QUEUE_HEAD_INITIALIZER(trcu_exps[TRCU_FLAVOR_SCHED].wq),
		.wake_work = IRQ_WORK_INIT(trcu_exp_wake),
	},
	[TRCU_FLAVOR_BH] = {
		.flavor = TRCU_FLAVOR_BH,
		.mutex = __MUTEX_INITIALIZER(trcu_exps[TRCU_FLAVOR_BH].mutex),
		.wq = __WAIT_QUEUE_HEAD_INITIALIZER(trcu_exps[TRCU_FLAVOR_BH].wq),
		.wake_work = IRQ_WORK_INIT(trcu_exp_wake),
	},
};

static void trcu_exp_wake(struct irq_work *work)
{
	struct trcu_exp *e = container_of(work, struct trcu_exp, wake_work);

	wake_up(&e->wq);
}

/*
 * Report @cpu's quiescent state for the current expedited GP of @e, if
 * it still owes one.  The xchg() and atomic_dec_and_test() are fully
 * ordered: the CPU's earlier readers come before the waiter sees the
 * count drop.  The wakeup goes through an irq_work because some callers
 * (the sched_switch hook) hold the runqueue lock.
 */
static notrace void trcu_exp_report_cpu(struct trcu_exp *e, int cpu)
{
	int *need = per_cpu_ptr(&trcu_exp_need_qs[e->flavor], cpu);

	if (!xchg(need, 0))
		return;
	if (atomic_dec_and_test(&e->pending))
		irq_work_queue(&e->wake_work);
}
NOKPROBE_SYMBOL(trcu_exp_report_cpu);

/**
 * trcu_exp_report_qs() - this CPU passed a quiescent state for @flavor
 * @flavor: TRCU_FLAVOR_*
 *
 * Called by the hooks (context switch, quiescent tick, cond_resched());
 * a per-CPU read when no expedited GP waits for this CPU.
 */
notrace void trcu_exp_report_qs(int flavor)
{
	if (likely(!__this_cpu_read(trcu_exp_need_qs[flavor])))
		return;
	trcu_exp_report_cpu(&trcu_exps[flavor], smp_processor_id());
}
NOKPROBE_SYMBOL(trcu_exp_report_qs);

/* Is @cpu dynticks-idle right now (and so in no reader)?  dynticks.c. */
static bool trcu_exp_cpu_idle(int cpu)
{
	bool nmi;

	if (!trcu_dynticks_enabled)
		return false;
	return !(trcu_dynticks_sample(cpu, &nmi) & 1) && !nmi;
}

/*
 * IPI handler.  In hardirq, preempt_count() is the interrupted context's
 * count plus HARDIRQ_OFFSET; judge it by the tick's rules (hooks.c).  Not
 * in hardirq means the call-function queue was flushed by the idle loop,
 * which runs no readers.  A CPU in a reader is told to reschedule and
 * reports from the hooks.
 */
static void trcu_exp_ipi(void *info)
{
	struct trcu_exp *e = info;
	int cnt;
	bool qs;

	if (!in_hardirq()) {
		qs = is_idle_task(current);
	} else {
		cnt = preempt_count() - HARDIRQ_OFFSET;
		qs = trcu_ctx_quiescent(e->flavor, false, cnt);
	}
	if (qs) {
		trcu_exp_report_cpu(e, smp_processor_id());
		return;
	}
	set_tsk_need_resched(current);
	set_preempt_need_resched();
}

/* Number of jiffies between a waiter's re-checks of its holdouts. */
#define TRCU_EXP_RECHECK	1

/*
 * IPI @cpu for @e's GP unless an IPI of @e's flavour is still in flight
 * to it; report it at once if it is dead.  Caller holds ->mutex, after
 * the full barrier that follows raising @cpu's flag.
 */
static void trcu_exp_send(struct trcu_exp *e, int cpu)
{
	if (READ_ONCE(per_cpu_ptr(trcu_dynticks, cpu)->dead)) {
		trcu_exp_report_cpu(e, cpu);
		return;
	}
	e->n_ipis++;
	smp_call_function_single_async(cpu, per_cpu_ptr(&trcu_exp_csd[e->flavor],
							cpu));
}

/*
 * Run one expedited GP of @e.  Caller holds ->mutex.
 */
static void trcu_exp_run(struct trcu_exp *e)
{
	int cpu, self, n = 0;

	cpumask_clear(&e->mask);
	/* With preemption off, this CPU runs no reader now: not asked. */
	preempt_disable();
	self = smp_processor_id();
	/*
	 * Count each CPU before raising its flag.  A late IPI of the
	 * previous GP may report a CPU as soon as its flag is up; when the
	 * count was only set after the scan, that report decremented the
	 * old count and was then overwritten, and the GP waited for good
	 * for a CPU whose flag was already clear (EXP hung, with and
	 * without hotplug).  The 1 is this CPU, dropped below.
	 */
	atomic_set(&e->pending, 1);
	for_each_online_cpu(cpu) {
		if (cpu == self)
			continue;
		if (trcu_exp_cpu_idle(cpu)) {
			e->n_idle++;
			continue;
		}
		atomic_inc(&e->pending);
		smp_mb__after_atomic();	/* count before flag */
		WRITE_ONCE(*per_cpu_ptr(&trcu_exp_need_qs[e->flavor], cpu), 1);
		cpumask_set_cpu(cpu, &e->mask);
		n++;
	}
	/* Flags and count before any handler or ->dead is looked at. */
	smp_mb();
	for_each_cpu(cpu, &e->mask)
		trcu_exp_send(e, cpu);
	preempt_enable();
	if (atomic_dec_and_test(&e->pending))
		return;
	while (!wait_event_timeout(e->wq, !atomic_read(&e->pending),
				   TRCU_EXP_RECHECK)) {
		for_each_cpu(cpu, &e->mask) {
			if (!READ_ONCE(*per_cpu_ptr(&trcu_exp_need_qs[e->flavor],
						    cpu)))
				continue;
			if (trcu_exp_cpu_idle(cpu))
				trcu_exp_report_cpu(e, cpu);
			else
				trcu_exp_send(e, cpu);
		}
	}
}

/*
 * Wait for an expedited GP of @e that started after the call, sharing
 * one with concurrent callers (see the comment at the top).
 */
static void trcu_exp_synchronize(struct trcu_exp *e)
{
	unsigned long s;

	might_sleep();
	/* The caller's removal before the ->seq snapshot and the scan. */
	smp_mb();
	/* End of the first expedited GP to start from now on. */
	s = (READ_ONCE(e->seq) + 3) & ~1UL;
	mutex_lock(&e->mutex);
	if (ULONG_CMP_GE(READ_ONCE(e->seq), s)) {
		/* Someone else's GP covered us while we queued. */
		e->n_shared++;
		mutex_unlock(&e->mutex);
		smp_mb();	/* That GP before the caller's frees. */
		return;
	}
	WRITE_ONCE(e->seq, e->seq + 1);
	smp_mb();	/* Odd ->seq before looking at any CPU. */
	trcu_exp_run(e);
	e->n_gps++;
	/* Every report before the even ->seq and the caller's frees. */
	smp_mb();
	WRITE_ONCE(e->seq, e->seq + 1);
	mutex_unlock(&e->mutex);
}

/**
 * synchronize_trcu_expedited() - brute-force trcu grace period
 *
 * Waits until every trcu reader that started before the call has ended,
 * like synchronize_trcu(), but IPIs the busy CPUs instead of waiting for
 * them: much lower latency, at the cost of disturbing those CPUs.
 * Dynticks-idle CPUs are never disturbed.  May be called with the CPU
 * hotplug read lock held.
 */
void synchronize_trcu_expedited(void)
{
	trcu_exp_synchronize(&trcu_exps[TRCU_FLAVOR_SCHED]);
}
EXPORT_SYMBOL_GPL(synchronize_trcu_expedited);

/**
 * synchronize_trcu_bh_expedited() - brute-force trcu_bh grace period
 */
void synchronize_trcu_bh_expedited(void)
{
	trcu_exp_synchronize(&trcu_exps[TRCU_FLAVOR_BH]);
}
EXPORT_SYMBOL_GPL(synchronize_trcu_bh_expedited);

/*
 * Hotplug dead step of @cpu, after it set @cpu's ->dead and a full
 * barrier (pairs with the one in trcu_exp_run()): report the QS every
 * expedited GP may still wait for from it -- a dead CPU runs no reader.
 * Caller: the hotplug dead step, on a control CPU.
 */
void trcu_exp_cpu_dead(int cpu)
{
	int i;

	for (i = 0; i < TRCU_NR_FLAVORS; i++)
		trcu_exp_report_cpu(&trcu_exps[i], cpu);
}

/* Module init: the per-CPU csds of both flavours. */
void trcu_exp_init(void)
{
	int cpu, i;

	for_each_possible_cpu(cpu)
		for (i = 0; i < TRCU_NR_FLAVORS; i++)
			INIT_CSD(per_cpu_ptr(&trcu_exp_csd[i], cpu),
				 trcu_exp_ipi, &trcu_exps[i]);
}

/* Module exit: no caller is left; let a queued wakeup finish. */
void trcu_exp_exit(void)
{
	int i;

	for (i = 0; i < TRCU_NR_FLAVORS; i++) {
		irq_work_sync(&trcu_exps[i].wake_work);
		pr_info("%s expedited: %lu GPs, %lu shared, %lu IPIs, %lu idle CPUs skipped\n",
			i == TRCU_FLAVOR_BH ? "trcu_bh" : "trcu",
			trcu_exps[i].n_gps, trcu_exps[i].n_shared,
			trcu_exps[i].n_ipis, trcu_exps[i].n_idle);
	}
}
