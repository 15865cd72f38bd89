// SPDX-License-Identifier: GPL-2.0-or-later
/* passt/tcp_migrate.c - Encode and check TCP records of the migration stream
 *
 * The records' layout is upstream passt's (passt/tcp_migrate.h), so that a
 * guest migrates between its passt and ours both ways.  Everything being
 * decoded comes from the other side of a migration: each field that we act
 * on is range-checked here, before a socket is touched.  No system calls:
 * passt/tcp_repair.c works the sockets, test/unit/tcp_migrate_test.c drives
 * these on buffers.
 */
#include <string.h>

#include "../lib/util.h"
#include "tcp_migrate.h"

const char *const tcp_mig_err_str[TCP_MIG_E_COUNT] = {
	[TCP_MIG_OK]		= "ok",
	[TCP_MIG_E_PIF]		= "not a connection between guest and host",
	[TCP_MIG_E_ADDR]	= "invalid addresses",
	[TCP_MIG_E_EVENTS]	= "not an established connection",
	[TCP_MIG_E_WS]		= "window scale above 14",
	[TCP_MIG_E_MSS]		= "invalid MSS",
	[TCP_MIG_E_STATE]	= "TCP state that can't be migrated",
	[TCP_MIG_E_QUEUE]	= "invalid queue lengths",
};

/**
 * tcp_mig_flow_encode() - Write a flow record
 * @f:		Record, host order
 * @buf:	TCP_MIG_FLOW_LEN bytes, upstream's layout (tcp_migrate.h)
 */
void tcp_mig_flow_encode(const struct tcp_mig_flow *f,
			 uint8_t buf[TCP_MIG_FLOW_LEN])
{
	unsigned i;

	buf[0] = f->pif[0];
	buf[1] = f->pif[1];
	for (i = 0; i < 2; i++) {
		uint8_t *p = buf + 2 + 36 * i;

		memcpy(p, &f->side[i].oaddr, 16);
		memcpy(p + 16, &f->side[i].eaddr, 16);
		/* host order, as upstream (a memcpy() of its struct) */
		memcpy(p + 32, &f->side[i].oport, 2);
		memcpy(p + 34, &f->side[i].eport, 2);
	}
	buf[74] = f->retries;
	buf[75] = f->ws_from_tap;
	buf[76] = f->ws_to_tap;
	buf[77] = f->events;
	put_be32(buf + 78, f->tap_mss);
	put_be32(buf + 82, f->sndbuf);
	buf[86] = f->flags;
	buf[87] = f->dup_ack;
	put_be16(buf + 88, f->wnd_from_tap);
	put_be16(buf + 90, f->wnd_to_tap);
	put_be32(buf + 92, f->seq_to_tap);
	put_be32(buf + 96, f->seq_ack_from_tap);
	put_be32(buf + 100, f->seq_from_tap);
	put_be32(buf + 104, f->seq_ack_to_tap);
	put_be32(buf + 108, f->seq_init_from_tap);
}

/**
 * tcp_mig_flow_tap_side() - Which side of a record is the guest's
 * @f:		Record, checked by tcp_mig_flow_decode()
 *
 * Return: 0 (the guest opened the connection) or 1 (we accepted it on a
 *	   forwarded port and opened it to the guest)
 */
int tcp_mig_flow_tap_side(const struct tcp_mig_flow *f)
{
	return f->pif[0] == TCP_MIG_PIF_TAP ? 0 : 1;
}

/**
 * tcp_mig_side_v4() - Are both addresses of a side IPv4 (mapped)?
 * @s:		Side
 * @v4:		Set: true if both are IPv4-mapped
 *
 * Return: false if one is IPv4-mapped and the other isn't (no family)
 */
static bool tcp_mig_side_v4(const struct tcp_mig_side *s, bool *v4)
{
	bool o = IN6_IS_ADDR_V4MAPPED(&s->oaddr);
	bool e = IN6_IS_ADDR_V4MAPPED(&s->eaddr);

	*v4 = o;
	return o == e;
}

/**
 * tcp_mig_flow_decode() - Read and check a flow record
 * @buf:	TCP_MIG_FLOW_LEN bytes from the stream
 * @f:		Filled, host order (also when refused: for messages)
 *
 * Checks: one side tap and one host (upstream migrates no spliced flow);
 * each side's two addresses of one family, both sides of the same one
 * (neither implementation translates families for TCP); the endpoints'
 * addresses not multicast or unspecified, and their ports not 0 (RFC 9293
 * 3.1: a connection has two specified sockets), our host-side port not 0
 * (we bind to it); ESTABLISHED among the events (upstream sends only
 * those); window shifts at most 14 (RFC 7323 2.3); an MSS from 1 to 65535.
 *
 * Return: 0, or negative enum tcp_mig_err
 */
int tcp_mig_flow_decode(const uint8_t buf[TCP_MIG_FLOW_LEN],
			struct tcp_mig_flow *f)
{
	bool v4[2];
	unsigned i;

