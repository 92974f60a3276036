// SPDX-License-Identifier: GPL-2.0
/*
 * trcuscale: measure trcu against the kernel's own RCU and SRCU, for
 * `make bench` (scripts/bench.sh, guest/tests/bench.sh).  Each load runs
 * one test for one flavour synchronously inside module init, prints one
 * or more machine-readable lines
 *
 *   trcuscale: RESULT test=<t> flavor=<f> tag=<tag> key=value ...
 *
 * (test=gp also prints its raw latencies, sorted, on SAMPLES lines that
 * bench-report.py resamples for a confidence interval of the ratio).
 * and returns 0 (the guest script then unloads it).  A test that cannot
 * run (a flavour whose module is not loaded, a bad parameter) fails the
 * load with an error, never with a slow result.
 *
 * Tests (test=):
 *   read    ns per read-side lock/unlock pair, loops pairs per CPU in a
 *           kthread on every online CPU, irqs off around each timed chunk
 *           (bh flavours: irqs on, see trcuscale_read_chunk()); flavor=all
 *           interleaves floor, trcu, trcu_bh, rcu, rcu_bh, srcu chunks.
 *   gp      ncalls synchronize_*() on updater_cpu: median/p90/p99 latency;
 *           busy=1 adds a reader kthread on every CPU.
 *   cb      call_*() flood from updater_cpu for duration_ms: callbacks
 *           invoked per second, peak outstanding, peak memory; busy=1
 *           adds the reader kthreads of gp busy=1.
 *   ctxsw   context-switch ping-pong of two kthreads on ctx_cpu: ns per
 *           round trip (two switches): trcu's sched_switch hook tax.
 *   ipi     synchronous IPIs from updater_cpu to ctx_cpu (idle; a self-IPI
 *           when they are the same CPU): ns per IPI: trcu's irq-entry
 *           and idle-loop hook tax.
 *
 * The flavours are the ops tables the torture uses (flavors.c,
 * flavors_rcu.c); this file knows them only by name.  Two modules link it:
 * trcuscale.ko (scale_trcu.c: every flavour, needs trcu.ko loaded) and
 * trcuscale_base.ko (scale_base.c: flavors_rcu.c's only, no reference to
 * trcu.ko), so the hook-tax and energy tests measure the same boot before
 * trcu is loaded and after.
 */
#define pr_fmt(fmt) "trcuscale: " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/kthread.h>
#include <linux/delay.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/ktime.h>
#include <linux/sched.h>
#include <linux/smp.h>
#include <linux/irq_work.h>
#include <linux/cpumask.h>
#include <linux/completion.h>
#include <linux/rcupdate.h>
#include <linux/atomic.h>
#include <linux/ctype.h>

#include "torture.h"
#include "scale.h"

static char *test = "read";
module_param(test, charp, 0444);
MODULE_PARM_DESC(test, "read|gp|cb|ctxsw|ipi");

static char *flavor = "trcu";
module_param(flavor, charp, 0444);
MODULE_PARM_DESC(flavor,
		 "trcu|trcu_bh|rcu|rcu_bh|srcu|floor|trcu_exp|rcu_exp|all (read: interleaved)");

static char *tag = "-";
module_param(tag, charp, 0444);
MODULE_PARM_DESC(tag, "Label copied into the RESULT lines ([a-z0-9_-], 1..31)");

static ulong loops = 10000000;
module_param(loops, ulong, 0444);
MODULE_PARM_DESC(loops, "read: lock/unlock pairs per CPU (1000..10^10); ctxsw/ipi: rounds (100..10^8)");

static int ncalls = 200;
module_param(ncalls, int, 0444);
MODULE_PARM_DESC(ncalls, "gp: synchronize calls (1..100000)");

static int busy;
module_param(busy, int, 0444);
MODULE_PARM_DESC(busy, "gp, cb: 1 = reader kthread on every CPU (0/1)");

static int updater_cpu;
module_param(updater_cpu, int, 0444);
MODULE_PARM_DESC(updater_cpu, "CPU of the gp/cb/ipi updater kthread (online CPU)");

static int ctx_cpu = 1;
module_param(ctx_cpu, int, 0444);
MODULE_PARM_DESC(ctx_cpu, "ctxsw: CPU of the ping-pong; ipi: target CPU (online CPU)");

