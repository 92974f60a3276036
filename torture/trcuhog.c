// SPDX-License-Identifier: GPL-2.0
/*
 * trcuhog: CPU hogs and grace-period rate drivers for the liveness
 * scenarios (guest/tests/rtspin.sh, hogmore.sh, isolated.sh, irqsoff.sh,
 * flood.sh).  One load starts any mix of three things, each in its own
 * kthread, and returns at once; each ends by itself after its duration:
 *
 *   spin     a kthread on spin_cpu at SCHED_FIFO spin_prio spins in the
 *            kernel for spin_s seconds, no cond_resched() and no sleep,
 *            in the context spin_ctx names:
 *              preempt    preemption enabled (the default).  A tick there
 *                         sees preempt_count() 0, a quiescent state for
 *                         trcu and for the kernel's RCU alike; what it
 *                         takes from the CPU is the CPU.
 *              nopreempt  inside preempt_disable(): a reader of trcu
 *                         (and of the kernel's RCU) for the whole spin,
 *                         not of trcu_bh.
 *              nobh       inside local_bh_disable(): a reader of trcu,
 *                         trcu_bh and the kernel's RCU; the CPU's
 *                         softirqs wait for the end.
 *            Both of the last two are limited to 6 s, far below the
 *            soft-lockup (20 s) and RCU stall (21 s) thresholds.
 *   irqsoff  a kthread on irqsoff_cpu disables irqs for irqsoff_ms, then
 *            sleeps irqsoff_gap_ms, again and again for irqsoff_s
 *            seconds: an irqs-off holdout that IPIs cannot reach.  Its
 *            line gives the fewest jiffies that passed in one stretch:
 *            0 means the holdout was the CPU that keeps jiffies, so the
 *            whole machine's timers stood still, not just that CPU.
 *   rate     one kthread per rate_ops entry, each on its CPU, calls its
 *            primitive back to back for rate_s seconds (after
 *            rate_delay_ms), timing each call; with probe_cpu, a
 *            SCHED_FIFO kthread there sleeps 1 ms at a time meanwhile
 *            and reports how late its latest wakeup came
 *            (PROBE tag=T cpu=C wakeups=N max_late_us=M done=D).
 *
 * The reporting kthread (not bound to a CPU) prints, rate_delay_ms +
 * rate_s after the load, one line per rate driver
 *
 *   trcuhog: RATE tag=T flavor=F op=O cpu=C n=N max_us=M stuck=S secs=D
 *
 * n: calls completed (op=cb: callbacks invoked, one call_*() + barrier
 * per round); max_us: the longest single wait, counting the one still in
 * progress; stuck=1: the driver was still inside a call stuck_ms after
 * the end.  The report never waits for a stuck call.  Then, once the
 * hogs have ended, their own lines (SPIN, IRQSOFF) and last
 *
 *   trcuhog: DONE tag=T
 *
 * rmmod stops everything early; it does wait for a call in progress to
 * return (a grace period cannot be abandoned).
 */
#define pr_fmt(fmt) "trcuhog: " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/kthread.h>
#include <linux/delay.h>
#include <linux/sched.h>
#include <linux/sched/types.h>
#include <linux/slab.h>
#include <linux/ktime.h>
#include <linux/cpumask.h>
#include <linux/nmi.h>
#include <linux/string.h>
#include <linux/ctype.h>
#include <linux/rcupdate.h>
#include <uapi/linux/sched/types.h>

#include <trcu.h>

static char *tag = "-";
module_param(tag, charp, 0444);
MODULE_PARM_DESC(tag, "Label copied into every report line ([a-z0-9_-], 1..31)");

static int spin_cpu;
module_param(spin_cpu, int, 0444);
MODULE_PARM_DESC(spin_cpu, "spin: CPU of the spinning kthread (online CPU)");

static int spin_prio = 1;
module_param(spin_prio, int, 0444);
MODULE_PARM_DESC(spin_prio, "spin: SCHED_FIFO priority (1..99)");

static int spin_s;
module_param(spin_s, int, 0444);
MODULE_PARM_DESC(spin_s, "spin: seconds of spinning (0 = no spinner, 1..15; 1..6 unless spin_ctx=preempt)");

static char *spin_ctx = "preempt";
module_param(spin_ctx, charp, 0444);
MODULE_PARM_DESC(spin_ctx, "spin: preempt (preemption enabled), nopreempt (preempt_disable()) or nobh (local_bh_disable())");

