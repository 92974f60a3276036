// SPDX-License-Identifier: GPL-2.0
/*
 * trcutorture readers: kthreads (one per CPU but CPU 0 where possible),
 * each optionally with a pinned timer (irqreader), run read-side critical
 * sections on the current element (tt_read_one(), also used by the NMI
 * readers of stress.c) and record what they saw: the element's age
 * ("Reader Pipe"), the GPs completed meanwhile ("Reader Batch") and, for
 * flavours with polled GPs, whether a GP that began inside the section
 * also ended there.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/delay.h>
#include <linux/slab.h>
#include <linux/timer.h>
#include <linux/cpumask.h>
#include <linux/random.h>
#include <linux/ktime.h>
#include <linux/math64.h>

#include "torture.h"

/* Flavour and parameters from main.c, copied by tt_readers_start(). */
static struct tt_config tt_cfg;

static DEFINE_PER_CPU(long[TT_PIPE_LEN + 1], tt_pipe_count);
static DEFINE_PER_CPU(long[TT_PIPE_LEN + 1], tt_batch_count);
static atomic_long_t tt_ntimers;		/* timer-context reads */
static atomic_long_t tt_ntimers_idle;		/* ... that interrupted the idle task */
static atomic_t tt_gp_under_reader;		/* polled GP ended inside a reader */
static atomic_t tt_mberror;			/* rtmbe: freed/recycled element seen */
static atomic_long_t tt_nlong;			/* long_reads sections run */
static atomic64_t tt_nlong_ns;			/* ... and their total length */

struct tt_reader {
	struct timer_list timer;	/* irqreader: timer-context reads */
	bool pausing;			/* kthread sleeping: timer re-arms itself */
	struct tt_rnd rnd;		/* the kthread's */
	struct tt_rnd trnd;		/* the timer's */
};

static struct tt_reader *tt_readers;

/*
 * Busy-wait @us microseconds of guest clock time.  Not udelay(): in the
 * TCG guest it returns early (EXP-BH, 7 readers, 21 s: 372668 sections
 * of 1.6 ms asked on average, so at most 0.4 ms each), while this loop
 * gave 29850 sections of 4.0 ms on average (a descheduled vCPU's time
 * counts too).
 */
static void tt_read_spin_us(unsigned int us)
{
	u64 t0 = ktime_get_ns(), t;

	do {
		cpu_relax();
		t = ktime_get_ns();
	} while (t - t0 < (u64)us * NSEC_PER_USEC);
	atomic_long_inc(&tt_nlong);
	atomic64_add(t - t0, &tt_nlong_ns);
}

/*
 * Delay inside a read-side critical section: mostly nothing, sometimes
 * 200 us (so grace periods must wait for readers), rarely 100 ms (so the
 * engine must force quiescent states around a long reader), and with
 * long_reads=N 100 us..2 ms in 1 of N kthread reads.  Readers of
 * non-sleepable flavours spin; SRCU readers sleep for the long delay.
 */
static void tt_read_delay(struct tt_rnd *rnd, int ctx)
{
	u32 r = tt_rand(rnd);

	if (ctx == TT_CTX_NMI) {
		/*
		 * Long enough that a grace period could end under it, short
		 * enough not to upset the NMI-duration check much.
		 */
		udelay(50 + r % 450);
		if (!(r & 0xf0000))
			mdelay(2);
		/*
		 * Rarely (1 in 32) outlast whole grace periods, so an engine
		 * that ends one under an NMI reader on an idle CPU is seen by
		 * the polled-GP check in tt_read_one() ("NMI handler took too
		 * long" INFO lines are expected).
		 */
		if (!(r & 0x1f00000))
			mdelay(100 + r % 100);
		return;
	}
	if (ctx == TT_CTX_TIMER_IDLE) {
		/*
		 * An interrupt on a dynticks-idle CPU: the engine must notice
		 * it or let a grace period end under us.  Outlast a few
		 * force_quiescent_state() scans and a grace period or two.
		 * The timer then re-arms 40 ms later, or the CPU would
		 * never leave its timer softirq.
		 */
		mdelay(100 + r % 150);
		return;
	}
	if (ctx == TT_CTX_TIMER && !(r & 0xf00)) {
		/*
		 * A timer reader on a dynticks-idle CPU is the case where
		 * the engine must notice the interrupt: give it a window.
		 */
		udelay(500 + r % 1500);
		return;
	}
	if (ctx == TT_CTX_THREAD && tt_cfg.long_reads &&
	    !(tt_rand(rnd) % tt_cfg.long_reads)) {
		/*
		 * long_reads: long and frequent sections, busy (for trcu_bh
		 * with bottom halves disabled, for trcu with preemption
		 * off), so that ticks, nudge IPIs, expedited IPIs and
		 * force_quiescent_state() scans land inside readers, not
		 * once in 140,000 reads as the 100 ms delay below.  An
		 * engine that credits a QS to the context a tick or IPI
		 * interrupted when that context is a reader ends GPs under
		 * it: the polled-GP and Reader Pipe checks see it.
		 */
		tt_read_spin_us(100 + r % 1900);
		return;
	}
	if (ctx == TT_CTX_THREAD && !(r % (tt_cfg.nreaders * 20000))) {
		if (tt_cfg.ops->sleepable_readers)
			schedule_timeout_uninterruptible(msecs_to_jiffies(100));
		else
			mdelay(100);
	} else if (!(r % (tt_cfg.nreaders * 400))) {
		udelay(200);
	} else if (!(r & 0x7)) {
		udelay((r >> 8) & 0xf);
	}
}