static int duration_ms = 2000;
module_param(duration_ms, int, 0444);
MODULE_PARM_DESC(duration_ms, "cb: flood duration, ms (100..600000)");

static long cb_max = 1000000;
module_param(cb_max, long, 0444);
MODULE_PARM_DESC(cb_max, "cb: outstanding callbacks at which posting pauses (1000..10^8)");

/*
 * The flavours the benchmarks accept, by their ops tables' names.
 * flavor=all (read only) interleaves those with a readsection(), in this
 * order; a test takes a flavour only if it has the ops the test needs.
 */
static const char * const flavor_names[] = {
	"floor", "trcu", "trcu_bh", "rcu", "rcu_bh", "srcu",
	"trcu_exp", "rcu_exp",
};
#define F_NR	ARRAY_SIZE(flavor_names)
#define F_ALL	(-1)

/* flavor_names[i]'s ops, as the module's lookup found them (or NULL). */
static const struct trcu_torture_ops *fops[F_NR];

enum ttest { T_READ, T_GP, T_CB, T_CTXSW, T_IPI, T_NR };
static const char * const test_names[T_NR] = {
	"read", "gp", "cb", "ctxsw", "ipi",
};

static int fl;				/* index in flavor_names[] or F_ALL */
static enum ttest tt;

/* ---- read side --------------------------------------------------------- */

#define TRCUSCALE_CHUNK	100000UL

/*
 * Time @n pairs of flavour @f on this CPU.  Irqs are off around the timed
 * loop, as in the kernel's refscale, so that interrupts do not land in
 * it -- except for the bh flavours, whose readers must end with irqs on
 * (local_bh_enable() may run softirqs, which enable irqs; trcu.h's
 * contract, as rcu_read_lock_bh()'s).  Those two are timed with irqs on;
 * both bh flavours alike, so their ratio holds.
 * The loop itself is the flavour's readsection(): one indirect call per
 * chunk, none per pair.
 */
static u64 trcuscale_read_chunk(int f, unsigned long n)
{
	unsigned long flags = 0;
	bool irqoff = !fops[f]->bh_readers;
	u64 t0, t1;

	if (irqoff)
		local_irq_save(flags);
	t0 = ktime_get_ns();
	fops[f]->readsection(n);
	t1 = ktime_get_ns();
	if (irqoff)
		local_irq_restore(flags);
	return t1 - t0;
}

struct trcuscale_cpu {
	struct task_struct *task;
	u64 ns[F_NR];			/* read: total timed ns per flavour */
	struct completion done;
};

static struct trcuscale_cpu *tcpu;	/* nr_cpu_ids entries */
static void trcuscale_wait(struct completion *c);
static atomic_t read_ready;
static wait_queue_head_t read_wq;
static bool read_go;

/*
 * flavor=all runs one chunk of each flavour in turn, so that a change in
 * load over time (other vCPUs, the host running other guests: TCG time
 * is shared) hits every flavour alike and their ratios stay meaningful.
 */
static int trcuscale_read_thread(void *arg)
{
	struct trcuscale_cpu *c = arg;
	unsigned long left = loops, n;
	int i;

	/* Start together, so every CPU measures under the same load. */
	atomic_inc(&read_ready);
	wait_event(read_wq, READ_ONCE(read_go));
	while (left) {
		n = min(left, TRCUSCALE_CHUNK);
		if (fl == F_ALL) {
			for (i = 0; i < F_NR; i++)
				if (fops[i]->readsection)
					c->ns[i] += trcuscale_read_chunk(i, n);
		} else {
			c->ns[fl] += trcuscale_read_chunk(fl, n);
		}
		left -= n;
		cond_resched();
	}
	complete(&c->done);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(HZ / 10);
	return 0;
}

/* Print "<int>.<3 decimals>" of @num / @den into @buf. */
static void trcuscale_fmt(char *buf, size_t len, u64 num, u64 den)
{
	u64 m = den ? div64_u64(num * 1000, den) : 0;

	snprintf(buf, len, "%llu.%03llu", m / 1000, m % 1000);
}

