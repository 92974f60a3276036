/* SPDX-License-Identifier: GPL-2.0 */
/*
 * trcu internal data structures, shared by the files of trcu.ko.
 *
 * One struct trcu_state per flavour (trcu = "sched", and trcu_bh), each
 * with its own trcu_node hierarchy (dense array, root first, shape from
 * geometry.c) and its own per-CPU struct trcu_data.  The per-CPU struct
 * trcu_dynticks is shared by both flavours: a CPU is idle for both or for
 * neither.
 *
 * Grace-period numbers: ->gpnum is the number of the last GP started,
 * ->completed the last GP ended; a GP is in progress iff they differ.
 * Each trcu_node keeps its own copy of both, written under its lock when
 * the GP kthread initializes (start) and cleans up (end) that node, so a
 * CPU sees a new GP only once its own leaf is ready for it.
 *
 * Lock order: fqs_mutex -> onofflock -> trcu_node locks (one at a time; a
 * QS report walks up the tree releasing each lock before taking the
 * parent's).  Node locks are raw spinlocks taken with irqsave because the
 * tick probe path and call_trcu() run in hardirq context.
 */
#ifndef _TRCU_TREE_H
#define _TRCU_TREE_H

#include <linux/types.h>
#include <linux/atomic.h>
#include <linux/cache.h>
#include <linux/spinlock.h>
#include <linux/percpu.h>
#include <linux/interrupt.h>
#include <linux/wait.h>
#include <linux/irq_work.h>
#include <linux/cpumask.h>
#include <linux/mutex.h>
#include <linux/completion.h>
#include <linux/sched.h>
#include <linux/rcupdate.h>
#include <linux/smp.h>
#include <linux/workqueue.h>

#include "geometry.h"
#include "params.h"

#define TRCU_NR_FLAVORS		2

/*
 * Initial value of every grace-period number (->gpnum, ->completed and
 * the copies and requests derived from them).  Negative, as the kernel's
 * own gp_seq starts just short of wrapping: the engine compares these
 * longs with signed arithmetic and stays correct (no overflow for ~2^63
 * GPs), while the unsigned cookies of the polled API (poll.c) cross
 * ULONG_MAX -> 0 within the first 300 grace periods, so their wrap-safe
 * comparison is exercised by every run.  trcu_batches_completed() is only
 * ever meaningful as a difference.
 */
#define TRCU_GP_INITVAL		(-300L)
#define TRCU_FLAVOR_SCHED	0	/* trcu: preempt-disabled readers */
#define TRCU_FLAVOR_BH		1	/* trcu_bh: bh-disabled readers */

/*
 * Dynticks per-CPU state, shared by both flavours.  Written only by its
 * own CPU (hook handlers and the NMI handler); read by the GP kthreads during
 * force_quiescent_state() scans.
 */
struct trcu_dynticks {
	atomic_t dynticks;		/* Even: CPU halted in the idle loop */
					/*  and in no irq; odd otherwise. */
					/*  An irq on an idle CPU makes it */
					/*  odd until the idle loop next */
					/*  halts (see dynticks.c). */
	bool dead;			/* Its hotplug dead step has begun, */
					/*  and it was not prepared since. */
	bool booting;			/* Prepared for bring-up and not yet */
					/*  switched tasks: credited while */
					/*  not marked online. */
	atomic_t dynticks_nmi;		/* NMIs that found this CPU idle, */
					/*  counted by 2 (trcu's NMI */
					/*  handler); the trace's dn adds 1 */
					/*  while one runs. */
};

/*
 * One node of the grace-period-detection hierarchy.  Leaves have one
 * qsmask bit per CPU, inner nodes one bit per child node.
 */
