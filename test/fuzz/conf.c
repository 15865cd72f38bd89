// SPDX-License-Identifier: GPL-2.0-or-later
/* test/fuzz/conf.c - Harness: the whole command line parser (conf/parse.c)
 *
 * Input: NUL-separated arguments; the first byte picks argv[0] (even:
 * "pasta", odd: "passt").  conf_parse() runs as in the daemon, host
 * defaults included (read from the harness's empty network namespace, so
 * they don't depend on the machine).  Where it would end the process
 * (usage error, --help, --version) conf_exit_hook brings control back
 * with longjmp().  Messages go to stderr: run with -close_fd_mask=3.
 */
#include <setjmp.h>

#include "fuzz.h"

#define CONF_FUZZ_ARGS	64

static jmp_buf conf_jmp;
static struct conf conf_c;
static char conf_buf[4096];

/**
 * conf_fuzz_exit() - conf_exit_hook: back to the harness
 * @status:	Exit status conf_parse() wanted
 */
static void conf_fuzz_exit(int status)
{
	longjmp(conf_jmp, status + 1);
}

/**
 * LLVMFuzzerTestOneInput() - One command line
 * @data:	Mode byte, then arguments separated by NUL bytes
 * @size:	Length, bytes
 *
 * Return: 0
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char *argv[CONF_FUZZ_ARGS + 2];
	static bool ready;
	size_t i, n, start = 0;
	int argc = 1;

	if (!ready) {
		fuzz_isolate_net();
		conf_exit_hook = conf_fuzz_exit;
		ready = true;
	}
	if (size < 1 || size > sizeof(conf_buf))
		return 0;

	argv[0] = data[0] & 1 ? "passt" : "pasta";
	n = size - 1;
	memcpy(conf_buf, data + 1, n);
	conf_buf[n] = '\0';
	for (i = 0; n && i <= n && argc <= CONF_FUZZ_ARGS; i++) {
		if (!conf_buf[i]) {
			argv[argc++] = conf_buf + start;
			start = i + 1;
		}
	}
	argv[argc] = NULL;

	if (!setjmp(conf_jmp))
		conf_parse(&conf_c, argc, argv);
	log_level = LOG_CRIT;
	return 0;
}
