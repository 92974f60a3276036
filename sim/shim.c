// SPDX-License-Identifier: GPL-2.0
/*
 * The state behind sim/shim/sim_kernel.h: CPUs, locks, memory, tasks
 * (coroutines), tasklets, irq_work and IPI queues.  See that header for
 * what is and is not modelled.  The simulator proper (sim.c) decides
 * when queued work is delivered; this file only queues it.
 */
#include <stdarg.h>
#include <ucontext.h>

#include "sim_kernel.h"
#include "sim.h"

int nr_cpu_ids;
int sim_cur_cpu;
bool sim_cpu_online[SIM_MAX_CPUS];
bool sim_cpu_active[SIM_MAX_CPUS];
int __preempt_count[SIM_MAX_CPUS];
unsigned long jiffies;
struct task_struct sim_cpu_task[SIM_MAX_CPUS];

struct sim_percpu_q sim_q[SIM_MAX_CPUS];

long sim_allocs;		/* allocations not yet freed */
int sim_locks_held;		/* raw spinlocks held right now */

/* ---- errors ---- */

void sim_warn(const char *file, int line, const char *cond)
{
	sim_error("WARN_ON(%s) at %s:%d", cond, file, line);
}

void sim_printk(const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	buf[strcspn(buf, "\n")] = '\0';
	/* pr_err() from the engine is a stall or a bad parameter: an error. */
	if (buf[0] == 'E')
		sim_error("engine: %s", buf + 2);
	else if (sim_verbose)
		printf("engine: %s\n", buf + 2);
}

/* ---- memory ---- */

void *sim_alloc(size_t size)
{
	void *p = calloc(1, size);

	if (!p) {
		fprintf(stderr, "trcu-sim: out of memory\n");
		exit(2);
	}
	sim_allocs++;
	return p;
}

void sim_free(const void *p)
{
	if (!p)
		return;
	sim_allocs--;
	free((void *)p);
}

/* ---- locks ---- */

void sim_lock(raw_spinlock_t *l)
{
	/* Sequential: a held lock here can only be a self-deadlock. */
	if (l->locked)
		sim_error("lock %p taken while held (self-deadlock)", (void *)l);
	l->locked = 1;
	l->n_acq++;
	sim_locks_held++;
}

void sim_unlock(raw_spinlock_t *l)
{
	if (!l->locked)
		sim_error("lock %p released while free", (void *)l);
	l->locked = 0;
	sim_locks_held--;
}

/* ---- tasks ---- */

#define SIM_STACK	(256 * 1024)

static struct sim_task sim_tasks[SIM_MAX_TASKS];
static ucontext_t sim_main_ctx;
struct sim_task *sim_running;

struct task_struct *sim_current(void)
{
	if (sim_running)
		return &sim_running->ts;
	return &sim_cpu_task[sim_cur_cpu];
}

static void sim_task_entry(unsigned int hi, unsigned int lo)
{
	struct sim_task *t = (void *)(((uintptr_t)hi << 32) | lo);

	t->fn(t->arg);
	t->done = true;
	t->runnable = false;
	swapcontext(&t->ctx, &sim_main_ctx);
}

/* A new task on @cpu, runnable; NULL if every slot is taken. */
struct sim_task *sim_task_new(int (*fn)(void *), void *arg, int cpu,
			      const char *name)
{
	struct sim_task *t = NULL;
	uintptr_t p;
	int i;

	for (i = 0; i < SIM_MAX_TASKS; i++) {
		if (!sim_tasks[i].used || sim_tasks[i].done) {
			t = &sim_tasks[i];
			break;
		}
	}
	if (!t)
		return NULL;
	if (!t->stack)
		t->stack = malloc(SIM_STACK);
	if (!t->stack)
		return NULL;
	t->used = true;
	t->kthread = false;
	t->done = false;
	t->runnable = true;
	t->timed = false;
	t->wq = NULL;
	t->fn = fn;
	t->arg = arg;
	t->ts.cpu = cpu;
	t->ts.idle = false;
	t->ts.comm = name;
	t->ts.pid = 100 + i;
	t->ts.policy = SCHED_NORMAL;
	cpumask_clear(&t->ts.cpus_mask);
	for (i = 0; i < nr_cpu_ids; i++)
		cpumask_set_cpu(i, &t->ts.cpus_mask);
	getcontext(&t->ctx);
	t->ctx.uc_stack.ss_sp = t->stack;
	t->ctx.uc_stack.ss_size = SIM_STACK;
	t->ctx.uc_link = NULL;
	p = (uintptr_t)t;
	makecontext(&t->ctx, (void (*)(void))sim_task_entry, 2,
		    (unsigned int)(p >> 32), (unsigned int)p);
	return t;
}

