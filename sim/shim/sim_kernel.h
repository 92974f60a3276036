/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel, as far as trcu's engine files (module/tree.c, callbacks.c,
 * dynticks.c, stall.c, hotplug.c, params.c, geometry.c, gp_kthread.c) need
 * it, for the
 * host simulator sim/trcu-sim.  Every <linux/...>, <asm/...> and <trace/...>
 * header those files include is a one-line file under sim/shim/ that
 * includes this one, so they compile unchanged with -Isim/shim.
 *
 * What is imitated (sim/shim.c holds the state):
 *   - CPUs: smp_processor_id() is the CPU the simulator is running code
 *     on (sim_cur_cpu); cpu_online()/cpu_active() are the simulator's
 *     masks; nr_cpu_ids is the simulated CPU count (up to SIM_MAX_CPUS).
 *   - preempt_count(): one int per CPU, set by the simulator to what the
 *     simulated context holds (a reader: 1; a bh reader: SOFTIRQ_DISABLE;
 *     irq: HARDIRQ; NMI: NMI) -- the engine decides quiescence from it.
 *   - per-CPU data: alloc_percpu() is an array of nr_cpu_ids elements.
 *   - spinlocks: a flag and an acquisition count per lock (the simulator
 *     sums the trcu_node locks' counts per level); taking a held lock, or
 *     waking a task with a raw spinlock held (PROVE_RAW_LOCK_NESTING), is
 *     an error the simulator reports.
 *   - jiffies: the simulator's tick counter.  HZ is 250 (Debian).
 *   - wait queues, completions, kthreads, mutexes: tasks are coroutines
 *     (ucontext) that the simulator resumes on their CPU when woken;
 *     wait_event*(), msleep() and a held mutex yield back to it.  A task
 *     has an affinity (cpus_mask, every CPU at creation) that
 *     set_cpus_allowed_ptr() changes, moving the task off a CPU it no
 *     longer allows; where a task may run is the simulator's (sim.c).
 *   - workqueues: system_unbound_wq is one worker task that runs the
 *     queued items in order (gp_kthread.c's starvation work).
 *   - tasklets, irq_work, smp_call_function_single() and _many(): queued
 *     per CPU and delivered by the simulator as events (an IPI to an idle
 *     CPU wakes it, and is counted).
 *   - ktime_get_ns(): jiffies in ns; no time passes within a tick.
 *   - cpuhp_setup_state(): records the prepare/dead callbacks, which the
 *     simulator calls when it plugs CPUs.
 *   - WARN_ON*(): counted as errors.  Tracepoints: no-ops.
 *
 * What is NOT modelled: memory ordering and concurrency.  The simulator
 * is sequential: every engine call runs to completion (or to a wait) while
 * nothing else moves, barriers are no-ops, atomics are plain operations.
 * It checks the algorithm (which CPU is credited with what, when a grace
 * period may end, where callbacks go), not the barriers; the guest and
 * the model in model/ are what test those.  Also not modelled: lockdep,
 * kprobes (the hooks of hooks.c are the simulator's direct calls), real
 * time within a tick, the expedited and polled APIs (exp.c, poll.c).
 */
#ifndef _SIM_KERNEL_H
#define _SIM_KERNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <errno.h>
#include <sys/types.h>

#define CONFIG_X86		1
#define CONFIG_SMP		1
#define HZ			250
#define LINUX_VERSION_CODE	KERNEL_VERSION(6, 1, 0)
#define KERNEL_VERSION(a, b, c)	(((a) << 16) + ((b) << 8) + (c))
#define IS_ENABLED(x)		0
#define BITS_PER_LONG		64

#ifndef SIM_MAX_CPUS
#define SIM_MAX_CPUS		8192
#endif

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int32_t s32;
typedef int gfp_t;
#define GFP_KERNEL		0

/* ---- compiler ---- */
#define notrace
#define __percpu
#define __rcu
#define __releases(x)
#define __acquires(x)
#define __must_check
#define ____cacheline_internodealigned_in_smp	/* one thread: no false sharing */
#define likely(x)		__builtin_expect(!!(x), 1)
#define unlikely(x)		__builtin_expect(!!(x), 0)
#define READ_ONCE(x)		(*(volatile typeof(x) *)&(x))
#define WRITE_ONCE(x, v)	(*(volatile typeof(x) *)&(x) = (v))
#define barrier()		do { __asm__ __volatile__("" ::: "memory"); } while (0)
#define smp_mb()		barrier()
#define smp_wmb()		barrier()
#define smp_rmb()		barrier()
#define smp_load_acquire(p)	READ_ONCE(*(p))
#define smp_store_release(p, v)	WRITE_ONCE(*(p), (v))
#define prefetch(p)		((void)(p))
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#define static_assert(e)	_Static_assert(e, #e)
#define BUILD_BUG_ON(e)		((void)sizeof(char[1 - 2 * !!(e)]))
#define hweight_long(x)		__builtin_popcountl(x)
#define min(a, b)		((a) < (b) ? (a) : (b))
#define max(a, b)		((a) > (b) ? (a) : (b))

/* ---- module ---- */
#define EXPORT_SYMBOL_GPL(s)
#define NOKPROBE_SYMBOL(s)
#define module_param_named(n, v, t, p)
#define MODULE_PARM_DESC(n, d)

/* ---- printing, warnings ---- */
#define __printf(a, b)		__attribute__((format(printf, a, b)))
void sim_warn(const char *file, int line, const char *cond);
void sim_printk(const char *fmt, ...) __printf(1, 2);
#ifndef pr_fmt
#define pr_fmt(fmt) fmt
#endif
#define pr_err(fmt, ...)	sim_printk("E " pr_fmt(fmt), ##__VA_ARGS__)
#define pr_info(fmt, ...)	sim_printk("I " pr_fmt(fmt), ##__VA_ARGS__)
#define pr_warn(fmt, ...)	sim_printk("W " pr_fmt(fmt), ##__VA_ARGS__)
#define WARN_ON(c) ({ bool __c = !!(c);					\
	if (unlikely(__c))						\
		sim_warn(__FILE__, __LINE__, #c);			\
	unlikely(__c); })
#define WARN_ON_ONCE(c)		WARN_ON(c)

/* ---- CPUs, preempt count, current task ---- */
extern int nr_cpu_ids;
extern int sim_cur_cpu;
extern bool sim_cpu_online[SIM_MAX_CPUS];
extern bool sim_cpu_active[SIM_MAX_CPUS];
extern int __preempt_count[SIM_MAX_CPUS];

#define smp_processor_id()	(sim_cur_cpu)
#define raw_smp_processor_id()	(sim_cur_cpu)
#define cpu_online(c)		(sim_cpu_online[c])
#define cpu_active(c)		(sim_cpu_active[c])
#define cpu_is_offline(c)	(!cpu_online(c))
#define for_each_possible_cpu(c)	for ((c) = 0; (c) < nr_cpu_ids; (c)++)
static inline int sim_next_online(int c)
{
	while (++c < nr_cpu_ids && !sim_cpu_online[c])
		;
	return c;
}
#define for_each_online_cpu(c)						\
	for ((c) = sim_next_online(-1); (c) < nr_cpu_ids;		\
	     (c) = sim_next_online(c))
#define per_cpu(var, cpu)	((var)[cpu])

#define PREEMPT_BITS		8
#define SOFTIRQ_BITS		8
#define HARDIRQ_BITS		4
#define PREEMPT_SHIFT		0
#define SOFTIRQ_SHIFT		(PREEMPT_SHIFT + PREEMPT_BITS)
#define HARDIRQ_SHIFT		(SOFTIRQ_SHIFT + SOFTIRQ_BITS)
#define NMI_SHIFT		(HARDIRQ_SHIFT + HARDIRQ_BITS)
#define PREEMPT_MASK		(((1UL << PREEMPT_BITS) - 1) << PREEMPT_SHIFT)
#define SOFTIRQ_MASK		(((1UL << SOFTIRQ_BITS) - 1) << SOFTIRQ_SHIFT)
#define HARDIRQ_MASK		(((1UL << HARDIRQ_BITS) - 1) << HARDIRQ_SHIFT)
#define NMI_MASK		(1UL << NMI_SHIFT)
#define PREEMPT_OFFSET		(1UL << PREEMPT_SHIFT)
#define SOFTIRQ_OFFSET		(1UL << SOFTIRQ_SHIFT)
#define SOFTIRQ_DISABLE_OFFSET	(2 * SOFTIRQ_OFFSET)
#define HARDIRQ_OFFSET		(1UL << HARDIRQ_SHIFT)
#define NMI_OFFSET		(1UL << NMI_SHIFT)

#define preempt_count()		(__preempt_count[sim_cur_cpu])
#define in_hardirq()		(preempt_count() & HARDIRQ_MASK)
#define in_interrupt()		(preempt_count() & (NMI_MASK | HARDIRQ_MASK | SOFTIRQ_MASK))
#define preemptible()		(preempt_count() == 0)
#define preempt_disable()	(__preempt_count[sim_cur_cpu]++)
#define preempt_enable()	(__preempt_count[sim_cur_cpu]--)
#define local_bh_disable()	(__preempt_count[sim_cur_cpu] += SOFTIRQ_DISABLE_OFFSET)
#define local_bh_enable()	(__preempt_count[sim_cur_cpu] -= SOFTIRQ_DISABLE_OFFSET)
#define _local_bh_enable()	local_bh_enable()
#define set_preempt_need_resched()	do { } while (0)
#define might_sleep()		do { } while (0)
#define cond_resched()		do { } while (0)

/* Interrupts: the simulator never interrupts engine code, so no-ops. */
#define local_irq_save(f)	((f) = 0)
#define local_irq_restore(f)	((void)(f))
#define local_irq_disable()	do { } while (0)
#define local_irq_enable()	do { } while (0)
#define irqs_disabled()		1
#define lockdep_assert_irqs_disabled()	do { } while (0)
#define lockdep_assert_held(l)	do { } while (0)

struct cpumask { unsigned long bits[SIM_MAX_CPUS / BITS_PER_LONG]; };

struct task_struct {
	unsigned int __state;
	int cpu;			/* CPU it runs on */
	bool idle;			/* the idle task */
	const char *comm;
	int pid;
	int policy;			/* SCHED_NORMAL or, set, SCHED_FIFO */
	struct cpumask cpus_mask;	/* affinity (the simulator keeps to it) */
};
struct task_struct *sim_current(void);
#define current			(sim_current())
#define is_idle_task(t)		((t)->idle)
#define task_cpu(t)		((t)->cpu)
#define task_pid_nr(t)		((t)->pid)
#define set_tsk_need_resched(t)	do { } while (0)

/* ---- memory ---- */
void *sim_alloc(size_t size);
void sim_free(const void *p);
#define kcalloc(n, s, g)	sim_alloc((n) * (s))
#define kzalloc(s, g)		sim_alloc(s)
#define kmalloc(s, g)		sim_alloc(s)
#define kfree(p)		sim_free(p)
#define alloc_percpu(type)	((type *)sim_alloc(nr_cpu_ids * sizeof(type)))
#define free_percpu(p)		sim_free(p)
#define per_cpu_ptr(p, cpu)	(&(p)[cpu])
#define this_cpu_ptr(p)		(&(p)[sim_cur_cpu])

/* ---- atomics and bitops (sequential: plain operations) ---- */
typedef struct { int counter; } atomic_t;
#define atomic_read(a)		((a)->counter)
#define atomic_read_acquire(a)	((a)->counter)
#define atomic_set(a, v)	((a)->counter = (v))
#define atomic_inc(a)		((a)->counter++)
#define atomic_dec(a)		((a)->counter--)
#define atomic_add_return(i, a)	((a)->counter += (i))
#define atomic_dec_and_test(a)	(--(a)->counter == 0)
#define cmpxchg(p, o, n) ({ typeof(*(p)) __o = (o), __r = *(p);		\
	if (__r == __o)							\
		*(p) = (n);						\
	__r; })
