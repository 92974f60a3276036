// SPDX-License-Identifier: GPL-2.0
/*
 * trcu dynticks: per-CPU counters that say whether a CPU is in an
 * extended quiescent state (tickless idle, no irq, no NMI reader).  They
 * are fed by the hooks (hooks.c) and read by force_quiescent_state()
 * (tree.c), which credits such CPUs (and offline ones) with quiescent
 * states so that the grace period never waits for a CPU that sleeps, and
 * by the expedited scan (exp.c).  This file knows neither: it calls
 * nothing of trcu's but the parameters.
 *
 * Counters: ->dynticks is odd while the CPU is non-idle or handling an
 * irq from idle, even while idle.  Every change is a fully ordered atomic
 * (value-returning atomic_add_return()), so a remote snapshot (a full
 * barrier, then an acquire load: trcu_dynticks_sample()) that sees an
 * even value is ordered after the CPU's earlier readers and before its
 * later ones.
 *
 * NMIs cannot be hooked on the stock kernel (ct_nmi_enter() and friends
 * are noinstr) and trcu_read_lock() is a bare preempt_disable(), so an
 * NMI reader on an idle CPU changes no trcu counter.  It is seen from the
 * outside: x86 keeps the preempt count in a per-CPU variable, which has
 * NMI_OFFSET added before any NMI handler runs (compat.h).  The two sides:
 *
 *   NMI on idle CPU                      force_quiescent_state() on another
 *   nmi_enter(): preempt count += NMI    mb, read ->dynticks: even (acquire)
 *   trcu_nmi_enter(): full barrier       read the CPU's preempt count
 *   readers (other NMI handlers)         no NMI there: QS, smp_mb()
 *   nmi_exit(): preempt count -= NMI
 *
 * trcu's handler is registered NMI_FLAG_FIRST in NMI_LOCAL, the list that
 * default_do_nmi() walks first for every NMI, so its barrier precedes the
 * readers of every later handler.  Store buffering then guarantees that
 * either the scan sees the NMI (no QS: the reader holds the GP off) or the
 * reader sees everything done before the GP began.  A reader that was
 * already running keeps the NMI bit set until nmi_exit(), whose store
 * follows the reader's loads (x86 does not reorder loads with later
 * stores).
 */
#define pr_fmt(fmt) "trcu: " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/smp.h>
#include <linux/cpumask.h>
#include <linux/kprobes.h>
#include <linux/hardirq.h>

#include <trcu.h>
#include "tree.h"
#include "compat.h"

struct trcu_dynticks __percpu *trcu_dynticks;

/* Allocate the per-CPU counters, every CPU starting non-idle.  Init. */
int trcu_dynticks_init(void)
{
	int cpu;

	trcu_dynticks = alloc_percpu(struct trcu_dynticks);
	if (!trcu_dynticks)
		return -ENOMEM;
	for_each_possible_cpu(cpu)
		trcu_dynticks_cpu_init(cpu);
	return 0;
}

/* Free the counters.  Module exit, after every hook is gone. */
void trcu_dynticks_free(void)
{
	free_percpu(trcu_dynticks);
	trcu_dynticks = NULL;
}

/*
 * Reset @cpu's counters: non-idle (odd).  Called from the hotplug prepare
 * step, either at module init for a CPU already running (before the
 * hooks are registered: it must report for itself) or for a CPU about to
 * be brought up.  The latter runs nothing yet, so a GP that includes it
 * must not wait for its bring-up: ->booting lets force_quiescent_state()
 * credit it until it is marked online (trcu_dynticks_not_started()).
 * Starting it "idle" instead would leave it even until its first hook,
 * and an irq whose irq_enter_rcu() probe is missed inside another
 * probe's handler could then run readers unseen (the idle-entry window
 * that Documentation/trcu.rst argues closed).
 */
void trcu_dynticks_cpu_init(int cpu)
{
	struct trcu_dynticks *rdtp = per_cpu_ptr(trcu_dynticks, cpu);

	WRITE_ONCE(rdtp->booting, trcu_dynticks_enabled && !cpu_online(cpu));
	if (!(atomic_read(&rdtp->dynticks) & 1))
		atomic_inc(&rdtp->dynticks);
	smp_mb(); /* Reset visible before the CPU is marked online. */
}

/*
 * Has @cpu, being brought up, not yet been marked online?  Then it has run
 * nothing that could read: the CPU marks itself online (a locked, fully
 * ordered bit operation) with irqs still off, before any code that could
 * hold a reader.  If this read finds it offline, that marking -- and
 * every reader after it -- follows this check, and the smp_mb() orders
 * the check before whatever the QS it allows (the end of the GP, the
 * updater's free).  ->booting is cleared on the CPU's first context
 * switch, long before it can be taken down again, so a CPU on its way
 * down (offline but still running) is never credited here.
 * Caller: force_quiescent_state().
 */