enum hog_ctx { HOG_CTX_PREEMPT, HOG_CTX_NOPREEMPT, HOG_CTX_NOBH };
static const char * const hog_ctx_names[] = { "preempt", "nopreempt", "nobh" };
static enum hog_ctx hog_spin_ctx;

/* The longest spin_s outside spin_ctx=preempt. */
#define HOG_SPIN_OFF_MAX_S	6

static int irqsoff_cpu;
module_param(irqsoff_cpu, int, 0444);
MODULE_PARM_DESC(irqsoff_cpu, "irqsoff: CPU of the holdout (online CPU)");

static int irqsoff_ms = 1000;
module_param(irqsoff_ms, int, 0444);
MODULE_PARM_DESC(irqsoff_ms, "irqsoff: ms with irqs disabled per stretch (1..1500)");

static int irqsoff_gap_ms = 100;
module_param(irqsoff_gap_ms, int, 0444);
MODULE_PARM_DESC(irqsoff_gap_ms, "irqsoff: ms of sleep between stretches (1..10000)");

static int irqsoff_s;
module_param(irqsoff_s, int, 0444);
MODULE_PARM_DESC(irqsoff_s, "irqsoff: seconds of stretches (0 = no holdout, 1..600)");

static char *rate_ops = "";
module_param(rate_ops, charp, 0444);
MODULE_PARM_DESC(rate_ops,
		 "rate: comma list of PRIM[@CPU]; PRIM: trcu_sync trcu_bh_sync rcu_sync trcu_exp trcu_bh_exp rcu_exp trcu_cb trcu_bh_cb rcu_cb");

static int rate_cpu;
module_param(rate_cpu, int, 0444);
MODULE_PARM_DESC(rate_cpu, "rate: CPU of the drivers without @CPU (online CPU)");

static int rate_s;
module_param(rate_s, int, 0444);
MODULE_PARM_DESC(rate_s, "rate: seconds of calls (0 = no drivers, 1..600)");

static int rate_delay_ms;
module_param(rate_delay_ms, int, 0444);
MODULE_PARM_DESC(rate_delay_ms, "rate: ms after the load before the drivers start (0..60000)");

static int probe_cpu = -1;
module_param(probe_cpu, int, 0444);
MODULE_PARM_DESC(probe_cpu, "rate: CPU of a SCHED_FIFO wakeup-latency probe during the rate window (-1 = none)");

static int stuck_ms = 1000;
module_param(stuck_ms, int, 0444);
MODULE_PARM_DESC(stuck_ms, "rate: ms a call may still take after rate_s before it counts as stuck (100..60000)");

/* One primitive a rate driver can call. */
struct hog_prim {
	const char *name;		/* its rate_ops word */
	const char *flavor;
	const char *op;			/* sync, exp, cb */
	void (*sync)(void);		/* sync and exp */
	void (*call)(struct rcu_head *head, rcu_callback_t func);
	void (*wait_cbs)(void);	/* cb: call() then wait_cbs() */
};

static const struct hog_prim hog_prims[] = {
	{ "trcu_sync", "trcu", "sync", synchronize_trcu },
	{ "trcu_bh_sync", "trcu_bh", "sync", synchronize_trcu_bh },
	{ "rcu_sync", "rcu", "sync", synchronize_rcu },
	{ "trcu_exp", "trcu", "exp", synchronize_trcu_expedited },
	{ "trcu_bh_exp", "trcu_bh", "exp", synchronize_trcu_bh_expedited },
	{ "rcu_exp", "rcu", "exp", synchronize_rcu_expedited },
	{ "trcu_cb", "trcu", "cb", NULL, call_trcu, trcu_barrier },
	{ "trcu_bh_cb", "trcu_bh", "cb", NULL, call_trcu_bh, trcu_barrier_bh },
	{ "rcu_cb", "rcu", "cb", NULL, call_rcu, rcu_barrier },
};

#define HOG_MAX_DRIVERS	16

struct hog_driver {
	const struct hog_prim *p;
	int cpu;
	struct task_struct *task;
	struct rcu_head rh;		/* op=cb: the one callback in flight */
	atomic_long_t invoked;		/* op=cb: callbacks run */
	unsigned long n;		/* calls completed */
	u64 max_ns;			/* longest completed call */
	u64 call_t0;			/* start of the call in progress, or 0 */
	bool done;			/* left its loop */
};

/* The probe: 1 ms sleeps, how late each wakeup came. */
struct hog_probe {
	struct task_struct *task;
	unsigned long n;
	u64 max_late_ns;
	bool done;
};