/* One RESULT line for read-side flavour @f over the @n CPUs. */
static void trcuscale_read_report(int f, int n)
{
	u64 sum = 0, mn = U64_MAX, mx = 0;
	char avg[32], smin[32], smax[32];
	int cpu;

	for_each_online_cpu(cpu) {
		u64 ns = tcpu[cpu].ns[f];

		sum += ns;
		mn = min(mn, ns);
		mx = max(mx, ns);
	}
	trcuscale_fmt(avg, sizeof(avg), sum, (u64)loops * n);
	trcuscale_fmt(smin, sizeof(smin), mn, loops);
	trcuscale_fmt(smax, sizeof(smax), mx, loops);
	pr_info("RESULT test=read flavor=%s tag=%s cpus=%d loops=%lu irqs=%s mode=%s ns=%s min=%s max=%s\n",
		flavor_names[f], tag, n, loops,
		fops[f]->bh_readers ? "on" : "off",
		fl == F_ALL ? "interleaved" : "alone", avg, smin, smax);
}

static int trcuscale_test_read(void)
{
	int cpu, i, n = 0, ret = 0;

	init_waitqueue_head(&read_wq);
	atomic_set(&read_ready, 0);
	read_go = false;
	for_each_online_cpu(cpu) {
		struct trcuscale_cpu *c = &tcpu[cpu];

		init_completion(&c->done);
		c->task = kthread_create_on_cpu(trcuscale_read_thread, c, cpu,
						"trcuscale_r/%u");
		if (IS_ERR(c->task)) {
			ret = PTR_ERR(c->task);
			c->task = NULL;
			pr_err("reader kthread on CPU %d: %d\n", cpu, ret);
			break;
		}
		wake_up_process(c->task);
		n++;
	}
	if (!ret) {
		while (atomic_read(&read_ready) < n)
			schedule_timeout_uninterruptible(1);
		WRITE_ONCE(read_go, true);
		wake_up_all(&read_wq);
	} else {
		WRITE_ONCE(read_go, true);
		wake_up_all(&read_wq);
	}
	for_each_online_cpu(cpu) {
		struct trcuscale_cpu *c = &tcpu[cpu];

		if (!c->task)
			continue;
		trcuscale_wait(&c->done);
		kthread_stop(c->task);
		c->task = NULL;
	}
	if (ret)
		return ret;
	if (fl != F_ALL) {
		trcuscale_read_report(fl, n);
		return 0;
	}
	for (i = 0; i < F_NR; i++)
		if (fops[i]->readsection)
			trcuscale_read_report(i, n);
	return 0;
}

/* ---- update side ------------------------------------------------------- */

/* Busy readers for gp busy=1: short sections of the flavour, back to back. */
static bool busy_stop;

/*
 * Some work inside each section: a 1,000-step loop, a microsecond or less.
 * Not udelay(): its spin executes PAUSE, and QEMU's single-threaded TCG
 * hands the host thread to the next vCPU at every PAUSE, so each section
 * cost a whole round of every busy vCPU.  A reader then reached its
 * cond_resched() (every 64 sections) once per 64 rounds, and the busy
 * rows timed that emulator effect: 2.5-5 s per GP at 16-32 vCPUs for
 * trcu and rcu alike.
 */
static noinline unsigned long trcuscale_busy_work(unsigned long x)
{
	int j;

	for (j = 0; j < 1000; j++) {
		x += j;
		barrier();	/* keeps the loop: it has no other effect */
	}
	return x;
}

static int trcuscale_busy_thread(void *arg)
{
	const struct trcu_torture_ops *ops = fops[fl];
	unsigned long i = 0, x = 0;
	int idx;

	while (!READ_ONCE(busy_stop)) {
		idx = ops->readlock();
		x = trcuscale_busy_work(x);
		ops->readunlock(idx);
		/* A CPU-bound kernel loop, polite as kernel code must be. */
		if (!(++i & 63))
			cond_resched();
	}
	while (!kthread_should_stop())
		schedule_timeout_interruptible(HZ / 10);
	return 0;
}

static void trcuscale_busy_start(void)
{
	int cpu;

	WRITE_ONCE(busy_stop, false);
	for_each_online_cpu(cpu) {
		struct task_struct *t;

		t = kthread_create_on_cpu(trcuscale_busy_thread, NULL, cpu,
					  "trcuscale_b/%u");
		if (IS_ERR(t)) {
			tcpu[cpu].task = NULL;
			continue;
		}
		tcpu[cpu].task = t;
		wake_up_process(t);
	}
}

static void trcuscale_busy_stop(void)
{
	int cpu;

	WRITE_ONCE(busy_stop, true);
	for_each_online_cpu(cpu) {
		if (tcpu[cpu].task)
			kthread_stop(tcpu[cpu].task);
		tcpu[cpu].task = NULL;
	}
}

