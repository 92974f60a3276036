/* SPDX-License-Identifier: GPL-2.0 */
/*
 * trcu's dynticks protocol: one CPU (task, irq and NMI contexts) running
 * the 6.1 idle loop with trcu's hooks, and force_quiescent_state() on
 * another CPU sampling its counter in two phases.  The scan must never
 * credit the CPU while a reader that was already running when the scan
 * began (its first read, in phase 1) is still running.  One CPU and one
 * scanner suffice: the scan judges each CPU by that CPU's counter and
 * NMI bit alone, and scans are serialised by fqslock.
 *
 * Variants (spin -D...), one model so that the hooks are the only
 * difference:
 *   (none)              the hooks of module/hooks.c today: kprobes on
 *                       tick_nohz_idle_enter()/_exit(), in_idle
 *   -DENTER_WINDOW_CLOSED  today's hooks, but no irq is let in while the
 *                       tick_nohz_idle_enter() kprobe runs: must still
 *                       fail, through the tick_nohz_idle_exit() window
 *   -DFIXED             cpu_idle tracepoint around the halt, irq_enter_rcu()
 *                       hook without in_idle, stop_tick only when offline
 *   -DFIXED -DNO_IRQ_ENTER_HOOK  the fixed hooks without irq_enter_rcu():
 *                       must fail, else the fixed model proves nothing
 *   -DFIXED -DSCAN_IGNORES_NMI   the fixed hooks, but the scan does not
 *                       look at the NMI bit: must fail
 *   -DFIXED -DBOOT_NMI  the fixed hooks, but the booting credit does not
 *                       look at the NMI bit: an NMI reader on a CPU being
 *                       brought up, before it is online, is credited: fails
 *   -DFIXED -DEXIT_TP_IRQS_ON    the PWR_EVENT_EXIT probe tests and bumps
 *                       the counter with irqs on: must fail (an irq
 *                       between the test and the add bumps it first)
 *
 * Memory ordering is not modelled: every ->dynticks change and the scan's
 * read of it are value-returning atomics (full barriers), and the NMI bit
 * read is ordered by trcu_nmi_enter()'s barrier (module/dynticks.c, top
 * comment), so the interleavings of a sequentially consistent machine are
 * the executions to check.
 *
 * Contexts: a CPU runs one context at a time.  ctx names the one running;
 * each process may only step while its context runs ("provided"), so an
 * irq (when irqs are on) or an NMI (always) can come between any two
 * steps of the task, and an NMI between any two steps of the irq.
 */

#define TASK	0
#define IRQ	1
#define NMI	2

byte ctx = TASK;	/* context running on the CPU */
bit irqs_on = 1;	/* the CPU's IF flag */
bit kp;			/* current_kprobe set: a kprobe pre-handler runs */
bit dyn = 1;		/* ->dynticks & 1: odd (1) = non-idle */
bit moved;		/* ->dynticks changed since the scan's snapshot */
bit in_nmi;		/* NMI_MASK in the CPU's preempt count */
#ifndef FIXED
bit in_idle;		/* trcu_dynticks.in_idle */
#else
bit booting;		/* trcu_dynticks.booting: brought up, no switch yet */
bit online = 1;		/* cpu_online() */
#endif
bit rd[3];		/* a reader runs in context TASK/IRQ/NMI */
bit old[3];		/* ... and was running at the scan's first read */

/*
 * One ->dynticks change.  The parity and "changed since the snapshot" is
 * all the scan can tell from the 32-bit value (d != snapshot), wrap
 * aside: 2^32 changes between two scans do not happen.
 */
inline dyn_inc()
{
	d_step { dyn = 1 - dyn; moved = 1 }
}

/*
 * "if (atomic_read() & 1) atomic_add_return(1)": the test and the add are
 * two steps, so whatever may interrupt the hook in between does.
 */
inline dyn_make_even()
{
	if
	:: dyn -> dyn_inc()
	:: else -> skip
	fi
}

inline dyn_make_odd()
{
	if
	:: !dyn -> dyn_inc()
	:: else -> skip
	fi
}

/* trcu_read_lock() ... trcu_read_unlock(): preempt_disable() region. */
inline reader(c)
{
	rd[c] = 1;
	d_step { rd[c] = 0; old[c] = 0 }
}

inline maybe_reader(c)
{
	if
	:: reader(c)
	:: skip
	fi
}

/*
 * The cpu_idle tracepoint (FIXED only).  A tracepoint probe is no kprobe:
 * kp stays clear, an irq inside it has its irq_enter_rcu() probe run.
 * Entry (state != PWR_EVENT_EXIT): irqs off, right before the halt or the
 * poll loop: counter even.
 */
inline tp_cpu_idle_entry()
{
#ifdef FIXED
	dyn_make_even()
#else
	skip
#endif
}

