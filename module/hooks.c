// SPDX-License-Identifier: GPL-2.0
/*
 * trcu hooks: where quiescent states and idle transitions come from on a
 * stock kernel that knows nothing about trcu.
 *
 *   update_process_times()  kprobe    scheduler tick: QS check, work
 *   sched_switch            tracepoint context switch: QS, both flavours
 *   rcu_note_context_switch() kprobe  every __schedule() entry: QS, both
 *                                     flavours (instead of sched_switch,
 *                                     only when booted preempt=full)
 *   __cond_resched()        kprobe    caller at preempt count 0: QS
 *                                     (optional: registered if possible)
 *   tick_nohz_idle_enter()  kprobe    dynticks counter even
 *   tick_nohz_idle_exit()   kprobe    dynticks counter odd
 *   irq_enter_rcu()         kprobe    irq on idle CPU: counter odd
 *   tick_nohz_idle_stop_tick()   kprobe  idle loop about to halt: even
 *   tick_nohz_idle_retain_tick() kprobe  (same, tick kept)
 *   NMI_LOCAL, first        NMI handler  NMI on idle CPU: full barrier
 *                                     before other handlers' readers
 *
 * Every handler is notrace and NOKPROBE, runs with preemption off and
 * never sleeps; none calls a probed function.
 */
#define pr_fmt(fmt) "trcu: " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/kprobes.h>
#include <linux/tracepoint.h>
#include <linux/sched.h>
#include <linux/hardirq.h>
#include <linux/preempt.h>
#include <linux/string.h>
#include <asm/nmi.h>

#include <trcu.h>
#include "tree.h"

/*
 * Per-tick work of one flavour: record a quiescent state if @qs, check
 * for a self-detected stall, and schedule the core tasklet if there is
 * anything for it (new GP, QS to report, callbacks to move or run).
 * Caller: tick probe or nudge IPI on this CPU, irqs off.
 */
static notrace void trcu_tick_flavor(struct trcu_state *rsp, bool qs)
{
	struct trcu_data *rdp = this_cpu_ptr(rsp->rda);
	struct trcu_node *rnp = rdp->mynode;

	if (qs) {
		/*
		 * A quiescent tick that finds a new GP in the leaf notices
		 * it first, so the QS counts for it: otherwise the tasklet
		 * would notice the GP, drop this QS, and the CPU would need
		 * another tick.  Takes the leaf lock once per GP per CPU.
		 */
		if (READ_ONCE(rnp->gpnum) != rdp->gpnum)
			trcu_note_gp_changes(rsp, rdp);
		rdp->passed_quiesc = true;
		rdp->passed_quiesc_completed = rdp->completed;
		trcu_exp_report_qs(rsp->flavor);	/* exp.c */
	}
	trcu_stall_check_self(rsp, rdp);
	if (READ_ONCE(rnp->gpnum) != rdp->gpnum ||
	    READ_ONCE(rnp->completed) != rdp->completed ||
	    (rdp->qs_pending && rdp->passed_quiesc) ||
	    trcu_cbs_ready(rsp, rdp))
		trcu_raise_core(rdp);
}
NOKPROBE_SYMBOL(trcu_tick_flavor);

/*
 * Tick (or nudge IPI) on this CPU.  @intr_count is the preempt_count()
 * of the interrupted context.  It is a QS for trcu if that context was
 * user mode (@user_tick), had preempt count 0 (no preempt-disabled
 * reader can be running), or was the idle loop itself (idle task, count
 * 1: not inside an irq or softirq).  For trcu_bh it suffices that the
 * interrupted context was not in softirq, bh-disabled, hardirq or NMI.
 * Caller: hardirq, irqs off.
 */
notrace void trcu_check_callbacks(int user_tick, int intr_count)
{
	bool qs, qs_bh;

	qs = user_tick || intr_count == 0 ||
	     (intr_count == 1 && is_idle_task(current));
	qs_bh = qs || !(intr_count & (SOFTIRQ_MASK | HARDIRQ_MASK | NMI_MASK));
	trcu_tick_flavor(&trcu_sched_state, qs);
	trcu_tick_flavor(&trcu_bh_state, qs_bh);
}
NOKPROBE_SYMBOL(trcu_check_callbacks);