static int trcuscale_cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* Runs the updater work of gp and cb on updater_cpu; result in ->ret. */
struct trcuscale_job {
	int (*fn)(void);
	int ret;
	struct completion done;
};

/*
 * Wait for @c in slices: a busy guest under TCG can keep insmod waiting
 * for minutes, and the hung-task detector reports a task that sleeps
 * uninterruptibly for 120 s without ever being scheduled.
 */
static void trcuscale_wait(struct completion *c)
{
	while (!wait_for_completion_timeout(c, 10 * HZ))
		;
}

static int trcuscale_job_thread(void *arg)
{
	struct trcuscale_job *job = arg;

	job->ret = job->fn();
	complete(&job->done);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(HZ / 10);
	return 0;
}

static int trcuscale_on_cpu(int cpu, int (*fn)(void))
{
	struct trcuscale_job job = { .fn = fn };
	struct task_struct *t;

	init_completion(&job.done);
	t = kthread_create_on_cpu(trcuscale_job_thread, &job, cpu,
				  "trcuscale_u/%u");
	if (IS_ERR(t))
		return PTR_ERR(t);
	wake_up_process(t);
	trcuscale_wait(&job.done);
	kthread_stop(t);
	return job.ret;
}

/* Value at fraction @pm per mille of the sorted @v[0..n-1]. */
static u64 trcuscale_pct(u64 *v, int n, int pm)
{
	int i = (int)(((long)n * pm) / 1000);

	return v[min(i, n - 1)];
}

/*
 * The sorted latencies @lat[0..n-1] in microseconds, SAMPLES_PER_LINE to
 * a line so that each stays far below printk's line limit:
 *
 *   trcuscale: SAMPLES test=gp flavor=<f> tag=<tag> us=<a>,<b>,...
 *
 * The median alone cannot say whether trcu/rcu = 0.9 from 20 calls is
 * below 1.0 or noise; the report bootstraps the ratio from these.
 */
#define SAMPLES_PER_LINE 32
static void trcuscale_gp_samples(const u64 *lat, int n)
{
	char buf[SAMPLES_PER_LINE * 12 + 1];
	int i, len = 0;

	for (i = 0; i < n; i++) {
		len += scnprintf(buf + len, sizeof(buf) - len, "%s%llu",
				 len ? "," : "", div_u64(lat[i], 1000));
		if (i % SAMPLES_PER_LINE == SAMPLES_PER_LINE - 1 || i == n - 1) {
			pr_info("SAMPLES test=gp flavor=%s tag=%s us=%s\n",
				flavor_names[fl], tag, buf);
			len = 0;
		}
	}
}

static int trcuscale_gp_work(void)
{
	u64 *lat, t0, t1, sum = 0, wall0;
	int i;

	lat = kcalloc(ncalls, sizeof(*lat), GFP_KERNEL);
	if (!lat)
		return -ENOMEM;
	/* One call outside the timing: first-use costs (kthreads waking). */
	fops[fl]->sync();
	wall0 = ktime_get_ns();
	for (i = 0; i < ncalls; i++) {
		t0 = ktime_get_ns();
		fops[fl]->sync();
		t1 = ktime_get_ns();
		lat[i] = t1 - t0;
		sum += lat[i];
	}
	t1 = ktime_get_ns() - wall0;
	sort(lat, ncalls, sizeof(*lat), trcuscale_cmp_u64, NULL);
	pr_info("RESULT test=gp flavor=%s tag=%s busy=%d cpus=%d calls=%d med_us=%llu p90_us=%llu p99_us=%llu mean_us=%llu max_us=%llu wall_ms=%llu\n",
		flavor_names[fl], tag, busy, num_online_cpus(), ncalls,
		div_u64(trcuscale_pct(lat, ncalls, 500), 1000),
		div_u64(trcuscale_pct(lat, ncalls, 900), 1000),
		div_u64(trcuscale_pct(lat, ncalls, 990), 1000),
		div_u64(div_u64(sum, ncalls), 1000),
		div_u64(lat[ncalls - 1], 1000), div_u64(t1, NSEC_PER_MSEC));
	trcuscale_gp_samples(lat, ncalls);
	kfree(lat);
	return 0;
}