bool trcu_dynticks_not_started(int cpu)
{
	struct trcu_dynticks *rdtp = per_cpu_ptr(trcu_dynticks, cpu);
	bool ret;

	if (!READ_ONCE(rdtp->booting))
		return false;
	/* Not even an NMI reader: NMIs are not masked before it is up. */
	ret = !cpu_online(cpu) && !trcu_dynticks_in_nmi(cpu);
	smp_mb(); /* The online check before the QS it allows. */
	return ret;
}

/* This CPU switches tasks: it is up and running, see above.  Any hook. */
notrace void trcu_dynticks_running(void)
{
	struct trcu_dynticks *rdtp = this_cpu_ptr(trcu_dynticks);

	if (unlikely(rdtp->booting))
		WRITE_ONCE(rdtp->booting, false);
}
NOKPROBE_SYMBOL(trcu_dynticks_running);

/*
 * Is @cpu in an NMI right now?  See the comment at the top: a caller that
 * credits a QS must read ->dynticks with full ordering before this and
 * order this before what the QS allows (smp_mb()).
 */
bool trcu_dynticks_in_nmi(int cpu)
{
	return trcu_remote_preempt_count(cpu) & NMI_MASK;
}

/*
 * Is @cpu in an extended quiescent state right now?  Lockless peek used
 * only to decide whom to IPI; never to credit a QS.
 */
bool trcu_dynticks_cpu_idle(int cpu)
{
	struct trcu_dynticks *rdtp = per_cpu_ptr(trcu_dynticks, cpu);

	if (!trcu_dynticks_enabled)
		return false;
	return !(atomic_read(&rdtp->dynticks) & 1) &&
	       !trcu_dynticks_in_nmi(cpu);
}

/*
 * The rcudata trace's dn for @cpu: ->dynticks_nmi (even, NMIs from idle
 * counted by 2), plus 1 while the CPU is idle and in an NMI, which is the
 * seed's "odd while an NMI handler runs on an idle CPU".
 */
int trcu_dynticks_nmi_trace(int cpu)
{
	struct trcu_dynticks *rdtp = per_cpu_ptr(trcu_dynticks, cpu);

	return atomic_read(&rdtp->dynticks_nmi) +
	       (!(atomic_read(&rdtp->dynticks) & 1) &&
		trcu_dynticks_in_nmi(cpu));
}

/* @cpu's idle counter, to tell later whether it idled since (rcustats). */
int trcu_dynticks_snap(int cpu)
{
	return atomic_read(&per_cpu_ptr(trcu_dynticks, cpu)->dynticks);
}

/*
 * The counter goes even only here, in the idle task with irqs off, right
 * before the CPU halts (cpu_idle tracepoint, entry), and odd again at the
 * first of: an irq (trcu_irq_enter()), the end of the halt (cpu_idle
 * tracepoint, exit).  So it is even only while the idle task is between
 * the two tracepoints, where no trcu kprobe handler runs.  The
 * irq_enter_rcu() hook is an ftrace hook, which the kprobes core never
 * skips; as a kprobe it was skipped when the irq hit inside another
 * kprobe's handler (counted in its nmissed), and the argument was that
 * no trcu handler runs with irqs on and the counter even.  That still
 * holds, so the model in model/, which keeps the kprobe semantics (and an
 * irqs-on kprobe window in task context), checks the stronger case for
 * every interleaving.
 */

/*
 * cpu_idle tracepoint, state != PWR_EVENT_EXIT: the idle loop (default
 * idle, cpuidle or poll) is about to halt.  A tracepoint probe is not a
 * kprobe, so kprobes hit while it runs still run.  The idle task holds no
 * reader; the fully ordered increment puts its earlier readers (and any
 * irq's since the last halt) before the even value.  Returns true if the
 * CPU is now dynticks-idle (its counter is even).
 */
notrace bool trcu_idle_sleep(void)
{
	struct trcu_dynticks *rdtp = this_cpu_ptr(trcu_dynticks);

	lockdep_assert_irqs_disabled();
	if (!trcu_dynticks_enabled || !is_idle_task(current))
		return false;
	if (atomic_read(&rdtp->dynticks) & 1)
		atomic_add_return(1, &rdtp->dynticks);
	return true;
}
NOKPROBE_SYMBOL(trcu_idle_sleep);