struct trcu_node {
	raw_spinlock_t lock;		/* Guards the fields below it. */
	unsigned long qsmask;		/* CPUs or children that still owe */
					/*  a QS for the current GP. */
	unsigned long qsmaskinit;	/* Per-GP initial value of qsmask: */
					/*  online CPUs / non-empty kids. */
					/*  Changed under onofflock too. */
	long gpnum;			/* Last GP initialized in this node. */
	long completed;			/* Last GP cleaned up in this node. */
	long gp_needed;			/* Highest GP requested through this */
					/*  node (inner levels; the root's */
					/*  is trcu_state's ->gp_needed). */
	unsigned long grpmask;		/* Our bit in the parent's qsmask. */
	int grplo;			/* Lowest-numbered CPU covered. */
	int grphi;			/* Highest-numbered CPU covered. */
	u8 grpnum;			/* Our bit number in parent's mask. */
	u8 level;			/* Root is at level 0. */
	struct trcu_node *parent;	/* NULL for the root. */
	unsigned long n_lock;		/* Acquisitions of ->lock, counted */
					/*  under it (debugfs rcustats). */
} ____cacheline_internodealigned_in_smp;

/*
 * Take a node lock and count the acquisition (debugfs rcustats: lock
 * contention per level).  The count is written under the lock itself,
 * so it needs no atomics; debugfs reads it racily with READ_ONCE().
 */
#define trcu_node_lock(rnp) do {					\
	raw_spin_lock(&(rnp)->lock);					\
	(rnp)->n_lock++;						\
} while (0)
#define trcu_node_lock_irq(rnp) do {					\
	raw_spin_lock_irq(&(rnp)->lock);				\
	(rnp)->n_lock++;						\
} while (0)
#define trcu_node_lock_irqsave(rnp, flags) do {			\
	raw_spin_lock_irqsave(&(rnp)->lock, flags);			\
	(rnp)->n_lock++;						\
} while (0)

/*
 * Index values for the nxttail array in struct trcu_data.  The per-CPU
 * callback list nxtlist is split into four segments by nxttail[]:
 *
 * [nxtlist, *nxttail[DONE]):                 DONE: GP over, may be invoked.
 * [*nxttail[DONE], *nxttail[WAIT]):          WAIT: ready when ->completed
 *                                            reaches nxtcompleted[WAIT].
 * [*nxttail[WAIT], *nxttail[NEXT_READY]):    NEXT_READY: ready when
 *                                            ->completed reaches
 *                                            nxtcompleted[NEXT_READY]
 *                                            (> that of WAIT).
 * [*nxttail[NEXT_READY], *nxttail[NEXT]):    NEXT: new arrivals not yet
 *                                            assigned a GP number.
 *
 * An empty segment has its tail equal to the previous one; an empty list
 * has all tails pointing at nxtlist.  A GP number given to a segment is
 * always ->gpnum + 1 read after the callbacks were queued (with a full
 * barrier), so that GP starts after they were queued.
 */
#define TRCU_DONE_TAIL		0
#define TRCU_WAIT_TAIL		1
#define TRCU_NEXT_READY_TAIL	2
#define TRCU_NEXT_TAIL		3
#define TRCU_NEXT_SIZE		4

struct trcu_state;

/* Per-CPU, per-flavour data.  Touched by its own CPU with irqs off. */
struct trcu_data {
	/* 1) quiescent-state and grace-period handling: */
	long completed;			/* Last GP end this CPU noticed. */
	long gpnum;			/* Last GP start this CPU noticed. */
	long passed_quiesc_completed;	/* ->completed when the QS in */
					/*  passed_quiesc was seen: it only */
					/*  counts for GP that number + 1. */
	bool passed_quiesc;		/* QS seen since noticing ->gpnum. */
	bool qs_pending;		/* The current GP waits for our QS. */
	bool beenonline;		/* CPU online at least once. */
	struct trcu_node *mynode;	/* This CPU's leaf. */
	unsigned long grpmask;		/* Our bit in the leaf's qsmask. */