struct task_struct *sim_kthread_run(int (*fn)(void *), void *arg,
				    const char *name)
{
	struct sim_task *t = sim_task_new(fn, arg, SIM_KTHREAD_CPU, name);

	if (!t)
		return NULL;
	t->kthread = true;
	return &t->ts;
}

/* Run @t until it waits or ends.  Caller: the simulator, main context. */
void sim_task_switch_to(struct sim_task *t)
{
	sim_running = t;
	swapcontext(&sim_main_ctx, &t->ctx);
	sim_running = NULL;
}

struct sim_task *sim_task_at(int i)
{
	return i < SIM_MAX_TASKS && sim_tasks[i].used ? &sim_tasks[i] : NULL;
}

void sim_wait(wait_queue_head_t *q, bool timed, unsigned long until)
{
	struct sim_task *t = sim_running;

	if (!t) {
		sim_error("wait outside a task");
		return;
	}
	t->wq = q;
	t->timed = timed;
	t->until = until;
	t->runnable = false;
	swapcontext(&t->ctx, &sim_main_ctx);
}

void sim_wake_up(wait_queue_head_t *q)
{
	int i;

	/* PROVE_RAW_LOCK_NESTING: a wait queue's lock may sleep on RT. */
	if (sim_locks_held)
		sim_error("wake_up() with a raw spinlock held");
	for (i = 0; i < SIM_MAX_TASKS; i++) {
		struct sim_task *t = &sim_tasks[i];

		if (t->used && !t->done && !t->runnable && t->wq == q) {
			t->runnable = true;
			t->wq = NULL;
		}
	}
}

void complete(struct completion *c)
{
	c->done++;
	sim_wake_up(&c->wait);
}

void wait_for_completion(struct completion *c)
{
	while (!c->done)
		sim_wait(&c->wait, false, 0);
	c->done--;
}

void wakeme_after_rcu(struct rcu_head *head)
{
	struct rcu_synchronize *rs = container_of(head, struct rcu_synchronize,
						  head);

	complete(&rs->completion);
}

/* ---- tasklets, irq_work, IPIs ---- */

void tasklet_schedule(struct tasklet_struct *t)
{
	struct sim_percpu_q *q = &sim_q[sim_cur_cpu];

	if (t->pending)
		return;
	t->pending = true;
	t->next = NULL;
	if (q->tl_tail)
		q->tl_tail->next = t;
	else
		q->tl_head = t;
	q->tl_tail = t;
	sim_mark_work(sim_cur_cpu);
}

bool irq_work_queue(struct irq_work *w)
{
	struct sim_percpu_q *q = &sim_q[sim_cur_cpu];

	if (w->pending)
		return false;
	w->pending = true;
	w->next = NULL;
	if (q->iw_tail)
		q->iw_tail->next = w;
	else
		q->iw_head = w;
	q->iw_tail = w;
	sim_mark_work(sim_cur_cpu);
	return true;
}

int smp_call_function_single(int cpu, smp_call_func_t func, void *info,
			     int wait)
{
	struct sim_percpu_q *q = &sim_q[cpu];
	struct sim_ipi *ipi;

	if (cpu < 0 || cpu >= nr_cpu_ids || !cpu_online(cpu))
		return -ENXIO;
	if (cpu == sim_cur_cpu) {
		/* Local: called at once with irqs off, not in an irq. */
		func(info);
		return 0;
	}
	ipi = malloc(sizeof(*ipi));
	if (!ipi)
		exit(2);
	ipi->func = func;
	ipi->info = info;
	ipi->next = NULL;
	if (q->ipi_tail)
		q->ipi_tail->next = ipi;
	else
		q->ipi_head = ipi;
	q->ipi_tail = ipi;
	sim_stats.ipis++;
	sim_mark_work(cpu);
	if (wait)
		sim_ipi_deliver(cpu);
	return 0;
}

