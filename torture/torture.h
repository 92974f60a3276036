/* SPDX-License-Identifier: GPL-2.0 */
/*
 * trcutorture: internal declarations shared by the torture module's files.
 *
 * main.c     parameters, element pool, writer, statistics, init/exit
 * readers.c  reader kthreads and timers, what readers saw (histograms)
 * flavors.c  one ops table per RCU flavour under test
 * stress.c   the optional stressors: barrier test, forward progress, CPU
 *            hotplug, stutter, stall injection, NMI readers
 */
#ifndef _TRCU_TORTURE_H
#define _TRCU_TORTURE_H

#include <linux/types.h>
#include <linux/atomic.h>
#include <linux/percpu.h>
#include <linux/prandom.h>
#include <linux/rcupdate.h>

/*
 * Number of grace periods an element spends in the pipeline after removal
 * before it is freed.  A reader that picked an element up as the current
 * one may legitimately see age 0 or 1 (removed but not yet past a grace
 * period); anything older means a grace period ended under its nose.
 */
#define TT_PIPE_LEN	10

/* One flavour of RCU, as seen by the torture. */
struct trcu_torture_ops {
	const char *name;
	int (*init)(void);		/* optional: set up flavour state */
	void (*cleanup)(void);		/* optional: tear it down (after barrier) */
	int (*readlock)(void);		/* returns an index for readunlock */
	void (*readunlock)(int idx);
	unsigned long (*get_gp_count)(void); /* grace periods completed */
	void (*sync)(void);		/* wait for a grace period */
	void (*call)(struct rcu_head *head, rcu_callback_t func);
	void (*cb_barrier)(void);		/* wait for all callbacks queued so far */
	/*
	 * Optional polled grace periods (cookie API).  When present the
	 * writer sometimes waits through them instead of sync(), so that
	 * a cookie that completes too early shows up as Reader Pipe errors.
	 */
	unsigned long (*get_state)(void);
	unsigned long (*start_poll)(void);
	bool (*poll_state)(unsigned long cookie);
	void (*cond_sync)(unsigned long cookie);
	/*
	 * Optional, for trcuscale: run @n empty read-side critical
	 * sections back to back and return, so that the benchmark can time
	 * a flavour's readers without knowing it (and without an indirect
	 * call per section).  bh_readers: those sections disable bottom
	 * halves, so trcuscale times them with irqs on (a bh reader must
	 * end with irqs on: local_bh_enable() may run softirqs).
	 */
	void (*readsection)(unsigned long n);
	bool bh_readers;
	bool sleepable_readers;		/* readers may block (SRCU) */
	bool selftest;			/* deliberately broken: must FAIL */
	/*
	 * get_gp_count() is updated before any callback of that grace
	 * period can run, so a callback must see it past its value at
	 * call time.  Not so for the kernel's RCU (rcu_state.gp_seq is
	 * ended after the rcu_node ones) nor SRCU (a flip count).
	 */
	bool gp_count_strict;
	/*
	 * Default of the end-of-test GP-rate floor: the longest average
	 * time per grace period, in ms (0 = no check); the max_gp_ms
	 * parameter overrides it.
	 */
	int max_gp_ms;
};

/*
 * Exported by 6.1 but declared only in kernel/rcu/rcu.h, which is not
 * installed with the headers.  Prototypes as in 6.1.
 */
struct srcu_struct;
unsigned long rcu_get_gp_seq(void);
unsigned long srcu_batches_completed(struct srcu_struct *sp);

const struct trcu_torture_ops *trcu_torture_ops_find(const char *name);
void trcu_torture_ops_list(char *buf, size_t len);

/*
 * flavors_rcu.c: the flavours that need only the kernel's RCU and SRCU
 * (trcuscale_base.ko links this file alone).  The torture looks three of
 * them up by name, and the busted flavours reuse the rcu reader.
 */
const struct trcu_torture_ops *tt_rcu_flavor_find(const char *name);
int tt_rcu_readlock(void);
void tt_rcu_readunlock(int idx);
int tt_rcu_init(void);
unsigned long tt_rcu_gp_count(void);

/*
 * What readers.c and stress.c need from main.c: the flavour and the
 * parameters, validated by main.c and handed to tt_readers_start() and
 * tt_stress_start(), which keep a copy.  Nothing else is shared by
 * variable: each counter lives in the file that counts it, and the
 * others read it through that file's functions.
 */