	/* 2) callback batches (see the segment comment above): */
	struct rcu_head *nxtlist;	/* Head of the callback list. */
	struct rcu_head **nxttail[TRCU_NEXT_SIZE];
					/* Segment tails. */
	long nxtcompleted[TRCU_NEXT_SIZE];
					/* GP number each of WAIT and */
					/*  NEXT_READY waits for. */
	long qlen;			/* Callbacks queued, all segments. */
	long blimit;			/* Max callbacks invoked per batch. */
	long batch_max;			/* Most callbacks one batch ran, */
	u64 batch_max_ns;		/*  longest one batch took (debugfs */
					/*  rcustats). */
	long qlen_last_fqs;		/* ->qlen when a flood last asked */
					/*  for a forced QS scan, lowered */
					/*  as the queue drains. */
	long gp_requested;		/* Highest GP number this CPU asked */
					/*  the GP kthread for. */
	struct tasklet_struct tasklet;	/* Per-CPU core work: notice GPs, */
					/*  report QS, advance + invoke. */
	struct irq_work kick_work;	/* Schedules ->tasklet from a */
					/*  hardirq (see trcu_kick_cpu()). */

	/* 3) barrier: */
	struct rcu_head barrier;	/* trcu_barrier()'s callback. */

	/* 4) dynticks snapshots taken by force_quiescent_state(): */
	struct trcu_dynticks *dynticks;	/* This CPU's shared dynticks. */
	int dynticks_snap;		/* ->dynticks at phase 1. */

	/* 5) why force_quiescent_state() had to act for this CPU: */
	unsigned long dynticks_fqs;	/* QS credited: dynticks idle. */
	unsigned long offline_fqs;	/* QS credited: CPU offline. */
	unsigned long resched_ipi;	/* Nudge IPIs sent to this CPU. */
	unsigned long ipi_busy;		/* ... skipped: the previous one of */
					/*  that kind had not run yet. */
	call_single_data_t nudge_csd;	/* The GP kthread's nudge IPI and */
	call_single_data_t kick_csd;	/*  GP-end kick to this CPU: one */
					/*  of each in flight at most. */
	call_single_data_t barrier_csd;	/* trcu_barrier()'s IPI here. */

	/* 6) wakeups trcu caused on this CPU (debugfs rcustats): */
	unsigned long n_ipi;		/* IPIs trcu sent here (all kinds). */
	unsigned long n_ipi_idle;	/* ... of which found it dynticks-idle. */
	unsigned long n_wake_idle;	/* GP-kthread wakeups that had to */
					/*  wake this CPU from dynticks-idle. */
	unsigned long n_wake_idle_req;	/* ... of which ended its wait for */
					/*  a GP request (else a wait in */
					/*  a GP: QS report, FQS timer). */
	int gpk_dt_snap;		/* ->dynticks when the GP kthread */
					/*  last went to sleep. */

	int cpu;			/* This CPU's number. */
	struct trcu_state *rsp;		/* Back pointer to the flavour. */
};

/* Values for ->signaled: the two phases of force_quiescent_state(). */
#define TRCU_SAVE_DYNTICK	0	/* Phase 1: snapshot dynticks. */
#define TRCU_FORCE_QS		1	/* Phase 2: compare, credit, nudge. */

/* Bits in ->gp_flags, requests to the GP kthread. */
#define TRCU_GP_FLAG_FQS	0	/* Bit: force QS now (qlen > qhimark). */

/* Per-flavour global state. */
struct trcu_state {
	const char *name;		/* "trcu" or "trcu_bh". */
	int flavor;			/* TRCU_FLAVOR_*. */
	struct trcu_geom geom;		/* Shape of the hierarchy. */
	struct trcu_node *node;		/* geom.nr_nodes nodes, root first. */
	struct trcu_node *level[TRCU_GEOM_MAX_LEVELS];
					/* First node of each level. */
	struct trcu_data __percpu *rda;	/* Per-CPU data. */