int smp_call_function_single_async(int cpu, call_single_data_t *csd)
{
	return smp_call_function_single(cpu, csd->func, csd->info, 0);
}

/* Sleep @t jiffies: a timed wait on a queue nobody wakes. */
void sim_sleep(unsigned long t)
{
	static wait_queue_head_t never;

	sim_wait(&never, true, jiffies + t);
}

static struct cpumask sim_cpu_masks[SIM_MAX_CPUS];

const struct cpumask *cpumask_of(int cpu)
{
	struct cpumask *m = &sim_cpu_masks[cpu];

	cpumask_clear(m);
	cpumask_set_cpu(cpu, m);
	return m;
}

static struct cpumask sim_all_cpus = {
	.bits = { [0 ... SIM_MAX_CPUS / BITS_PER_LONG - 1] = ~0UL },
};
const struct cpumask *cpu_possible_mask = &sim_all_cpus;

const struct cpumask *sim_online_mask(void)
{
	static struct cpumask m;
	int cpu;

	cpumask_clear(&m);
	for_each_online_cpu(cpu)
		cpumask_set_cpu(cpu, &m);
	return &m;
}

/*
 * @p's affinity becomes @m.  It stays on its CPU if @m allows it, else
 * moves at once (as the kernel moves a queued task) to the first online
 * CPU of @m; -EINVAL, nothing changed, if @m has no online CPU.
 */
int set_cpus_allowed_ptr(struct task_struct *p, const struct cpumask *m)
{
	int cpu = sim_next_in(-1, m);

	while (cpu < nr_cpu_ids && !cpu_online(cpu))
		cpu = sim_next_in(cpu, m);
	if (cpu >= nr_cpu_ids)
		return -EINVAL;
	cpumask_copy(&p->cpus_mask, m);
	if (!cpumask_test_cpu(p->cpu, m) || !cpu_online(p->cpu))
		p->cpu = cpu;
	sim_stats.affinity_changes++;
	return 0;
}

/* ---- mutexes ---- */

void mutex_lock(struct mutex *m)
{
	while (m->locked) {
		if (!sim_running) {
			sim_error("mutex %p held: would sleep outside a task",
				  (void *)m);
			return;
		}
		sim_wait(&m->wait, false, 0);
	}
	m->locked = 1;
}

void mutex_unlock(struct mutex *m)
{
	if (!m->locked)
		sim_error("mutex %p released while free", (void *)m);
	m->locked = 0;
	sim_wake_up(&m->wait);
}

/* ---- the unbound workqueue: one worker task ---- */

struct workqueue_struct { int dummy; };
static struct workqueue_struct sim_unbound_wq;
struct workqueue_struct *system_unbound_wq = &sim_unbound_wq;
static struct work_struct *sim_work_head, *sim_work_tail;
static struct work_struct *sim_work_cur;	/* running (maybe asleep in it) */
static wait_queue_head_t sim_work_wq;
static struct sim_task *sim_worker;

static int sim_worker_fn(void *arg)
{
	for (;;) {
		struct work_struct *w;

		wait_event(sim_work_wq, sim_work_head);
		w = sim_work_head;
		sim_work_head = w->next;
		if (!sim_work_head)
			sim_work_tail = NULL;
		w->pending = false;
		w->running = true;
		sim_work_cur = w;
		w->func(w);
		sim_work_cur = NULL;
		w->running = false;
		sim_stats.works_run++;
	}
	return 0;
}

/*
 * The worker: created before the engine's init (so it holds the same task
 * slot in every run), not runnable until work is queued.  It is no kthread
 * of trcu's own (sim_task->kthread stays false): the simulator may run it
 * on any CPU.
 */
void sim_wq_init(void)
{
	sim_worker = sim_task_new(sim_worker_fn, NULL, 0, "kworker/u");
	if (!sim_worker) {
		fprintf(stderr, "trcu-sim: no task slot for the worker\n");
		exit(2);
	}
	sim_worker->runnable = false;
	sim_worker->wq = &sim_work_wq;
}

