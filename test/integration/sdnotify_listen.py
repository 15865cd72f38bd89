#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""sdnotify_listen.py - Stand-in for systemd's notification socket

  sdnotify_listen.py ADDR [CHECK...]

Binds an AF_UNIX datagram socket at ADDR (a path, or "@name" for the
abstract namespace, as NOTIFY_SOCKET spells it in sd_notify(3)), with
SO_PASSCRED so that every datagram comes with the sender's credentials
(SCM_CREDENTIALS, unix(7)), as systemd's socket does.  Prints "listening",
then for each datagram one line:

  msg PID VAR=VALUE|VAR=VALUE...

PID being the sender's, from the credentials.  When a datagram holds
READY=1 and CHECK is given, CHECK runs at once (before the next datagram is
read) and "check RC" follows: the caller learns whether what READY=1
promises was already true when it arrived.  Runs until killed, or 60 s.
"""
import os
import socket
import struct
import subprocess
import sys
import time


def main():
    addr = sys.argv[1]
    check = sys.argv[2:]
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
    s.bind("\0" + addr[1:] if addr.startswith("@") else addr)
    print("listening", flush=True)
    end = time.monotonic() + 60
    ucred = struct.calcsize("3i")
    while time.monotonic() < end:
        s.settimeout(max(end - time.monotonic(), 0.1))
        try:
            data, anc, _, _ = s.recvmsg(4096, socket.CMSG_SPACE(ucred))
        except socket.timeout:
            break
        pid = -1
        for level, typ, cdata in anc:
            if level == socket.SOL_SOCKET and typ == socket.SCM_CREDENTIALS:
                pid = struct.unpack("3i", cdata[:ucred])[0]
        text = data.decode(errors="replace")
        lines = [x for x in text.split("\n") if x]
        print("msg %d %s" % (pid, "|".join(lines)), flush=True)
        if "READY=1" in lines and check:
            rc = subprocess.call(check, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL)
            print("check %d" % rc, flush=True)
    os._exit(0)


if __name__ == "__main__":
    main()