	/* Guarded by the root trcu_node's lock (read with READ_ONCE): */
	long gpnum;			/* Current (last started) GP. */
	long completed;			/* Last completed GP. */
	long gp_needed;			/* Highest GP number requested by */
					/*  any CPU; the kthread starts GPs */
					/*  until ->completed reaches it. */
	unsigned long gp_req_jiffies;	/* jiffies when ->gp_needed last */
					/*  grew (gp_kthread.c's watch). */
	u8 signaled;			/* fqs phase, TRCU_SAVE_DYNTICK/FQS. */

	raw_spinlock_t onofflock;	/* Excludes hotplug changes of */
					/*  qsmaskinit and GP initialization. */
	struct mutex fqs_mutex;		/* One force_quiescent_state() at a */
					/*  time (irqs are off per leaf). */
	unsigned long jiffies_force_qs;	/* When the next fqs is due. */
	unsigned long n_force_qs;	/* Calls to fqs. */
	unsigned long n_force_qs_ngp;	/* ... that found no GP running. */
	unsigned long n_adopt_not_done;	/* Adoptions of a dead CPU's cbs */
					/*  still waiting for a GP (moved */
					/*  past DONE); hotplug serializes. */

	/* IPIs the GP kthread sends (fqs nudges, GP-end kicks): */
	cpumask_var_t ipi_mask;		/* Targets of one send (GP kthread */
					/*  only, so no lock). */
	unsigned long n_ipi_send;	/* Sends (one per target set). */
	u64 ipi_send_ns;		/* Time spent in them, in all ... */
	u64 ipi_send_max_ns;		/* ... and in the longest one. */

	unsigned long gp_start;		/* jiffies at GP start. */
	unsigned long jiffies_stall;	/* When to check for stalls next. */

	struct task_struct *gp_kthread;	/* Drives GP start/fqs/cleanup. */
	unsigned long gp_activity;	/* jiffies the GP kthread last woke. */
	wait_queue_head_t gp_wq;	/* GP kthread sleeps here. */
	wait_queue_head_t sync_wq;	/* synchronize callers sleep here; */
					/*  the GP kthread wakes them at GP */
					/*  end. */

	/* Starvation watch of the GP kthread (gp_kthread.c): */
	bool gpk_watch;			/* Ticks may check it (set once it */
					/*  runs, cleared before it stops). */
	int gpk_state;			/* TRCU_GPK_* of the episode. */
	unsigned long gpk_since;	/* Wanted, not run, since (jiffies). */
	struct work_struct gpk_work;	/* Names the holder, moves it. */
	call_single_data_t gpk_csd;	/* Asks the holder's CPU. */
	bool gpk_answered;		/* ... which wrote the two below. */
	char gpk_holder[TASK_COMM_LEN];	/* comm of the task holding it, */
	pid_t gpk_holder_pid;		/*  and its pid (-1: no answer). */
	struct mutex gpk_mutex;		/* Serializes affinity changes. */
	cpumask_var_t gpk_mask;		/* Affinity it was moved to, */
	cpumask_var_t gpk_saved;	/*  and the one it had before. */
	bool gpk_moved;			/* Moved, not yet given back. */
	unsigned long gpk_moved_at;	/* jiffies of the move. */
	unsigned long n_gpk_starved;	/* Episodes (debugfs rcustats). */
	unsigned long n_gpk_moved;	/* ... that moved it. */
	struct irq_work gp_wake_work;	/* deferred wakeup of the above */
	unsigned long gp_flags;		/* TRCU_GP_FLAG_* (atomic bitops). */

	struct mutex barrier_mutex;	/* Serializes trcu_barrier(). */
	struct mutex barrier_lock;	/* Held while a barrier queues its */
					/*  callbacks, and by the hotplug */
					/*  dead step's adoption. */
	atomic_t barrier_cpu_count;	/* Barrier callbacks outstanding + 1. */
	struct completion barrier_completion;
					/* Completed by the last one. */
};