static struct hog_probe probe;
static struct hog_driver *drivers;
static int nr_drivers;
static bool hog_rate_stop;		/* drivers: leave the loop */
static bool hog_abort;			/* rmmod: every hog ends now */
static bool spin_done, irqsoff_done;
static struct task_struct *spin_task, *irqsoff_task, *report_task;

/* Sleep until ktime_get_ns() reaches @end or the kthread is stopped. */
static void hog_sleep_until(u64 end)
{
	u64 now;

	while (!kthread_should_stop()) {
		now = ktime_get_ns();
		if (now >= end)
			return;
		schedule_timeout_idle(min_t(u64, nsecs_to_jiffies(end - now) + 1,
					    HZ / 10));
	}
}

static void hog_cb(struct rcu_head *rh)
{
	struct hog_driver *d = container_of(rh, struct hog_driver, rh);

	atomic_long_inc(&d->invoked);
}

/* Park until rmmod. */
static void hog_park(void)
{
	for (;;) {
		set_current_state(TASK_IDLE);
		if (kthread_should_stop())
			break;
		schedule();
	}
	__set_current_state(TASK_RUNNING);
}

static int hog_rate_thread(void *arg)
{
	struct hog_driver *d = arg;
	u64 t0, dt;

	hog_sleep_until(ktime_get_ns() + (u64)rate_delay_ms * NSEC_PER_MSEC);
	while (!READ_ONCE(hog_rate_stop) && !kthread_should_stop()) {
		t0 = ktime_get_ns();
		WRITE_ONCE(d->call_t0, t0);
		if (d->p->sync) {
			d->p->sync();
		} else {
			d->p->call(&d->rh, hog_cb);
			d->p->wait_cbs();
		}
		dt = ktime_get_ns() - t0;
		if (dt > d->max_ns)
			WRITE_ONCE(d->max_ns, dt);
		WRITE_ONCE(d->n, d->n + 1);
		WRITE_ONCE(d->call_t0, 0);
		cond_resched();
	}
	/* Pairs with the report's acquire: the counts before done. */
	smp_store_release(&d->done, true);
	hog_park();
	return 0;
}

/*
 * SCHED_FIFO (sched_set_fifo(), priority 50): it preempts anything on its
 * CPU that can be preempted, so a late wakeup means that CPU ran with
 * preemption or irqs off (a sender spinning on an IPI, say) -- or that
 * the emulator gave it no time.
 */
static int hog_probe_thread(void *unused)
{
	u64 t0, late;

	sched_set_fifo(current);
	hog_sleep_until(ktime_get_ns() + (u64)rate_delay_ms * NSEC_PER_MSEC);
	while (!READ_ONCE(hog_rate_stop) && !kthread_should_stop()) {
		t0 = ktime_get_ns();
		usleep_range(1000, 1100);
		late = ktime_get_ns() - t0;
		late = late > NSEC_PER_MSEC ? late - NSEC_PER_MSEC : 0;
		if (late > probe.max_late_ns)
			WRITE_ONCE(probe.max_late_ns, late);
		WRITE_ONCE(probe.n, probe.n + 1);
	}
	/* Pairs with the report's acquire: the counts before done. */
	smp_store_release(&probe.done, true);
	hog_park();
	return 0;
}

/*
 * Spin as a SCHED_FIFO task, no resched point, in the spin_ctx context;
 * preemptible and count are sampled inside it.
 */
static int hog_spin_thread(void *unused)
{
	struct sched_attr attr = {
		.size = sizeof(attr),
		.sched_policy = SCHED_FIFO,
		.sched_priority = spin_prio,
	};
	unsigned long loops = 0;
	int err, pre = 0, cnt = 0;
	u64 end;

	err = sched_setattr_nocheck(current, &attr);
	if (err)
		pr_err("SPIN tag=%s cpu=%d: sched_setattr(FIFO %d) failed: %d\n",
		       tag, spin_cpu, spin_prio, err);
	if (!err) {
		if (hog_spin_ctx == HOG_CTX_NOPREEMPT)
			preempt_disable();
		else if (hog_spin_ctx == HOG_CTX_NOBH)
			local_bh_disable();
		pre = preemptible();
		cnt = preempt_count();
		end = ktime_get_ns() + (u64)spin_s * NSEC_PER_SEC;
		while (ktime_get_ns() < end && !READ_ONCE(hog_abort)) {
			cpu_relax();
			loops++;
		}
		if (hog_spin_ctx == HOG_CTX_NOPREEMPT)
			preempt_enable();
		else if (hog_spin_ctx == HOG_CTX_NOBH)
			local_bh_enable();
	}
	pr_info("SPIN tag=%s cpu=%d prio=%d secs=%d ctx=%s count=%#x loops=%lu preemptible=%d ran_on=%d err=%d\n",
		tag, spin_cpu, spin_prio, spin_s, hog_ctx_names[hog_spin_ctx],
		cnt, loops, pre, raw_smp_processor_id(), err);
	sched_set_normal(current, 0);
	/* Pairs with the report's acquire: the line printed before DONE. */
	smp_store_release(&spin_done, true);
	hog_park();
	return 0;
}