/*
 * cpu_idle tracepoint, state == PWR_EVENT_EXIT: the halt is over (irqs on
 * in 6.1, off in 6.12).  If no irq made the counter odd (woken by a
 * reschedule IPI, which does not call irq_enter_rcu(), or by a write to
 * the polled flag), do it now, before the idle task leaves the loop and
 * runs queued IPI functions.  An irq arriving inside this probe has its
 * own hook run (not a kprobe), so the order of the two does not matter.
 */
notrace void trcu_idle_wake(void)
{
	struct trcu_dynticks *rdtp = this_cpu_ptr(trcu_dynticks);
	unsigned long flags;

	local_irq_save(flags);
	/* Full barrier: the odd value before any later reader. */
	if (!(atomic_read(&rdtp->dynticks) & 1))
		atomic_add_return(1, &rdtp->dynticks);
	local_irq_restore(flags);
}
NOKPROBE_SYMBOL(trcu_idle_wake);

/*
 * tick_nohz_idle_stop_tick() probe, irqs off: on a CPU that is going
 * offline, do_idle() calls it right before reporting itself dead and
 * parking for good (no cpu_idle tracepoint on that path).  Even there, so
 * that force_quiescent_state() credits the dying CPU before its dead step
 * (see trcu_fqs_check_cpu()).  On every other idle entry it does nothing.
 */
notrace void trcu_idle_dead(void)
{
	struct trcu_dynticks *rdtp = this_cpu_ptr(trcu_dynticks);

	if (!trcu_dynticks_enabled || !cpu_is_offline(smp_processor_id()))
		return;
	/* Full barrier: the CPU's last readers before the even value. */
	if (atomic_read(&rdtp->dynticks) & 1)
		atomic_add_return(1, &rdtp->dynticks);
}
NOKPROBE_SYMBOL(trcu_idle_dead);

/*
 * An irq starts (irq_enter_rcu() probe, irqs off).  On an idle CPU the
 * counter goes odd, and stays odd until the idle loop next heads for a
 * halt (trcu_idle_sleep()), which is after the handler and the softirqs
 * run on its way out: a longer non-idle window than the irq itself, but
 * never a wrong idle one.  There is deliberately no irq-exit return
 * probe: a kretprobe on irq_exit_rcu() crashed guests (6.12 at once, 6.1
 * when trcu was reloaded), and a missed exit could leave a CPU non-idle
 * for good.  Nested irqs find the counter already odd.
 */
notrace void trcu_irq_enter(void)
{
	struct trcu_dynticks *rdtp = this_cpu_ptr(trcu_dynticks);

	/* Full barrier: odd value before the handler's readers. */
	if (!(atomic_read(&rdtp->dynticks) & 1))
		atomic_add_return(1, &rdtp->dynticks);
}
NOKPROBE_SYMBOL(trcu_irq_enter);

/*
 * An NMI starts on this CPU (trcu's NMI_LOCAL handler, first in the list,
 * before any other handler can run a reader).  On an idle CPU, order the
 * preempt count's NMI bit before the readers to come: the fully ordered
 * atomic that counts the NMI is that barrier (see the top of this file).
 * A busy CPU needs none: its odd ->dynticks is never credited as even,
 * and a moved counter means an idle transition the NMI cannot span.
 */
notrace void trcu_nmi_enter(void)
{
	struct trcu_dynticks *rdtp = this_cpu_ptr(trcu_dynticks);

	if (!(atomic_read(&rdtp->dynticks) & 1))
		atomic_add_return(2, &rdtp->dynticks_nmi);
}
NOKPROBE_SYMBOL(trcu_nmi_enter);

/*
 * Sample @cpu for crediting a QS: its ->dynticks, and in *@nmi whether
 * an NMI runs there, read after it and ordered before whatever the
 * caller does with a QS (see the top of this file).  Even and no NMI:
 * idle now.  The counter is read with a full barrier before it (this
 * GP's start, and the caller's earlier samples, come first) and an
 * acquire load (the NMI check and the QS after it), pairing with the
 * fully ordered updates above.  A plain load, not a value-returning
 * atomic as the seed's: a scan of N CPUs would otherwise take N remote
 * cache lines for writing, with irqs off, where the kernel's RCU
 * (rcu_dynticks_snap()) only reads them.
 * Callers: force_quiescent_state() and the expedited scan.
 */
int trcu_dynticks_sample(int cpu, bool *nmi)
{
	struct trcu_dynticks *rdtp = per_cpu_ptr(trcu_dynticks, cpu);
	int d;

	smp_mb(); /* What came before, before the counter read. */
	d = atomic_read_acquire(&rdtp->dynticks);

	*nmi = trcu_dynticks_in_nmi(cpu);
	smp_mb(); /* The NMI check before the QS it allows. */
	return d;
}
