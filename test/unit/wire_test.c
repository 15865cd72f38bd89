// SPDX-License-Identifier: GPL-2.0-or-later
/* test/unit/wire_test.c - pesto's wire protocol (conf/wire.c): frames of
 * our tables, byte for byte, and what the decoder refuses
 *
 * Expected frames are written out here from the protocol's facts, as
 * upstream passt 2026-07 defines them (pesto.h, pesto.c, conf.c,
 * fwd_rule.h): hello = "basil:s\0", version 2, pif name size 128, IFNAMSIZ
 * 16, each a big-endian u32; per table u8 pif id (HOST 1, SPLICE 3), name
 * (128 bytes), capabilities and rule count (big-endian u32), then 56-byte
 * rules: bind address (16, IPv4-mapped), target address (16), interface
 * (16), first/last/target port (big-endian u16), protocol, flags (dual
 * stack 1, weak 2, scan 4); u8 0 at the end.  A client's frame has no name
 * and no capabilities.  They are not read back from our encoder.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../conf/ctl_ops.h"
#include "../../conf/ports.h"
#include "../../conf/wire.h"

static struct fwd_table tbls[FWD_TBLS], out[FWD_TBLS], zero[FWD_TBLS];
static uint8_t buf[WIRE_MAX_FRAME + 64];
static struct wire_pif pifs[WIRE_PIF_MAX];
static char err[256];

/**
 * struct exp - Expected bytes, built by hand
 * @b:		Bytes
 * @n:		Their number
 */
static struct exp {
	uint8_t b[4096];
	size_t n;
} e;

/**
 * eb() - Append bytes to the expected frame
 * @p:		Bytes
 * @n:		Their number
 */
static void eb(const void *p, size_t n)
{
	memcpy(e.b + e.n, p, n);
	e.n += n;
}

/**
 * eu8() - Append one byte
 * @v:		Byte
 */
static void eu8(uint8_t v)
{
	e.b[e.n++] = v;
}

/**
 * eu16() - Append a big-endian u16
 * @v:		Value
 */
static void eu16(uint16_t v)
{
	eu8((uint8_t)(v >> 8));
	eu8((uint8_t)v);
}

/**
 * eu32() - Append a big-endian u32
 * @v:		Value
 */
static void eu32(uint32_t v)
{
	eu16((uint16_t)(v >> 16));
	eu16((uint16_t)v);
}

/**
 * ezero() - Append zero bytes
 * @n:		How many
 */
static void ezero(size_t n)
{
	memset(e.b + e.n, 0, n);
	e.n += n;
}

/**
 * ehello() - Append the server's hello, as upstream sends it
 */
static void ehello(void)
{
	eb("basil:s", 8);	/* with its NUL */
	eu32(2);
	eu32(128);
	eu32(16);
}

/**
 * epif() - Append a server table header
 * @id:		pif id
 * @name:	Name
 * @caps:	Capabilities
 * @count:	Rules that follow
 */
static void epif(uint8_t id, const char *name, uint32_t caps, uint32_t count)
{
	eu8(id);
	eb(name, strlen(name));
	ezero(128 - strlen(name));
	eu32(caps);
	eu32(count);
}

/**
 * erule() - Append a rule
 * @a4:		IPv4 bind address as 4 bytes, or NULL for 16 zero bytes
 * @t4:		IPv4 target address, or NULL for 16 zero bytes
 * @ifname:	Interface, "" for none
 * @first:	First port
 * @last:	Last port
 * @to:		Target port
 * @proto:	Protocol number
 * @flags:	Flags
 */
static void erule(const uint8_t *a4, const uint8_t *t4, const char *ifname,
		  uint16_t first, uint16_t last, uint16_t to, uint8_t proto,
		  uint8_t flags)
{
	static const uint8_t mapped[12] = { [10] = 0xff, [11] = 0xff };

	if (a4) {
		eb(mapped, 12);
		eb(a4, 4);
	} else {
		ezero(16);
	}
	if (t4) {
		eb(mapped, 12);
		eb(t4, 4);
	} else {
		ezero(16);
	}
	eb(ifname, strlen(ifname));
	ezero(16 - strlen(ifname));
	eu16(first);
	eu16(last);
	eu16(to);
	eu8(proto);
	eu8(flags);
}

/**
 * spec() - Parse a spec into one of our tables, which must succeed
 * @i:		Table (enum fwd_tbl)
 * @s:		Spec
 */
static void spec(unsigned i, const char *s)
{
	ck_assert_msg(!fwd_spec_parse(&tbls[i], s, i >= FWD_TBL_TNS, err,
				      sizeof(err)), "%s: %s", s, err);
}

