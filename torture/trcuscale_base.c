// SPDX-License-Identifier: GPL-2.0
/*
 * trcuscale_base.ko: trcuscale.c without any reference to trcu.ko, for
 * the measurements taken before trcu is loaded (see trcuscale.c).
 */
#define TRCUSCALE_NO_TRCU
#include "trcuscale.c"