static inline bool test_bit(int nr, const unsigned long *addr)
{
	return (*addr >> nr) & 1;
}
static inline bool test_and_set_bit(int nr, unsigned long *addr)
{
	bool old = test_bit(nr, addr);

	*addr |= 1UL << nr;
	return old;
}
static inline bool test_and_clear_bit(int nr, unsigned long *addr)
{
	bool old = test_bit(nr, addr);

	*addr &= ~(1UL << nr);
	return old;
}

/* ---- cpumasks ---- */
typedef struct cpumask *cpumask_var_t;
static inline bool zalloc_cpumask_var(cpumask_var_t *m, gfp_t f)
{
	*m = sim_alloc(sizeof(struct cpumask));
	return *m != NULL;
}
#define free_cpumask_var(m)	sim_free(m)
#define cpumask_set_cpu(c, m)	((m)->bits[(c) / 64] |= 1UL << ((c) % 64))
#define cpumask_test_cpu(c, m)	(((m)->bits[(c) / 64] >> ((c) % 64)) & 1)
static inline int sim_next_in(int c, const struct cpumask *m)
{
	while (++c < nr_cpu_ids && !cpumask_test_cpu(c, m))
		;
	return c;
}
#define for_each_cpu(c, m)						\
	for ((c) = sim_next_in(-1, m); (c) < nr_cpu_ids;		\
	     (c) = sim_next_in(c, m))
