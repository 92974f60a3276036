/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Between the kernel shim (shim.c) and the simulator proper (sim.c).
 */
#ifndef _SIM_H
#define _SIM_H

#include <ucontext.h>

#include "sim_kernel.h"

#define SIM_MAX_TASKS		17	/* 2 GP kthreads, the worker, callers */
#define SIM_KTHREAD_CPU		0	/* GP kthreads run here; never unplugged */

struct sim_task {
	ucontext_t ctx;
	struct task_struct ts;		/* ->cpu: where it runs */
	int (*fn)(void *arg);
	void *arg;
	void *stack;
	bool used, done, runnable, kthread;
	bool timed;			/* waiting with a timeout ... */
	unsigned long until;		/* ... that expires at this jiffy */
	wait_queue_head_t *wq;		/* waiting here (NULL: not waiting) */
};

struct sim_ipi {
	struct sim_ipi *next;
	smp_call_func_t func;
	void *info;
};

/* Work queued for one CPU, delivered by the simulator. */
struct sim_percpu_q {
	struct tasklet_struct *tl_head, *tl_tail;
	struct irq_work *iw_head, *iw_tail;
	struct sim_ipi *ipi_head, *ipi_tail;
	bool marked;			/* on the simulator's work list */
};

struct sim_stats {
	unsigned long ipis;		/* smp_call_function_single() calls */
	unsigned long idle_wakeups;	/* idle CPUs woken by trcu's work */
	unsigned long affinity_changes;	/* set_cpus_allowed_ptr() calls */
	unsigned long works_run;	/* work items the worker ran */
};

extern struct sim_percpu_q sim_q[SIM_MAX_CPUS];
extern struct sim_stats sim_stats;
extern struct task_struct sim_cpu_task[SIM_MAX_CPUS];
extern struct sim_task *sim_running;
extern long sim_allocs;
extern int sim_locks_held;
extern int sim_verbose;
extern int (*sim_cpuhp_startup)(unsigned int cpu);
extern int (*sim_cpuhp_teardown)(unsigned int cpu);

void sim_error(const char *fmt, ...) __printf(1, 2);
void sim_mark_work(int cpu);
void sim_ipi_deliver(int cpu);
struct sim_task *sim_task_new(int (*fn)(void *), void *arg, int cpu,
			      const char *name);
struct sim_task *sim_task_at(int i);
void sim_task_switch_to(struct sim_task *t);
int sim_run_tasklets(int cpu);
int sim_run_irq_work(int cpu);
int sim_run_ipis(int cpu);
void sim_takeover_tasklets(int dead, int to);
bool sim_work_busy(void);
void sim_wq_init(void);

#endif /* _SIM_H */