/*
 * PWR_EVENT_EXIT: after the halt or the poll loop, irqs on.  The test and
 * the add must not be split by an irq: irq_enter_rcu() would make the
 * counter odd in between and the add would make it even again, under a
 * running task.  Hence local_irq_save() around them (or an equivalent
 * atomic_try_cmpxchg() from the even value).
 */
inline tp_cpu_idle_exit()
{
#if defined(FIXED) && defined(EXIT_TP_IRQS_ON)
	dyn_make_odd()
#elif defined(FIXED)
	irqs_on = 0;	/* local_irq_save() */
	dyn_make_odd();
	irqs_on = 1	/* local_irq_restore() */
#else
	skip
#endif
}

/*
 * The task context: other tasks and the idle task, Linux 6.1's
 * do_idle().  Every loop is unbounded; the state space stays
 * finite because the counter is kept as parity + moved.
 */
active proctype cpu_task() provided (ctx == TASK)
{
#ifdef FIXED
	if
	:: skip		/* the CPU is up already */
	:: /*
	    * A CPU brought up: trcu_dynticks_cpu_init() at the prepare step
	    * leaves the counter odd and sets booting; start_secondary() runs
	    * with irqs off and no reader until set_cpu_online(), enables
	    * irqs and enters the idle loop.
	    */
		d_step { booting = 1; online = 0; irqs_on = 0 };
		online = 1;
		irqs_on = 1;
		goto idle
	fi;
#endif
task:
	/* Some task runs: its readers, the counter odd. */
	maybe_reader(TASK);
	/*
	 * An irqs-on kprobe handler in task context (trcu's __cond_resched()
	 * hook was one until it became an ftrace hook; a third party's may
	 * be): an irq in it loses its irq_enter_rcu() probe.
	 */
	if
	:: kp = 1;
	   kp = 0
	:: skip
	fi;
	/* schedule() to the idle task: do_idle(). */
#ifndef FIXED
	/*
	 * tick_nohz_idle_enter() kprobe, irqs on: trcu_idle_enter().  The
	 * irq that local_irq_restore() lets in runs while kp is still set.
	 */
	kp = 1;
	irqs_on = 0;
	in_idle = 1;
	dyn_make_even();
#ifdef ENTER_WINDOW_CLOSED
	kp = 0;		/* what-if: irqs back on only after the kprobe */
	irqs_on = 1;
#else
	atomic {
		irqs_on = 1;
		printf("MSC: trcu_idle_enter(): local_irq_restore(), kp still set\n")
	};
	kp = 0;
#endif
#endif
idle:
	do
	:: /* while (!need_resched()) */
		irqs_on = 0;	/* local_irq_disable() */
		if
		:: /* cpu_is_offline(): tick_nohz_idle_stop_tick() kprobe */
			skip;
#ifndef FIXED
			/* trcu_idle_halt() */
			if
			:: in_idle -> dyn_make_even()
			:: else -> skip
			fi;
#else
			dyn_make_even();
#endif
			goto dead
		:: /* cpu_idle_poll() */
			skip;
			tp_cpu_idle_entry();	/* cpu_idle(0) */
			irqs_on = 1;		/* polls with irqs on */
			tp_cpu_idle_exit()
		:: /* cpuidle_idle_call() */
			skip;
#ifndef FIXED
			/*
			 * tick_nohz_idle_stop_tick()/_retain_tick() kprobe,
			 * irqs off: trcu_idle_halt().
			 */
			if
			:: in_idle -> dyn_make_even()
			:: else -> skip
			fi;
#endif
			/* default_idle_call() */
			if
			:: /* need_resched already: no halt */
				irqs_on = 1
			:: /* cpu_idle(1) tracepoint, irqs off */
				skip;
				tp_cpu_idle_entry();
				/*
				 * sti; hlt.  Woken by an irq (the irq
				 * process steps in here) or by a reschedule
				 * IPI, which calls no irq_enter_rcu() and
				 * runs no reader: nothing to model.
				 */
				irqs_on = 1;
				tp_cpu_idle_exit()
			fi
		fi
	:: break
	od;
#ifndef FIXED
	/*
	 * tick_nohz_idle_exit() kprobe, irqs on: trcu_idle_exit().  An irq
	 * before the local_irq_save() loses its probe.
	 */
	atomic {
		kp = 1;
		printf("MSC: trcu_idle_exit() pre-handler starts, irqs on\n")
	};
	irqs_on = 0;
	in_idle = 0;
	dyn_make_odd();
	irqs_on = 1;
	kp = 0;
#endif
	/*
	 * flush_smp_call_function_queue() in the idle task, irqs off: the
	 * queued IPI callbacks (trcu's own run none, other modules' may) may
	 * be readers.  The counter is odd again by now.
	 */
	irqs_on = 0;
	maybe_reader(TASK);
	irqs_on = 1;
	/* schedule_idle(): the next task. */
#ifdef FIXED
	booting = 0;	/* the context-switch hook, first switch */
#endif
	goto task;
dead:
	/* arch_cpu_idle_dead(): irqs off for good; NMIs may still come. */
	skip
}

