// SPDX-License-Identifier: GPL-2.0
/*
 * trcu hooks: where quiescent states and idle transitions come from on a
 * stock kernel that knows nothing about trcu.
 *
 *   update_process_times()  kprobe    scheduler tick: QS check, work
 *   sched_switch            tracepoint context switch: QS, both flavours
 *   rcu_note_context_switch() ftrace  every __schedule() entry: QS, both
 *                                     flavours (instead of sched_switch,
 *                                     only when booted preempt=full)
 *   __cond_resched()        ftrace    caller at preempt count 0: QS
 *                                     (optional: registered if possible)
 *   cpu_idle                tracepoint idle loop about to halt: dynticks
 *                                     counter even; halt over: odd
 *   irq_enter_rcu()         ftrace    irq on idle CPU: counter odd
 *   tick_nohz_idle_stop_tick()   kprobe  offline CPU about to die: even
 *   NMI_LOCAL, first        NMI handler  NMI on idle CPU: full barrier
 *                                     before other handlers' readers
 *
 * "ftrace" is an ftrace_ops of trcu's own whose trampoline calls the
 * handler directly: the three hooks that run on every interrupt, every
 * might_sleep() and every __schedule() cost a kprobe's full register save,
 * hash lookup and recursion bookkeeping there, on every interrupt
 * (Documentation/measurements.rst has the instruction counts).  The tick
 * and the dying CPU's last idle entry are rare and keep their kprobes
 * (the tick's handler reads an argument from the saved registers).
 *
 * Every handler is notrace and NOKPROBE and never sleeps; none calls a
 * hooked function.  A kprobe hit while another kprobe's pre-handler runs
 * on the same CPU is skipped by the kprobes core and only counted in its
 * ->nmissed: trcu reports those counts (debugfs rcustats, and a line at
 * unload).  The ftrace hooks are never skipped that way.  The idle
 * transitions use a tracepoint, not kprobes, so that an irq arriving while
 * they run still has its irq_enter_rcu() hook run (dynticks.c).
 *
 * What a tick or a context switch means for the grace periods is the
 * engine's business (tree.c: trcu_check_callbacks(), trcu_qs_all_flavors()):
 * the handlers only call down into it and into the counters of dynticks.c.
 */
#define pr_fmt(fmt) "trcu: " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/kprobes.h>
#include <linux/ftrace.h>
#include <linux/tracepoint.h>
#include <linux/sched.h>
#include <linux/hardirq.h>
#include <linux/preempt.h>
#include <linux/string.h>
#include <asm/nmi.h>
#include <trace/events/power.h>

#include <trcu.h>
#include "tree.h"

/*
 * update_process_times(int user_tick) pre-handler.  Measured in the stock
 * 6.1 guest (ftrace-based kprobe): preempt_count() here is the
 * interrupted context's count + HARDIRQ_OFFSET + 1, the 1 being the
 * preempt_disable() of the kprobe-on-ftrace path.  A user-mode tick
 * showed 0x10001, a tick in the idle loop 0x10002 (the idle task runs
 * with count 1), ticks in kernel code 0x10001 (preemptible) or 0x10002
 * (preemption disabled).  So the
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
 * rcu_note_context_switch() hook: __schedule() calls it on every entry,
 * whether or not it then switches tasks, with irqs off and its own
 * preemption disabled; nothing that can be inside a trcu or trcu_bh
 * reader calls __schedule().  Used instead of sched_switch when the
 * kernel runs preempt=full: there cond_resched() is a no-op, so CPU-bound
 * kernel code reports only at ticks that happen to hit a preemptible
 * moment, and grace periods crawl.  A nudge IPI then sets
 * need_resched, the reader's preempt_enable() enters __schedule() even
 * if no other task is runnable, and this hook sees it.
 */
static notrace void trcu_note_cs_ft(unsigned long ip, unsigned long pip,
				    struct ftrace_ops *op,
				    struct ftrace_regs *fregs)
{
	trcu_qs_all_flavors();
}
NOKPROBE_SYMBOL(trcu_note_cs_ft);

/*
 * __cond_resched() hook.  cond_resched() is where the kernel's own RCU
 * notes quiescent states in non-preemptible kernels; CPU-bound kernel
 * loops (torture readers among them) call it between critical sections
 * but rarely context-switch, and might_sleep() calls it too.  The
 * trampoline adds nothing to the preempt count, so preempt_count() 0 here
 * is the caller's own: no trcu or trcu_bh reader can be in progress, a QS
 * for both.  That caller is preemptible, so pin the CPU while the flags
 * are set (flags only, like sched_switch).
 */
