// SPDX-License-Identifier: GPL-2.0-or-later
/* test/unit/tcp_state_test.c - The TCP connection's state machine
 * (passt/tcp.c: tcp_events_allowed(), tcp_state_next(), tcp_state_allowed(),
 * tcp_events_set(), tcp_flags_set())
 *
 * The expected edges are RFC 9293 3.3.2, Figure 5 ("TCP Connection State
 * Diagram"), with LISTEN folded into the connection's creation (we make a
 * connection on the SYN, CLOSED -> LISTEN -> SYN-RECEIVED is one step),
 * plus FIN-WAIT-1 -> TIME-WAIT from 3.10.7.4 (eighth, "If our FIN has been
 * ACKed (perhaps in this segment), then enter TIME-WAIT").  Edges of the
 * figure we never take: simultaneous open (SYN-SENT -> SYN-RECEIVED),
 * SEND in LISTEN, CLOSE in SYN-RECEIVED/SYN-SENT/LISTEN (our CLOSE, the
 * host peer's EOF, only counts once established), and the 2 MSL timeout of
 * TIME-WAIT (we keep no TIME-WAIT: the entry is freed).  The paths are the
 * figure's: active open and close, passive open and close, simultaneous
 * close.
 */
#include <check.h>
#include <signal.h>
#include <stdlib.h>

#include "../../passt/flow_table.h"
#include "../../passt/tcp_internal.h"

#define S(x)	TCP_STATE_##x

/* RFC 9293 Figure 5 edges between the states we have (no LISTEN) */
static const bool rfc_edge[TCP_STATE_COUNT][TCP_STATE_COUNT] = {
	[S(CLOSED)][S(SYN_SENT)] = true,		/* active OPEN */
	[S(SYN_SENT)][S(SYN_RECEIVED)] = true,		/* rcv SYN */
	[S(SYN_SENT)][S(ESTABLISHED)] = true,		/* rcv SYN,ACK */
	[S(SYN_SENT)][S(CLOSED)] = true,		/* CLOSE */
	[S(SYN_RECEIVED)][S(ESTABLISHED)] = true,	/* rcv ACK of SYN */
	[S(SYN_RECEIVED)][S(FIN_WAIT_1)] = true,	/* CLOSE */
	[S(ESTABLISHED)][S(FIN_WAIT_1)] = true,		/* CLOSE */
	[S(ESTABLISHED)][S(CLOSE_WAIT)] = true,		/* rcv FIN */
	[S(FIN_WAIT_1)][S(FIN_WAIT_2)] = true,		/* rcv ACK of FIN */
	[S(FIN_WAIT_1)][S(CLOSING)] = true,		/* rcv FIN */
	[S(FIN_WAIT_2)][S(TIME_WAIT)] = true,		/* rcv FIN */
	[S(CLOSING)][S(TIME_WAIT)] = true,		/* rcv ACK of FIN */
	[S(CLOSE_WAIT)][S(LAST_ACK)] = true,		/* CLOSE */
	[S(LAST_ACK)][S(CLOSED)] = true,		/* rcv ACK of FIN */
	[S(TIME_WAIT)][S(CLOSED)] = true,		/* 2 MSL timeout */
};

/* Every edge we allow is in the figure (or is one of the two exceptions
 * above), and the figure's edges we refuse are exactly the ones we never
 * take
 */