/* The two flavours, indexed by TRCU_FLAVOR_*; defined in tree.c. */
extern struct trcu_state trcu_states[TRCU_NR_FLAVORS];
#define trcu_sched_state	(trcu_states[TRCU_FLAVOR_SCHED])
#define trcu_bh_state		(trcu_states[TRCU_FLAVOR_BH])

/* Per-CPU dynticks, shared by both flavours; defined in dynticks.c. */
extern struct trcu_dynticks __percpu *trcu_dynticks;

/* tree.c: booted preempt=full, sampled at load by hooks.c. */
extern bool trcu_preempt_full;

/*
 * Schedule this CPU's core tasklet for @rdp (this CPU's data), unless
 * the CPU is not active, i.e. coming up or going down.  There ksoftirqd
 * is parked and TASKLET_SOFTIRQ is not among the hotplug-safe softirqs:
 * a tasklet still pending when the softirq loop hands over to ksoftirqd
 * (it often runs past its 2 ms budget under TCG) stays pending, and the
 * idle loop warns "NOHZ tick-stop error: local softirq work is pending,
 * handler #40" (seen after CPU bring-up in HOTPLUG-STORM and TREE06).
 * The work is not lost: the first tick once the CPU is active schedules
 * it, and a dying CPU's callbacks are adopted at its dead step.
 */
static inline void trcu_raise_core(struct trcu_data *rdp)
{
	if (cpu_active(smp_processor_id()))
		tasklet_schedule(&rdp->tasklet);
}

/*
 * Is a context this CPU interrupted quiescent for @flavor?  @cnt is its
 * preempt_count(), @user whether it ran in user mode.  For trcu: user
 * mode, count 0 (no preempt-disabled reader can be running), or the idle
 * loop itself (idle task, count 1: not inside an irq or softirq).  For
 * trcu_bh it suffices that it was not in softirq, bh-disabled, hardirq
 * or NMI.  Used by the tick, the nudge IPI and the expedited IPI.
 * Caller: hardirq on this CPU.
 */
static inline bool trcu_ctx_quiescent(int flavor, bool user, int cnt)
{
	if (user || cnt == 0 || (cnt == 1 && is_idle_task(current)))
		return true;
	return flavor == TRCU_FLAVOR_BH &&
	       !(cnt & (SOFTIRQ_MASK | HARDIRQ_MASK | NMI_MASK));
}

static inline struct trcu_node *trcu_root(struct trcu_state *rsp)
{
	return &rsp->node[0];
}

/* Visit every node of @rsp, root first (breadth first). */
#define trcu_for_each_node(rsp, rnp) \
	for ((rnp) = &(rsp)->node[0]; \
	     (rnp) < &(rsp)->node[(rsp)->geom.nr_nodes]; (rnp)++)

/* Visit the leaves of @rsp. */
#define trcu_for_each_leaf(rsp, rnp) \
	for ((rnp) = (rsp)->level[(rsp)->geom.levels - 1]; \
	     (rnp) < &(rsp)->node[(rsp)->geom.nr_nodes]; (rnp)++)

/* tree.c: hierarchy, GP start / QS report / GP end, GP kthreads. */
int trcu_tree_init(struct trcu_state *rsp, int flavor);
void trcu_tree_free(struct trcu_state *rsp);
int trcu_gp_kthread_start(struct trcu_state *rsp);
void trcu_gp_kthread_stop(struct trcu_state *rsp);
void trcu_gp_wake_deferred(struct trcu_state *rsp);
void trcu_note_gp_changes(struct trcu_state *rsp, struct trcu_data *rdp);
void trcu_check_report_qs(struct trcu_state *rsp, struct trcu_data *rdp);
bool trcu_report_qs_rnp(struct trcu_state *rsp, struct trcu_node *rnp,
			unsigned long mask, long gpnum, unsigned long flags)
	__releases(rnp->lock);