/**
 * frame_is() - Our encoding must be the expected bytes
 * @pasta:	Pasta mode
 * @server:	Server frame
 * @caps:	Capabilities
 */
static void frame_is(bool pasta, bool server, uint32_t caps)
{
	ssize_t n = wire_tables_put(buf, sizeof(buf), tbls, pasta, server,
				    caps);
	size_t i;

	ck_assert_int_eq(n, (ssize_t)e.n);
	for (i = 0; i < e.n; i++)
		ck_assert_msg(buf[i] == e.b[i], "byte %zu: 0x%02x, not 0x%02x",
			      i, buf[i], e.b[i]);
}

/**
 * setup() - Empty tables and expected frame
 */
static void setup(void)
{
	memset(tbls, 0, sizeof(tbls));
	memset(out, 0, sizeof(out));
	memset(&e, 0, sizeof(e));
}

START_TEST(test_wire_hello)
{
	ehello();
	ck_assert_uint_eq(wire_hello_put(buf), 20);
	ck_assert_mem_eq(buf, e.b, 20);
	ck_assert_int_eq(wire_hello_check(e.b, err, sizeof(err)), 0);

	e.b[11] = 1;		/* version 1: no target addresses, refused */
	ck_assert_int_eq(wire_hello_check(e.b, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "version 1"));
	e.b[11] = 3;
	ck_assert_int_eq(wire_hello_check(e.b, err, sizeof(err)), -EINVAL);
	e.b[11] = 2;
	e.b[19] = 32;		/* another IFNAMSIZ */
	ck_assert_int_eq(wire_hello_check(e.b, err, sizeof(err)), -EINVAL);
	e.b[19] = 16;
	e.b[0] = 'B';
	ck_assert_int_eq(wire_hello_check(e.b, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "magic"));
}
END_TEST

/* passt: -t 8080 (both families), -u 0.0.0.0/53:192.0.2.5/5353 */
START_TEST(test_wire_server_passt)
{
	static const uint8_t any4[4], t[4] = { 192, 0, 2, 5 };

	spec(FWD_TBL_T, "8080");
	spec(FWD_TBL_U, "0.0.0.0/53:192.0.2.5/5353");
	ehello();
	epif(1, "HOST", 0x2f, 2);
	erule(NULL, NULL, "", 8080, 8080, 8080, 6, 1);
	erule(any4, t, "", 53, 53, 5353, 17, 0);
	eu8(0);
	frame_is(false, true, 0x2f);
}
END_TEST

/* pasta: -t 8000-8010,auto; -u auto,~53; -T 5000; -U none */
START_TEST(test_wire_server_pasta)
{
	spec(FWD_TBL_T, "8000-8010,auto");
	spec(FWD_TBL_U, "auto,~53");
	spec(FWD_TBL_TNS, "5000");
	ehello();
	epif(1, "HOST", 0x8000003f, 3);
	erule(NULL, NULL, "", 8000, 8010, 8000, 6, 1 | 4);
	erule(NULL, NULL, "", 1, 52, 1, 17, 1 | 2 | 4);
	erule(NULL, NULL, "", 54, 65535, 54, 17, 1 | 2 | 4);
	epif(3, "SPLICE", 0x8000003f, 1);
	erule(NULL, NULL, "lo", 5000, 5000, 5000, 6, 1);
	eu8(0);
	frame_is(true, true, 0x8000003f);
}
END_TEST

/* What upstream's pesto sends for "--add -t 0.0.0.0/8080:10.88.0.2/80" on
 * top of an empty HOST table and an empty SPLICE one
 */
START_TEST(test_wire_client_podman)
{
	static const uint8_t any4[4], t[4] = { 10, 88, 0, 2 };
	ssize_t n;
	unsigned np;

	eu8(1);
	eu32(1);
	erule(any4, t, "", 8080, 8080, 80, 6, 0);
	eu8(3);
	eu32(0);
	eu8(0);

	n = wire_frame_get(e.b, e.n, false, pifs, &np, err, sizeof(err));
	ck_assert_int_eq(n, (ssize_t)e.n);
	ck_assert_uint_eq(np, 2);
	ck_assert_int_eq(wire_pifs_apply(pifs, np, zero, out, true, err,
					 sizeof(err)), 0);
	ck_assert_uint_eq(out[FWD_TBL_T].n, 1);
	ck_assert_uint_eq(out[FWD_TBL_T].rules[0].af, AF_INET);
	ck_assert_uint_eq(out[FWD_TBL_T].rules[0].first, 8080);
	ck_assert_uint_eq(out[FWD_TBL_T].rules[0].to, 80);
	ck_assert(out[FWD_TBL_T].rules[0].tset);
	ck_assert_mem_eq(&out[FWD_TBL_T].rules[0].taddr.v4.a4, t, 4);
	ck_assert(!out[FWD_TBL_T].rules[0].weak);
	ck_assert_uint_eq(out[FWD_TBL_U].n, 0);
	ck_assert(!fwd_table_on(&out[FWD_TBL_TNS]));

	/* Ours says the same, byte for byte */
	spec(FWD_TBL_T, "0.0.0.0/8080:10.88.0.2/80");
	frame_is(true, false, 0);
}
END_TEST