START_TEST(test_tcp_state_edges_are_rfc_9293)
{
	unsigned from, to, n = 0;

	for (from = 0; from < TCP_STATE_COUNT; from++) {
		for (to = 0; to < TCP_STATE_COUNT; to++) {
			bool ours = tcp_state_allowed(from, to);
			bool rfc = rfc_edge[from][to];

			if ((from == S(CLOSED) && to == S(SYN_RECEIVED)) ||
			    (from == S(FIN_WAIT_1) && to == S(TIME_WAIT))) {
				ck_assert_msg(ours, "%s -> %s",
					      tcp_state_str[from],
					      tcp_state_str[to]);
			} else if (ours) {
				ck_assert_msg(rfc, "%s -> %s not in RFC 9293",
					      tcp_state_str[from],
					      tcp_state_str[to]);
			}
			n += ours;
		}
	}
	ck_assert_uint_eq(n, 13);
	/* Figure 5 edges we refuse */
	ck_assert(!tcp_state_allowed(S(SYN_SENT), S(SYN_RECEIVED)));
	ck_assert(!tcp_state_allowed(S(SYN_SENT), S(CLOSED)));
	ck_assert(!tcp_state_allowed(S(SYN_RECEIVED), S(FIN_WAIT_1)));
	ck_assert(!tcp_state_allowed(S(TIME_WAIT), S(CLOSED)));
	/* Nonsense */
	ck_assert(!tcp_state_allowed(S(ESTABLISHED), S(SYN_SENT)));
	ck_assert(!tcp_state_allowed(S(CLOSE_WAIT), S(FIN_WAIT_1)));
	ck_assert(!tcp_state_allowed(S(FIN_WAIT_2), S(CLOSING)));
	ck_assert(!tcp_state_allowed(S(ESTABLISHED), S(ESTABLISHED)));
	ck_assert(!tcp_state_allowed(TCP_STATE_COUNT, S(CLOSED)));
}
END_TEST

/**
 * walk() - Apply events one step at a time, checking each step
 * @steps:	Events added (or, with @clear, taken back) at each step
 * @want:	State expected after each step
 * @n:		Steps
 */
static void walk(const unsigned *steps, const enum tcp_state *want,
		 unsigned n)
{
	enum tcp_state st = S(CLOSED);
	unsigned ev = 0, i;

	for (i = 0; i < n; i++) {
		unsigned next = ev | steps[i];
		enum tcp_state nst;

		ck_assert_msg(tcp_events_allowed(ev, next), "step %u", i);
		nst = tcp_state_next(st, next);
		ck_assert_msg(nst == want[i], "step %u: %s, want %s", i,
			      tcp_state_str[nst], tcp_state_str[want[i]]);
		ck_assert(nst == st || tcp_state_allowed(st, nst));
		ev = next;
		st = nst;
	}
}

/* Inbound (-t): we open actively and, if the host peer ends first, close
 * actively: CLOSED, SYN-SENT, ESTABLISHED, FIN-WAIT-1, FIN-WAIT-2,
 * TIME-WAIT
 */
START_TEST(test_tcp_state_active_open_close)
{
	static const unsigned steps[] = {
		TEV_SOCK_ACCEPTED | TEV_TAP_SYN_SENT, TEV_ESTABLISHED,
		TEV_SOCK_EOF, TEV_TAP_FIN_SENT, TEV_TAP_FIN_ACKED,
		TEV_TAP_FIN_RCVD,
	};
	static const enum tcp_state want[] = {
		S(SYN_SENT), S(ESTABLISHED), S(FIN_WAIT_1), S(FIN_WAIT_1),
		S(FIN_WAIT_2), S(TIME_WAIT),
	};

	walk(steps, want, 6);
}
END_TEST

/* Outbound: the guest opens, we answer once connect() is done; the guest
 * closes first: SYN-RECEIVED, ESTABLISHED, CLOSE-WAIT, LAST-ACK, CLOSED
 */
START_TEST(test_tcp_state_passive_open_close)
{
	static const unsigned steps[] = {
		TEV_TAP_SYN_RCVD, TEV_SOCK_CONNECTED, TEV_ESTABLISHED,
		TEV_TAP_FIN_RCVD, TEV_SOCK_EOF | TEV_TAP_FIN_SENT,
		TEV_TAP_FIN_ACKED,
	};
	static const enum tcp_state want[] = {
		S(SYN_RECEIVED), S(SYN_RECEIVED), S(ESTABLISHED),
		S(CLOSE_WAIT), S(LAST_ACK), S(CLOSED),
	};

	walk(steps, want, 6);
}
END_TEST