/* Irqs off for irqsoff_ms at a time; each stretch touches the watchdogs. */
static int hog_irqsoff_thread(void *unused)
{
	u64 end = ktime_get_ns() + (u64)irqsoff_s * NSEC_PER_SEC;
	u64 len = (u64)irqsoff_ms * NSEC_PER_MSEC, t0, t, max = 0;
	unsigned long n = 0, j0, dj, min_dj = ULONG_MAX;

	while (ktime_get_ns() < end && !READ_ONCE(hog_abort) &&
	       !kthread_should_stop()) {
		local_irq_disable();
		j0 = jiffies;
		t0 = ktime_get_ns();
		do {
			cpu_relax();
			t = ktime_get_ns() - t0;
		} while (t < len);
		/* Did another CPU keep jiffies going meanwhile? */
		dj = jiffies - j0;
		touch_nmi_watchdog();
		local_irq_enable();
		if (t > max)
			max = t;
		if (dj < min_dj)
			min_dj = dj;
		n++;
		hog_sleep_until(ktime_get_ns() +
				(u64)irqsoff_gap_ms * NSEC_PER_MSEC);
	}
	pr_info("IRQSOFF tag=%s cpu=%d ms=%d gap_ms=%d stretches=%lu max_ms=%llu min_jiffies=%lu\n",
		tag, irqsoff_cpu, irqsoff_ms, irqsoff_gap_ms, n,
		div_u64(max, NSEC_PER_MSEC), n ? min_dj : 0);
	/* Pairs with the report's acquire: the line printed before DONE. */
	smp_store_release(&irqsoff_done, true);
	hog_park();
	return 0;
}

static void hog_report_one(struct hog_driver *d, u64 now)
{
	/* Pairs with the driver's release: its final counts. */
	bool done = smp_load_acquire(&d->done);
	u64 max = READ_ONCE(d->max_ns), t0 = READ_ONCE(d->call_t0);
	unsigned long n = READ_ONCE(d->n);

	if (!done && t0 && now > t0 && now - t0 > max)
		max = now - t0;
	if (!d->p->sync)
		n = atomic_long_read(&d->invoked);
	pr_info("RATE tag=%s flavor=%s op=%s cpu=%d n=%lu max_us=%llu stuck=%d secs=%d\n",
		tag, d->p->flavor, d->p->op, d->cpu, n, div_u64(max, 1000),
		!done, rate_s);
}

/*
 * The reports, from a kthread of their own: a driver stuck in a call
 * cannot hold them up.  Each hog has ended by itself (or by rmmod)
 * before DONE.
 */
static int hog_report_thread(void *unused)
{
	u64 t0 = ktime_get_ns(), end;
	int i;

	if (nr_drivers) {
		hog_sleep_until(t0 + (u64)rate_delay_ms * NSEC_PER_MSEC +
				(u64)rate_s * NSEC_PER_SEC);
		WRITE_ONCE(hog_rate_stop, true);
		end = ktime_get_ns() + (u64)stuck_ms * NSEC_PER_MSEC;
		/* Acquire pairs with each driver's release of ->done. */
		for (i = 0; i < nr_drivers; i++)
			while (!smp_load_acquire(&drivers[i].done) &&
			       ktime_get_ns() < end && !kthread_should_stop())
				schedule_timeout_idle(1);
		for (i = 0; i < nr_drivers; i++)
			hog_report_one(&drivers[i], ktime_get_ns());
		if (probe.task)
			pr_info("PROBE tag=%s cpu=%d wakeups=%lu max_late_us=%llu done=%d\n",
				tag, probe_cpu, READ_ONCE(probe.n),
				div_u64(READ_ONCE(probe.max_late_ns), 1000),
				smp_load_acquire(&probe.done));
	}
	/* Acquires pair with the hogs' releases: their lines first. */
	while ((spin_task && !smp_load_acquire(&spin_done)) ||
	       (irqsoff_task && !smp_load_acquire(&irqsoff_done))) {
		if (kthread_should_stop())
			break;
		schedule_timeout_idle(HZ / 10);
	}
	pr_info("DONE tag=%s\n", tag);
	hog_park();
	return 0;
}