/*
 * update_process_times(int user_tick) pre-handler.  Measured in the stock
 * 6.1 guest (ftrace-based kprobe): preempt_count() here is the
 * interrupted context's count + HARDIRQ_OFFSET + 1, the 1 being the
 * preempt_disable() of the kprobe-on-ftrace path.  A user-mode tick
 * showed 0x10001, a tick in the idle loop 0x10002 (the idle task runs
 * with count 1), ticks in kernel code 0x10001 (preemptible) or 0x10002
 * (preemption disabled), re-checked 2026-12-03 on 4 vCPUs.  So the
 * interrupted count is pc - HARDIRQ_OFFSET - 1.
 */
static notrace int trcu_tick_pre(struct kprobe *p, struct pt_regs *regs)
{
	trcu_check_callbacks((int)regs->di,
			     preempt_count() - HARDIRQ_OFFSET - 1);
	return 0;
}
NOKPROBE_SYMBOL(trcu_tick_pre);

/*
 * A QS for both flavours on this CPU: flags only (plus an irq_work for a
 * waiting expedited GP), so any hook may call it, even under the
 * runqueue lock.  Caller: a hook, preemption or irqs off.
 */
static notrace void trcu_qs_all_flavors(void)
{
	struct trcu_data *rdp;
	int i;

	for (i = 0; i < TRCU_NR_FLAVORS; i++) {
		rdp = this_cpu_ptr(trcu_states[i].rda);
		rdp->passed_quiesc = true;
		rdp->passed_quiesc_completed = rdp->completed;
		trcu_exp_report_qs(i);	/* exp.c: flags + irq_work only */
	}
}
NOKPROBE_SYMBOL(trcu_qs_all_flavors);

/*
 * sched_switch tracepoint: a context switch is a QS for both flavours (no
 * task can switch inside a preempt- or bh-disabled region).  Runs under
 * the runqueue lock, so it only sets flags: no wakeups, no tasklets.
 */
static notrace void trcu_sched_switch(void *data, bool preempt,
				      struct task_struct *prev,
				      struct task_struct *next,
				      unsigned int prev_state)
{
	trcu_qs_all_flavors();
}
NOKPROBE_SYMBOL(trcu_sched_switch);

/*
 * rcu_note_context_switch() pre-handler: __schedule() calls it on every
 * entry, whether or not it then switches tasks, with irqs off and its own
 * preemption disabled; nothing that can be inside a trcu or trcu_bh
 * reader calls __schedule().  Used instead of sched_switch when the
 * kernel runs preempt=full: there cond_resched() is a no-op, so CPU-bound
 * kernel code reports only at ticks that happen to hit a preemptible
 * moment (measured: 2.2 GPs/s in TREE13).  A nudge IPI then sets
 * need_resched, the reader's preempt_enable() enters __schedule() even
 * if no other task is runnable, and this hook sees it.
 */
static notrace int trcu_note_cs_pre(struct kprobe *p, struct pt_regs *r)
{
	trcu_qs_all_flavors();
	return 0;
}
NOKPROBE_SYMBOL(trcu_note_cs_pre);

/*
 * __cond_resched() pre-handler.  cond_resched() is where the kernel's own
 * RCU notes quiescent states in non-preemptible kernels; CPU-bound kernel
 * loops (torture readers among them) call it between critical sections
 * but rarely context-switch.  preempt_count() 1 here means the caller ran
 * at count 0 (the 1 is the kprobe's own), so no trcu or trcu_bh reader
 * can be in progress: a QS for both.  Flags only, like sched_switch.
 */
static notrace int trcu_cond_resched_pre(struct kprobe *p, struct pt_regs *r)
{
	if (preempt_count() == 1)
		trcu_qs_all_flavors();
	return 0;
}
NOKPROBE_SYMBOL(trcu_cond_resched_pre);

static notrace int trcu_idle_enter_pre(struct kprobe *p, struct pt_regs *r)
{
	trcu_idle_enter();
	return 0;
}
NOKPROBE_SYMBOL(trcu_idle_enter_pre);