/* Simultaneous close: FIN-WAIT-1, CLOSING on the guest's FIN, TIME-WAIT on
 * the ACK of ours
 */
START_TEST(test_tcp_state_simultaneous_close)
{
	static const unsigned steps[] = {
		TEV_TAP_SYN_RCVD, TEV_SOCK_CONNECTED, TEV_ESTABLISHED,
		TEV_SOCK_EOF | TEV_TAP_FIN_SENT, TEV_TAP_FIN_RCVD,
		TEV_TAP_FIN_ACKED,
	};
	static const enum tcp_state want[] = {
		S(SYN_RECEIVED), S(SYN_RECEIVED), S(ESTABLISHED),
		S(FIN_WAIT_1), S(CLOSING), S(TIME_WAIT),
	};

	walk(steps, want, 6);
}
END_TEST

/* Event changes that no connection can make */
START_TEST(test_tcp_events_refused)
{
	const unsigned out = TEV_TAP_SYN_RCVD | TEV_SOCK_CONNECTED;
	const unsigned in = TEV_SOCK_ACCEPTED | TEV_TAP_SYN_SENT;
	const unsigned est = out | TEV_ESTABLISHED;

	/* Opening: one way, all its bits at once, first */
	ck_assert(tcp_events_allowed(0, TEV_TAP_SYN_RCVD));
	ck_assert(tcp_events_allowed(0, in));
	ck_assert(!tcp_events_allowed(0, TEV_SOCK_ACCEPTED));
	ck_assert(!tcp_events_allowed(0, TEV_ESTABLISHED));
	ck_assert(!tcp_events_allowed(0, out));
	ck_assert(!tcp_events_allowed(0, TEV_TAP_SYN_RCVD | TEV_SOCK_ACCEPTED));
	ck_assert(!tcp_events_allowed(est, est | in));
	/* Established only after our half of the handshake */
	ck_assert(!tcp_events_allowed(TEV_TAP_SYN_RCVD,
				      TEV_TAP_SYN_RCVD | TEV_ESTABLISHED));
	/* FINs only once established; ours sent or ACKed once due */
	ck_assert(!tcp_events_allowed(out, out | TEV_TAP_FIN_RCVD));
	ck_assert(!tcp_events_allowed(out, out | TEV_SOCK_EOF));
	ck_assert(!tcp_events_allowed(est, est | TEV_TAP_FIN_SENT));
	ck_assert(!tcp_events_allowed(est, est | TEV_TAP_FIN_ACKED));
	/* Nothing taken back but TEV_TAP_FIN_SENT */
	ck_assert(!tcp_events_allowed(est, out));
	ck_assert(!tcp_events_allowed(est | TEV_SOCK_EOF, est));
	ck_assert(tcp_events_allowed(est | TEV_SOCK_EOF | TEV_TAP_FIN_SENT,
				     est | TEV_SOCK_EOF));
	/* The guest may ACK a FIN we are about to send again (rewound) */
	ck_assert(tcp_events_allowed(est | TEV_SOCK_EOF,
				     est | TEV_SOCK_EOF | TEV_TAP_FIN_ACKED));
	/* No bits beyond the last event */
	ck_assert(!tcp_events_allowed(est, est | (1U << TEV_COUNT)));
}
END_TEST

/* Our FIN taken back (tap drop, retransmission) doesn't leave FIN-WAIT-1:
 * the CLOSE happened, the FIN goes out again
 */
START_TEST(test_tcp_state_fin_resent)
{
	const unsigned est = TEV_SOCK_ACCEPTED | TEV_TAP_SYN_SENT |
			     TEV_ESTABLISHED | TEV_SOCK_EOF;

	ck_assert_uint_eq(tcp_state_next(S(FIN_WAIT_1),
					 est | TEV_TAP_FIN_SENT),
			  S(FIN_WAIT_1));
	ck_assert_uint_eq(tcp_state_next(S(FIN_WAIT_1), est), S(FIN_WAIT_1));
}
END_TEST