/*
 * Interrupts, from task context with irqs on.  irq_enter_rcu() is a
 * kprobe: missed while another pre-handler runs on the CPU.  It runs with
 * irqs off and nothing it can be interrupted by (NMI) hits a kprobe, so
 * its own kp is not modelled.  An irq nested in a softirq is not
 * modelled: its probe sees the kp, in_idle and counter parity the outer
 * probe left (odd if that one ran), so it changes no counter, and its
 * readers lie inside the softirq's: nothing the scan could tell apart.
 */
active proctype cpu_irq() provided (ctx == IRQ || (ctx == TASK && irqs_on))
{
end:
	do
	:: d_step { ctx = IRQ; irqs_on = 0 };
		/* irq_enter_rcu() kprobe: trcu_irq_enter() */
		if
		:: kp -> printf("MSC: irq_enter_rcu() probe missed: a pre-handler runs\n")
		:: else ->
#ifdef NO_IRQ_ENTER_HOOK
			skip
#elif defined(FIXED)
			dyn_make_odd()
#else
			if
			:: in_idle -> dyn_make_odd()
			:: else -> skip
			fi
#endif
		fi;
		maybe_reader(IRQ);	/* the handler */
		maybe_reader(IRQ);	/* softirqs on irq_exit_rcu() */
		d_step { irqs_on = 1; ctx = TASK }	/* iret */
	od
}

/*
 * NMIs, at any time but inside another NMI.  nmi_enter() sets the NMI
 * bit before any handler; trcu_nmi_handler() (first) is a barrier only.
 * Also on a CPU being brought up before it is online: the booting credit
 * checks the NMI bit too (trcu_dynticks_not_started()).
 */
active proctype cpu_nmi()
{
	byte saved;
end:
	do
	:: d_step { saved = ctx; ctx = NMI; in_nmi = 1 };
		maybe_reader(NMI);
		d_step { in_nmi = 0; ctx = saved; saved = 0 }	/* nmi_exit() */
	od
}

/*
 * trcu_dynticks_in_nmi(): the remote preempt count's NMI bit.  The
 * SCAN_IGNORES_NMI what-if (the idle_nmi mutant) must fail: it shows that
 * NMI readers on an idle CPU are reachable in the model.
 */
#ifdef SCAN_IGNORES_NMI
#define SAMPLE_NMI(n)	n = 0
#else
#define SAMPLE_NMI(n)	n = in_nmi
#endif

/* The scan begins: mark the readers running now. */
inline mark_old()
{
	old[TASK] = rd[TASK]; old[IRQ] = rd[IRQ]; old[NMI] = rd[NMI]
}

/* The scan credits the CPU: no reader from before phase 1 may run. */
inline credit()
{
	assert(!old[TASK] && !old[IRQ] && !old[NMI])
}

/*
 * force_quiescent_state() on another CPU: trcu_fqs_check_cpu() with
 * trcu_dynticks_sample().  A grace period that began before phase 1 must
 * wait for every reader running at phase 1.  The later scans are
 * independent tests against the same snapshot, so one phase 2 at any
 * time covers them all.  FIXED: a CPU being brought up, not yet online,
 * is credited outright; its two flags are read in one step, as between
 * two reads the CPU could only go online and start readers that began
 * after the scan, which the property allows whatever the scan decides.
 */
active proctype scanner()
{
	bit d, mv, n;

	/*
	 * Phase 1.  The grace period began before the scan's first read:
	 * the readers running then are the ones it must wait for.
	 */
#ifdef FIXED
#ifdef BOOT_NMI
	d_step { mark_old(); d = booting && !online };
#else
	d_step { mark_old(); d = booting && !online && !in_nmi };
#endif
	if
	:: d -> printf("MSC: credit: phase 1, booting\n");
		credit(); goto done
	:: else -> skip
	fi;
	d_step { d = dyn; moved = 0 };	/* d1 = atomic_add_return(0, ...) */
#else
	d_step { mark_old(); d = dyn; moved = 0 };
#endif
	SAMPLE_NMI(n);
	if
	:: !d && !n -> printf("MSC: credit: phase 1, even, no NMI\n");
		credit(); goto done
	:: else -> skip
	fi;
	/* Phase 2 */
#ifdef FIXED
	if
#ifdef BOOT_NMI
	:: booting && !online -> printf("MSC: credit: phase 2, booting\n");
#else
	:: booting && !online && !in_nmi ->
		printf("MSC: credit: phase 2, booting\n");
#endif
		credit(); goto done
	:: else -> skip
	fi;
#endif
	/* d2 */
	d_step { d = dyn; mv = moved };
	SAMPLE_NMI(n);
	if
	:: mv -> printf("MSC: credit: phase 2, counter moved\n");
		credit()
	:: !mv && !d && !n -> printf("MSC: credit: phase 2, even, no NMI\n");
		credit()
	:: else -> skip		/* a holdout: IPI, not modelled */
	fi;
done:
	skip
}
