// SPDX-License-Identifier: GPL-2.0
/*
 * trcu lockdep support: the two lock maps the inline read side acquires
 * (see include/trcu.h), and the "is a reader held?" checks behind
 * trcu_dereference() when lockdep is configured.  Without
 * CONFIG_DEBUG_LOCK_ALLOC the maps are empty structures (still exported,
 * so modules link the same way against either kernel) and the checks are
 * inline in trcu.h.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/lockdep.h>
#include <linux/rcupdate.h>
#include <linux/preempt.h>
#include <linux/hardirq.h>
#include <linux/ratelimit.h>

#include <trcu.h>

#ifdef CONFIG_DEBUG_LOCK_ALLOC
static struct lock_class_key trcu_lock_key;
static struct lock_class_key trcu_bh_lock_key;
#define TRCU_MAP_INIT(name, key) STATIC_LOCKDEP_MAP_INIT(name, key)
#else
#define TRCU_MAP_INIT(name, key) { }
#endif

struct lockdep_map trcu_lock_map = TRCU_MAP_INIT("trcu_read_lock",
						 &trcu_lock_key);
EXPORT_SYMBOL_GPL(trcu_lock_map);
struct lockdep_map trcu_bh_lock_map = TRCU_MAP_INIT("trcu_read_lock_bh",
						    &trcu_bh_lock_key);
EXPORT_SYMBOL_GPL(trcu_bh_lock_map);

#ifdef CONFIG_DEBUG_LOCK_ALLOC
/**
 * trcu_read_lock_held() - might we be in a trcu read-side critical section?
 *
 * As for the kernel's rcu_read_lock_sched_held(): when lockdep cannot
 * tell (off, or not yet running), say yes, to avoid false positives.
 * Otherwise yes if trcu_read_lock() is held or preemption is disabled
 * (trcu is Classic RCU: any preempt-disabled region is a reader).
 */
int trcu_read_lock_held(void)
{
	if (!debug_lockdep_rcu_enabled())
		return 1;
	return lock_is_held(&trcu_lock_map) || !preemptible();
}
EXPORT_SYMBOL_GPL(trcu_read_lock_held);

/**
 * trcu_read_lock_bh_held() - might we be in a trcu_bh read-side section?
 *
 * Yes if trcu_read_lock_bh() is held, or bottom halves cannot run here:
 * softirq or bh-disabled, hardirq, NMI, or irqs disabled (the contexts
 * the trcu_bh quiescent-state detector never takes for quiescent).  A
 * merely preempt-disabled task is not a trcu_bh reader.
 */
int trcu_read_lock_bh_held(void)
{
	if (!debug_lockdep_rcu_enabled())
		return 1;
	return lock_is_held(&trcu_bh_lock_map) || in_softirq() ||
	       in_hardirq() || in_nmi() || irqs_disabled();
}
EXPORT_SYMBOL_GPL(trcu_read_lock_bh_held);
#endif

#ifdef CONFIG_PROVE_RCU
/*
 * trcu_read_bh_misuse() - a trcu_bh reader outside its contract
 *
 * Called by the debug-only path of trcu_read_lock_bh() and
 * trcu_read_unlock_bh() (include/trcu.h) in hardirq or NMI context or
 * with interrupts disabled at the unlock (@fn names which, @what the
 * misuse).  Lockdep's "suspicious RCU usage" report, whose stack trace
 * names the caller; rate-limited rather than once, so that each of
 * several wrong uses in one boot is seen.
 */
void trcu_read_bh_misuse(const char *fn, const char *what)
{
	static DEFINE_RATELIMIT_STATE(rs, 10 * HZ, 4);
	char msg[96];

	if (!debug_lockdep_rcu_enabled() || !__ratelimit(&rs))
		return;
	snprintf(msg, sizeof(msg), "%s() %s", fn, what);
	lockdep_rcu_suspicious(__FILE__, __LINE__, msg);
}
EXPORT_SYMBOL_GPL(trcu_read_bh_misuse);
#endif