/* Queue @w for the worker; false if it is pending already. */
bool queue_work(struct workqueue_struct *wq, struct work_struct *w)
{
	if (w->pending)
		return false;
	w->pending = true;
	w->next = NULL;
	if (sim_work_tail)
		sim_work_tail->next = w;
	else
		sim_work_head = w;
	sim_work_tail = w;
	sim_wake_up(&sim_work_wq);
	return true;
}

/*
 * Take @w off the queue.  Its function still running (asleep in it) can
 * only be waited for from a task: from the simulator's main loop, an
 * error (sim.c lets the work finish before unloading).
 */
bool cancel_work_sync(struct work_struct *w)
{
	struct work_struct **pp;
	bool was = w->pending;

	for (pp = &sim_work_head; *pp; pp = &(*pp)->next) {
		if (*pp == w) {
			*pp = w->next;
			break;
		}
	}
	sim_work_tail = NULL;
	for (pp = &sim_work_head; *pp; pp = &(*pp)->next)
		sim_work_tail = *pp;
	w->pending = false;
	if (w->running)
		sim_error("cancel_work_sync() of a running work item");
	return was;
}

/* Is any work queued or running? */
bool sim_work_busy(void)
{
	return sim_work_head || sim_work_cur;
}

/* Every CPU of @mask but the sender, queued as smp_call_function_single(). */
void smp_call_function_many(const struct cpumask *mask, smp_call_func_t func,
			    void *info, bool wait)
{
	int cpu;

	for_each_cpu(cpu, mask)
		if (cpu != sim_cur_cpu)
			smp_call_function_single(cpu, func, info, wait);
}

/* Pop and run @cpu's tasklets (softirq context).  Returns how many. */
int sim_run_tasklets(int cpu)
{
	struct sim_percpu_q *q = &sim_q[cpu];
	int n = 0;

	while (q->tl_head) {
		struct tasklet_struct *t = q->tl_head;

		q->tl_head = t->next;
		if (!q->tl_head)
			q->tl_tail = NULL;
		t->pending = false;
		__preempt_count[cpu] += SOFTIRQ_OFFSET;
		t->callback(t);
		__preempt_count[cpu] -= SOFTIRQ_OFFSET;
		n++;
	}
	return n;
}

/* Pop and run @cpu's irq_work (hardirq context: a self-IPI). */
int sim_run_irq_work(int cpu)
{
	struct sim_percpu_q *q = &sim_q[cpu];
	int n = 0;

	while (q->iw_head) {
		struct irq_work *w = q->iw_head;

		q->iw_head = w->next;
		if (!q->iw_head)
			q->iw_tail = NULL;
		w->pending = false;
		__preempt_count[cpu] += HARDIRQ_OFFSET;
		w->func(w);
		__preempt_count[cpu] -= HARDIRQ_OFFSET;
		n++;
	}
	return n;
}

/* Pop and run @cpu's IPI functions (caller is in the irq).  How many. */
int sim_run_ipis(int cpu)
{
	struct sim_percpu_q *q = &sim_q[cpu];
	int n = 0;

	while (q->ipi_head) {
		struct sim_ipi *ipi = q->ipi_head;

		q->ipi_head = ipi->next;
		if (!q->ipi_head)
			q->ipi_tail = NULL;
		ipi->func(ipi->info);
		free(ipi);
		n++;
	}
	return n;
}

/* A dead CPU's tasklets move to the CPU running the dead step. */
void sim_takeover_tasklets(int dead, int to)
{
	struct sim_percpu_q *d = &sim_q[dead], *q = &sim_q[to];

	if (!d->tl_head)
		return;
	if (q->tl_tail)
		q->tl_tail->next = d->tl_head;
	else
		q->tl_head = d->tl_head;
	q->tl_tail = d->tl_tail;
	d->tl_head = d->tl_tail = NULL;
	sim_mark_work(to);
}

/* ---- hotplug states ---- */

int (*sim_cpuhp_startup)(unsigned int cpu);
int (*sim_cpuhp_teardown)(unsigned int cpu);

int cpuhp_setup_state(int state, const char *name,
		      int (*startup)(unsigned int cpu),
		      int (*teardown)(unsigned int cpu))
{
	int cpu;

	sim_cpuhp_startup = startup;
	sim_cpuhp_teardown = teardown;
	/* As the kernel: the startup callback for every CPU already up. */
	for_each_online_cpu(cpu)
		startup(cpu);
	return 100;
}