static inline int cpumask_weight(const struct cpumask *m)
{
	int i, n = 0;

	for (i = 0; i < SIM_MAX_CPUS / BITS_PER_LONG; i++)
		n += __builtin_popcountl(m->bits[i]);
	return n;
}
static inline void cpumask_clear(struct cpumask *m)
{
	memset(m, 0, sizeof(*m));
}
const struct cpumask *cpumask_of(int cpu);
extern const struct cpumask *cpu_possible_mask;
/* Keeps the simulated task's CPU if @m allows it, else its first CPU. */
int set_cpus_allowed_ptr(struct task_struct *p, const struct cpumask *m);
static inline bool cpumask_empty(const struct cpumask *m)
{
	return !cpumask_weight(m);
}
static inline void cpumask_copy(struct cpumask *d, const struct cpumask *s)
{
	*d = *s;
}
static inline void cpumask_andnot(struct cpumask *d, const struct cpumask *a,
				  const struct cpumask *b)
{
	int i;

	for (i = 0; i < SIM_MAX_CPUS / BITS_PER_LONG; i++)
		d->bits[i] = a->bits[i] & ~b->bits[i];
}
static inline bool cpumask_intersects(const struct cpumask *a,
				      const struct cpumask *b)
{
	int i;

	for (i = 0; i < SIM_MAX_CPUS / BITS_PER_LONG; i++)
		if (a->bits[i] & b->bits[i])
			return true;
	return false;
}
static inline bool cpumask_equal(const struct cpumask *a,
				 const struct cpumask *b)
{
	return !memcmp(a, b, sizeof(*a));
}
/* The online CPUs as a mask, built from sim_cpu_online[] at each use. */
const struct cpumask *sim_online_mask(void);
#define cpu_online_mask		(sim_online_mask())
#define cpus_read_lock()	do { } while (0)
#define cpus_read_unlock()	do { } while (0)

