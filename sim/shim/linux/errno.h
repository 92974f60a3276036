/* SPDX-License-Identifier: GPL-2.0 */
/* Host simulator: the libc <errno.h> comes here; the numbers are the system's. */
#include <asm/errno.h>