static notrace int trcu_idle_exit_pre(struct kprobe *p, struct pt_regs *r)
{
	trcu_idle_exit();
	return 0;
}
NOKPROBE_SYMBOL(trcu_idle_exit_pre);

static notrace int trcu_irq_enter_pre(struct kprobe *p, struct pt_regs *r)
{
	trcu_irq_enter();
	return 0;
}
NOKPROBE_SYMBOL(trcu_irq_enter_pre);

static notrace int trcu_idle_halt_pre(struct kprobe *p, struct pt_regs *r)
{
	trcu_idle_halt();
	return 0;
}
NOKPROBE_SYMBOL(trcu_idle_halt_pre);

static struct kprobe trcu_kp_tick = {
	.symbol_name = "update_process_times",
	.pre_handler = trcu_tick_pre,
};
static struct kprobe trcu_kp_note_cs = {
	.symbol_name = "rcu_note_context_switch",
	.pre_handler = trcu_note_cs_pre,
};
static bool trcu_note_cs_registered;
/* Booted preempt=full (sampled at load): see trcu_note_cs_pre(). */
bool trcu_preempt_full;
static struct kprobe trcu_kp_cond_resched = {
	.symbol_name = "__cond_resched",
	.pre_handler = trcu_cond_resched_pre,
};
static bool trcu_cond_resched_registered;
static struct kprobe trcu_kp_idle_enter = {
	.symbol_name = "tick_nohz_idle_enter",
	.pre_handler = trcu_idle_enter_pre,
};
static struct kprobe trcu_kp_idle_exit = {
	.symbol_name = "tick_nohz_idle_exit",
	.pre_handler = trcu_idle_exit_pre,
};
static struct kprobe trcu_kp_irq_enter = {
	.symbol_name = "irq_enter_rcu",
	.pre_handler = trcu_irq_enter_pre,
};
static struct kprobe trcu_kp_stop_tick = {
	.symbol_name = "tick_nohz_idle_stop_tick",
	.pre_handler = trcu_idle_halt_pre,
};
static struct kprobe trcu_kp_retain_tick = {
	.symbol_name = "tick_nohz_idle_retain_tick",
	.pre_handler = trcu_idle_halt_pre,
};

static struct tracepoint *trcu_tp_switch;
static bool trcu_tp_registered;

static void trcu_find_tp(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sched_switch"))
		trcu_tp_switch = tp;
}

/* Detach whichever context-switch hook trcu_hooks_init() attached. */
static void trcu_unregister_switch(void)
{
	if (trcu_note_cs_registered)
		unregister_kprobe(&trcu_kp_note_cs);
	trcu_note_cs_registered = false;
	if (trcu_tp_registered) {
		tracepoint_probe_unregister(trcu_tp_switch,
					    (void *)trcu_sched_switch, NULL);
		tracepoint_synchronize_unregister();
	}
	trcu_tp_registered = false;
}

/* Register one kprobe and insist it is ftrace-based (known preempt count). */
static int trcu_register_kprobe(struct kprobe *kp)
{
	int ret = register_kprobe(kp);

	if (ret) {
		pr_err("cannot probe %s: %d\n", kp->symbol_name, ret);
		return ret;
	}
	if (!(kp->flags & KPROBE_FLAG_FTRACE)) {
		pr_err("probe on %s is not ftrace-based\n", kp->symbol_name);
		unregister_kprobe(kp);
		return -EOPNOTSUPP;
	}
	return 0;
}

/*
 * Every NMI: runs before the other NMI_LOCAL handlers (NMI_FLAG_FIRST,
 * registered after the boot-time ones), handles nothing itself.
 */
static notrace int trcu_nmi_handler(unsigned int type, struct pt_regs *regs)
{
	trcu_nmi_enter();
	return NMI_DONE;
}
NOKPROBE_SYMBOL(trcu_nmi_handler);

/*
 * Register every hook.  The counters start non-idle and not in_idle, so
 * whichever idle hook fires first finds a consistent state: the idle
 * transitions go first, the irq hook (which only acts on in_idle CPUs)
 * next, then the QS sources.  Caller: module init, after the states and
 * hotplug are set up.
 */
