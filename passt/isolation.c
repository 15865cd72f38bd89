// SPDX-License-Identifier: GPL-2.0-or-later
/* passt/isolation.c - Privilege reduction (placeholder: stages are no-ops
 * until the isolation work lands)
 */
#include "isolation.h"
#include "passt.h"

/** isolate_initial() - Stage 1, before set-up  @ctx: Context */
void isolate_initial(struct ctx *ctx)
{
	(void)ctx;
}

/** isolate_prefork() - Stage 2, after set-up  @ctx: Context */
void isolate_prefork(struct ctx *ctx)
{
	(void)ctx;
}

/** isolate_postfork() - Stage 3, before the loop  @ctx: Context */
void isolate_postfork(struct ctx *ctx)
{
	(void)ctx;
}
