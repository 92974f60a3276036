// SPDX-License-Identifier: GPL-2.0
/*
 * trcu trace files (trace=1): debugfs trcu/rcudata, trcu/rcugp and
 * trcu/rcuhier in the formats of the seed's Documentation/RCU/trace.txt,
 * plus trcu/rcustats (benchmark counters), each with one section per
 * flavour ("trcu:" then "trcu_bh:").
 *
 * The files are seq_file based and only read trcu's state.  Values that
 * other CPUs update without our lock are read with READ_ONCE() (or
 * atomic_read()), so a line may mix moments but never tears a field;
 * each node's qsmask/qsmaskinit pair is read under that node's lock, so
 * the pair is consistent.  Nothing here sleeps with a trcu lock held or
 * prints a kernel pointer.
 *
 * Lifetime: debugfs_remove_recursive() in trcu_debugfs_exit() waits for
 * readers already inside a show function and makes later opens fail, so
 * main.c must call it before freeing the nodes and per-CPU data.  An open
 * file also pins trcu.ko (the fops' owner), so rmmod fails with EBUSY
 * rather than racing a reader that holds the file open.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/seq_file.h>

#include "tree.h"

static struct dentry *trcu_debugfs_dir;

/* True once trcu_tree_init() has built @rsp's nodes and per-CPU data. */
static bool trcu_debugfs_ready(struct trcu_state *rsp)
{
	return rsp->node && rsp->rda;
}

/*
 * One rcudata line, as trace.txt: CPU ('!' if now offline), c, g, pq,
 * pqc, qp, then dt/dn/df only when dynticks tracking is on (the seed shows
 * them only for CONFIG_NO_HZ), then of, ri, ql, b.  CPUs never online
 * since trcu was loaded are skipped, as in the seed.
 */
static void trcu_debugfs_data_one(struct seq_file *m, struct trcu_data *rdp)
{
	struct trcu_dynticks *rdtp = READ_ONCE(rdp->dynticks);

	if (!READ_ONCE(rdp->beenonline))
		return;
	seq_printf(m, "%3d%cc=%ld g=%ld pq=%d pqc=%ld qp=%d",
		   rdp->cpu, cpu_is_offline(rdp->cpu) ? '!' : ' ',
		   READ_ONCE(rdp->completed), READ_ONCE(rdp->gpnum),
		   READ_ONCE(rdp->passed_quiesc),
		   READ_ONCE(rdp->passed_quiesc_completed),
		   READ_ONCE(rdp->qs_pending));
	if (trcu_dynticks_enabled && rdtp)
		seq_printf(m, " dt=%d dn=%d df=%lu",
			   atomic_read(&rdtp->dynticks),
			   trcu_dynticks_nmi_trace(rdp->cpu),
			   READ_ONCE(rdp->dynticks_fqs));
	seq_printf(m, " of=%lu ri=%lu ql=%ld b=%ld\n",
		   READ_ONCE(rdp->offline_fqs), READ_ONCE(rdp->resched_ipi),
		   READ_ONCE(rdp->qlen), READ_ONCE(rdp->blimit));
}