static bool hog_bad(const char *name, int val, int lo, int hi)
{
	if (val >= lo && val <= hi)
		return false;
	pr_err("invalid %s=%d: allowed range %d..%d\n", name, val, lo, hi);
	return true;
}

static bool hog_bad_cpu(const char *name, int cpu)
{
	if (cpu >= 0 && cpu < nr_cpu_ids && cpu_online(cpu))
		return false;
	pr_err("invalid %s=%d: not an online CPU\n", name, cpu);
	return true;
}

/* spin_ctx into hog_spin_ctx; true (and a line) if unknown or too long. */
static bool hog_bad_ctx(void)
{
	int i = match_string(hog_ctx_names, ARRAY_SIZE(hog_ctx_names), spin_ctx);

	if (i < 0) {
		pr_err("invalid spin_ctx=%s: want preempt, nopreempt or nobh\n",
		       spin_ctx);
		return true;
	}
	hog_spin_ctx = i;
	if (i != HOG_CTX_PREEMPT && spin_s > HOG_SPIN_OFF_MAX_S) {
		pr_err("invalid spin_s=%d: spin_ctx=%s allows 0..%d\n", spin_s,
		       spin_ctx, HOG_SPIN_OFF_MAX_S);
		return true;
	}
	return false;
}

static bool hog_bad_tag(void)
{
	size_t i, len = strlen(tag);

	if (len < 1 || len > 31)
		goto bad;
	for (i = 0; i < len; i++)
		if (!islower(tag[i]) && !isdigit(tag[i]) && tag[i] != '_' &&
		    tag[i] != '-')
			goto bad;
	return false;
bad:
	pr_err("invalid tag=%s: want 1..31 of [a-z0-9_-]\n", tag);
	return true;
}

/* rate_ops into drivers[]: PRIM[@CPU],...; false (and a line) if bad. */
static bool hog_parse_ops(void)
{
	char *buf, *s, *w, *at;
	size_t i;
	int cpu;
	bool ok = false;

	buf = kstrdup(rate_ops, GFP_KERNEL);
	if (!buf)
		return false;
	s = buf;
	while ((w = strsep(&s, ",")) != NULL) {
		if (!*w)
			continue;
		cpu = rate_cpu;
		at = strchr(w, '@');
		if (at) {
			*at++ = '\0';
			if (kstrtoint(at, 10, &cpu) || hog_bad_cpu("rate_ops CPU", cpu)) {
				pr_err("invalid rate_ops=%s: bad CPU '%s'\n", rate_ops, at);
				goto out;
			}
		}
		for (i = 0; i < ARRAY_SIZE(hog_prims); i++)
			if (!strcmp(w, hog_prims[i].name))
				break;
		if (i == ARRAY_SIZE(hog_prims)) {
			pr_err("invalid rate_ops=%s: unknown primitive '%s'\n", rate_ops, w);
			goto out;
		}
		if (nr_drivers == HOG_MAX_DRIVERS) {
			pr_err("invalid rate_ops=%s: more than %d drivers\n", rate_ops,
			       HOG_MAX_DRIVERS);
			goto out;
		}
		drivers[nr_drivers].p = &hog_prims[i];
		drivers[nr_drivers].cpu = cpu;
		atomic_long_set(&drivers[nr_drivers].invoked, 0);
		nr_drivers++;
	}
	ok = true;
out:
	kfree(buf);
	return ok;
}

