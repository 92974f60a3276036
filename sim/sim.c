// SPDX-License-Identifier: GPL-2.0
/*
 * trcu-sim: a deterministic simulator of N CPUs driving trcu's engine
 * (module/tree.c, callbacks.c, dynticks.c, stall.c, hotplug.c, params.c,
 * geometry.c, gp_kthread.c, compiled unchanged against the shim in
 * sim/shim/).
 *
 * Time advances in jiffies.  In each jiffy every online CPU, in turn,
 * does what hooks.c would report of it: a busy CPU takes its tick
 * (trcu_check_callbacks() with the interrupted preempt count), enters and
 * leaves trcu and trcu_bh readers, switches tasks (trcu_qs_all_flavors()),
 * posts callbacks, goes idle (trcu_idle_enter()); an idle CPU wakes
 * (trcu_idle_wake()), or takes an irq (trcu_irq_enter()) or an NMI
 * (trcu_nmi_enter()) whose reader may stay open for some jiffies.  Between
 * CPUs the simulator delivers what the engine queued: IPIs, irq_work,
 * tasklets, and runs woken tasks (the two GP kthreads, synchronize_trcu()
 * callers) on their CPU as context switches.  With --hotplug CPUs go
 * down (online bit cleared, trcu_idle_dead(), the dead step a few jiffies
 * later) and up (prepare step, online a few jiffies later) through the
 * callbacks hotplug.c registered.  With --hog one CPU at a time is held,
 * for stretches, by an RT hog that never yields to the GP kthreads; the
 * GP kthreads are then never moved by the scheduler model (isolated CPUs,
 * no load balancing), only by their affinity (gp_kthread.c's starvation
 * work) or by hotplug.  Everything comes from one seed.
 *
 * Checked on every run (each violation is an error):
 *   - no callback is invoked, and no synchronize_trcu() returns, while a
 *     reader of its flavour that began before the call_trcu() (or the
 *     synchronize call) still runs: every CPU online at the posting has
 *     passed a quiescent state since;
 *   - no reader straddles a whole grace period (one that started after
 *     the reader began has not ended when it ends);
 *   - every callback is invoked (after the workload stops, within a
 *     drain period), every grace period asked for ends, a grace period
 *     whose root has emptied is ended within 10 jiffies in which its GP
 *     kthread could run;
 *   - with --hog, liveness: every grace period requested ends within
 *     gpk_bound() jiffies of the request (starvation threshold, the
 *     starvation work, two grace periods);
 *   - the engine's WARN_ON()s and pr_err()s, lock misuse, wake_up()
 *     under a raw spinlock, and memory the engine leaves allocated after
 *     trcu_tree_free()/trcu_dynticks_free().
 */
#include <stdarg.h>
#include <getopt.h>

#include "sim.h"
#include <trcu.h>
#include "tree.h"

int sim_verbose;
struct sim_stats sim_stats;

/* ---- random numbers: splitmix64, one stream per run ---- */

static u64 rng_state;

