// SPDX-License-Identifier: GPL-2.0-or-later
/* test/fuzz/wire.c - Harness: pesto's wire protocol decoder (conf/wire.c)
 *
 * Input: one byte of flags (bit 0: a server's frame, with names and
 * capabilities, else a client's; bit 1: pasta, SPLICE exists), then the
 * frame bytes as they come from the socket.  wire_frame_get() never reads
 * past the input and says the same about completeness whether it checks
 * the rules or not (unless they are bad); tables it applies hold rules in
 * range, not overlapping, and encode to a frame that decodes to the same
 * bytes again.
 */
#include "fuzz.h"
#include "../../conf/wire.h"

static struct wire_pif wire_pifs[WIRE_PIF_MAX];
static struct fwd_table wire_cur[4], wire_out[4];
static uint8_t wire_a[WIRE_MAX_FRAME], wire_b[WIRE_MAX_FRAME];

/**
 * wire_check() - Invariants of decoded tables
 * @t:		Four tables
 */
static void wire_check(const struct fwd_table *t)
{
	unsigned i, j;

	for (i = 0; i < 4; i++) {
		if (t[i].n > CONF_MAX_FWD_RULES ||
		    t[i].auto_nexc > CONF_MAX_FWD_RULES ||
		    t[i].auto_nonly > CONF_MAX_FWD_RULES)
			abort();
		for (j = 0; j < t[i].n; j++) {
			const struct fwd_rule *r = &t[i].rules[j];

			if (!r->first || r->first > r->last || !r->to ||
			    (unsigned)r->to + (r->last - r->first) > 65535)
				abort();
		}
	}
}

/**
 * LLVMFuzzerTestOneInput() - One frame
 * @data:	Flags byte, then the frame
 * @size:	Length, bytes
 *
 * Return: 0
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	bool server, pasta;
	ssize_t scan, full, a, b;
	unsigned np = 0;
	char err[256];

	if (size < 1)
		return 0;
	server = data[0] & 1;
	pasta = data[0] & 2;
	data++;
	size--;

	scan = wire_frame_get(data, size, server, NULL, NULL, err, sizeof(err));
	full = wire_frame_get(data, size, server, wire_pifs, &np, err,
			      sizeof(err));
	if (scan > (ssize_t)size || full > (ssize_t)size)
		abort();
	if (full != scan && full != -EINVAL)
		abort();	/* rules checked: only "bad" may differ */
	if (full <= 0 || np > WIRE_PIF_MAX)
		return 0;

	if (wire_pifs_apply(wire_pifs, np, wire_cur, wire_out, pasta, err,
			    sizeof(err)))
		return 0;
	wire_check(wire_out);

	/* Our encoding of them decodes to the same encoding */
	a = wire_tables_put(wire_a, sizeof(wire_a), wire_out, pasta, false, 0);
	if (a <= 0)
		return 0;	/* -ENOSPC: more than a table's worth */
	if (wire_frame_get(wire_a, (size_t)a, false, wire_pifs, &np, err,
			   sizeof(err)) != a)
		abort();
	if (wire_pifs_apply(wire_pifs, np, wire_cur, wire_out, pasta, err,
			    sizeof(err)))
		abort();
	b = wire_tables_put(wire_b, sizeof(wire_b), wire_out, pasta, false, 0);
	if (a != b || memcmp(wire_a, wire_b, (size_t)a))
		abort();
	return 0;
}