static struct tcp_conn *conn;

/**
 * setup() - One zeroed connection in a flow table
 */
static void setup(void)
{
	union flow *flow;

	ck_assert_int_eq(flow_init(4), 0);
	flow = flow_alloc(NULL);
	flow_activate(flow, FLOW_TCP);
	conn = &flow->tcp;
}

/* The setter keeps @state in step with the events */
START_TEST(test_tcp_events_set_state)
{
	ck_assert_uint_eq(conn->state, S(CLOSED));
	conn_flag(conn, TFL_IPV4);
	conn_event(conn, TEV_SOCK_ACCEPTED | TEV_TAP_SYN_SENT);
	ck_assert_uint_eq(conn->state, S(SYN_SENT));
	conn_event(conn, TEV_ESTABLISHED);
	conn_event(conn, TEV_ESTABLISHED);	/* again: nothing changes */
	ck_assert_uint_eq(conn->state, S(ESTABLISHED));
	conn_event(conn, TEV_SOCK_EOF | TEV_TAP_FIN_SENT);
	conn_event_clear(conn, TEV_TAP_FIN_SENT);
	ck_assert_uint_eq(conn->state, S(FIN_WAIT_1));
	ck_assert_uint_eq(conn->events, TEV_SOCK_ACCEPTED | TEV_TAP_SYN_SENT |
					TEV_ESTABLISHED | TEV_SOCK_EOF);
	conn_flag(conn, TFL_ORPHAN | TFL_ACK_DUE);
	conn_flag_clear(conn, TFL_ACK_DUE);
	ck_assert_uint_eq(conn->flags, TFL_IPV4 | TFL_ORPHAN);
}
END_TEST

/* A refused change aborts: ESTABLISHED before our half of the handshake */
START_TEST(test_tcp_events_set_refused_aborts)
{
	conn_event(conn, TEV_TAP_SYN_RCVD);
	conn_event(conn, TEV_ESTABLISHED);
}
END_TEST

/* TFL_ORPHAN is never cleared */
START_TEST(test_tcp_flag_orphan_cleared_aborts)
{
	conn_flag(conn, TFL_ORPHAN);
	conn_flag_clear(conn, TFL_ORPHAN);
}
END_TEST

/* TFL_IPV4 is fixed before the first event */
START_TEST(test_tcp_flag_ipv4_late_aborts)
{
	conn_event(conn, TEV_TAP_SYN_RCVD);
	conn_flag(conn, TFL_IPV4);
}
END_TEST

/**
 * main() - Run the suite
 *
 * Return: EXIT_SUCCESS if every test passed
 */
int main(void)
{
	Suite *s = suite_create("tcp_state");
	TCase *tc = tcase_create("tables");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_tcp_state_edges_are_rfc_9293);
	tcase_add_test(tc, test_tcp_state_active_open_close);
	tcase_add_test(tc, test_tcp_state_passive_open_close);
	tcase_add_test(tc, test_tcp_state_simultaneous_close);
	tcase_add_test(tc, test_tcp_events_refused);
	tcase_add_test(tc, test_tcp_state_fin_resent);
	suite_add_tcase(s, tc);

	tc = tcase_create("setters");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_tcp_events_set_state);
	tcase_add_test_raise_signal(tc, test_tcp_events_set_refused_aborts,
				    SIGABRT);
	tcase_add_test_raise_signal(tc, test_tcp_flag_orphan_cleared_aborts,
				    SIGABRT);
	tcase_add_test_raise_signal(tc, test_tcp_flag_ipv4_late_aborts,
				    SIGABRT);
	suite_add_tcase(s, tc);

	sr = srunner_create(s);
	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