/* Every prefix of a frame is incomplete, not an error */
START_TEST(test_wire_truncated)
{
	size_t i;

	eu8(1);
	eu32(2);
	erule(NULL, NULL, "", 80, 80, 80, 6, 1);
	erule(NULL, NULL, "", 53, 53, 53, 17, 1);
	eu8(0);
	for (i = 0; i < e.n; i++) {
		ck_assert_int_eq(wire_frame_get(e.b, i, false, NULL, NULL,
						err, sizeof(err)), 0);
		ck_assert_int_eq(wire_frame_get(e.b, i, false, pifs, NULL,
						err, sizeof(err)), 0);
	}
	ck_assert_int_eq(wire_frame_get(e.b, e.n, false, NULL, NULL, err,
					sizeof(err)), (ssize_t)e.n);
}
END_TEST

/**
 * refused() - A client frame must be refused with a reason
 * @pasta:	Pasta mode
 * @why:	Part of the reason
 */
static void refused(bool pasta, const char *why)
{
	ssize_t n;
	unsigned np = 0;

	err[0] = '\0';
	n = wire_frame_get(e.b, e.n, false, pifs, &np, err, sizeof(err));
	if (n > 0)
		ck_assert_int_eq(wire_pifs_apply(pifs, np, zero, out, pasta,
						 err, sizeof(err)), -EINVAL);
	else
		ck_assert_int_eq(n, -EINVAL);
	ck_assert_msg(strstr(err, why), "'%s' not in '%s'", why, err);
	memset(&e, 0, sizeof(e));
}

START_TEST(test_wire_refused)
{
	static const uint8_t a4[4] = { 192, 0, 2, 1 }, m4[4] = { 224, 0, 0, 1 };

	eu8(1); eu32(0xffffffff);			/* huge count */
	refused(true, "at most");
	eu8(7);						/* unknown pif */
	refused(true, "unknown pif id 7");
	eu8(1); eu32(0); eu8(1);			/* twice */
	refused(true, "twice");
	eu8(2); eu32(0); eu8(0);			/* TAP */
	refused(true, "no table for pif 2");
	eu8(3); eu32(0); eu8(0);			/* SPLICE, passt */
	refused(false, "no table for pif 3");
	eu8(1); eu32(1);
	erule(NULL, NULL, "", 80, 80, 80, 1, 1);	/* ICMP */
	eu8(0);
	refused(true, "protocol 1");
	eu8(1); eu32(1);
	erule(NULL, NULL, "", 80, 80, 80, 6, 8);	/* unknown flag */
	eu8(0);
	refused(true, "flags 0x8");
	eu8(1); eu32(1);
	erule(NULL, NULL, "", 0, 80, 80, 6, 1);		/* port 0 */
	eu8(0);
	refused(true, "port range 0-80");
	eu8(1); eu32(1);
	erule(NULL, NULL, "", 90, 80, 80, 6, 1);	/* inverted */
	eu8(0);
	refused(true, "port range 90-80");
	eu8(1); eu32(1);
	erule(NULL, NULL, "", 80, 90, 65530, 6, 1);	/* past 65535 */
	eu8(0);
	refused(true, "target ports");
	eu8(1); eu32(1);
	erule(NULL, NULL, "0123456789abcdef", 80, 80, 80, 6, 1);
	eu8(0);
	refused(true, "not NUL-terminated");
	eu8(1); eu32(1);
	erule(a4, NULL, "", 80, 80, 80, 6, 1);		/* dual, not :: */
	eu8(0);
	refused(true, "dual-stack");
	eu8(1); eu32(1);
	erule(a4, m4, "", 80, 80, 80, 6, 0);		/* multicast target */
	eu8(0);
	refused(true, "multicast");
	eu8(1); eu32(2);				/* overlap */
	erule(NULL, NULL, "", 80, 90, 80, 6, 1);
	erule(NULL, NULL, "", 85, 95, 85, 6, 1);
	eu8(0);
	refused(true, "twice for one bind");
	eu8(3); eu32(1);
	erule(a4, NULL, "", 80, 80, 80, 6, 0);		/* SPLICE address */
	eu8(0);
	refused(true, "loopback");
	eu8(1); eu32(2);				/* two auto binds */
	erule(NULL, NULL, "", 80, 80, 80, 6, 5);
	erule(a4, NULL, "", 90, 90, 90, 6, 4);
	eu8(0);
	refused(true, "different bind");
}
END_TEST