int trcu_hooks_init(void)
{
	int ret;

	/*
	 * The NMI handler first: a CPU can count as idle only once the idle
	 * hooks are in, and by then its NMIs are ordered (dynticks.c).
	 */
	ret = register_nmi_handler(NMI_LOCAL, trcu_nmi_handler,
				   NMI_FLAG_FIRST, "trcu");
	if (ret) {
		pr_err("cannot register the NMI handler: %d\n", ret);
		return ret;
	}
	ret = trcu_register_kprobe(&trcu_kp_idle_enter);
	if (ret)
		goto err_nmi;
	ret = trcu_register_kprobe(&trcu_kp_idle_exit);
	if (ret)
		goto err_idle_enter;
	ret = trcu_register_kprobe(&trcu_kp_stop_tick);
	if (ret)
		goto err_idle_exit;
	ret = trcu_register_kprobe(&trcu_kp_retain_tick);
	if (ret)
		goto err_stop_tick;
	ret = trcu_register_kprobe(&trcu_kp_irq_enter);
	if (ret)
		goto err_retain_tick;

	/*
	 * preempt=full: the rcu_note_context_switch() kprobe replaces the
	 * sched_switch tracepoint (it fires on a superset of its events).
	 * Falls back to the tracepoint if it cannot be probed.  A later
	 * switch of the preemption model at run time keeps this choice:
	 * GPs still end, by ticks and nudges, only more slowly.
	 */
	trcu_preempt_full = preempt_model_full();
	if (trcu_preempt_full) {
		trcu_note_cs_registered =
			!trcu_register_kprobe(&trcu_kp_note_cs);
		if (trcu_note_cs_registered) {
			pr_info("preempt=full: context switches seen at rcu_note_context_switch()\n");
			goto tick;
		}
	}
	for_each_kernel_tracepoint(trcu_find_tp, NULL);
	if (!trcu_tp_switch) {
		pr_err("tracepoint sched_switch not found\n");
		ret = -ENOENT;
		goto err_irq;
	}
	ret = tracepoint_probe_register(trcu_tp_switch,
					(void *)trcu_sched_switch, NULL);
	if (ret) {
		pr_err("cannot attach to sched_switch: %d\n", ret);
		goto err_irq;
	}
	trcu_tp_registered = true;
tick:
	ret = trcu_register_kprobe(&trcu_kp_tick);
	if (ret)
		goto err_tp;
	/* Optional: without it GPs still end, via ticks and nudges. */
	trcu_cond_resched_registered =
		!trcu_register_kprobe(&trcu_kp_cond_resched);
	return 0;

err_tp:
	trcu_unregister_switch();
err_irq:
	unregister_kprobe(&trcu_kp_irq_enter);
err_retain_tick:
	unregister_kprobe(&trcu_kp_retain_tick);
err_stop_tick:
	unregister_kprobe(&trcu_kp_stop_tick);
err_idle_exit:
	unregister_kprobe(&trcu_kp_idle_exit);
err_idle_enter:
	unregister_kprobe(&trcu_kp_idle_enter);
err_nmi:
	unregister_nmi_handler(NMI_LOCAL, "trcu");
	return ret;
}

/*
 * Unregister every hook, in reverse order, and wait until no handler
 * runs any more (unregister_kprobe() and the tracepoint sync do).
 * Caller: module exit.
 */
void trcu_hooks_exit(void)
{
	if (trcu_cond_resched_registered)
		unregister_kprobe(&trcu_kp_cond_resched);
	unregister_kprobe(&trcu_kp_tick);
	trcu_unregister_switch();
	unregister_kprobe(&trcu_kp_irq_enter);
	unregister_kprobe(&trcu_kp_retain_tick);
	unregister_kprobe(&trcu_kp_stop_tick);
	unregister_kprobe(&trcu_kp_idle_exit);
	unregister_kprobe(&trcu_kp_idle_enter);
	/* Waits for running NMI handlers (synchronize_rcu()). */
	unregister_nmi_handler(NMI_LOCAL, "trcu");
}