static int trcuscale_test_gp(void)
{
	int ret;

	if (busy)
		trcuscale_busy_start();
	ret = trcuscale_on_cpu(updater_cpu, trcuscale_gp_work);
	if (busy)
		trcuscale_busy_stop();
	return ret;
}

/* ---- callback flood ---------------------------------------------------- */

static atomic_long_t cb_invoked;

static void trcuscale_cb_free(struct rcu_head *h)
{
	kfree(h);
	atomic_long_inc(&cb_invoked);
}

static int trcuscale_cb_work(void)
{
	long posted = 0, out, peak = 0, inv_window;
	unsigned long pauses = 0;
	u64 t0, tend, t1, tb;
	size_t objsz = 0;
	struct rcu_head *h;

	atomic_long_set(&cb_invoked, 0);
	t0 = ktime_get_ns();
	tend = t0 + (u64)duration_ms * NSEC_PER_MSEC;
	while (ktime_get_ns() < tend) {
		out = posted - atomic_long_read(&cb_invoked);
		if (out > peak)
			peak = out;
		if (out >= cb_max) {
			/* Bounded: let the flavour catch up. */
			pauses++;
			schedule_timeout_uninterruptible(1);
			continue;
		}
		h = kmalloc(sizeof(*h), GFP_KERNEL);
		if (!h) {
			pauses++;
			schedule_timeout_uninterruptible(1);
			continue;
		}
		if (!objsz)
			objsz = ksize(h);
		fops[fl]->call(h, trcuscale_cb_free);
		posted++;
		if (!(posted & 255))
			cond_resched();
	}
	t1 = ktime_get_ns();
	inv_window = atomic_long_read(&cb_invoked);
	fops[fl]->cb_barrier();
	tb = ktime_get_ns();
	pr_info("RESULT test=cb flavor=%s tag=%s busy=%d cpus=%d ms=%llu posted=%ld invoked=%ld posted_per_s=%llu invoked_per_s=%llu peak_out=%ld peak_kb=%llu pauses=%lu barrier_ms=%llu\n",
		flavor_names[fl], tag, busy, num_online_cpus(),
		div_u64(t1 - t0, NSEC_PER_MSEC), posted, inv_window,
		div64_u64((u64)posted * NSEC_PER_SEC, t1 - t0),
		div64_u64((u64)inv_window * NSEC_PER_SEC, t1 - t0),
		peak, div_u64((u64)peak * objsz, 1024), pauses,
		div_u64(tb - t1, NSEC_PER_MSEC));
	if (atomic_long_read(&cb_invoked) != posted) {
		pr_err("cb: %ld posted, %ld invoked after the barrier\n",
		       posted, atomic_long_read(&cb_invoked));
		return -EIO;
	}
	return 0;
}

/* ---- hook tax: context switches and interrupts -------------------------- */

static struct completion ping, pong;
static bool pp_stop;

static int trcuscale_pong_thread(void *arg)
{
	for (;;) {
		wait_for_completion(&ping);
		if (READ_ONCE(pp_stop))
			break;
		complete(&pong);
	}
	while (!kthread_should_stop())
		schedule_timeout_interruptible(HZ / 10);
	return 0;
}

static unsigned long tax_rounds;

static int trcuscale_ctxsw_work(void)
{
	struct task_struct *t;
	unsigned long i;
	u64 t0, t1;
	char buf[32];

	init_completion(&ping);
	init_completion(&pong);
	WRITE_ONCE(pp_stop, false);
	t = kthread_create_on_cpu(trcuscale_pong_thread, NULL, ctx_cpu,
				  "trcuscale_p/%u");
	if (IS_ERR(t))
		return PTR_ERR(t);
	wake_up_process(t);
	/* Warm up, then time: each round is two context switches. */
	for (i = 0; i < 100; i++) {
		complete(&ping);
		wait_for_completion(&pong);
	}
	t0 = ktime_get_ns();
	for (i = 0; i < tax_rounds; i++) {
		complete(&ping);
		wait_for_completion(&pong);
	}
	t1 = ktime_get_ns();
	WRITE_ONCE(pp_stop, true);
	complete(&ping);
	kthread_stop(t);
	trcuscale_fmt(buf, sizeof(buf), t1 - t0, tax_rounds);
	pr_info("RESULT test=ctxsw flavor=%s tag=%s cpu=%d rounds=%lu ns=%s\n",
		flavor, tag, ctx_cpu, tax_rounds, buf);
	return 0;
}

static void trcuscale_ipi_noop(void *info)
{
}

