// SPDX-License-Identifier: GPL-2.0
/*
 * trcu dynticks: per-CPU counters that say whether a CPU is in an
 * extended quiescent state (tickless idle, no irq, no NMI reader), and
 * force_quiescent_state(), which credits such CPUs (and offline ones)
 * with quiescent states so that the grace period never waits for a CPU
 * that sleeps, and which nudges CPUs that are busy but slow to report.
 *
 * Counters: ->dynticks is odd while the CPU is non-idle or handling an
 * irq from idle, even while idle.  Every change is a fully ordered atomic
 * (value-returning atomic_add_return()), so a remote snapshot that sees
 * an even value is ordered after the CPU's earlier readers and before its
 * later ones.
 *
 * NMIs cannot be hooked on the stock kernel (ct_nmi_enter() and friends
 * are noinstr) and trcu_read_lock() is a bare preempt_disable(), so an
 * NMI reader on an idle CPU changes no trcu counter.  It is seen from the
 * outside: x86 keeps the preempt count in a per-CPU variable, which has
 * NMI_OFFSET added before any NMI handler runs (compat.h).  The two sides:
 *
 *   NMI on idle CPU                      force_quiescent_state() on another
 *   nmi_enter(): preempt count += NMI    read ->dynticks: even  (full mb)
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
#include "trcu_trace.h"

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
 * Count an IPI trcu is about to send to @cpu, and whether it will wake
 * the CPU from dynticks-idle (debugfs rcustats).  Senders on different
 * CPUs may race on the plain increments; these are statistics only.
 */
void trcu_count_ipi(struct trcu_state *rsp, int cpu)
{
	struct trcu_data *rdp = per_cpu_ptr(rsp->rda, cpu);

	WRITE_ONCE(rdp->n_ipi, rdp->n_ipi + 1);
	if (trcu_dynticks_cpu_idle(cpu))
		WRITE_ONCE(rdp->n_ipi_idle, rdp->n_ipi_idle + 1);
}

/*
 * The counter goes even only here, in the idle task with irqs off, right
 * before the CPU halts (cpu_idle tracepoint, entry), and odd again at the
 * first of: an irq (trcu_irq_enter()), the end of the halt (cpu_idle
 * tracepoint, exit).  So it is even only while the idle task is between
 * the two tracepoints, where no trcu kprobe handler runs: the
 * irq_enter_rcu() probe of an irq arriving there cannot be missed as
 * "nested in another probe's handler" (a kprobe hit while any kprobe
 * pre-handler runs on the CPU is skipped and counted in its nmissed).
 * The hooks that run with irqs on and could be interrupted that way --
 * __cond_resched(), once tick_nohz_idle_enter()/_exit() -- run only with
 * the counter odd, where a missed irq probe changes nothing.  The model
 * in model/ checks this for every interleaving.
 */

/*
 * cpu_idle tracepoint, state != PWR_EVENT_EXIT: the idle loop (default
 * idle, cpuidle or poll) is about to halt.  A tracepoint probe is not a
 * kprobe, so kprobes hit while it runs still run.  The idle task holds no
 * reader; the fully ordered increment puts its earlier readers (and any
 * irq's since the last halt) before the even value.
 */
