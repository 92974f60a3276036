/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The benchmarks of scale.c, linked into two modules that differ only in
 * the flavours they can reach: trcuscale.ko (scale_trcu.c) and
 * trcuscale_base.ko (scale_base.c).
 */
#ifndef _TRCU_SCALE_H
#define _TRCU_SCALE_H

struct trcu_torture_ops;

/*
 * Run the test the module parameters ask for, from module init; @find
 * maps a flavour name to its ops, or to NULL when this module has no
 * such flavour.  Returns 0 or the error the load must fail with.
 */
int trcuscale_run(const struct trcu_torture_ops *(*find)(const char *name));

#endif /* _TRCU_SCALE_H */
