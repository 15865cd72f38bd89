// SPDX-License-Identifier: GPL-2.0-or-later
/* test/fuzz/ctl.c - Harness: text requests of the -c socket (conf/ctl_ops.c)
 *
 * Input: one byte of flags (bit 0: passt mode, else pasta; bit 1: the
 * tables already hold rules; bit 2: --no-udp), then the request as a
 * client sends it after the protocol's greeting (passt/ctl.c: anything but
 * binary tables is a text request, at most CTL_REQ_MAX bytes, lines of
 * show, set, add, del, clear).  ctl_parse() must succeed with tables whose
 * rules are in range and whose -T and -U tables stay empty in passt mode
 * and UDP ones with --no-udp, or fail with a one-line "line N: reason".
 */
#include "fuzz.h"
#include "../../conf/ctl_ops.h"
#include "../../conf/ports.h"
#include "../../passt/ctl.h"

static struct conf ctl_fuzz_c;
static struct fwd_table ctl_fuzz_t[FWD_TBLS];
static char ctl_fuzz_req[CTL_REQ_MAX + 1];

/**
 * ctl_fuzz_check() - Invariants of the tables after a successful request
 */
static void ctl_fuzz_check(void)
{
	unsigned i, j;

	for (i = 0; i < FWD_TBLS; i++) {
		const struct fwd_table *t = &ctl_fuzz_t[i];

		if (t->n > CONF_MAX_FWD_RULES ||
		    t->auto_nexc > CONF_MAX_FWD_RULES ||
		    t->auto_nonly > CONF_MAX_FWD_RULES)
			abort();
		if (!ctl_table_usable(&ctl_fuzz_c, i) && (t->n || t->auto_on))
			abort();	/* a table that can't change did */
		for (j = 0; j < t->n; j++) {
			const struct fwd_rule *r = &t->rules[j];

			if (!r->first || r->first > r->last ||
			    (unsigned)r->to + (r->last - r->first) > 65535)
				abort();
		}
	}
}

/**
 * LLVMFuzzerTestOneInput() - One text request
 * @data:	Flags byte, then the request (not NUL-terminated)
 * @size:	Length, bytes
 *
 * Return: 0
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	bool show = false, change = false;
	char err[256];
	size_t len;

	if (size < 1)
		return 0;
	len = size - 1 < CTL_REQ_MAX ? size - 1 : CTL_REQ_MAX;
	memcpy(ctl_fuzz_req, data + 1, len);
	ctl_fuzz_req[len] = '\0';

	memset(&ctl_fuzz_c, 0, sizeof(ctl_fuzz_c));
	ctl_fuzz_c.mode = (data[0] & 1) ? MODE_PASST : MODE_PASTA;
	ctl_fuzz_c.no_udp = !!(data[0] & 4);
	memset(ctl_fuzz_t, 0, sizeof(ctl_fuzz_t));
	if (data[0] & 2)
		fwd_spec_parse(&ctl_fuzz_t[FWD_TBL_T],
			       "22,80-90,~85,127.0.0.1/5000:6000", false,
			       NULL, 0);

	err[0] = '\0';
	if (ctl_parse(&ctl_fuzz_c, ctl_fuzz_req, ctl_fuzz_t, &show, &change,
		      err, sizeof(err))) {
		if (strncmp(err, "line ", 5) || strchr(err, '\n'))
			abort();	/* "line N: reason", one line */
		return 0;
	}
	ctl_fuzz_check();
	return 0;
}
