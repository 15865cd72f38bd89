// SPDX-License-Identifier: GPL-2.0-or-later
/* test/fuzz/ports.c - Harness: port forwarding specs (conf/ports.c)
 *
 * Input: one byte of flags (bit 0: namespace side; bit 1: parse into a table
 * that already holds rules), then the spec as given to -t, -u, -T or -U.
 * fwd_spec_parse() must succeed with rules that are in range and don't
 * overlap, or fail with a one-line reason and the table unchanged.
 */
#include "fuzz.h"
#include "../../conf/ports.h"

static struct fwd_table ports_t, ports_before;

/**
 * ports_check() - Invariants of a table after a successful parse
 * @t:		Table
 */
static void ports_check(const struct fwd_table *t)
{
	unsigned i;

	if (t->n > CONF_MAX_FWD_RULES)
		abort();
	for (i = 0; i < t->n; i++) {
		const struct fwd_rule *r = &t->rules[i];

		if (!r->first || r->first > r->last)
			abort();
		if ((unsigned)r->to + (r->last - r->first) > 65535)
			abort();
	}
}

/**
 * LLVMFuzzerTestOneInput() - One spec
 * @data:	Flags byte, then the spec (not NUL-terminated)
 * @size:	Length, bytes
 *
 * Return: 0
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char spec[FWD_SPEC_MAX_LEN + 64], err[256];
	size_t len;

	if (size < 1)
		return 0;
	len = size - 1 < sizeof(spec) - 1 ? size - 1 : sizeof(spec) - 1;
	memcpy(spec, data + 1, len);
	spec[len] = '\0';

	memset(&ports_t, 0, sizeof(ports_t));
	if (data[0] & 2)
		fwd_spec_parse(&ports_t, "22,80-90,~85,127.0.0.1/lo:5000",
			       false, NULL, 0);
	ports_before = ports_t;
	err[0] = '\0';
	if (fwd_spec_parse(&ports_t, spec, data[0] & 1, err, sizeof(err))) {
		if (memcmp(&ports_t, &ports_before, sizeof(ports_t)))
			abort();	/* "unchanged on error" */
		if (!err[0] || strchr(err, '\n'))
			abort();	/* one line, always */
		return 0;
	}
	ports_check(&ports_t);
	return 0;
}
