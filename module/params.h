/* SPDX-License-Identifier: GPL-2.0 */
/*
 * trcu module parameters, defined and validated in params.c, read-only
 * once trcu_check_params() has accepted them at load.
 */
#ifndef _TRCU_PARAMS_H
#define _TRCU_PARAMS_H

extern int trcu_fanout;
extern int trcu_fanout_leaf;
extern int trcu_fanout_exact;
extern int trcu_dynticks_enabled;
extern int trcu_stall_timeout;
extern int trcu_jiffies_till_force_qs;
extern int trcu_jiffies_till_first_fqs;
extern int trcu_blimit;
extern int trcu_qhimark;
extern int trcu_qlowmark;
extern int trcu_trace;
extern int trcu_kfree_nobatch;
extern int trcu_kthread_prio;
extern int trcu_batch_us;

int trcu_check_params(void);

#endif /* _TRCU_PARAMS_H */