static int trcu_debugfs_rcudata_show(struct seq_file *m, void *unused)
{
	struct trcu_state *rsp;
	int cpu;

	for (rsp = trcu_states; rsp < trcu_states + TRCU_NR_FLAVORS; rsp++) {
		seq_printf(m, "%s:\n", rsp->name);
		if (!trcu_debugfs_ready(rsp))
			continue;
		for_each_possible_cpu(cpu)
			trcu_debugfs_data_one(m, per_cpu_ptr(rsp->rda, cpu));
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(trcu_debugfs_rcudata);

/* "trcu: completed=C  gpnum=G", two spaces as in trace.txt. */
static int trcu_debugfs_rcugp_show(struct seq_file *m, void *unused)
{
	struct trcu_state *rsp;

	for (rsp = trcu_states; rsp < trcu_states + TRCU_NR_FLAVORS; rsp++)
		seq_printf(m, "%s: completed=%ld  gpnum=%ld\n", rsp->name,
			   READ_ONCE(rsp->completed), READ_ONCE(rsp->gpnum));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(trcu_debugfs_rcugp);

/*
 * One flavour's rcuhier section: the state line, then one line per level
 * of the hierarchy, root first, each node formatted by
 * trcu_geom_fmt_node() (shared with tests/geometry, which checks it
 * against the seed's trace.txt example).
 */
static void trcu_debugfs_hier_one(struct seq_file *m, struct trcu_state *rsp)
{
	char buf[TRCU_GEOM_FMT_NODE_MAX];
	unsigned long nfqs, nfqsng;
	unsigned long qsmask, qsmaskinit, flags;
	struct trcu_node *rnp;
	long c, g, jfq = 0;
	int level = 0;

	nfqs = READ_ONCE(rsp->n_force_qs);
	nfqsng = READ_ONCE(rsp->n_force_qs_ngp);
	c = READ_ONCE(rsp->completed);
	g = READ_ONCE(rsp->gpnum);
	/* Jiffies until the next fqs; only meaningful while a GP runs. */
	if (g != c)
		jfq = (long)(READ_ONCE(rsp->jiffies_force_qs) - jiffies);
	seq_printf(m, "c=%ld g=%ld s=%d jfq=%ld nfqs=%lu/nfqsng=%lu(%lu)\n",
		   c, g, READ_ONCE(rsp->signaled), jfq,
		   nfqs, nfqsng, nfqs - nfqsng);
	trcu_for_each_node(rsp, rnp) {
		if (rnp->level != level) {
			seq_putc(m, '\n');
			level = rnp->level;
		}
		raw_spin_lock_irqsave(&rnp->lock, flags);
		qsmask = rnp->qsmask;
		qsmaskinit = rnp->qsmaskinit;
		raw_spin_unlock_irqrestore(&rnp->lock, flags);
		trcu_geom_fmt_node(buf, sizeof(buf), qsmask, qsmaskinit,
				   rnp->grplo, rnp->grphi, rnp->grpnum);
		seq_puts(m, buf);
	}
	seq_putc(m, '\n');
}

static int trcu_debugfs_rcuhier_show(struct seq_file *m, void *unused)
{
	struct trcu_state *rsp;

	for (rsp = trcu_states; rsp < trcu_states + TRCU_NR_FLAVORS; rsp++) {
		seq_printf(m, "%s:\n", rsp->name);
		if (trcu_debugfs_ready(rsp))
			trcu_debugfs_hier_one(m, rsp);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(trcu_debugfs_rcuhier);

/*
 * rcustats: per flavour, the GPs completed, node-lock acquisitions summed
 * per level of the hierarchy, and per CPU the wakeups trcu caused there.
 * All counters are cumulative since load; a reader takes deltas.  Read
 * without any lock (READ_ONCE), so reading perturbs nothing it counts.
 *
 *   trcu: gps=C
 *   adopt_not_done=D                      (dead CPUs' callbacks adopted
 *                                          while still waiting for a GP)
 *   ipi_send=S ns=T max_ns=M              (S sends of IPIs by the GP
 *                                          kthread, T ns spent in them,
 *                                          M in the longest)
 *   level=L nodes=N children=K lock=A     (K: children of all N nodes:
 *                                          nodes of level L+1, or CPUs)
 *   cpu=N ipi=I ipi_idle=J wake_idle=W wake_idle_req=R
 *                                         (online CPUs; R of the W
 *                                          ended the GP kthread's wait
 *                                          for a GP request)
 *
 * and last, the hits the kprobes core skipped, per probe (hooks.c):
 *
 *   probe misses: tick=N ... irq_enter=N stop_tick=N
 */
static void trcu_debugfs_stats_one(struct seq_file *m, struct trcu_state *rsp)
{
	int levels = rsp->geom.levels;
	struct trcu_node *rnp;
	unsigned long acq;
	int level, kids, cpu;

	for (level = 0; level < levels; level++) {
		acq = 0;
		kids = 0;
		trcu_for_each_node(rsp, rnp) {
			if (rnp->level != level)
				continue;
			acq += READ_ONCE(rnp->n_lock);
			if (level == levels - 1)
				kids += rnp->grphi - rnp->grplo + 1;
		}
		if (level < levels - 1)
			kids = rsp->geom.level_cnt[level + 1];
		seq_printf(m, "level=%d nodes=%d children=%d lock=%lu\n",
			   level, rsp->geom.level_cnt[level], kids, acq);
	}
	for_each_online_cpu(cpu) {
		struct trcu_data *rdp = per_cpu_ptr(rsp->rda, cpu);

		seq_printf(m, "cpu=%d ipi=%lu ipi_idle=%lu wake_idle=%lu wake_idle_req=%lu\n",
			   cpu, READ_ONCE(rdp->n_ipi),
			   READ_ONCE(rdp->n_ipi_idle),
			   READ_ONCE(rdp->n_wake_idle),
			   READ_ONCE(rdp->n_wake_idle_req));
	}
}

/*
 * rcustats: the longest callback batch of any CPU (count and time), the
 * IPIs skipped because one of the same kind was still in flight, and the
 * GP kthread's starvation episodes and moves (gp_kthread.c).
 */
static void trcu_debugfs_batch_gpk(struct seq_file *m, struct trcu_state *rsp)
{
	unsigned long busy = 0;
	long cbs = 0;
	u64 ns = 0;
	int cpu;

	for_each_possible_cpu(cpu) {
		struct trcu_data *rdp = per_cpu_ptr(rsp->rda, cpu);

		cbs = max(cbs, READ_ONCE(rdp->batch_max));
		ns = max(ns, READ_ONCE(rdp->batch_max_ns));
		busy += READ_ONCE(rdp->ipi_busy);
	}
	seq_printf(m, "batch_max=%ld batch_max_us=%llu ipi_busy=%lu\n",
		   cbs, div_u64(ns, NSEC_PER_USEC), busy);
	seq_printf(m, "gpk_starved=%lu gpk_moved=%lu\n",
		   READ_ONCE(rsp->n_gpk_starved), READ_ONCE(rsp->n_gpk_moved));
}

static int trcu_debugfs_rcustats_show(struct seq_file *m, void *unused)
{
	struct trcu_state *rsp;
	char buf[160];

	for (rsp = trcu_states; rsp < trcu_states + TRCU_NR_FLAVORS; rsp++) {
		seq_printf(m, "%s: gps=%ld\nadopt_not_done=%lu\n", rsp->name,
			   READ_ONCE(rsp->completed),
			   READ_ONCE(rsp->n_adopt_not_done));
		seq_printf(m, "ipi_send=%lu ns=%llu max_ns=%llu\n",
			   READ_ONCE(rsp->n_ipi_send),
			   READ_ONCE(rsp->ipi_send_ns),
			   READ_ONCE(rsp->ipi_send_max_ns));
		trcu_debugfs_batch_gpk(m, rsp);
		if (trcu_debugfs_ready(rsp))
			trcu_debugfs_stats_one(m, rsp);
	}
	trcu_hooks_misses(buf, sizeof(buf));
	seq_printf(m, "probe misses: %s\n", buf);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(trcu_debugfs_rcustats);

/*
 * Create trcu/{rcudata,rcugp,rcuhier,rcustats} if trace=1.  Call after both
 * flavours' trees are initialized.  A debugfs failure is not fatal to
 * trcu: it is reported and the module works without the files.
 */
void trcu_debugfs_init(void)
{
	struct dentry *dir;

	if (!trcu_trace)
		return;
	dir = debugfs_create_dir("trcu", NULL);
	if (IS_ERR(dir)) {
		pr_warn("debugfs directory not created (%ld), trace files off\n",
			PTR_ERR(dir));
		return;
	}
	debugfs_create_file("rcudata", 0444, dir, NULL,
			    &trcu_debugfs_rcudata_fops);
	debugfs_create_file("rcugp", 0444, dir, NULL,
			    &trcu_debugfs_rcugp_fops);
	debugfs_create_file("rcuhier", 0444, dir, NULL,
			    &trcu_debugfs_rcuhier_fops);
	debugfs_create_file("rcustats", 0444, dir, NULL,
			    &trcu_debugfs_rcustats_fops);
	trcu_debugfs_dir = dir;
}

/* Remove the files; returns once no reader is left inside them. */
void trcu_debugfs_exit(void)
{
	debugfs_remove_recursive(trcu_debugfs_dir);
	trcu_debugfs_dir = NULL;
}