static void trcuscale_irq_work_noop(struct irq_work *w)
{
}

/*
 * One interrupt to @ctx_cpu and back.  To another CPU: a synchronous
 * function-call IPI.  To this CPU (ctx_cpu == updater_cpu, the only choice
 * on one vCPU, which is what QEMU's instruction counting boots): an
 * irq_work, which x86 raises as a self-IPI, and waiting until it has run.
 * Either way the target goes through irq entry and exit, where trcu's
 * hooks are.
 */
static void trcuscale_ipi_once(struct irq_work *self)
{
	if (self) {
		irq_work_queue(self);
		irq_work_sync(self);
	} else {
		smp_call_function_single(ctx_cpu, trcuscale_ipi_noop, NULL, 1);
	}
}

static int trcuscale_ipi_work(void)
{
	struct irq_work self_iw = IRQ_WORK_INIT_HARD(trcuscale_irq_work_noop);
	struct irq_work *self = ctx_cpu == updater_cpu ? &self_iw : NULL;
	unsigned long i;
	u64 t0, t1;
	char buf[32];

	for (i = 0; i < 100; i++)
		trcuscale_ipi_once(self);
	t0 = ktime_get_ns();
	for (i = 0; i < tax_rounds; i++) {
		trcuscale_ipi_once(self);
		if (!(i & 1023))
			cond_resched();
	}
	t1 = ktime_get_ns();
	trcuscale_fmt(buf, sizeof(buf), t1 - t0, tax_rounds);
	pr_info("RESULT test=ipi flavor=%s tag=%s from=%d cpu=%d rounds=%lu ns=%s\n",
		flavor, tag, updater_cpu, ctx_cpu, tax_rounds, buf);
	return 0;
}

/* ---- parameters, init -------------------------------------------------- */

static int trcuscale_lookup(const char *s, const char * const *names, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(s, names[i]))
			return i;
	return -1;
}

static bool trcuscale_tag_ok(const char *s)
{
	size_t i, len = strlen(s);

	if (len < 1 || len > 31)
		return false;
	for (i = 0; i < len; i++)
		if (!islower(s[i]) && !isdigit(s[i]) && s[i] != '_' &&
		    s[i] != '-')
			return false;
	return true;
}

static int trcuscale_check_params(void)
{
	int i;

	i = trcuscale_lookup(test, test_names, T_NR);
	if (i < 0) {
		pr_err("invalid test=%s: allowed read|gp|cb|ctxsw|ipi\n", test);
		return -EINVAL;
	}
	tt = i;
	i = trcuscale_lookup(flavor, flavor_names, F_NR);
	if (i < 0 && strcmp(flavor, "all")) {
		pr_err("invalid flavor=%s: allowed trcu|trcu_bh|rcu|rcu_bh|srcu|floor|trcu_exp|rcu_exp|all\n",
		       flavor);
		return -EINVAL;
	}
	fl = i < 0 ? F_ALL : i;
	if (!trcuscale_tag_ok(tag)) {
		pr_err("invalid tag: allowed 1..31 of [a-z0-9_-]\n");
		return -EINVAL;
	}
	if (tt == T_READ && (loops < 1000 || loops > 10000000000UL)) {
		pr_err("invalid loops=%lu: allowed range 1000..10000000000\n",
		       loops);
		return -EINVAL;
	}
	if ((tt == T_CTXSW || tt == T_IPI) && (loops < 100 || loops > 100000000)) {
		pr_err("invalid loops=%lu: allowed range 100..100000000 for %s\n",
		       loops, test);
		return -EINVAL;
	}
	if (ncalls < 1 || ncalls > 100000) {
		pr_err("invalid ncalls=%d: allowed range 1..100000\n", ncalls);
		return -EINVAL;
	}
	if (busy < 0 || busy > 1) {
		pr_err("invalid busy=%d: allowed range 0..1\n", busy);
		return -EINVAL;
	}
	if (updater_cpu < 0 || updater_cpu >= nr_cpu_ids ||
	    !cpu_online(updater_cpu)) {
		pr_err("invalid updater_cpu=%d: must be an online CPU\n",
		       updater_cpu);
		return -EINVAL;
	}
	if ((tt == T_CTXSW || tt == T_IPI) &&
	    (ctx_cpu < 0 || ctx_cpu >= nr_cpu_ids || !cpu_online(ctx_cpu))) {
		pr_err("invalid ctx_cpu=%d: must be an online CPU\n", ctx_cpu);
		return -EINVAL;
	}
	if (duration_ms < 100 || duration_ms > 600000) {
		pr_err("invalid duration_ms=%d: allowed range 100..600000\n",
		       duration_ms);
		return -EINVAL;
	}
	if (cb_max < 1000 || cb_max > 100000000) {
		pr_err("invalid cb_max=%ld: allowed range 1000..100000000\n",
		       cb_max);
		return -EINVAL;
	}
	if (tt != T_READ && fl == F_ALL) {
		pr_err("invalid flavor=%s for test=%s\n", flavor, test);
		return -EINVAL;
	}
	return 0;
}