/* ---- jiffies ---- */
extern unsigned long jiffies;
/* No time within a tick: only whole jiffies pass (4 ms each at HZ 250). */
#define NSEC_PER_USEC		1000ULL
static inline u64 ktime_get_ns(void)
{
	return (u64)jiffies * 4000000ULL;
}
#define div_u64(a, b)		((u64)(a) / (b))
#define time_after(a, b)	((long)((b) - (a)) < 0)
#define time_before(a, b)	time_after(b, a)
#define time_after_eq(a, b)	((long)((a) - (b)) >= 0)
#define time_before_eq(a, b)	time_after_eq(b, a)

/* ---- spinlocks: flag + acquisition count ---- */
typedef struct {
	int locked;
	unsigned long n_acq;		/* acquisitions (the simulator sums) */
} raw_spinlock_t;
void sim_lock(raw_spinlock_t *l);
void sim_unlock(raw_spinlock_t *l);
#define raw_spin_lock_init(l)	memset((l), 0, sizeof(*(l)))
#define raw_spin_lock(l)	sim_lock(l)
#define raw_spin_unlock(l)	sim_unlock(l)
#define raw_spin_lock_irq(l)	sim_lock(l)
#define raw_spin_unlock_irq(l)	sim_unlock(l)
#define raw_spin_lock_irqsave(l, f)	do { (f) = 0; sim_lock(l); } while (0)
#define raw_spin_unlock_irqrestore(l, f) do { (void)(f); sim_unlock(l); } while (0)
#define raw_spin_is_locked(l)	((l)->locked)