void trcu_gp_kthread_wake(struct trcu_state *rsp);
void trcu_idle_enter(void);
void trcu_request_gp(struct trcu_state *rsp, struct trcu_data *rdp,
		     long gpnum);
void trcu_cpu_online_bits(struct trcu_state *rsp, int cpu);
void trcu_cpu_dead_bits(struct trcu_state *rsp, int cpu);
void trcu_count_ipi(struct trcu_state *rsp, int cpu);
void trcu_check_callbacks(int user_tick, int intr_count);
void trcu_qs_all_flavors(void);
void trcu_adopt_cbs(struct trcu_state *rsp, struct trcu_data *dead,
		    struct trcu_data *rdp);

/* gp_kthread.c: the GP kthread's class, placement, starvation watch. */
int trcu_gpk_start(struct trcu_state *rsp, int (*fn)(void *));
void trcu_gpk_stop(struct trcu_state *rsp);
void trcu_gpk_check(struct trcu_state *rsp);
void trcu_gpk_ran(struct trcu_state *rsp);

/* poll.c: polled grace periods (cookies). */
unsigned long trcu_poll_get_state(struct trcu_state *rsp);

/* exp.c: expedited grace periods. */
void trcu_exp_init(void);
void trcu_exp_exit(void);
void trcu_exp_cpu_dead(int cpu);
void trcu_exp_report_qs(int flavor);

/* kfree.c: kfree_trcu() batches. */
void trcu_kfree_init(void);
void trcu_kfree_exit(void);

/* callbacks.c: segmented per-CPU callback lists (a leaf), invocation. */
void trcu_init_cblist(struct trcu_data *rdp);
void trcu_cblist_enqueue(struct trcu_data *rdp, struct rcu_head *head);
bool trcu_advance_cbs(struct trcu_state *rsp, struct trcu_data *rdp);
bool trcu_accelerate_cbs(struct trcu_state *rsp, struct trcu_data *rdp,
			 long *gpnum);
bool trcu_invoke_cbs(struct trcu_state *rsp, struct trcu_data *rdp);
bool trcu_cbs_invocable(struct trcu_state *rsp, struct trcu_data *rdp);
bool trcu_cbs_ready(struct trcu_state *rsp, struct trcu_data *rdp);
bool trcu_cbs_done(struct trcu_data *rdp);
bool trcu_cblist_adopt(struct trcu_state *rsp, struct trcu_data *dead,
		       struct trcu_data *rdp);

/* dynticks.c: idle/irq/NMI counters. */
int trcu_dynticks_init(void);
void trcu_dynticks_free(void);
void trcu_dynticks_cpu_init(int cpu);
bool trcu_dynticks_cpu_idle(int cpu);
bool trcu_dynticks_in_nmi(int cpu);
int trcu_dynticks_sample(int cpu, bool *nmi);
int trcu_dynticks_nmi_trace(int cpu);
void trcu_nmi_enter(void);
int trcu_dynticks_snap(int cpu);
bool trcu_dynticks_not_started(int cpu);
void trcu_dynticks_running(void);
bool trcu_idle_sleep(void);
void trcu_idle_wake(void);
void trcu_idle_dead(void);
void trcu_irq_enter(void);

/* hooks.c: kprobes and the sched_switch tracepoint. */
int trcu_hooks_init(void);
void trcu_hooks_exit(void);
void trcu_hooks_misses(char *buf, size_t len);

/* hotplug.c: cpuhp dynamic states. */
int trcu_hotplug_init(void);
void trcu_hotplug_exit(void);

/* stall.c: CPU stall warnings. */
void trcu_stall_gp_start(struct trcu_state *rsp);
void trcu_stall_check_self(struct trcu_state *rsp, struct trcu_data *rdp);
void trcu_stall_check_others(struct trcu_state *rsp);

/* debugfs.c (written by the geometry helper): trace=1 files. */
void trcu_debugfs_init(void);
void trcu_debugfs_exit(void);

#endif /* _TRCU_TREE_H */