/*
 * One read-side critical section: find the current element, dawdle, and
 * record how far it aged meanwhile (Reader Pipe) and how many grace
 * periods completed meanwhile (Reader Batch).  Callable from kthreads,
 * timers and NMIs (per-CPU counters are single-instruction increments).
 */
void tt_read_one(struct tt_rnd *rnd, int ctx)
{
	unsigned long started, completed, ver, cookie = 0;
	struct tt_elem *p;
	int idx, pipe;

	idx = tt_cfg.ops->readlock();
	/*
	 * Exact check where the flavour has polled GPs: the GP this cookie
	 * names starts after our read lock, so it cannot end before our
	 * unlock.  The pipe check below needs a removal and a whole GP
	 * inside the section; this one needs only a GP, so it catches
	 * engines that end GPs under short readers (an NMI on an idle CPU).
	 */
	if (tt_cfg.ops->get_state)
		cookie = tt_cfg.ops->get_state();
	started = tt_cfg.ops->get_gp_count();
	p = tt_elem_current();
	if (!p) {
		tt_cfg.ops->readunlock(idx);
		return;
	}
	ver = READ_ONCE(p->ver);
	if (!READ_ONCE(p->mbtest))
		atomic_inc(&tt_mberror);
	tt_read_delay(rnd, ctx);
	/* Recycled or freed while we held it: a grace period ended early. */
	if (!READ_ONCE(p->mbtest) || READ_ONCE(p->ver) != ver)
		atomic_inc(&tt_mberror);
	if (tt_cfg.ops->get_state && tt_cfg.ops->poll_state(cookie))
		atomic_inc(&tt_gp_under_reader);
	pipe = min(READ_ONCE(p->pipe), TT_PIPE_LEN);
	completed = tt_cfg.ops->get_gp_count() - started;
	if (completed > TT_PIPE_LEN)
		completed = TT_PIPE_LEN;
	this_cpu_inc(tt_pipe_count[pipe]);
	this_cpu_inc(tt_batch_count[completed]);
	tt_cfg.ops->readunlock(idx);
}

static void tt_reader_timer(struct timer_list *t)
{
	struct tt_reader *r = from_timer(r, t, timer);
	int ctx = TT_CTX_TIMER;

	if (is_idle_task(current)) {
		atomic_long_inc(&tt_ntimers_idle);
		if (READ_ONCE(r->pausing))
			ctx = TT_CTX_TIMER_IDLE;
	}
	tt_read_one(&r->trnd, ctx);
	atomic_long_inc(&tt_ntimers);
	/*
	 * While the reader kthread pauses, its CPU may be dynticks-idle:
	 * keep reading from interrupts there (the timer is pinned).
	 */
	if (READ_ONCE(r->pausing))
		mod_timer(&r->timer, jiffies + (ctx == TT_CTX_TIMER_IDLE ? HZ / 25 :
				     1 + tt_rand(&r->trnd) % 3));
}

/*
 * Without hotplug, readers are bound one per CPU, skipping CPU 0 where
 * possible: a pausing reader then really leaves its CPU idle, so timer
 * and NMI readers get to interrupt dynticks-idle CPUs.  With hotplug they
 * float (a bound kthread would lose its CPU).
 */
static int tt_reader_cpu(int i)
{
	int n = num_online_cpus(), cpu, k;

	if (tt_cfg.onoff_interval || n < 2)
		return -1;
	k = 1 + i % (n - 1);
	for_each_online_cpu(cpu)
		if (!k--)
			return cpu;
	return -1;
}