static int hog_check_params(void)
{
	if (hog_bad_tag() ||
	    hog_bad("spin_s", spin_s, 0, 15) ||
	    hog_bad("spin_prio", spin_prio, 1, 99) ||
	    hog_bad_ctx() ||
	    hog_bad("irqsoff_s", irqsoff_s, 0, 600) ||
	    hog_bad("irqsoff_ms", irqsoff_ms, 1, 1500) ||
	    hog_bad("irqsoff_gap_ms", irqsoff_gap_ms, 1, 10000) ||
	    hog_bad("rate_s", rate_s, 0, 600) ||
	    hog_bad("rate_delay_ms", rate_delay_ms, 0, 60000) ||
	    hog_bad("stuck_ms", stuck_ms, 100, 60000))
		return -EINVAL;
	if ((spin_s && hog_bad_cpu("spin_cpu", spin_cpu)) ||
	    (irqsoff_s && hog_bad_cpu("irqsoff_cpu", irqsoff_cpu)) ||
	    (rate_s && hog_bad_cpu("rate_cpu", rate_cpu)) ||
	    (probe_cpu != -1 && hog_bad_cpu("probe_cpu", probe_cpu)))
		return -EINVAL;
	if (probe_cpu != -1 && !rate_s) {
		pr_err("invalid probe_cpu=%d: it runs in the rate window, set rate_s\n",
		       probe_cpu);
		return -EINVAL;
	}
	if (rate_s && !hog_parse_ops())
		return -EINVAL;
	if (rate_s && !nr_drivers) {
		pr_err("invalid rate_ops=%s: rate_s=%d needs at least one primitive\n",
		       rate_ops, rate_s);
		return -EINVAL;
	}
	if (!rate_s && *rate_ops) {
		pr_err("invalid rate_ops=%s: set rate_s too\n", rate_ops);
		return -EINVAL;
	}
	if (!spin_s && !irqsoff_s && !rate_s) {
		pr_err("nothing to do: set spin_s, irqsoff_s or rate_s\n");
		return -EINVAL;
	}
	return 0;
}

/* A kthread of @fn bound to @cpu, or unbound if @cpu < 0; running. */
static struct task_struct *hog_start(int (*fn)(void *), void *arg, int cpu,
				     const char *what)
{
	struct task_struct *t;

	t = kthread_create(fn, arg, "trcuhog_%s", what);
	if (IS_ERR(t)) {
		pr_err("cannot start the %s kthread: %ld\n", what, PTR_ERR(t));
		return t;
	}
	if (cpu >= 0)
		kthread_bind(t, cpu);
	wake_up_process(t);
	return t;
}

static void hog_stop_all(void)
{
	int i;

	WRITE_ONCE(hog_abort, true);
	WRITE_ONCE(hog_rate_stop, true);
	if (report_task)
		kthread_stop(report_task);
	for (i = 0; i < nr_drivers; i++)
		if (drivers[i].task)
			kthread_stop(drivers[i].task);
	if (probe.task)
		kthread_stop(probe.task);
	probe.task = NULL;
	if (spin_task)
		kthread_stop(spin_task);
	if (irqsoff_task)
		kthread_stop(irqsoff_task);
	report_task = NULL;
	spin_task = NULL;
	irqsoff_task = NULL;
	kfree(drivers);
	drivers = NULL;
}

static int __init trcuhog_init(void)
{
	struct task_struct *t;
	int i, err;

	drivers = kcalloc(HOG_MAX_DRIVERS, sizeof(*drivers), GFP_KERNEL);
	if (!drivers)
		return -ENOMEM;
	err = hog_check_params();
	if (err) {
		kfree(drivers);
		drivers = NULL;
		return err;
	}
	for (i = 0; i < nr_drivers; i++) {
		t = hog_start(hog_rate_thread, &drivers[i], drivers[i].cpu, "rate");
		if (IS_ERR(t))
			goto fail;
		drivers[i].task = t;
	}
	if (probe_cpu != -1) {
		t = hog_start(hog_probe_thread, NULL, probe_cpu, "probe");
		if (IS_ERR(t))
			goto fail;
		probe.task = t;
	}
	if (spin_s) {
		t = hog_start(hog_spin_thread, NULL, spin_cpu, "spin");
		if (IS_ERR(t))
			goto fail;
		spin_task = t;
	}
	if (irqsoff_s) {
		t = hog_start(hog_irqsoff_thread, NULL, irqsoff_cpu, "irqsoff");
		if (IS_ERR(t))
			goto fail;
		irqsoff_task = t;
	}
	t = hog_start(hog_report_thread, NULL, -1, "report");
	if (IS_ERR(t))
		goto fail;
	report_task = t;
	pr_info("START tag=%s rate_ops=%s rate_s=%d spin_s=%d irqsoff_s=%d\n",
		tag, rate_s ? rate_ops : "-", rate_s, spin_s, irqsoff_s);
	return 0;
fail:
	hog_stop_all();
	return PTR_ERR(t);
}

static void __exit trcuhog_exit(void)
{
	hog_stop_all();
}

module_init(trcuhog_init);
module_exit(trcuhog_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("CPU hogs and grace-period rate drivers for trcu's liveness scenarios");