/* Does flavour @ops have what test @tt calls? */
static bool trcuscale_flavor_can(const struct trcu_torture_ops *ops)
{
	switch (tt) {
	case T_READ:
		return ops->readsection;
	case T_GP:
		return ops->sync;
	case T_CB:
		return ops->call && ops->cb_barrier;
	default:
		return true;
	}
}

static bool finit[F_NR];		/* fops[i]->init() done */

static void trcuscale_flavors_put(void)
{
	int i;

	for (i = 0; i < F_NR; i++) {
		if (finit[i] && fops[i]->cleanup)
			fops[i]->cleanup();
		finit[i] = false;
		fops[i] = NULL;
	}
}

/*
 * Look up the flavour(s) the test measures with the module's @find, and
 * set them up.  A flavour @find does not know is one this module cannot
 * reach: trcuscale_base.ko has no trcu flavours.
 */
static int trcuscale_flavors_get(const struct trcu_torture_ops *(*find)(const char *name))
{
	int i, ret;

	for (i = 0; i < F_NR; i++) {
		if (fl != F_ALL && i != fl)
			continue;
		fops[i] = find(flavor_names[i]);
		if (!fops[i]) {
			pr_err("flavor=%s needs trcuscale.ko (and trcu.ko loaded), not trcuscale_base.ko\n",
			       flavor_names[i]);
			return -ENOENT;
		}
	}
	if (fl != F_ALL && !trcuscale_flavor_can(fops[fl])) {
		pr_err("invalid flavor=%s for test=%s\n", flavor, test);
		return -EINVAL;
	}
	for (i = 0; i < F_NR; i++) {
		if (!fops[i] || !trcuscale_flavor_can(fops[i]))
			continue;
		if (fops[i]->init) {
			ret = fops[i]->init();
			if (ret) {
				pr_err("flavor=%s: init failed: %d\n",
				       flavor_names[i], ret);
				return ret;
			}
		}
		finit[i] = true;
	}
	return 0;
}

int __init trcuscale_run(const struct trcu_torture_ops *(*find)(const char *name))
{
	int ret;

	ret = trcuscale_check_params();
	if (ret)
		return ret;
	/* ctxsw and ipi involve no flavour: flavor= only labels their lines. */
	if (tt != T_CTXSW && tt != T_IPI) {
		ret = trcuscale_flavors_get(find);
		if (ret)
			goto out;
	}
	tcpu = kcalloc(nr_cpu_ids, sizeof(*tcpu), GFP_KERNEL);
	if (!tcpu) {
		ret = -ENOMEM;
		goto out;
	}
	tax_rounds = loops;
	/*
	 * No cpus_read_lock() here: rcu_barrier() and trcu_barrier() take
	 * it themselves.  The bench guest does no CPU hotplug.
	 */
	switch (tt) {
	case T_READ:
		ret = trcuscale_test_read();
		break;
	case T_GP:
		ret = trcuscale_test_gp();
		break;
	case T_CB:
		if (busy)
			trcuscale_busy_start();
		ret = trcuscale_on_cpu(updater_cpu, trcuscale_cb_work);
		if (busy)
			trcuscale_busy_stop();
		break;
	case T_CTXSW:
		/* Both ping-pong kthreads on ctx_cpu: every wakeup switches. */
		ret = trcuscale_on_cpu(ctx_cpu, trcuscale_ctxsw_work);
		break;
	default:
		ret = trcuscale_on_cpu(updater_cpu, trcuscale_ipi_work);
		break;
	}
	kfree(tcpu);
	tcpu = NULL;
out:
	/* Every callback was waited for: the flavours can go. */
	trcuscale_flavors_put();
	return ret;
}