/*
 * A mutex: a task that finds it held waits (gp_kthread.c's work holds
 * one across msleep()); held outside a task, it is a sleep in atomic
 * context, an error.
 */
typedef struct { int dummy; } wait_queue_head_t;
struct mutex { int locked; wait_queue_head_t wait; };
#define mutex_init(m)		((m)->locked = 0)
void mutex_lock(struct mutex *m);
void mutex_unlock(struct mutex *m);

/* ---- tasks: coroutines resumed by the simulator ---- */
struct sim_task;
#define init_waitqueue_head(q)	((q)->dummy = 0)
void sim_wake_up(wait_queue_head_t *q);
#define wake_up(q)		sim_wake_up(q)
/* Block the current task until woken on @q or jiffies reach @until. */
void sim_wait(wait_queue_head_t *q, bool timed, unsigned long until);
#define wait_event_idle(q, cond) do {					\
	while (!(cond))							\
		sim_wait(&(q), false, 0);				\
} while (0)
#define wait_event_idle_timeout(q, cond, t) ({				\
	unsigned long __until = jiffies + (t);				\
	while (!(cond) && time_before(jiffies, __until))		\
		sim_wait(&(q), true, __until);				\
	0; })

#define wait_event(q, cond)	wait_event_idle(q, cond)
#define wake_up_all(q)		sim_wake_up(q)
#define wq_has_sleeper(q)	true
#define need_resched()		false
#define schedule_timeout_uninterruptible(t) sim_sleep(t)
void sim_sleep(unsigned long t);
#define TASK_COMM_LEN		16
typedef int pid_t;
/* As the kernel's: at least one jiffy more than asked for. */
#define msecs_to_jiffies(ms)	(((ms) * HZ + 999) / 1000)
#define msleep(ms)		sim_sleep(msecs_to_jiffies(ms) + 1)
static inline ssize_t strscpy(char *d, const char *s, size_t n)
{
	size_t l = strlen(s);

	if (!n)
		return -E2BIG;
	if (l >= n) {
		memcpy(d, s, n - 1);
		d[n - 1] = '\0';
		return -E2BIG;
	}
	memcpy(d, s, l + 1);
	return l;
}
#define max_t(t, a, b)		((t)(a) > (t)(b) ? (t)(a) : (t)(b))
struct completion { unsigned int done; wait_queue_head_t wait; };
#define init_completion(c)	((c)->done = 0)
#define reinit_completion(c)	((c)->done = 0)
void complete(struct completion *c);
void wait_for_completion(struct completion *c);

struct task_struct *sim_kthread_run(int (*fn)(void *), void *arg,
				    const char *name);
#define kthread_run(fn, arg, fmt, ...)	sim_kthread_run(fn, arg, fmt)
/* Created runnable, kthreadd's affinity (every CPU), SCHED_NORMAL. */
#define kthread_create(fn, arg, fmt, ...) sim_kthread_run(fn, arg, fmt)
#define wake_up_process(t)	((void)(t))
#define sched_set_fifo_low(t)	((void)(t))
/* Classes are recorded, not scheduled by: see sim.c for who runs where. */
#define SCHED_NORMAL		0
#define SCHED_FIFO		1
struct sched_attr {
	u32 size;
	u32 sched_policy;
	u64 sched_flags;
	s32 sched_nice;
	u32 sched_priority;
};
static inline int sched_setattr_nocheck(struct task_struct *t,
					const struct sched_attr *attr)
{
	t->policy = attr->sched_policy;
	return 0;
}
/* The kernel's own RCU: no tick runs while engine code does. */
#define synchronize_rcu()	do { } while (0)
#define kthread_should_stop()	false
#define kthread_stop(t)		((void)(t))
#define IS_ERR(p)		((p) == NULL)
#define PTR_ERR(p)		(-ENOMEM)

