#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# udp_restart_peer.py - the two ends of a UDP exchange that spans a hitless
# restart (pasta_restart_udp.sh)
#
#   server ADDR PORT PUSHFILE SECONDS
#       answer each datagram with "echo:DATA from:PORT", PORT the sender's
#       as seen here; once PUSHFILE exists, send "push" once to the last
#       sender, unasked
#   client BADDR BPORT HOST PORT GOFILE MODE SECONDS
#       from BADDR:BPORT, send "one" to HOST:PORT and print the answer as
#       "reply1 SRCADDR SRCPORT PAYLOAD"; once GOFILE exists, MODE "again":
#       send "two" and print "reply2 ..."; MODE "wait": send nothing, print
#       the next datagram as "push ..."
import os
import socket
import sys
import time


def sock(addr, port):
    s = socket.socket(socket.AF_INET6 if ':' in addr else socket.AF_INET,
                      socket.SOCK_DGRAM)
    s.bind((addr, port))
    return s


def server(addr, port, pushfile, seconds):
    s = sock(addr, port)
    s.settimeout(0.05)
    peer, pushed, end = None, False, time.time() + seconds
    while time.time() < end:
        try:
            data, peer = s.recvfrom(2048)
            s.sendto(b"echo:%s from:%d" % (data, peer[1]), peer)
        except socket.timeout:
            pass
        if peer and not pushed and os.path.exists(pushfile):
            s.sendto(b"push", peer)
            pushed = True


def recv(s, tag):
    data, src = s.recvfrom(2048)
    print("%s %s %d %s" % (tag, src[0], src[1], data.decode()), flush=True)


def client(baddr, bport, host, port, gofile, mode, seconds):
    s = sock(baddr, bport)
    s.settimeout(seconds)
    s.sendto(b"one", (host, port))
    recv(s, "reply1")
    end = time.time() + seconds
    while not os.path.exists(gofile):
        if time.time() > end:
            sys.exit("no %s" % gofile)
        time.sleep(0.02)
    if mode == "again":
        s.sendto(b"two", (host, port))
        recv(s, "reply2")
    else:
        recv(s, "push")


def main(a):
    if a[1] == "server":
        server(a[2], int(a[3]), a[4], float(a[5]))
    elif a[1] == "client":
        client(a[2], int(a[3]), a[4], int(a[5]), a[6], a[7], float(a[8]))
    else:
        sys.exit("usage: see the head of this file")


if __name__ == "__main__":
    main(sys.argv)