	f->pif[0] = buf[0];
	f->pif[1] = buf[1];
	for (i = 0; i < 2; i++) {
		const uint8_t *p = buf + 2 + 36 * i;

		memcpy(&f->side[i].oaddr, p, 16);
		memcpy(&f->side[i].eaddr, p + 16, 16);
		memcpy(&f->side[i].oport, p + 32, 2);
		memcpy(&f->side[i].eport, p + 34, 2);
	}
	f->retries = buf[74];
	f->ws_from_tap = buf[75];
	f->ws_to_tap = buf[76];
	f->events = buf[77];
	f->tap_mss = get_be32(buf + 78);
	f->sndbuf = get_be32(buf + 82);
	f->flags = buf[86];
	f->dup_ack = buf[87];
	f->wnd_from_tap = get_be16(buf + 88);
	f->wnd_to_tap = get_be16(buf + 90);
	f->seq_to_tap = get_be32(buf + 92);
	f->seq_ack_from_tap = get_be32(buf + 96);
	f->seq_from_tap = get_be32(buf + 100);
	f->seq_ack_to_tap = get_be32(buf + 104);
	f->seq_init_from_tap = get_be32(buf + 108);

	if (!((f->pif[0] == TCP_MIG_PIF_TAP && f->pif[1] == TCP_MIG_PIF_HOST) ||
	      (f->pif[0] == TCP_MIG_PIF_HOST && f->pif[1] == TCP_MIG_PIF_TAP)))
		return -TCP_MIG_E_PIF;
	for (i = 0; i < 2; i++) {
		const struct tcp_mig_side *s = &f->side[i];

		if (!tcp_mig_side_v4(s, &v4[i]))
			return -TCP_MIG_E_ADDR;
		if (IN6_IS_ADDR_MULTICAST(&s->eaddr) ||
		    IN6_IS_ADDR_UNSPECIFIED(&s->eaddr) ||
		    (v4[i] && (!s->eaddr.s6_addr32[3] ||
			       s->eaddr.s6_addr[12] >= 224)) ||
		    !s->eport || !s->oport)
			return -TCP_MIG_E_ADDR;
	}
	if (v4[0] != v4[1])
		return -TCP_MIG_E_ADDR;
	if (!(f->events & TCP_MIG_EV_ESTABLISHED))
		return -TCP_MIG_E_EVENTS;
	if (f->ws_from_tap > 14 || f->ws_to_tap > 14)
		return -TCP_MIG_E_WS;
	if (!f->tap_mss || f->tap_mss > 65535)
		return -TCP_MIG_E_MSS;
	return 0;
}

/**
 * tcp_mig_ext_encode() - Write an extended record
 * @e:		Record, host order
 * @buf:	TCP_MIG_EXT_LEN bytes, upstream's layout (tcp_migrate.h)
 */
void tcp_mig_ext_encode(const struct tcp_mig_ext *e,
			uint8_t buf[TCP_MIG_EXT_LEN])
{
	const uint32_t w[12] = {
		e->seq_snd, e->seq_rcv, e->sndq, e->notsent, e->rcvq, e->mss,
		e->timestamp, e->snd_wl1, e->snd_wnd, e->max_window,
		e->rcv_wnd, e->rcv_wup,
	};
	unsigned i;

	for (i = 0; i < 12; i++)
		put_be32(buf + 4 * i, w[i]);
	buf[48] = e->snd_ws;
	buf[49] = e->rcv_ws;
	buf[50] = e->tcpi_state;
	buf[51] = e->tcpi_options;
}

/**
 * tcp_mig_ext_decode() - Read and check an extended record
 * @buf:	TCP_MIG_EXT_LEN bytes from the stream
 * @e:		Filled, host order
 *
 * A record with tcpi_state 0 (the source couldn't dump the connection,
 * and writes no queues after it) is valid whatever else it holds.  Else:
 * a state a connection with a guest side migrates in (established, or
 * closing: FIN-WAIT-1/2, CLOSE-WAIT, LAST-ACK, CLOSING); notsent <= sndq;
 * each queue at most TCP_MIG_QUEUE_MAX (what upstream takes); window
 * shifts at most 14 (RFC 7323 2.3); an MSS from 1 to 65535.
 *
 * Return: 0, or negative enum tcp_mig_err
 */
int tcp_mig_ext_decode(const uint8_t buf[TCP_MIG_EXT_LEN],
		       struct tcp_mig_ext *e)
{
	e->seq_snd = get_be32(buf);
	e->seq_rcv = get_be32(buf + 4);
	e->sndq = get_be32(buf + 8);
	e->notsent = get_be32(buf + 12);
	e->rcvq = get_be32(buf + 16);
	e->mss = get_be32(buf + 20);
	e->timestamp = get_be32(buf + 24);
	e->snd_wl1 = get_be32(buf + 28);
	e->snd_wnd = get_be32(buf + 32);
	e->max_window = get_be32(buf + 36);
	e->rcv_wnd = get_be32(buf + 40);
	e->rcv_wup = get_be32(buf + 44);
	e->snd_ws = buf[48];
	e->rcv_ws = buf[49];
	e->tcpi_state = buf[50];
	e->tcpi_options = buf[51];

	switch (e->tcpi_state) {
	case 0:
		return 0;
	case TCP_MIG_ST_ESTABLISHED:
	case TCP_MIG_ST_FIN_WAIT1:
	case TCP_MIG_ST_FIN_WAIT2:
	case TCP_MIG_ST_CLOSE_WAIT:
	case TCP_MIG_ST_LAST_ACK:
	case TCP_MIG_ST_CLOSING:
		break;
	default:
		return -TCP_MIG_E_STATE;
	}
	if (e->notsent > e->sndq || e->sndq > TCP_MIG_QUEUE_MAX ||
	    e->rcvq > TCP_MIG_QUEUE_MAX)
		return -TCP_MIG_E_QUEUE;
	if (e->snd_ws > 14 || e->rcv_ws > 14)
		return -TCP_MIG_E_WS;
	if (!e->mss || e->mss > 65535)
		return -TCP_MIG_E_MSS;
	return 0;
}