/* ---- tasklets, irq_work, IPIs: events delivered by the simulator ---- */
struct tasklet_struct {
	struct tasklet_struct *next;
	bool pending;
	void (*callback)(struct tasklet_struct *t);
};
#define tasklet_setup(t, fn)	\
	do { (t)->next = NULL; (t)->pending = false; (t)->callback = (fn); } while (0)
#define from_tasklet(var, t, field)	container_of(t, typeof(*var), field)
void tasklet_schedule(struct tasklet_struct *t);

struct irq_work {
	struct irq_work *next;
	bool pending;
	void (*func)(struct irq_work *w);
};
#define init_irq_work(w, fn)	\
	do { (w)->next = NULL; (w)->pending = false; (w)->func = (fn); } while (0)
bool irq_work_queue(struct irq_work *w);
#define irq_work_sync(w)	((void)(w))

typedef void (*smp_call_func_t)(void *info);
int smp_call_function_single(int cpu, smp_call_func_t func, void *info,
			     int wait);
void smp_call_function_many(const struct cpumask *mask, smp_call_func_t func,
			    void *info, bool wait);
/*
 * A csd: queued as smp_call_function_single(wait=0).  Not modelled: a
 * csd still in flight is sent again (the kernel's call returns -EBUSY).
 */
typedef struct { smp_call_func_t func; void *info; } call_single_data_t;
#define INIT_CSD(c, f, i)	do { (c)->func = (f); (c)->info = (i); } while (0)
int smp_call_function_single_async(int cpu, call_single_data_t *csd);
#define get_cpu()		(sim_cur_cpu)
#define put_cpu()		do { } while (0)

/*
 * ---- workqueues: one unbound worker, a task the simulator runs ----
 * (gp_kthread.c's starvation work; items run in the order queued)
 */
struct work_struct {
	struct work_struct *next;
	bool pending, running;
	void (*func)(struct work_struct *w);
};
struct workqueue_struct;
extern struct workqueue_struct *system_unbound_wq;
#define INIT_WORK(w, fn)	\
	do { (w)->next = NULL; (w)->pending = (w)->running = false; \
	     (w)->func = (fn); } while (0)
bool queue_work(struct workqueue_struct *wq, struct work_struct *w);
bool cancel_work_sync(struct work_struct *w);

/* ---- hotplug states ---- */
#define CPUHP_BP_PREPARE_DYN	1
int cpuhp_setup_state(int state, const char *name,
		      int (*startup)(unsigned int cpu),
		      int (*teardown)(unsigned int cpu));
#define cpuhp_remove_state_nocalls(s)	((void)(s))

/* ---- RCU types the engine uses ---- */
struct rcu_head {
	struct rcu_head *next;
	void (*func)(struct rcu_head *head);
};
typedef void (*rcu_callback_t)(struct rcu_head *head);
struct rcu_synchronize {
	struct rcu_head head;
	struct completion completion;
};
void wakeme_after_rcu(struct rcu_head *head);
#define init_rcu_head_on_stack(h)	do { } while (0)
#define destroy_rcu_head_on_stack(h)	do { } while (0)
struct lockdep_map { int dummy; };
#define rcu_lock_acquire(m)	do { } while (0)
#define rcu_lock_release(m)	do { } while (0)

/* ---- tracepoints: no-ops ---- */
#define TP_PROTO(args...)	args
#define TP_ARGS(args...)	args
#define TRACE_EVENT(name, proto, args, tstruct, assign, print)		\
	static inline void trace_##name(proto) {}

#endif /* _SIM_KERNEL_H */