static notrace void trcu_cond_resched_ft(unsigned long ip, unsigned long pip,
					 struct ftrace_ops *op,
					 struct ftrace_regs *fregs)
{
	if (preempt_count())
		return;
	preempt_disable_notrace();
	trcu_qs_all_flavors();
	preempt_enable_notrace();
}
NOKPROBE_SYMBOL(trcu_cond_resched_ft);

/* irq_enter_rcu() hook: hardirq, irqs off.  See dynticks.c. */
static notrace void trcu_irq_enter_ft(unsigned long ip, unsigned long pip,
				      struct ftrace_ops *op,
				      struct ftrace_regs *fregs)
{
	trcu_irq_enter();
}
NOKPROBE_SYMBOL(trcu_irq_enter_ft);

static notrace int trcu_stop_tick_pre(struct kprobe *p, struct pt_regs *r)
{
	trcu_idle_dead();
	return 0;
}
NOKPROBE_SYMBOL(trcu_stop_tick_pre);

/*
 * cpu_idle tracepoint: @state is the idle state entered, or
 * PWR_EVENT_EXIT when the CPU is back (kernel/sched/idle.c,
 * drivers/cpuidle/cpuidle.c).
 */
static notrace void trcu_cpu_idle(void *data, unsigned int state,
				  unsigned int cpu)
{
	if (state == (unsigned int)PWR_EVENT_EXIT)
		trcu_idle_wake();
	else
		trcu_idle_enter();
}
NOKPROBE_SYMBOL(trcu_cpu_idle);
static bool trcu_tp_idle_registered;

static struct kprobe trcu_kp_tick = {
	.symbol_name = "update_process_times",
	.pre_handler = trcu_tick_pre,
};

/*
 * An ftrace_ops of trcu's own on one function.  No FTRACE_OPS_FL_RECURSION:
 * the trampoline calls ->func directly, without ftrace's recursion check
 * and preempt_disable(); the handlers need neither (none calls a traced
 * function that could lead back to its own hook).
 */
struct trcu_fhook {
	const char *name;		/* the hooked function */
	struct ftrace_ops ops;
	bool registered;
};

static struct trcu_fhook trcu_fh_note_cs = {
	.name = "rcu_note_context_switch",
	.ops.func = trcu_note_cs_ft,
};
static struct trcu_fhook trcu_fh_cond_resched = {
	.name = "__cond_resched",
	.ops.func = trcu_cond_resched_ft,
};
static struct trcu_fhook trcu_fh_irq_enter = {
	.name = "irq_enter_rcu",
	.ops.func = trcu_irq_enter_ft,
};
static struct kprobe trcu_kp_stop_tick = {
	.symbol_name = "tick_nohz_idle_stop_tick",
	.pre_handler = trcu_stop_tick_pre,
};

static struct tracepoint *trcu_tp_switch;
static bool trcu_tp_registered;

static void trcu_find_tp(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sched_switch"))
		trcu_tp_switch = tp;
}

/*
 * Hook @fh's function: filter first, so that the ops never sees another.
 * Functions that cannot be traced (notrace, or no ftrace support) fail.
 */
static int trcu_register_fhook(struct trcu_fhook *fh)
{
	int ret;

	ret = ftrace_set_filter(&fh->ops, (unsigned char *)fh->name,
				strlen(fh->name), 1);
	if (!ret)
		ret = register_ftrace_function(&fh->ops);
	if (ret) {
		ftrace_free_filter(&fh->ops);
		pr_err("cannot hook %s: %d\n", fh->name, ret);
		return ret;
	}
	fh->registered = true;
	return 0;
}

/*
 * Unhook @fh if hooked.  unregister_ftrace_function() returns once no CPU
 * can be in the handler or the trampoline (it waits for RCU-tasks).
 */
static void trcu_unregister_fhook(struct trcu_fhook *fh)
{
	if (!fh->registered)
		return;
	unregister_ftrace_function(&fh->ops);
	ftrace_free_filter(&fh->ops);
	fh->registered = false;
}

