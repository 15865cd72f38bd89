#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# repair_fake_passt.py - Plays passt's side of the passt-repair protocol
#
# Usage: repair_fake_passt.py SOCKET_PATH SCENARIO
# Listens on SOCKET_PATH, accepts passt-repair, makes established TCP
# connections over loopback, and sends commands as upstream passt-repair(1)
# describes them: one signed byte (1 TCP_REPAIR_ON, 0 TCP_REPAIR_OFF, -1
# TCP_REPAIR_OFF_NO_WP, <linux/tcp.h>) with the sockets as SCM_RIGHTS; the
# helper echoes the byte.  TCP_REPAIR is option 19 of IPPROTO_TCP
# (<linux/tcp.h>); getsockopt() reads back the mode the helper set.
# Prints one line per check: "ok WHAT" or "bad WHAT ...", then "done".
import array
import os
import socket
import sys

TCP_REPAIR = 19


def pairs(n):
    """n established loopback connections: (client, accepted) pairs"""
    ls = socket.socket()
    ls.bind(("127.0.0.1", 0))
    ls.listen(n)
    out = []
    for _ in range(n):
        c = socket.create_connection(ls.getsockname())
        a, _ = ls.accept()
        out.append((c, a))
    ls.close()
    return out


def send_cmd(conn, cmd, socks):
    fds = array.array("i", [s.fileno() for s in socks])
    conn.sendmsg([cmd.to_bytes(1, "big", signed=True)],
                 [(socket.SOL_SOCKET, socket.SCM_RIGHTS, fds)])


def echo(conn):
    conn.settimeout(10)
    try:
        b = conn.recv(1)
    except (ConnectionResetError, socket.timeout):
        return None
    return int.from_bytes(b, "big", signed=True) if b else None


def mode(s):
    return s.getsockopt(socket.IPPROTO_TCP, TCP_REPAIR)


def check(what, cond, extra=""):
    print(("ok " if cond else "bad ") + what + (" " + extra if extra else ""),
          flush=True)


def main():
    path, scenario = sys.argv[1], sys.argv[2]
    ls = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    ls.bind(path)
    ls.listen(1)
    ls.settimeout(20)
    conn, _ = ls.accept()
    if scenario == "good":
        p = pairs(4)
        send_cmd(conn, 1, [p[0][0]])
        check("echo on", echo(conn) == 1)
        check("repair on", mode(p[0][0]) == 1)
        send_cmd(conn, 0, [p[0][0]])
        check("echo off", echo(conn) == 0)
        check("repair off", mode(p[0][0]) == 0)
        batch = [p[i][0] for i in range(1, 4)]
        send_cmd(conn, 1, batch)
        check("echo batch", echo(conn) == 1)
        check("batch on", all(mode(s) == 1 for s in batch))
        send_cmd(conn, -1, batch)
        check("echo off_no_wp", echo(conn) == -1)
        check("batch off", all(mode(s) == 0 for s in batch))
        conn.close()
    elif scenario == "badcmd":
        p = pairs(1)
        send_cmd(conn, 5, [p[0][0]])
        check("no echo for 5", echo(conn) is None)
        check("untouched", mode(p[0][0]) == 0)
    elif scenario == "nofd":
        conn.sendall(b"\x01")
        check("no echo without sockets", echo(conn) is None)
    elif scenario == "udp":
        u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        send_cmd(conn, 1, [u])
        check("no echo for a UDP socket", echo(conn) is None)
    print("done", flush=True)


main()