struct tt_config {
	const struct trcu_torture_ops *ops;
	int nreaders;			/* reader kthreads to start */
	int irqreader, nmireader, n_barrier_cbs, fwd_progress;
	int onoff_interval, onoff_holdoff, onoff_leaf, onoff_cbs;
	int onoff_barrier;
	int test_no_idle_hz, stutter, stall_cpu, stall_cpu_holdoff;
	int duration, long_reads;
};

/* The element pool (main.c); readers find the current one. */
struct tt_elem {
	struct rcu_head rh;		/* for the call-based pipeline */
	struct list_head node;		/* freelist or writer's removed list */
	int pipe;			/* grace periods since removal (+1) */
	int mbtest;			/* 1 while allocated, 0 once freed */
	unsigned long ver;		/* version it was published as */
	unsigned long cb_gp;		/* tt_cb_snap() when last posted */
};

/*
 * One stream of random choices.  Every kthread and timer has its own,
 * seeded from the run's seed (trcutorture seed=, printed on the Start
 * line) and the stream's fixed number (TT_RND_* plus an index), so one
 * seed gives each stream the same values again, whatever the timing of
 * the others.  With choice_log=N each stream prints, once, a hash of its
 * first N values, so that two runs can be compared line by line (streams
 * drawn from in NMI context do not print).
 */
struct tt_rnd {
	struct rnd_state state;
	u32 id;				/* TT_RND_* + index */
	u32 logged;			/* values hashed so far */
	u32 hash;			/* FNV-1a of those values */
};
#define TT_RND_WRITER	0x0100
#define TT_RND_FAKE	0x0200		/* + fake writer index */
#define TT_RND_READER	0x0300		/* + reader index */
#define TT_RND_TIMER	0x0400		/* + reader index */
#define TT_RND_ONOFF	0x0500
#define TT_RND_NMI	0x0600		/* the NMI sender */
#define TT_RND_NMI_CPU	0x1000		/* + CPU: NMI-context readers */

/*
 * common.c: output and helpers used by every part (main.c, readers.c,
 * stress.c), which all call down into it.  tt_out() prints a torture
 * line without pr_fmt: the verdict parser wants "<type>-torture:".
 * tt_fail() is an error: its line always contains "!!!", and it counts
 * towards FAILURE.
 */
void tt_common_init(const char *type, const struct trcu_torture_ops *ops,
		    u64 seed, int choice_log);
u64 tt_run_seed(void);
void tt_count_error(void);
int tt_errors(void);
int tt_early_cbs(void);
void tt_cbs_counts(long *posted, long *invoked);
void tt_set_ending(void);
struct tt_elem *tt_elem_replace(struct tt_elem *p);
void tt_stop_threads(void);
void tt_stutter_set(bool paused);
bool tt_stutter_paused(void);
void tt_stutter_wait(void);
__printf(1, 2) void tt_out(const char *fmt, ...);
__printf(1, 2) void tt_fail(const char *fmt, ...);
struct tt_elem *tt_elem_current(void);
bool tt_should_stop(void);
void tt_sleep(unsigned long jiffies_to_sleep);
int tt_spawn(int (*fn)(void *), void *arg, const char *name, int cpu);
void tt_rnd_init(struct tt_rnd *r, u32 id);
u32 tt_rand(struct tt_rnd *r);
void tt_hist_line(char *buf, size_t len, const char *what, long *h,
		  bool bad);
unsigned long tt_cb_snap(void);
void tt_cb_check(unsigned long snap);
void tt_call(struct rcu_head *head, rcu_callback_t func);

/* Contexts a read-side critical section can run in (tt_read_one ctx). */
#define TT_CTX_THREAD	0
#define TT_CTX_TIMER	1
#define TT_CTX_NMI	2
#define TT_CTX_TIMER_IDLE 3	/* timer on an idle CPU, long read allowed */

/* readers.c */
void tt_read_one(struct tt_rnd *rnd, int ctx);
int tt_readers_start(const struct tt_config *cfg);
void tt_readers_free(void);
long tt_readers_ntimers(void);
int tt_readers_mberror(void);
bool tt_readers_pipe_bad(void);
void tt_readers_stats(char *buf, size_t len, bool bad);

/* stress.c */
int tt_stress_start(const struct tt_config *cfg);
void tt_stress_stop(void);
void tt_stress_stats(void);
long tt_stress_barrier_errors(void);
void tt_stress_line(char *buf, size_t len);

#endif /* _TRCU_TORTURE_H */