notrace void trcu_idle_sleep(void)
{
	struct trcu_dynticks *rdtp = this_cpu_ptr(trcu_dynticks);

	lockdep_assert_irqs_disabled();
	if (!trcu_dynticks_enabled || !is_idle_task(current))
		return;
	if (atomic_read(&rdtp->dynticks) & 1)
		atomic_add_return(1, &rdtp->dynticks);
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
 * Sample @cpu for crediting a QS: its ->dynticks, read fully ordered
 * (pairs with the counter updates above), and in *@nmi whether an NMI
 * runs there, read after it and ordered before whatever the caller does
 * with a QS (see the top of this file).  Even and no NMI: idle now.
 * Callers: force_quiescent_state() and the expedited scan.
 */
int trcu_dynticks_sample(int cpu, bool *nmi)
{
	struct trcu_dynticks *rdtp = per_cpu_ptr(trcu_dynticks, cpu);
	int d = atomic_add_return(0, &rdtp->dynticks);

	*nmi = trcu_dynticks_in_nmi(cpu);
	smp_mb(); /* The NMI check before the QS it allows. */
	return d;
}

/*
 * IPI handler sent to a busy holdout.  Taking the interrupt is the
 * nudge; in addition, look at the interrupted context as the tick would:
 * preempt_count() here is the interrupted one plus HARDIRQ_OFFSET, so a
 * user-mode or preemptible kernel context (0), or the idle loop (1, idle
 * task), is a quiescent state.
 */
static void trcu_nudge_cpu(void *info)
{
	int intr_count = preempt_count() - HARDIRQ_OFFSET;

	if (!in_hardirq())
		return;
	trcu_check_callbacks(0, intr_count);
	/*
	 * preempt=full, interrupted with preemption disabled (maybe inside
	 * a reader): ask for a reschedule, so that the preempt_enable()
	 * ending that section enters __schedule(), a QS for the
	 * rcu_note_context_switch() hook even if no other task runs.
	 */
	if (trcu_preempt_full && intr_count && !is_idle_task(current)) {
		set_tsk_need_resched(current);
		set_preempt_need_resched();
	}
}

/*
 * Decide about one CPU whose bit is still set in a leaf's qsmask for the
 * current GP: return true if it is in (or passed through) an extended
 * quiescent state.  Phase 1 only snapshots.
 * Caller: force_quiescent_state(), fqslock held.
 */
static bool trcu_fqs_check_cpu(struct trcu_state *rsp, struct trcu_data *rdp,
			       bool snapshot)
{
	bool nmi;
	int d;

	lockdep_assert_held(&rsp->fqslock);
	/*
	 * No blanket credit for an offline CPU: between clearing its online
	 * bit and dying it still runs (stop-machine tail, the idle loop's
	 * way to play_dead, maybe an interrupt).  It is credited below once
	 * its counter shows it reached the idle loop's last step on that way
	 * (trcu_idle_dead()), or by the hotplug dead step.  A CPU being
	 * brought up is credited until it is marked online
	 * (trcu_dynticks_not_started()).
	 */
	/*
	 * The CPU running this scan (the GP kthread's, irqs off under
	 * fqslock) is in no reader of either flavour, and this GP started
	 * before the kthread got here: a QS.  Without this, from 16 vCPUs
	 * on, busy GPs needed a second scan (make bench: 1.94 scans per GP)
	 * for the CPU doing the scanning.
	 */
	if (rdp->cpu == smp_processor_id())
		goto qs;
	if (!trcu_dynticks_enabled)
		return false;
	/*
	 * Even ->dynticks: idle now, a QS unless an NMI (maybe a reader)
	 * runs there.  Changed since phase 1: the CPU went idle or left it
	 * since, ending any reader (NMI ones too) it had at the snapshot.
	 */
	d = trcu_dynticks_sample(rdp->cpu, &nmi);
	if (trcu_dynticks_not_started(rdp->cpu))
		goto qs;
	if (snapshot) {
		rdp->dynticks_snap = d;
		if (!(d & 1) && !nmi)
			goto qs;
		return false;
	}
	if (d != rdp->dynticks_snap || (!(d & 1) && !nmi))
		goto qs;
	return false;
qs:
	if (cpu_online(rdp->cpu))
		rdp->dynticks_fqs++;
	else
		rdp->offline_fqs++;
	return true;
}

/*
 * force_quiescent_state(): phase 1 (first call of a GP) snapshots the
 * dynticks counters of every CPU the GP still waits for and credits those
 * idle right now; later calls credit those whose counter moved or is
 * even, and IPI the remaining (busy, online) holdouts.  Idle and
 * offline CPUs are never IPIed.  Caller: GP kthread, no locks held.
 */
void trcu_force_quiescent_state(struct trcu_state *rsp)
{
	struct trcu_node *rnp;
	unsigned long flags, mask, qs;
	cpumask_var_t nudge;
	bool snapshot, have_mask;
	long gpnum;
	int cpu, credited = 0;

	have_mask = zalloc_cpumask_var(&nudge, GFP_KERNEL);
	raw_spin_lock_irqsave(&rsp->fqslock, flags);
	rsp->n_force_qs++;
	gpnum = READ_ONCE(rsp->gpnum);
	if (gpnum == READ_ONCE(rsp->completed)) {
		rsp->n_force_qs_ngp++;
		raw_spin_unlock_irqrestore(&rsp->fqslock, flags);
		goto out;
	}
	snapshot = rsp->signaled == TRCU_SAVE_DYNTICK;
	trcu_for_each_leaf(rsp, rnp) {
		unsigned long f2;

		qs = 0;
		mask = READ_ONCE(rnp->qsmask);
		for (cpu = rnp->grplo; mask && cpu <= rnp->grphi; cpu++) {
			struct trcu_data *rdp = per_cpu_ptr(rsp->rda, cpu);

			if (!(mask & rdp->grpmask))
				continue;
			if (trcu_fqs_check_cpu(rsp, rdp, snapshot))
				qs |= rdp->grpmask;
			else if (!snapshot && have_mask && cpu_online(cpu) &&
				 !trcu_dynticks_cpu_idle(cpu))
				cpumask_set_cpu(cpu, nudge);
		}
		if (!qs)
			continue;
		credited += hweight_long(qs);
		trcu_node_lock_irqsave(rnp, f2);
		/* Only this GP's bits; trcu_report_qs_rnp() checks too. */
		if (rnp->gpnum != gpnum) {
			raw_spin_unlock_irqrestore(&rnp->lock, f2);
			continue;
		}
		/*
		 * No wakeup when the root empties: this is the GP kthread,
		 * which checks its wait condition before it sleeps again.
		 */
		trcu_report_qs_rnp(rsp, rnp, qs & rnp->qsmask, gpnum, f2);
	}
	rsp->signaled = TRCU_FORCE_QS;
	raw_spin_unlock_irqrestore(&rsp->fqslock, flags);
	trace_trcu_fqs(rsp->name, gpnum, snapshot, credited,
		       have_mask ? cpumask_weight(nudge) : 0);

	if (have_mask) {
		/* IPIs need irqs on: sent after dropping fqslock. */
		for_each_cpu(cpu, nudge) {
			per_cpu_ptr(rsp->rda, cpu)->resched_ipi++;
			trcu_count_ipi(rsp, cpu);
			smp_call_function_single(cpu, trcu_nudge_cpu, NULL, 0);
		}
	}
out:
	if (have_mask)
		free_cpumask_var(nudge);
}