/* Detach whichever context-switch hook trcu_hooks_init() attached. */
static void trcu_unregister_switch(void)
{
	trcu_unregister_fhook(&trcu_fh_note_cs);
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

/* The kprobes whose misses trcu reports, and under which names. */
static const struct {
	const char *name;
	struct kprobe *kp;
} trcu_probes[] = {
	{ "tick", &trcu_kp_tick },
	{ "stop_tick", &trcu_kp_stop_tick },
};

/**
 * trcu_hooks_misses() - format every kprobe's miss count
 * @buf: where to write "name=N name=N ..."
 * @len: size of @buf
 *
 * A miss is a hit the kprobes core skipped because another kprobe's
 * handler was running on that CPU (or the probe recursed).  Neither can
 * make a busy CPU look idle (dynticks.c): a missed tick costs a QS
 * report, a missed stop_tick leaves a dying CPU non-idle until it dies.
 * Read racily; called by debugfs and at unload.
 */
void trcu_hooks_misses(char *buf, size_t len)
{
	size_t i, n = 0;

	buf[0] = '\0';
	for (i = 0; i < ARRAY_SIZE(trcu_probes) && n < len; i++) {
		n += scnprintf(buf + n, len - n, "%s%s=%lu", n ? " " : "",
			       trcu_probes[i].name,
			       READ_ONCE(trcu_probes[i].kp->nmissed));
	}
}

/*
 * The context-switch hook: the rcu_note_context_switch() kprobe when
 * booted preempt=full (it fires on a superset of sched_switch's events),
 * else -- or if it cannot be probed -- the sched_switch tracepoint.  A
 * later switch of the preemption model at run time keeps this choice:
 * GPs still end, by ticks and nudges, only more slowly.
 */
static int trcu_register_switch(void)
{
	int ret;

	trcu_preempt_full = preempt_model_full();
	if (trcu_preempt_full) {
		if (!trcu_register_fhook(&trcu_fh_note_cs)) {
			pr_info("preempt=full: context switches seen at rcu_note_context_switch()\n");
			return 0;
		}
	}
	for_each_kernel_tracepoint(trcu_find_tp, NULL);
	if (!trcu_tp_switch) {
		pr_err("tracepoint sched_switch not found\n");
		return -ENOENT;
	}
	ret = tracepoint_probe_register(trcu_tp_switch,
					(void *)trcu_sched_switch, NULL);
	if (ret) {
		pr_err("cannot attach to sched_switch: %d\n", ret);
		return ret;
	}
	trcu_tp_registered = true;
	return 0;
}

/* Detach the cpu_idle probe and wait until no CPU runs it. */
static void trcu_unregister_idle(void)
{
	if (!trcu_tp_idle_registered)
		return;
	unregister_trace_cpu_idle(trcu_cpu_idle, NULL);
	tracepoint_synchronize_unregister();
	trcu_tp_idle_registered = false;
}

/*
 * Register every hook.  The counters start odd (non-idle), so the order
 * matters only in one way: the irq_enter_rcu() probe must be in before
 * the cpu_idle probe can make any counter even, or an irq on a CPU made
 * idle would go unseen.  The QS sources come last.  Caller: module init,
 * after the states and hotplug are set up.
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
	ret = trcu_register_fhook(&trcu_fh_irq_enter);
	if (ret)
		goto err_nmi;
	ret = trcu_register_kprobe(&trcu_kp_stop_tick);
	if (ret)
		goto err_irq;
	ret = register_trace_cpu_idle(trcu_cpu_idle, NULL);
	if (ret) {
		pr_err("cannot attach to cpu_idle: %d\n", ret);
		goto err_stop_tick;
	}
	trcu_tp_idle_registered = true;
	ret = trcu_register_switch();
	if (ret)
		goto err_idle;
	ret = trcu_register_kprobe(&trcu_kp_tick);
	if (ret)
		goto err_switch;
	/* Optional: without it GPs still end, via ticks and nudges. */
	trcu_register_fhook(&trcu_fh_cond_resched);
	return 0;

err_switch:
	trcu_unregister_switch();
err_idle:
	trcu_unregister_idle();
err_stop_tick:
	unregister_kprobe(&trcu_kp_stop_tick);
err_irq:
	trcu_unregister_fhook(&trcu_fh_irq_enter);
err_nmi:
	unregister_nmi_handler(NMI_LOCAL, "trcu");
	return ret;
}

/*
 * Unregister every hook, in reverse order, and wait until no handler
 * runs any more (unregister_kprobe(), unregister_ftrace_function() and
 * the tracepoint sync do).  Then report how often each kprobe was
 * skipped.  Caller: module exit, after the GP kthreads stopped (nothing
 * reads the counters any more).
 */
void trcu_hooks_exit(void)
{
	char buf[160];

	trcu_unregister_fhook(&trcu_fh_cond_resched);
	unregister_kprobe(&trcu_kp_tick);
	trcu_unregister_switch();
	trcu_unregister_idle();
	unregister_kprobe(&trcu_kp_stop_tick);
	trcu_unregister_fhook(&trcu_fh_irq_enter);
	/* Waits for running NMI handlers (synchronize_rcu()). */
	unregister_nmi_handler(NMI_LOCAL, "trcu");
	trcu_hooks_misses(buf, sizeof(buf));
	pr_info("probe misses: %s\n", buf);
}