static u64 rnd64(void)
{
	u64 z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static double rnd01(void)
{
	return (rnd64() >> 11) * (1.0 / 9007199254740992.0);
}

static int rndn(int n)
{
	return (int)(rnd64() % (u64)n);
}

/* ---- errors ---- */

static long n_errors;

void sim_error(const char *fmt, ...)
{
	va_list ap;

	n_errors++;
	if (n_errors > 20)
		return;
	printf("ERROR j=%lu: ", jiffies);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/* ---- the engine's parts the simulator does not build ---- */

/*
 * exp.c (expedited grace periods) is not simulated: its IPIs and kprobe
 * read of the interrupted context have no model here.  tree.c tells it
 * of every quiescent state; there is no expedited GP to tell.
 */
void trcu_exp_report_qs(int flavor)
{
}

/* No expedited GP waits for a dead CPU either. */
void trcu_exp_cpu_dead(int cpu)
{
}

/* ---- simulated CPUs ---- */

enum { C_OFF, C_IDLE, C_BUSY, C_DYING, C_BOOTING };
enum { R_TASK, R_BH, R_IRQ, R_NMI, R_KINDS };	/* reader kinds */
static const int r_flavor[R_KINDS] = {
	TRCU_FLAVOR_SCHED, TRCU_FLAVOR_BH, TRCU_FLAVOR_SCHED, TRCU_FLAVOR_SCHED
};
static const char *const r_name[R_KINDS] = { "task", "bh", "irq", "nmi" };

struct reader {
	bool on;
	u64 seq;			/* when it began */
	long gp;			/* ->gpnum when it began */
	int cpu, kind;
	struct reader *prev, *next;	/* active readers, oldest first */
};

struct cpu {
	int state;
	bool user;			/* busy in user mode */
	bool irq_open, nmi_open;	/* idle CPU inside an irq / NMI */
	unsigned long at;		/* C_DYING/C_BOOTING: next step due */
	struct reader rd[R_KINDS];
};

static struct cpu *cpus;
static int ncpus;
static u64 seq;			/* orders reader starts and postings */
static struct reader *r_head[TRCU_NR_FLAVORS], *r_tail[TRCU_NR_FLAVORS];

/* Options. */
static int opt_gps = 100, opt_idle = 50, opt_hotplug, opt_bh = 10;
static int opt_sync;		/* --load sync: one synchronize caller only */
static u64 opt_seed = 1;
#define HOG_NONE	-2
#define HOG_FOLLOW	-1		/* --hog kthread */
static int opt_hog = HOG_NONE;	/* else --hog CPU */

/* Tunables of the workload (per CPU and jiffy, or per substep). */
#define P_READER	0.25	/* kernel code enters a trcu reader */
#define P_BHREADER	0.08	/* ... a trcu_bh reader */
#define P_END		0.35	/* a reader (any) ends */
#define P_SWITCH	0.15	/* a context switch */
#define P_USER		0.10	/* to user mode; back: 0.3 */
#define P_POST		0.05	/* call_trcu() */
#define P_IRQ		0.01	/* irq on an idle CPU */
#define P_NMI		0.003	/* NMI on an idle CPU */
#define P_FLOOD		0.003	/* per jiffy: one CPU floods qhimark+ cbs */
#define P_SYNC		0.10	/* per jiffy: a synchronize_trcu() caller */
#define P_HOTPLUG	0.10	/* per jiffy: one CPU goes down or up */
#define P_WAKE_MIN	0.002	/* an idle CPU wakes at least this often */
#define SUBSTEPS	2
#define ROOT_EMPTY_MAX	10	/* jiffies a root may stay empty */

static void sync_pc(int c)
{
	struct cpu *p = &cpus[c];
	int pc = 0;

	pc += p->rd[R_TASK].on;
	if (p->rd[R_BH].on)
		pc += SOFTIRQ_DISABLE_OFFSET;
	if (p->irq_open)
		pc += HARDIRQ_OFFSET + p->rd[R_IRQ].on;
	if (p->nmi_open)
		pc += NMI_OFFSET + HARDIRQ_OFFSET + p->rd[R_NMI].on;
	__preempt_count[c] = pc;
	sim_cpu_task[c].idle = p->state != C_BUSY;
}

static void on_cpu(int c)
{
	sim_cur_cpu = c;
}

static struct trcu_state *rsp_of(int flavor)
{
	return &trcu_states[flavor];
}

static void reader_begin(int c, int kind)
{
	struct reader *r = &cpus[c].rd[kind];
	int f = r_flavor[kind];

	r->on = true;
	r->seq = ++seq;
	r->gp = READ_ONCE(rsp_of(f)->gpnum);
	r->cpu = c;
	r->kind = kind;
	r->next = NULL;
	r->prev = r_tail[f];
	if (r_tail[f])
		r_tail[f]->next = r;
	else
		r_head[f] = r;
	r_tail[f] = r;
	sync_pc(c);
}

static void reader_end(int c, int kind)
{
	struct reader *r = &cpus[c].rd[kind];
	int f = r_flavor[kind];
	long done = READ_ONCE(rsp_of(f)->completed);

	if (done > r->gp)
		sim_error("%s reader on CPU %d straddled grace period %ld of %s",
			  r_name[kind], c, r->gp + 1, rsp_of(f)->name);
	if (r->prev)
		r->prev->next = r->next;
	else
		r_head[f] = r->next;
	if (r->next)
		r->next->prev = r->prev;
	else
		r_tail[f] = r->prev;
	r->on = false;
	sync_pc(c);
}

/* Something that waited for readers since @s finished: any still there? */
static void check_early(int f, u64 s, const char *what)
{
	struct reader *r = r_head[f];

	if (r && r->seq < s)
		sim_error("%s (%s) while a %s reader on CPU %d that began before it runs",
			  what, rsp_of(f)->name, r_name[r->kind], r->cpu);
}

/* ---- callbacks and synchronize callers ---- */

struct simcb {
	struct rcu_head head;
	u64 seq;
	int flavor;
};

static long cbs_out, cbs_peak, cbs_posted, cbs_invoked;
static long syncs_done, syncs_inflight;
static unsigned long stranded;
static unsigned long root_in_call;	/* trcu's root locks taken in call_trcu() */	/* halted CPU-jiffies with ready callbacks */
static bool workload_on = true;

/* Do CPUs post callbacks of their own (--load mixed)? */
static bool posting(void)
{
	return workload_on && !opt_sync;
}

static void cb_invoke(struct rcu_head *head)
{
	struct simcb *cb = container_of(head, struct simcb, head);

	check_early(cb->flavor, cb->seq, "callback invoked");
	cbs_out--;
	cbs_invoked++;
	free(cb);
}

/* call_trcu() or call_trcu_bh() from whatever context CPU @c is in. */
static void post_cb(int c, int f)
{
	struct simcb *cb = malloc(sizeof(*cb));
	unsigned long root_before;

	if (!cb)
		exit(2);
	cb->seq = ++seq;
	cb->flavor = f;
	on_cpu(c);
	root_before = trcu_root(&trcu_sched_state)->lock.n_acq;
	if (f == TRCU_FLAVOR_BH)
		call_trcu_bh(&cb->head, cb_invoke);
	else
		call_trcu(&cb->head, cb_invoke);
	root_in_call += trcu_root(&trcu_sched_state)->lock.n_acq - root_before;
	cbs_posted++;
	if (++cbs_out > cbs_peak)
		cbs_peak = cbs_out;
}

static int sync_task(void *arg)
{
	int f = (int)(long)arg;
	u64 s = ++seq;

	if (f == TRCU_FLAVOR_BH)
		synchronize_trcu_bh();
	else
		synchronize_trcu();
	check_early(f, s, "synchronize returned");
	syncs_done++;
	syncs_inflight--;
	return 0;
}

/* ---- delivering queued work ---- */

static int *work_list;		/* CPUs with queued work (sim_mark_work) */
static int work_n;

void sim_mark_work(int cpu)
{
	if (sim_q[cpu].marked)
		return;
	sim_q[cpu].marked = true;
	work_list[work_n++] = cpu;
}

static bool cpu_halted(int c)
{
	return cpus[c].state == C_IDLE && !cpus[c].irq_open &&
	       !cpus[c].nmi_open;
}

/*
 * Softirqs at irq exit, if the interrupted context allows (not in a bh
 * reader, irq or NMI): up to 10 rounds, the rest is left for later
 * (ksoftirqd, here the next jiffy).
 */
static void irq_exit_softirq(int c)
{
	int i;

	if (__preempt_count[c] & (SOFTIRQ_MASK | HARDIRQ_MASK | NMI_MASK))
		return;
	for (i = 0; i < 10 && sim_q[c].tl_head; i++)
		sim_run_tasklets(c);
}

/* An interrupt on @c: IPIs and irq_work, then softirqs. */
void sim_ipi_deliver(int c)
{
	int saved_cpu = sim_cur_cpu;
	struct sim_task *saved_task = sim_running;
	bool halted;

	if (cpus[c].state == C_OFF) {
		/* Work raised for a CPU that died: the dead step's CPU. */
		sim_takeover_tasklets(c, 0);
		return;
	}
	if (cpus[c].irq_open || cpus[c].nmi_open)
		return;		/* irqs are off in there: at its exit */
	sim_running = NULL;
	on_cpu(c);
	halted = cpu_halted(c);
	if (halted && (sim_q[c].ipi_head || sim_q[c].iw_head))
		sim_stats.idle_wakeups++;
	if (sim_q[c].ipi_head || sim_q[c].iw_head) {
		__preempt_count[c] += HARDIRQ_OFFSET;
		trcu_irq_enter();
		sim_run_ipis(c);
		__preempt_count[c] -= HARDIRQ_OFFSET;
		sim_run_irq_work(c);
	}
	irq_exit_softirq(c);
	if (halted) {
		/* Back to the idle loop, which halts again. */
		trcu_idle_wake();
		trcu_idle_enter();
	}
	sim_running = saved_task;
	sim_cur_cpu = saved_cpu;
}

/* Can a task be switched in on @c (no reader, irq or NMI running)? */
static bool cpu_preemptible(int c)
{
	struct cpu *p = &cpus[c];

	return !p->rd[R_TASK].on && !p->rd[R_BH].on && !p->irq_open &&
	       !p->nmi_open && p->state != C_OFF && p->state != C_DYING &&
	       p->state != C_BOOTING;
}

/* ---- the RT hog (--hog) ---- */

/*
 * One CPU at a time, for stretches of HOG_LEN_MIN..MAX jiffies with gaps
 * of HOG_GAP_MIN..MAX between them, runs an RT task that never yields to
 * the GP kthreads (nor to any task the simulator runs there): a spinner,
 * mostly in user mode, so its CPU still ticks, enters readers, reports
 * quiescent states, but never idles.  --hog CPU holds that CPU; --hog
 * kthread the CPU a GP kthread sits on when the stretch starts (trcu's 3
 * times in 4, trcu_bh's else).  A gap is longer than gpk_bound(): one
 * starvation per request.  Its own random stream, so --hog draws nothing
 * from the workload's.
 */
#define HOG_FIRST_MAX	100
#define HOG_LEN_MIN	400
#define HOG_LEN_MAX	1500
#define HOG_GAP_MIN	400
#define HOG_GAP_MAX	700

static int hog_cpu = -1;		/* held now (-1: between stretches) */
static unsigned long hog_at;		/* next start or end of a stretch */
static u64 hog_rng;
static unsigned long hog_stretches, hog_jiffies;

static int hog_rndn(int n)
{
	u64 saved = rng_state, r;

	rng_state = hog_rng;
	r = rnd64();
	hog_rng = rng_state;
	rng_state = saved;
	return (int)(r % (u64)n);
}

/* Can task @t run on CPU @c now? */
static bool cpu_runs(struct sim_task *t, int c)
{
	return cpu_preemptible(c) && c != hog_cpu &&
	       cpumask_test_cpu(c, &t->ts.cpus_mask);
}

/*
 * Where a woken task runs: its last CPU if nothing non-preemptible runs
 * there, else (as the scheduler would) the first CPU of its affinity that
 * can take it, -1 if none can now.
 */
static int wake_cpu(struct sim_task *t, int c)
{
	int i;

	if (cpu_runs(t, c))
		return c;
	for (i = 0; i < ncpus; i++)
		if (cpu_runs(t, i))
			return i;
	return -1;
}

/*
 * Place runnable @t for running now: true if it can run (on ->ts.cpu).
 * With --hog a GP kthread is on an isolated CPU: nothing migrates it
 * while its CPU is online and in its affinity, it waits there (behind a
 * reader, or the hog, however long); a CPU gone or left out of its mask
 * moves it to the first online CPU its mask allows (every online CPU if
 * none: the kernel's fallback).  Any other task, and every task without
 * --hog, goes to the first CPU that can take it.
 */
static bool place_task(struct sim_task *t)
{
	int c = t->ts.cpu, i;

	if (cpu_runs(t, c))
		return true;
	if (t->kthread && opt_hog != HOG_NONE) {
		if (cpu_online(c) && cpumask_test_cpu(c, &t->ts.cpus_mask))
			return false;
		for (c = 0; c < ncpus; c++)
			if (cpu_online(c) && cpumask_test_cpu(c, &t->ts.cpus_mask))
				break;
		if (c == ncpus) {
			for (c = 0; c < ncpus && !cpu_online(c); c++)
				;
			for (i = 0; i < ncpus; i++)
				cpumask_set_cpu(i, &t->ts.cpus_mask);
		}
		if (sim_verbose)
			printf("sim: kthread %d off CPU %d to CPU %d%s\n",
			       t->ts.pid, t->ts.cpu, c,
			       cpumask_weight(&t->ts.cpus_mask) == ncpus ?
			       " (affinity: every CPU)" : "");
		t->ts.cpu = c;
		return cpu_runs(t, c);
	}
	t->ts.cpu = wake_cpu(t, c);
	if (t->ts.cpu < 0) {
		t->ts.cpu = 0;
		return false;
	}
	return true;
}

static struct sim_task *task_of(struct task_struct *ts)
{
	return container_of(ts, struct sim_task, ts);
}

/*
 * Could @rsp's GP kthread run now?  Without --hog: if any CPU could (the
 * simulator moves it there); with it: on its own CPU, or moved off one
 * that went down.
 */
static bool gpk_can_run(struct trcu_state *rsp)
{
	struct sim_task *t;

	if (!rsp->gp_kthread)
		return false;
	t = task_of(rsp->gp_kthread);
	if (opt_hog == HOG_NONE)
		return wake_cpu(t, 0) >= 0;
	return cpu_runs(t, t->ts.cpu) || !cpu_online(t->ts.cpu);
}

/*
 * Run @t on its CPU: a context switch in (from the idle task, which
 * wakes, or from whatever ran), the task until it waits, and a context
 * switch back.
 */
static void run_task(struct sim_task *t)
{
	int c = t->ts.cpu;
	bool was_idle;

	on_cpu(c);
	was_idle = cpus[c].state == C_IDLE;
	if (was_idle) {
		/* trcu's doing only for its own kthreads, not the callers. */
		if (t->kthread)
			sim_stats.idle_wakeups++;
		trcu_idle_wake();
	}
	trcu_qs_all_flavors();		/* sched_switch into the task */
	sim_task_switch_to(t);
	on_cpu(c);
	trcu_qs_all_flavors();		/* and out of it */
	if (was_idle)
		trcu_idle_enter();
}

/* ---- grace-period bookkeeping ---- */

#define GPW_REQS	8
struct gpwatch {
	long last_gp, last_done;
	unsigned long start;
	int root_empty;			/* jiffies the root stayed empty */
	long req_seen;			/* highest ->gp_needed seen */
	int nreq;			/* requested GPs not ended, oldest first: */
	struct {
		long gpnum;
		unsigned long at;	/* ->gp_req_jiffies of the request */
	} req[GPW_REQS];
	bool late;			/* req[0] reported past the bound */
	unsigned long req_max;		/* longest request to GP end */
	unsigned long req_n, req_sum;
};
static struct gpwatch gpw[TRCU_NR_FLAVORS];
static unsigned long *gp_ticks;	/* latencies of the counted (sched) GPs */
static long gps_done, gp_ticks_cap;

/*
 * Requests and their ends: a request is ->gp_needed growing (the request
 * funnel's root, stamped ->gp_req_jiffies); it is served when ->completed
 * reaches it.
 */
static void watch_requests(struct trcu_state *rsp, struct gpwatch *w)
{
	long need = READ_ONCE(rsp->gp_needed);
	unsigned long lat;
	int i;

	if (need > w->req_seen) {
		if (w->nreq == GPW_REQS) {
			w->req[GPW_REQS - 1].gpnum = need;	/* keeps its time */
		} else {
			w->req[w->nreq].gpnum = need;
			w->req[w->nreq].at = READ_ONCE(rsp->gp_req_jiffies);
			w->nreq++;
		}
		w->req_seen = need;
	}
	while (w->nreq && w->req[0].gpnum <= READ_ONCE(rsp->completed)) {
		lat = jiffies - w->req[0].at;
		if (lat > w->req_max)
			w->req_max = lat;
		w->req_sum += lat;
		w->req_n++;
		for (i = 1; i < w->nreq; i++)
			w->req[i - 1] = w->req[i];
		w->nreq--;
		w->late = false;
	}
}

/*
 * The liveness bound (--hog): a GP requested ends within the starvation
 * threshold of gp_kthread.c (trcu_gpk_starved_jiffies(), repeated here:
 * max(HZ/5, 8 jiffies_till_force_qs)), plus the starvation work of both
 * flavours on the one worker (up to TRCU_GPK_ASK_MS = 20 msleep(1)s of
 * 2 jiffies each, 40 jiffies, each), plus two grace periods of the
 * simulator's GP budget (100 jiffies each: the one running at the request
 * and the one requested).
 */
#define GP_BUDGET	100
#define GPK_ASK_J	40

static unsigned long gpk_bound(void)
{
	unsigned long starve = max_t(unsigned long, HZ / 5,
				     8UL * trcu_jiffies_till_force_qs);

	return starve + 2 * GPK_ASK_J + 2 * GP_BUDGET;
}

static void observe(void)
{
	int f;

	for (f = 0; f < TRCU_NR_FLAVORS; f++) {
		struct trcu_state *rsp = rsp_of(f);
		struct gpwatch *w = &gpw[f];

		while (w->last_done < READ_ONCE(rsp->completed)) {
			w->last_done++;
			if (f == TRCU_FLAVOR_SCHED) {
				if (gps_done == gp_ticks_cap) {
					gp_ticks_cap = gp_ticks_cap * 2 + 64;
					gp_ticks = realloc(gp_ticks,
						gp_ticks_cap * sizeof(*gp_ticks));
					if (!gp_ticks)
						exit(2);
				}
				gp_ticks[gps_done++] = jiffies - w->start;
			}
		}
		if (w->last_gp != READ_ONCE(rsp->gpnum)) {
			w->last_gp = READ_ONCE(rsp->gpnum);
			w->start = jiffies;
		}
		watch_requests(rsp, w);
	}
}

/* Deliver everything queued and run every runnable task, until quiet. */
static void settle(void)
{
	bool progress;
	int i, rounds = 0;

	do {
		progress = false;
		while (work_n) {
			int c = work_list[--work_n];

			sim_q[c].marked = false;
			sim_ipi_deliver(c);
			progress = true;
		}
		for (i = 0; i < SIM_MAX_TASKS; i++) {
			struct sim_task *t = sim_task_at(i);

			if (!t || t->done)
				continue;
			if (!t->runnable && t->timed &&
			    time_after_eq(jiffies, t->until)) {
				t->runnable = true;
				t->wq = NULL;
			}
			if (!t->runnable || !place_task(t))
				continue;
			run_task(t);
			progress = true;
		}
		observe();
		if (++rounds > 100000) {
			sim_error("no quiescence after %d rounds", rounds);
			exit(1);
		}
	} while (progress);
}

/* ---- one jiffy of one CPU ---- */

static void tick(int c)
{
	struct cpu *p = &cpus[c];
	int intr = __preempt_count[c];

	on_cpu(c);
	__preempt_count[c] += HARDIRQ_OFFSET;
	trcu_irq_enter();
	trcu_check_callbacks(p->user, intr);
	__preempt_count[c] -= HARDIRQ_OFFSET;
	sim_run_irq_work(c);
	irq_exit_softirq(c);
}

static int pick_flavor(void)
{
	return rndn(100) < opt_bh ? TRCU_FLAVOR_BH : TRCU_FLAVOR_SCHED;
}

static void go_idle(int c)
{
	struct cpu *p = &cpus[c];

	on_cpu(c);
	trcu_qs_all_flavors();		/* switch to the idle task */
	p->state = C_IDLE;
	p->user = false;
	sync_pc(c);
	trcu_idle_enter();
}

static void busy_substep(int c)
{
	struct cpu *p = &cpus[c];
	double r = rnd01();

	on_cpu(c);
	if (p->rd[R_TASK].on) {
		if (posting() && r < P_POST)
			post_cb(c, pick_flavor());
		else if (r < P_POST + P_END)
			reader_end(c, R_TASK);
		return;
	}
	if (p->rd[R_BH].on) {
		if (posting() && r < P_POST)
			post_cb(c, pick_flavor());
		else if (r < P_POST + P_END) {
			reader_end(c, R_BH);
			irq_exit_softirq(c);	/* local_bh_enable() */
		}
		return;
	}
	if (p->user) {
		if (r < 0.3)
			p->user = false;
		return;
	}
	/* Cumulative thresholds of the choices below. */
	if (r < P_READER)
		reader_begin(c, R_TASK);
	else if (r < P_READER + P_BHREADER)
		reader_begin(c, R_BH);
	else if (r < P_READER + P_BHREADER + P_SWITCH)
		trcu_qs_all_flavors();
	else if (r < P_READER + P_BHREADER + P_SWITCH + P_USER)
		p->user = true;
	else if (r < P_READER + P_BHREADER + P_SWITCH + P_USER + P_POST &&
		 posting())
		post_cb(c, pick_flavor());
}

/* The end of an irq on idle CPU @c: its irq_work, softirqs, back to idle. */
static void idle_irq_exit(int c, struct cpu *p)
{
	reader_end(c, R_IRQ);
	p->irq_open = false;
	sync_pc(c);
	sim_run_irq_work(c);
	irq_exit_softirq(c);
	trcu_idle_wake();
	trcu_idle_enter();
}

static void idle_step(int c, double p_wake)
{
	struct cpu *p = &cpus[c];
	double r = rnd01();

	on_cpu(c);
	if (p->nmi_open) {
		if (r < P_END) {
			reader_end(c, R_NMI);
			p->nmi_open = false;
			sync_pc(c);
			sim_mark_work(c);	/* what waited for the NMI */
		}
		return;
	}
	if (p->irq_open) {
		if (r < P_END) {
			idle_irq_exit(c, p);
			sim_mark_work(c);	/* IPIs that waited */
		}
		return;
	}
	if (r < p_wake) {
		trcu_idle_wake();
		p->state = C_BUSY;
		p->user = rnd01() < 0.5;
		sync_pc(c);
		trcu_qs_all_flavors();	/* switch from the idle task */
	} else if (r < p_wake + P_IRQ) {
		trcu_irq_enter();
		p->irq_open = true;
		sync_pc(c);
		if (posting() && rnd01() < 0.3)
			post_cb(c, pick_flavor());
		reader_begin(c, R_IRQ);
		if (rnd01() < 0.5)
			idle_irq_exit(c, p);	/* short: over before anyone looks */
	} else if (r < p_wake + P_IRQ + P_NMI) {
		p->nmi_open = true;
		sync_pc(c);
		trcu_nmi_enter();
		reader_begin(c, R_NMI);
	}
}

static void cpu_jiffy(int c, double p_sleep, double p_wake)
{
	struct cpu *p = &cpus[c];
	int i;

	if (p->state == C_IDLE) {
		idle_step(c, p_wake);
		return;
	}
	if (p->state != C_BUSY)
		return;
	tick(c);
	for (i = 0; i < SUBSTEPS; i++)
		busy_substep(c);
	if (!p->rd[R_TASK].on && !p->rd[R_BH].on && rnd01() < p_sleep &&
	    c != hog_cpu)
		go_idle(c);
}

/* ---- hotplug ---- */

static int n_offline;

static void cpu_down(int c)
{
	struct cpu *p = &cpus[c];

	on_cpu(c);
	sim_cpu_active[c] = false;
	if (p->state == C_BUSY)
		go_idle(c);
	/* smpcfd_dying_cpu(): run what was queued for it, then go. */
	sim_ipi_deliver(c);
	p->state = C_DYING;
	sim_cpu_online[c] = false;
	sync_pc(c);
	on_cpu(c);
	trcu_idle_dead();		/* do_idle() on its way to play_dead */
	p->at = jiffies + 1 + rndn(3);
	n_offline++;
}

/* The control CPU (0) runs a hotplug step: a context switch there. */
static bool control_step(int c, bool up)
{
	bool was_idle;

	if (!cpu_preemptible(0))
		return false;
	on_cpu(0);
	was_idle = cpus[0].state == C_IDLE;
	if (was_idle)
		trcu_idle_wake();
	trcu_qs_all_flavors();
	if (up) {
		sim_cpuhp_startup(c);
	} else {
		sim_cpuhp_teardown(c);
		sim_takeover_tasklets(c, 0);
	}
	on_cpu(0);
	trcu_qs_all_flavors();
	if (was_idle)
		trcu_idle_enter();
	return true;
}

static void hotplug_jiffy(void)
{
	int c;

	for (c = 1; c < ncpus; c++) {
		struct cpu *p = &cpus[c];

		if (p->state == C_DYING && time_after_eq(jiffies, p->at) &&
		    control_step(c, false)) {
			p->state = C_OFF;
			sync_pc(c);
		} else if (p->state == C_BOOTING &&
			   time_after_eq(jiffies, p->at)) {
			/* Online, into the idle loop; booting until it switches. */
			sim_cpu_online[c] = true;
			sim_cpu_active[c] = true;
			p->state = C_IDLE;
			sync_pc(c);
			on_cpu(c);
			trcu_idle_enter();
			n_offline--;
		}
	}
	if (!opt_hotplug || !workload_on || ncpus < 2 || rnd01() >= P_HOTPLUG)
		return;
	c = 1 + rndn(ncpus - 1);
	if (cpus[c].state == C_OFF) {
		if (control_step(c, true)) {
			cpus[c].state = C_BOOTING;
			cpus[c].at = jiffies + 1 + rndn(3);
		}
	} else if ((cpus[c].state == C_BUSY || cpus[c].state == C_IDLE) &&
		   n_offline < (ncpus + 1) / 2 && cpu_preemptible(c) &&
		   (hog_cpu < 0 || (c != hog_cpu && ncpus - n_offline > 2))) {
		cpu_down(c);
	}
}

/* ---- the hog's stretches ---- */

static void hog_start(void)
{
	int c = opt_hog, f;

	if (opt_hog == HOG_FOLLOW) {
		f = hog_rndn(4) ? TRCU_FLAVOR_SCHED : TRCU_FLAVOR_BH;
		c = task_cpu(rsp_of(f)->gp_kthread);
	}
	/* Not on a CPU in transit, and never the last one online. */
	if (c < 0 || c >= ncpus || !cpu_online(c) || ncpus - n_offline < 2) {
		hog_at = jiffies + 1;
		return;
	}
	hog_cpu = c;
	hog_stretches++;
	hog_at = jiffies + HOG_LEN_MIN + hog_rndn(HOG_LEN_MAX - HOG_LEN_MIN + 1);
	sim_cpu_task[c].comm = "rt-hog";
	sim_cpu_task[c].pid = 9000 + c;
	if (sim_verbose)
		printf("hog: CPU %d held from j=%lu to %lu\n", c, jiffies, hog_at);
}

static void hog_stop(void)
{
	if (hog_cpu < 0)
		return;
	sim_cpu_task[hog_cpu].comm = "cpu-task";
	sim_cpu_task[hog_cpu].pid = 0;
	hog_cpu = -1;
	hog_at = jiffies + HOG_GAP_MIN + hog_rndn(HOG_GAP_MAX - HOG_GAP_MIN + 1);
}

/*
 * Start or end a stretch; during one, the hog's CPU is busy: an idle one
 * (out of any irq or NMI) wakes into the hog, which never idles.
 */
static void hog_jiffy(void)
{
	struct cpu *p;

	if (opt_hog == HOG_NONE)
		return;
	if (time_after_eq(jiffies, hog_at)) {
		if (hog_cpu < 0)
			hog_start();
		else
			hog_stop();
	}
	if (hog_cpu < 0)
		return;
	hog_jiffies++;
	p = &cpus[hog_cpu];
	if (p->state == C_IDLE && !p->irq_open && !p->nmi_open) {
		on_cpu(hog_cpu);
		trcu_idle_wake();
		p->state = C_BUSY;
		p->user = true;
		sync_pc(hog_cpu);
		trcu_qs_all_flavors();	/* switch from the idle task */
	}
}

/* ---- the run ---- */

static void workload_jiffy(void)
{
	int c, i, n;

	if (!workload_on)
		return;
	if (opt_sync) {
		/*
		 * As make bench: one caller, one synchronize_trcu() after
		 * another, on a CPU other than the GP kthreads' (see
		 * Documentation/sim.rst: callbacks on the kthreads' CPU wait
		 * for its next tick).
		 */
		c = ncpus > 1 ? 1 : 0;
		if (!syncs_inflight && cpu_preemptible(c) &&
		    sim_task_new(sync_task, (void *)(long)TRCU_FLAVOR_SCHED, c,
				 "sync"))
			syncs_inflight++;
		return;
	}
	if (rnd01() < P_FLOOD) {
		c = rndn(ncpus);
		if (cpus[c].state == C_BUSY) {
			n = trcu_qhimark + 1 + rndn(500);
			for (i = 0; i < n; i++)
				post_cb(c, TRCU_FLAVOR_SCHED);
		}
	}
	if (rnd01() < P_SYNC) {
		c = rndn(ncpus);
		if (cpus[c].state == C_BUSY && cpu_preemptible(c) &&
		    sim_task_new(sync_task, (void *)(long)pick_flavor(), c,
				 "sync"))
			syncs_inflight++;
	}
}

static void jiffy(double p_sleep, double p_wake)
{
	int i, c, start;

	jiffies++;
	/* ksoftirqd: tasklets left over by earlier softirq rounds. */
	for (c = 0; c < ncpus; c++)
		if (sim_q[c].tl_head && cpus[c].state != C_OFF)
			sim_mark_work(c);
	settle();
	hotplug_jiffy();
	settle();
	if (opt_hog != HOG_NONE) {
		hog_jiffy();
		settle();
	}
	workload_jiffy();
	settle();
	start = rndn(ncpus);
	for (i = 0; i < ncpus; i++) {
		c = (start + i) % ncpus;
		cpu_jiffy(c, p_sleep, p_wake);
		settle();
	}
	/*
	 * Halted CPUs with callbacks whose grace period has ended: nothing
	 * would invoke them until the CPU next wakes, so the GP-end IPI or
	 * trcu_idle_enter()'s kick must have run them by now (settle()
	 * delivered every queued interrupt).  An error, reported once.
	 */
	for (c = 0; c < ncpus; c++) {
		if (!cpu_halted(c))
			continue;
		for (i = 0; i < TRCU_NR_FLAVORS; i++) {
			if (!trcu_cbs_invocable(rsp_of(i),
						per_cpu_ptr(rsp_of(i)->rda, c)))
				continue;
			if (!stranded)
				sim_error("CPU %d halted with invocable %s callbacks",
					  c, rsp_of(i)->name);
			stranded++;
			if (sim_verbose)
				printf("stranded: CPU %d %s\n", c,
				       rsp_of(i)->name);
		}
	}
	for (i = 0; i < TRCU_NR_FLAVORS; i++) {
		struct trcu_state *rsp = rsp_of(i);
		struct gpwatch *w = &gpw[i];

		/*
		 * Counted only while some CPU could run the GP kthread: with
		 * every CPU in a reader (one CPU, say) it cannot be woken.
		 */
		if (rsp->gpnum != rsp->completed && !trcu_root(rsp)->qsmask) {
			if (gpk_can_run(rsp) && ++w->root_empty == ROOT_EMPTY_MAX)
				sim_error("%s: root empty for %d jiffies, GP %ld not ended",
					  rsp->name, ROOT_EMPTY_MAX, rsp->gpnum);
		} else {
			w->root_empty = 0;
		}
		if (opt_hog != HOG_NONE && w->nreq && !w->late &&
		    jiffies - w->req[0].at > gpk_bound()) {
			w->late = true;
			sim_error("%s: GP %ld requested %lu jiffies ago not ended (liveness bound %lu): GP kthread on CPU %d, hog on CPU %d; starved %lu, moved %lu times",
				  rsp->name, w->req[0].gpnum,
				  jiffies - w->req[0].at, gpk_bound(),
				  task_cpu(rsp->gp_kthread), hog_cpu,
				  rsp->n_gpk_starved, rsp->n_gpk_moved);
		}
	}
}

static int cmp_ul(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a;
	unsigned long y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: trcu-sim --cpus N --fanout F [--fanout-leaf L] [--fanout-exact]\n"
		"                [--gps G] [--seed S] [--idle PERCENT] [--hotplug]\n"
		"                [--bh PERCENT] [--load mixed|sync] [--hog CPU|kthread]\n"
		"                [--verbose]\n"
		"  --load mixed: every CPU posts callbacks, floods, synchronize callers\n"
		"  --load sync:  only one synchronize_trcu() caller, on CPU 0\n"
		"  --hog CPU:    an RT hog holds CPU for stretches (2 CPUs at least)\n"
		"  --hog kthread: each stretch on the CPU a GP kthread is on\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "cpus", 1, NULL, 'n' }, { "fanout", 1, NULL, 'f' },
		{ "fanout-leaf", 1, NULL, 'l' },
		{ "fanout-exact", 0, NULL, 'x' }, { "gps", 1, NULL, 'g' },
		{ "seed", 1, NULL, 's' }, { "idle", 1, NULL, 'i' },
		{ "hotplug", 0, NULL, 'h' }, { "bh", 1, NULL, 'b' },
		{ "verbose", 0, NULL, 'v' }, { "load", 1, NULL, 'L' },
		{ "hog", 1, NULL, 'H' }, { NULL, 0, NULL, 0 }
	};
	unsigned long j0, max_j, drain_j, ipis_before_free;
	double p_sleep, p_wake;
	struct trcu_node *rnp;
	struct trcu_state *rsp;
	unsigned long lvl[TRCU_GEOM_MAX_LEVELS] = { 0 };
	unsigned long nudges = 0, nlock = 0, engine_nlock = 0, root_call;
	unsigned long moved = 0, starved = 0, req_max = 0;
	int o, c, i, levels, root_children;
	long leaked, gps_counted, fqs;
	double med;

	ncpus = 0;
	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (o) {
		case 'n':
			ncpus = atoi(optarg);
			break;
		case 'f':
			trcu_fanout = atoi(optarg);
			break;
		case 'l':
			trcu_fanout_leaf = atoi(optarg);
			break;
		case 'x':
			trcu_fanout_exact = 1;
			break;
		case 'g':
			opt_gps = atoi(optarg);
			break;
		case 's':
			opt_seed = strtoull(optarg, NULL, 0);
			break;
		case 'i':
			opt_idle = atoi(optarg);
			break;
		case 'h':
			opt_hotplug = 1;
			break;
		case 'b':
			opt_bh = atoi(optarg);
			break;
		case 'L':
			if (!strcmp(optarg, "sync"))
				opt_sync = 1;
			else if (strcmp(optarg, "mixed"))
				usage();
			break;
		case 'H':
			if (!strcmp(optarg, "kthread")) {
				opt_hog = HOG_FOLLOW;
				break;
			}
			opt_hog = atoi(optarg);
			if (opt_hog < 0 || !*optarg ||
			    strspn(optarg, "0123456789") != strlen(optarg))
				usage();
			break;
		case 'v':
			sim_verbose = 1;
			break;
		default:
			usage();
		}
	}
	if (ncpus < 1 || ncpus > SIM_MAX_CPUS || opt_gps < 1 ||
	    opt_idle < 0 || opt_idle > 100 || opt_bh < 0 || opt_bh > 100 ||
	    (opt_hog != HOG_NONE && (ncpus < 2 || opt_hog >= ncpus)))
		usage();
	rng_state = opt_seed;
	nr_cpu_ids = ncpus;
	cpus = calloc(ncpus, sizeof(*cpus));
	work_list = calloc(ncpus, sizeof(*work_list));
	if (!cpus || !work_list)
		return 2;
	/* jiffies starts 5 minutes short of wrapping, as the kernel's. */
	jiffies = (unsigned long)(-300L * HZ);
	for (c = 0; c < ncpus; c++) {
		sim_cpu_online[c] = sim_cpu_active[c] = true;
		cpus[c].state = C_BUSY;
		sim_cpu_task[c].cpu = c;
		sim_cpu_task[c].comm = "cpu-task";
		sync_pc(c);
	}
	hog_rng = opt_seed ^ 0x686f67686f67ULL;
	hog_at = jiffies + 1 + hog_rndn(HOG_FIRST_MAX);
	/*
	 * Busy CPUs go idle at p_sleep, idle ones wake at p_wake: at least
	 * every 500 jiffies (2 s) on average, for the housekeeping (timers,
	 * kworkers) every real CPU wakes for.
	 */
	p_sleep = 0.2 * opt_idle / 100.0;
	p_wake = 0.2 * (100 - opt_idle) / 100.0;
	if (p_wake < P_WAKE_MIN)
		p_wake = P_WAKE_MIN;

	/* Module init, as main.c does it (no hooks, no debugfs). */
	on_cpu(0);
	sim_wq_init();
	if (trcu_check_params() || trcu_dynticks_init())
		goto out;
	for (i = 0; i < TRCU_NR_FLAVORS; i++)
		if (trcu_tree_init(&trcu_states[i], i))
			goto out;
	if (trcu_hotplug_init() < 0)
		goto out;
	for (i = 0; i < TRCU_NR_FLAVORS; i++) {
		trcu_gp_kthread_start(&trcu_states[i]);
		gpw[i].last_gp = gpw[i].last_done = TRCU_GP_INITVAL;
		gpw[i].req_seen = TRCU_GP_INITVAL;
	}
	rsp = &trcu_sched_state;
	printf("trcu-sim: cpus=%d fanout=%d fanout_leaf=%d exact=%d levels=%d nodes=%d seed=%llu idle=%d%% hotplug=%d bh=%d%% load=%s",
	       ncpus, trcu_fanout, trcu_fanout_leaf, trcu_fanout_exact,
	       rsp->geom.levels, rsp->geom.nr_nodes,
	       (unsigned long long)opt_seed, opt_idle, opt_hotplug, opt_bh,
	       opt_sync ? "sync" : "mixed");
	if (opt_hog == HOG_FOLLOW)
		printf(" hog=kthread");
	else if (opt_hog != HOG_NONE)
		printf(" hog=%d", opt_hog);
	printf("\n");
	settle();

	/* The workload, until --gps grace periods of trcu have ended. */
	j0 = jiffies;
	max_j = 2000 + 100UL * opt_gps;
	while (gps_done < opt_gps && jiffies - j0 < max_j)
		jiffy(p_sleep, p_wake);
	gps_counted = gps_done;
	if (gps_done < opt_gps)
		sim_error("only %ld of %d grace periods ended in %lu jiffies",
			  gps_done, opt_gps, max_j);

	/* Measurements of the workload phase (trcu, the sched flavour). */
	for (i = 0; i < rsp->geom.nr_nodes; i++) {
		rnp = &rsp->node[i];
		lvl[rnp->level] += rnp->lock.n_acq;
		nlock += rnp->lock.n_acq;
		engine_nlock += rnp->n_lock;
	}
	for (c = 0; c < ncpus; c++)
		nudges += per_cpu_ptr(rsp->rda, c)->resched_ipi;
	fqs = rsp->n_force_qs;
	root_call = root_in_call;
	levels = rsp->geom.levels;
	root_children = levels > 1 ? rsp->geom.level_cnt[1] : ncpus;
	ipis_before_free = sim_stats.idle_wakeups;
	if (nlock != engine_nlock)
		sim_error("node lock counts: shim %lu, engine %lu",
			  nlock, engine_nlock);

	/* Drain: no new work; every callback and caller must finish. */
	workload_on = false;
	drain_j = jiffies;
	while ((cbs_out || syncs_inflight) && jiffies - drain_j < 5000)
		jiffy(p_sleep, p_wake);
	if (cbs_out)
		sim_error("%ld callbacks never invoked", cbs_out);
	if (syncs_inflight)
		sim_error("%ld synchronize calls never returned", syncs_inflight);

	/*
	 * Unload: the hog goes, the starvation work may finish (the shim's
	 * cancel_work_sync() cannot wait for it), the GP kthreads stop, and
	 * the engine must free all it allocated.
	 */
	hog_stop();
	hog_at = jiffies + ULONG_MAX / 2;
	for (i = 0; i < 200 && sim_work_busy(); i++)
		jiffy(p_sleep, p_wake);
	for (i = 0; i < TRCU_NR_FLAVORS; i++)
		trcu_gp_kthread_stop(&trcu_states[i]);
	for (i = 0; i < TRCU_NR_FLAVORS; i++)
		trcu_tree_free(&trcu_states[i]);
	trcu_dynticks_free();
	leaked = sim_allocs;
	if (leaked)
		sim_error("%ld engine allocations not freed at unload", leaked);

	if (gps_counted)
		qsort(gp_ticks, gps_counted, sizeof(*gp_ticks), cmp_ul);
	med = !gps_counted ? 0 : gps_counted % 2 ? gp_ticks[gps_counted / 2] :
	      (gp_ticks[gps_counted / 2 - 1] + gp_ticks[gps_counted / 2]) / 2.0;
	if (!gps_counted)
		gps_counted = 1;
	printf("gps=%ld jiffies=%lu callbacks=%ld invoked=%ld peak_outstanding=%ld synchronize=%ld ipis=%lu stranded_cpu_jiffies=%lu\n",
	       gps_done, jiffies - j0, cbs_posted, cbs_invoked, cbs_peak,
	       syncs_done, sim_stats.ipis, stranded);
	printf("locks_per_gp:");
	for (i = 0; i < rsp->geom.levels; i++)
		printf(" level%d%s=%.2f", i, i ? "" : "(root)",
		       (double)lvl[i] / gps_counted);
	printf("\n");
	printf("gp_ticks: min=%lu median=%.1f max=%lu\n",
	       gp_ticks ? gp_ticks[0] : 0, med,
	       gp_ticks ? gp_ticks[gps_counted - 1] : 0);
	printf("gp_requests:");
	for (i = 0; i < TRCU_NR_FLAVORS; i++) {
		struct gpwatch *w = &gpw[i];

		printf(" %s=%lu mean=%.1f max=%lu", rsp_of(i)->name, w->req_n,
		       w->req_n ? (double)w->req_sum / w->req_n : 0.0,
		       w->req_max);
		if (w->req_max > req_max)
			req_max = w->req_max;
		moved += rsp_of(i)->n_gpk_moved;
		starved += rsp_of(i)->n_gpk_starved;
	}
	printf("\n");
	if (opt_hog != HOG_NONE)
		printf("hog: stretches=%lu hogged_jiffies=%lu starved=%lu moved=%lu affinity_changes=%lu works=%lu bound=%lu\n",
		       hog_stretches, hog_jiffies, starved, moved,
		       sim_stats.affinity_changes, sim_stats.works_run,
		       gpk_bound());
	printf("RESULT cpus=%d fanout=%d root_locks_per_gp=%.2f gp_ticks_median=%.1f fqs_per_gp=%.2f idle_wakeups_per_gp=%.2f errors=%ld nudges_per_gp=%.2f peak_cbs=%ld levels=%d root_children=%d stranded=%lu root_locks_call_per_gp=%.2f gpk_moved=%lu gp_req_max=%lu\n",
	       ncpus, trcu_fanout, (double)lvl[0] / gps_counted, med,
	       (double)fqs / gps_counted,
	       (double)ipis_before_free / gps_counted, n_errors,
	       (double)nudges / gps_counted, cbs_peak, rsp->geom.levels,
	       root_children, stranded, (double)root_call / gps_counted,
	       moved, req_max);
	return n_errors ? 1 : 0;
out:
	sim_error("engine init failed");
	printf("RESULT cpus=%d fanout=%d root_locks_per_gp=0 gp_ticks_median=0 fqs_per_gp=0 idle_wakeups_per_gp=0 errors=%ld\n",
	       ncpus, trcu_fanout, n_errors);
	return 1;
}