/* Tables read from us and sent back unchanged stay the same tables */
START_TEST(test_wire_roundtrip)
{
	static const char *const specs[][4] = {
		{ "auto,~22,~8000-8100", "53,5353:53", "5000-5005", "auto" },
		{ "[::]/8080:[2001:db8::2]/80", "0.0.0.0/9-11,auto", "none",
		  "none" },
		{ "192.0.2.1%lo/80,443", "1-10:101-110", "auto", "6000" },
	};
	unsigned k, i;

	for (k = 0; k < sizeof(specs) / sizeof(specs[0]); k++) {
		ssize_t n;
		unsigned np;

		setup();
		for (i = 0; i < FWD_TBLS; i++)
			spec(i, specs[k][i]);
		n = wire_tables_put(buf, sizeof(buf), tbls, true, false, 0);
		ck_assert_int_gt(n, 0);
		ck_assert_int_eq(wire_frame_get(buf, (size_t)n, false, pifs,
						&np, err, sizeof(err)), n);
		/* decoded from scratch, not kept from the current tables */
		ck_assert_msg(!wire_pifs_apply(pifs, np, zero, out, true, err,
					       sizeof(err)), "%s", err);
		memcpy(tbls, out, sizeof(tbls));
		ck_assert_int_eq(wire_tables_put(buf + n, sizeof(buf) - (size_t)n,
						 tbls, true, false, 0), n);
		ck_assert_mem_eq(buf, buf + n, (size_t)n);
	}
}
END_TEST

/* Mutated and random frames: never a crash, never past the end */
START_TEST(test_wire_fuzz)
{
	static const uint8_t a4[4] = { 198, 51, 100, 7 };
	unsigned iter, seed = 12345;
	size_t base;

	eu8(1); eu32(3);
	erule(NULL, NULL, "", 80, 90, 80, 6, 1);
	erule(a4, a4, "", 53, 53, 5353, 17, 0);
	erule(NULL, NULL, "", 1000, 2000, 1000, 6, 7);
	eu8(3); eu32(1);
	erule(NULL, NULL, "lo", 5000, 5000, 5000, 6, 1);
	eu8(0);
	base = e.n;

	for (iter = 0; iter < 200000; iter++) {
		static uint8_t m[4096];
		size_t len = base, j, flips;
		unsigned np = 0;
		ssize_t n;

		memcpy(m, e.b, base);
		seed = seed * 1103515245U + 12345U;
		flips = 1 + (seed >> 16) % 4;
		for (j = 0; j < flips; j++) {
			seed = seed * 1103515245U + 12345U;
			m[(seed >> 8) % base] = (uint8_t)(seed >> 20);
		}
		if (iter % 3 == 0) {
			seed = seed * 1103515245U + 12345U;
			len = (seed >> 8) % (base + 1);
		}
		if (iter % 7 == 0) {		/* plain noise */
			for (j = 0; j < len; j++) {
				seed = seed * 1103515245U + 12345U;
				m[j] = (uint8_t)(seed >> 16);
			}
		}
		n = wire_frame_get(m, len, false, pifs, &np, err, sizeof(err));
		ck_assert_int_le(n, (ssize_t)len);
		if (n > 0) {
			ck_assert_uint_le(np, WIRE_PIF_MAX);
			(void)wire_pifs_apply(pifs, np, zero, out, true, err,
					      sizeof(err));
			(void)wire_pifs_apply(pifs, np, zero, out, false, err,
					      sizeof(err));
		}
		n = wire_frame_get(m, len, true, pifs, &np, err, sizeof(err));
		ck_assert_int_le(n, (ssize_t)len);
	}
}
END_TEST

/**
 * wire_suite() - The tests
 *
 * Return: the suite
 */
static Suite *wire_suite(void)
{
	Suite *s = suite_create("wire");
	TCase *tc = tcase_create("frames");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_wire_hello);
	tcase_add_test(tc, test_wire_server_passt);
	tcase_add_test(tc, test_wire_server_pasta);
	tcase_add_test(tc, test_wire_client_podman);
	tcase_add_test(tc, test_wire_truncated);
	tcase_add_test(tc, test_wire_refused);
	tcase_add_test(tc, test_wire_roundtrip);
	tcase_add_test(tc, test_wire_fuzz);
	suite_add_tcase(s, tc);
	return s;
}

/**
 * main() - Run the suite, CK_ENV chooses the verbosity
 *
 * Return: EXIT_SUCCESS if every test passed
 */
int main(void)
{
	SRunner *sr = srunner_create(wire_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