static int tt_reader(void *arg)
{
	struct tt_reader *r = arg;
	unsigned long next_pause = jiffies + HZ;

	while (!tt_should_stop()) {
		if (tt_cfg.irqreader && !timer_pending(&r->timer))
			mod_timer(&r->timer, jiffies + 1);
		tt_read_one(&r->rnd, TT_CTX_THREAD);
		/*
		 * test_no_idle_hz: pause for several ticks about once a
		 * second, so CPUs can enter dynticks-idle with readers around.
		 */
		if (tt_cfg.test_no_idle_hz && time_after(jiffies, next_pause)) {
			WRITE_ONCE(r->pausing, true);
			tt_sleep(10 + tt_rand(&r->rnd) % 40);
			WRITE_ONCE(r->pausing, false);
			next_pause = jiffies + HZ / 2 + tt_rand(&r->rnd) % HZ;
		}
		tt_stutter_wait();
		cond_resched();
	}
	/* pausing is false: after this no callback re-arms the timer. */
	del_timer_sync(&r->timer);
	del_timer_sync(&r->timer);
	return 0;
}

/*
 * Start the reader kthreads (their timers are armed by the kthreads).
 * On error the caller stops what did start, then tt_readers_free().
 */
int tt_readers_start(const struct tt_config *cfg)
{
	char name[32];
	int err = 0, i;

	tt_cfg = *cfg;

	tt_readers = kcalloc(tt_cfg.nreaders, sizeof(*tt_readers), GFP_KERNEL);
	if (!tt_readers)
		return -ENOMEM;
	for (i = 0; !err && i < tt_cfg.nreaders; i++) {
		struct tt_reader *r = &tt_readers[i];

		tt_rnd_init(&r->rnd, TT_RND_READER + i);
		tt_rnd_init(&r->trnd, TT_RND_TIMER + i);
		timer_setup(&r->timer, tt_reader_timer, TIMER_PINNED);
		snprintf(name, sizeof(name), "tt_reader/%d", i);
		err = tt_spawn(tt_reader, r, name, tt_reader_cpu(i));
	}
	return err;
}

/* Free the reader state; every reader kthread has been stopped. */
void tt_readers_free(void)
{
	kfree(tt_readers);
	tt_readers = NULL;
}

/* Timer-context reads so far (the rtc line's nt:). */
long tt_readers_ntimers(void)
{
	return atomic_long_read(&tt_ntimers);
}

/* Freed or recycled elements seen by readers (the rtc line's rtmbe:). */
int tt_readers_mberror(void)
{
	return atomic_read(&tt_mberror);
}

/* Sum one per-CPU histogram. */
static void tt_readers_sum(long (__percpu *hist)[TT_PIPE_LEN + 1],
			   long *h)
{
	int cpu, i;

	for (i = 0; i <= TT_PIPE_LEN; i++)
		h[i] = 0;
	for_each_possible_cpu(cpu)
		for (i = 0; i <= TT_PIPE_LEN; i++)
			h[i] += READ_ONCE((*per_cpu_ptr(hist, cpu))[i]);
}

/* Did any reader see an element two or more GPs old? */
bool tt_readers_pipe_bad(void)
{
	long pipe[TT_PIPE_LEN + 1];
	int i;

	tt_readers_sum(&tt_pipe_count, pipe);
	for (i = 2; i <= TT_PIPE_LEN; i++)
		if (pipe[i])
			return true;
	return false;
}

/*
 * The readers' part of a statistics block: the polled-GP failure, the
 * Reader Pipe (marked "!!!" if @bad) and Reader Batch histograms, and the
 * timer readers' counts.
 */
void tt_readers_stats(char *buf, size_t len, bool bad)
{
	long h[TT_PIPE_LEN + 1];

	if (atomic_read(&tt_gp_under_reader))
		tt_fail("%d grace periods began and ended inside a reader\n",
			atomic_read(&tt_gp_under_reader));
	tt_readers_sum(&tt_pipe_count, h);
	tt_hist_line(buf, len, "Reader Pipe", h, bad);
	tt_readers_sum(&tt_batch_count, h);
	tt_hist_line(buf, len, "Reader Batch", h, false);
	if (tt_cfg.long_reads) {
		long n = atomic_long_read(&tt_nlong);

		tt_out("long_reads: %ld long read sections, %lld us on average\n",
		       n, n ? div64_s64(atomic64_read(&tt_nlong_ns), n * NSEC_PER_USEC) : 0);
	}
	if (tt_cfg.irqreader)
		tt_out("irqreader: timer reads %ld, on an idle CPU %ld\n",
		       atomic_long_read(&tt_ntimers),
		       atomic_long_read(&tt_ntimers_idle));
}
