#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""test/bench/bench.py - Parse benchmark client outputs, write the report

  bench.py parse TOOL RAW_FILE EXIT_CODE
      One line, tab-separated: status value unit p99_us bytes count retrans
      stalls min_interval_frac note p50_us max_us client_cpu_s, from the
      output of iperf3 -J, sockperf ping-pong, wrk or flows.py run (for
      flows: value is the aggregate Gbit/s, p99_us/p50_us/max_us the
      flows' completion times, count the verified flows, retrans the client
      namespace's retransmitted segments, stalls the flows over 1 s;
      for iperf3u, iperf3 -u: value is the datagrams per second the
      receiver got, bytes its bytes, count its datagrams, retrans the
      datagrams lost; for udpq: value is replies per second, count the
      replies, retrans the queries never answered, stalls those refused,
      p50_us/p99_us/max_us the latencies).
      status is ok, n/a (the client could not connect: the implementation
      doesn't offer that path) or fail.
  bench.py report RESULTS_TSV META_TSV
      Markdown report on stdout: median [min-max] per scenario and
      implementation, ratios (median over repetitions of the per-repetition
      ratio) to the kernel and to Debian's pasta, daemon CPU and peak RSS,
      stalls, many flows, and the targets of issues 7 and 13 with PASS/MISS;
      live migration (MIG.N) from migrate.tsv beside RESULTS_TSV.
  bench.py smoke RESULTS_TSV
      Exit 0 if ours and the kernel produced numbers in every run, 1 if not.
"""

import json
import os
import re
import statistics
import sys

DAEMONS = ["ours", "base", "pasta", "upstream", "slirp4netns"]
KERNELS = ["veth", "loopback"]
IMPL_TITLE = {
    "ours": "ours",
    "base": "ours before (BASE_BIN)",
    "pasta": "Debian pasta",
    "upstream": "Debian 13 pasta",
    "slirp4netns": "slirp4netns",
    "veth": "kernel veth",
    "loopback": "kernel lo",
}
SCEN_TITLE = {
    "S1": "S1 ns->host (tap)",
    "S2": "S2 remote->ns (tap, -t)",
    "S2R": "S2R remote->ns, ns sends (-R)",
    "S3": "S3 host lo->ns (splice, -t)",
    "S3T": "S3T ns lo->host (splice, -T)",
    "S4.1": "S4.1 latency, S1 path",
    "S4.2": "S4.2 latency, S2 path",
    "S5": "S5 connections, S2 path",
    "S6": "S6 S2 with SO_PEEK_OFF / fallback",
    "M1.10": "M1.10 ns->host, 10 flows",
    "M1.100": "M1.100 ns->host, 100 flows",
    "M1.1000": "M1.1000 ns->host, 1000 flows",
    "M2.10": "M2.10 remote->ns, 10 flows",
    "M2.100": "M2.100 remote->ns, 100 flows",
    "M2.1000": "M2.1000 remote->ns, 1000 flows",
    "U1.1400": "U1.1400 ns->host, 1400-byte datagrams",
    "U1.8000": "U1.8000 ns->host, 8000-byte datagrams",
    "U2.1400": "U2.1400 remote->ns (-u), 1400-byte",
    "U2.8000": "U2.8000 remote->ns (-u), 8000-byte",
    "G1.1400": "G1.1400 ns->host, UDP_SEGMENT sender, 1400-byte",
    "G1.8000": "G1.8000 ns->host, UDP_SEGMENT sender, 8000-byte",
    "G2.1400": "G2.1400 remote->ns (-u), UDP_SEGMENT sender, 1400-byte",
    "G2.8000": "G2.8000 remote->ns (-u), UDP_SEGMENT sender, 8000-byte",
    "Q200": "Q200 ns->host, 200 DNS-like clients",
    "Q2000": "Q2000 ns->host, 2000 DNS-like clients",
}
UDP_BULK_TARGET = 0.8   # issue 31: ours/kernel on every bulk UDP row
UDP_CPU_1400_TARGET = 10.7 / 2  # issue 31: half of 10.7 s/GB at 1400 bytes
WAN_RE = re.compile(r"^W([DU])([0-9]+)L([0-9.]+)$")
for _d in (0, 10, 40):
    for _l in ("0", "0.1", "1"):
        for _k, _t in (("D", "download"), ("U", "upload")):
            SCEN_TITLE["W%s%dL%s" % (_k, _d, _l)] = "%s, %d ms one way, %s %% loss" % (_t, _d, _l)
MANY_RE = re.compile(r"^M[12]\.[0-9]+$")   # many flows, not MIG
MIG_RE = re.compile(r"^MIG\.([0-9]+)$")
for _n in (1, 100, 1000):
    SCEN_TITLE["MIG.%d" % _n] = "MIG.%d migration, %d connection%s" % (
        _n, _n, "" if _n == 1 else "s")
WAN_TARGET = 0.95  # issue 20: ours/kernel in every long-RTT cell
SLOW_FLOW_S = 1.0   # flows.py counts the flows slower than this (over_1s)
STALL_FRAC = 0.25  # an interval below this fraction of the median is a stall


def out(*fields):
    """Print one tab-separated line, '-' for None."""
    print("\t".join("-" if f is None else str(f) for f in fields))


def clean_note(s):
    """One line, no tabs, bounded length."""
    return re.sub(r"\s+", " ", s).strip()[:200]


def json_output(text, rc, unit):
    """The JSON object a client printed, or the row of a run that printed none.

    Returns (object, None), or (None, a "fail" row in UNIT naming why: the
    client's own words, and that it timed out when rc is timeout(1)'s 124).
    """
    start, end = text.find("{"), text.rfind("}")
    try:
        return json.loads(text[start:end + 1]), None
    except ValueError:
        reason = clean_note(text) or "no output"
        if rc == 124:
            reason = "client timed out: " + reason
        return None, ("fail", None, unit, None, None, None, None, None, None,
                      reason)


def parse_iperf3(text, rc):
    """Receiver throughput, bytes, sender retransmits, per-second stalls."""
    j, failed = json_output(text, rc, "Gbit/s")
    if failed:
        return failed
    err = j.get("error")
    if err:
        status = "n/a" if "unable to connect" in err or "refused" in err else "fail"
        return (status, None, "Gbit/s", None, None, None, None, None, None,
                clean_note("iperf3: " + err))
    recv = j["end"].get("sum_received", {})
    sent = j["end"].get("sum_sent", {})
    bps = recv.get("bits_per_second")
    nbytes = recv.get("bytes")
    if not bps:
        return ("fail", None, "Gbit/s", None, None, None, None, None, None,
                "no receiver summary")
    retr = sent.get("retransmits")
    ivals = [i["sum"]["bits_per_second"] for i in j.get("intervals", [])
             if i["sum"].get("seconds", 0) > 0.5]
    stalls = minfrac = None
    if len(ivals) >= 3:
        med = statistics.median(ivals)
        stalls = sum(1 for v in ivals if v < STALL_FRAC * med)
        minfrac = "%.2f" % (min(ivals) / med) if med else None
    return ("ok", "%.3f" % (bps / 1e9), "Gbit/s", None, nbytes, None, retr,
            stalls, minfrac, "")


def parse_iperf3u(text, rc):
    """iperf3 -u: datagrams per second the receiver got, their bytes, loss."""
    j, failed = json_output(text, rc, "dgram/s")
    if failed:
        return failed
    err = j.get("error")
    if err:
        status = "n/a" if "unable to connect" in err or "refused" in err else "fail"
        return (status, None, "dgram/s", None, None, None, None, None, None,
                clean_note("iperf3: " + err))
    recv = j["end"].get("sum_received") or j["end"].get("sum", {})
    sent, lost = recv.get("packets"), recv.get("lost_packets")
    secs = recv.get("seconds")
    if not sent or lost is None or not secs:
        return ("fail", None, "dgram/s", None, None, None, None, None, None,
                "no receiver summary")
    got = sent - lost
    if got <= 0:
        return ("fail", None, "dgram/s", None, recv.get("bytes"), 0, lost,
                None, None, "no datagram arrived")
    return ("ok", "%.0f" % (got / secs), "dgram/s", None, recv.get("bytes"),
            got, lost, None, None, "")


def parse_udpq(text, rc):
    """udpq run: replies per second, latency, unanswered and refused."""
    j, failed = json_output(text, rc, "replies/s")
    if failed:
        return failed
    us = lambda k: "%.0f" % (j[k] * 1e6) if j.get(k, -1) >= 0 else None
    note = []
    if j.get("bad"):
        note.append("%d answers with wrong bytes" % j["bad"])
    if j.get("errors"):
        note.append("%d socket errors" % j["errors"])
    status = "ok" if j.get("replies") and not j.get("bad") else "fail"
    return (status, "%.0f" % j.get("rate", 0), "replies/s", us("p99_s"),
            None, j.get("replies"), j.get("unanswered"), j.get("refused"),
            None, "; ".join(note), us("p50_s"), us("max_s"),
            j.get("client_cpu_s"))


def parse_udpgso(text, rc):
    """udpgso run: datagrams per second the GRO receiver counted, bytes, loss."""
    j, failed = json_output(text, rc, "dgram/s")
    if failed:
        return failed
    if not j.get("answered"):
        return ("fail", None, "dgram/s", None, None, None, None, None, None,
                "the receiver never answered")
    if not j.get("received"):
        return ("fail", None, "dgram/s", None, j.get("bytes"), 0,
                j.get("lost"), None, None, "no datagram arrived")
    note = "%d send errors" % j["errors"] if j.get("errors") else ""
    return ("ok", "%.0f" % j["rate"], "dgram/s", None, j.get("bytes"),
            j.get("received"), max(0, j.get("lost", 0)), None, None, note,
            None, None, j.get("client_cpu_s"))


def parse_sockperf(text, rc):
    """Average and p99 latency (half round trip, as sockperf reports)."""
    text = re.sub(r"\x1b\[[0-9;]*m", "", text)
    avg = re.search(r"avg-latency=([0-9.]+)", text)
    p99 = re.search(r"percentile 99\.000 =\s*([0-9.]+)", text)
    # the whole run's count, warm-up included, like the daemon's CPU time
    msgs = re.search(r"\[Total Run\].*ReceivedMessages=([0-9]+)", text)
    if avg and p99:
        return ("ok", avg.group(1), "us", p99.group(1), None,
                msgs.group(1) if msgs else None, None, None, None, "")
    lines = [l for l in text.splitlines() if "ERROR" in l or "rror" in l]
    reason = clean_note(" ".join(lines[-2:]) or text[-200:] or "no output")
    status = "n/a" if re.search(r"refused|connect", reason) else "fail"
    if rc == 124:
        status, reason = "fail", "client timed out: " + reason
    return (status, None, "us", None, None, None, None, None, None, reason)


def parse_wrk(text, rc):
    """Requests (= connections, with Connection: close) per second."""
    rate = re.search(r"Requests/sec:\s*([0-9.]+)", text)
    reqs = re.search(r"([0-9]+) requests in", text)
    errs = re.search(r"Socket errors:[^\n]*", text)
    non2xx = re.search(r"Non-2xx or 3xx responses: ([0-9]+)", text)
    note = "; ".join(m.group(0) for m in (errs, non2xx) if m)
    if rate and reqs and int(reqs.group(1)) > 0:
        return ("ok", rate.group(1), "conn/s", None, None, reqs.group(1),
                None, None, None, clean_note(note))
    reason = clean_note(note or text[-200:] or "no output")
    status = "n/a" if re.search(r"connect", text) else "fail"
    if rc == 124:
        status, reason = "fail", "client timed out: " + reason
    return (status, None, "conn/s", None, None, None, None, None, None, reason)


def parse_flows(text, rc):
    """Aggregate Gbit/s and completion times of flows.py run"""
    j, failed = json_output(text, rc, "Gbit/s")
    if failed:
        return failed
    errs = j.get("errors") or []
    us = lambda k: "%.0f" % (j[k] * 1e6) if j.get(k) is not None else None
    gbps = "%.3f" % j["gbps"] if j.get("gbps") else None
    vals = (gbps, "Gbit/s", us("p99_s"), j.get("ok", 0) * j.get("size", 0),
            j.get("ok"), j.get("RetransSegs"), j.get("over_1s"), None)
    extra = (us("p50_s"), us("max_s"), j.get("client_cpu_s"))
    if j.get("failed") or not j.get("ok"):
        refused = all("refused" in e for e in errs) and not j.get("ok")
        note = "%d of %d flows failed: %s" % (j.get("failed", 0), j.get("flows", 0),
                                             "; ".join(errs[:3]))
        return ("n/a" if refused else "fail",) + vals + (clean_note(note),) + extra
    note = ""
    if j.get("TCPSynRetrans"):
        note = "client SYN retransmissions %d" % j["TCPSynRetrans"]
    return ("ok",) + vals + (note,) + extra


def cmd_parse(tool, path, rc):
    try:
        with open(path, errors="replace") as f:
            text = f.read()
    except OSError as e:
        text = ""
    parser = {"iperf3": parse_iperf3, "sockperf": parse_sockperf,
              "wrk": parse_wrk, "flows": parse_flows,
              "iperf3u": parse_iperf3u, "udpq": parse_udpq,
              "udpgso": parse_udpgso}[tool]
    r = tuple(parser(text, int(rc)))
    out(*(r + (None,) * (13 - len(r))))


def read_tsv(path):
    with open(path) as f:
        lines = f.read().splitlines()
    head = lines[0].split("\t")
    return [dict(zip(head, l.split("\t"))) for l in lines[1:] if l]


def num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def fmt(v):
    """Three significant digits, at most."""
    if v is None:
        return "-"
    if abs(v) >= 100:
        return "%.0f" % v
    if abs(v) >= 10:
        return "%.1f" % v
    return "%.2f" % v


def spread(vals):
    """'median [min-max]' or the one value."""
    if not vals:
        return None
    if len(vals) == 1:
        return fmt(vals[0])
    return "%s [%s-%s]" % (fmt(statistics.median(vals)), fmt(min(vals)),
                           fmt(max(vals)))


class Results:
    """Runs indexed by (scenario, impl, variant) -> {rep: row}."""

    def __init__(self, rows):
        self.rows = rows
        self.by = {}
        for r in rows:
            m = re.match(r"^[UG][12]\.([0-9]+)$", r.get("scenario", ""))
            if m and r["status"] == "ok":
                # derived: received Gbit/s, loss as a percentage
                got, lost = num(r.get("count")), num(r.get("retrans"))
                r["gbps"] = "%.4f" % (num(r["value"]) * int(m.group(1)) * 8 / 1e9)
                if got is not None and lost is not None and got + lost > 0:
                    r["loss_pct"] = "%.3f" % (100.0 * lost / (got + lost))
            self.by.setdefault((r["scenario"], r["impl"], r["variant"]),
                               {})[r["rep"]] = r

    def runs(self, scen, impl, variant=""):
        return self.by.get((scen, impl, variant), {})

    def values(self, scen, impl, field="value", variant=""):
        return [num(r.get(field)) for r in self.runs(scen, impl, variant).values()
                if r["status"] == "ok" and num(r.get(field)) is not None]

    def ratio(self, scen, a, b, field="value", va="", vb=""):
        """Per-repetition ratios a/b where both ran: median, min, max."""
        ra, rb = self.runs(scen, a, va), self.runs(scen, b, vb)
        rs = []
        for rep, x in ra.items():
            y = rb.get(rep)
            if not y or x["status"] != "ok" or y["status"] != "ok":
                continue
            xv, yv = num(x.get(field)), num(y.get(field))
            if xv is not None and yv:
                rs.append(xv / yv)
        return rs

    def cell(self, scen, impl, field="value", variant="", scale=1):
        runs = self.runs(scen, impl, variant)
        if not runs:
            return None
        vals = self.values(scen, impl, field, variant)
        if vals:
            return spread([v / scale for v in vals])
        states = {r["status"] for r in runs.values()}
        return "fail" if "fail" in states else "n/a"


def kernel_ref(scen):
    """The kernel column a scenario's targets compare with."""
    return "loopback" if scen.startswith("S3") else "veth"


def cmd_report(tsv, meta_path):
    res = Results(read_tsv(tsv))
    meta = {}
    with open(meta_path) as f:
        for line in f.read().splitlines():
            k, _, v = line.partition("\t")
            meta[k] = v
    scens = [s for s in meta.get("scenarios", "").split(",") if s]
    impls = [i for i in meta.get("impls", "").split(",") if i]
    o = []
    o.append("# Benchmark: ours vs Debian's pasta, slirp4netns and the kernel")
    o.append("")
    o.append("%s; kernel %s; %s CPUs (%s); %s repetition(s) x %s s, "
             "implementations interleaved." % (
                 meta.get("date"), meta.get("kernel"), meta.get("cpus"),
                 meta.get("cpu_model"), meta.get("reps"),
                 meta.get("duration_s")))
    if meta.get("note"):
        o.append("")
        o.append("Note: " + meta["note"])
    o.append("")
    mtus = ", ".join("%s %s" % (IMPL_TITLE.get(k[4:], k[4:]), v)
                     for k, v in meta.items()
                     if k.startswith("mtu_") and
                     k[4:] not in ("veth", "lo", "veth_udp"))
    o.append("MTUs: R-H veth %s%s, loopback %s%s." % (
        meta.get("mtu_veth"),
        (" (%s for the UDP scenarios)" % meta["mtu_veth_udp"])
        if meta.get("mtu_veth_udp") else "", meta.get("mtu_lo"),
        ("; namespace side: " + mtus) if mtus else ""))
    if meta.get("ours_opts") or meta.get("base_opts"):
        o.append("Extra options: ours '%s'%s." % (
            meta.get("ours_opts", ""),
            ("; ours before (BASE_BIN) '%s'" % meta.get("base_opts", ""))
            if "base" in impls else ""))
    o.append("Versions: ours %s; Debian %s; Debian 13 %s; %s; iperf3 %s, "
             "sockperf %s, wrk %s." % (meta.get("ours_version"),
                          meta.get("pasta_version"),
                          meta.get("upstream_version"),
                          meta.get("slirp4netns_version"),
                          meta.get("iperf3_version"),
                          meta.get("sockperf_version"),
                          meta.get("wrk_version")))
    o.append("")
    o.append("Cells: median [min-max] over repetitions. Ratios: median of the "
             "per-repetition ratios of ours to the kernel (veth; loopback "
             "for S3/S3T) and to Debian's pasta, same repetition.")
    o.append("")

    cols = [i for i in impls]
    has_pasta = "pasta" in impls
    has_base = "base" in impls
    has_up = "upstream" in impls

    def table(title, unit, scen_list, field="value", note="", scale=1):
        if not scen_list:
            return
        o.append("## %s (%s)" % (title, unit))
        o.append("")
        if note:
            o.append(note)
            o.append("")
        hdr = ["Scenario"] + [IMPL_TITLE[i] for i in cols]
        hdr += ["ours/kernel"]
        hdr += ["before/kernel", "ours/before"] if has_base else []
        hdr += ["ours/pasta"] if has_pasta else []
        hdr += ["upstream/kernel", "ours/upstream"] if has_up else []
        o.append("| " + " | ".join(hdr) + " |")
        o.append("|" + "---|" * len(hdr))
        for s in scen_list:
            line = [SCEN_TITLE.get(s, s)]
            line += [res.cell(s, i, field, scale=scale) or "-" for i in cols]
            line.append(spread(res.ratio(s, "ours", kernel_ref(s), field)) or "-")
            if has_base:
                line.append(spread(res.ratio(s, "base", kernel_ref(s), field)) or "-")
                line.append(spread(res.ratio(s, "ours", "base", field)) or "-")
            if has_pasta:
                line.append(spread(res.ratio(s, "ours", "pasta", field)) or "-")
            if has_up:
                line.append(spread(res.ratio(s, "upstream", kernel_ref(s), field)) or "-")
                line.append(spread(res.ratio(s, "ours", "upstream", field)) or "-")
            o.append("| " + " | ".join(line) + " |")
        o.append("")

    bulk = [s for s in scens if s in ("S1", "S2", "S2R", "S3", "S3T")]
    lat = [s for s in scens if s.startswith("S4")]
    table("Throughput", "Gbit/s, iperf3 receiver", bulk)
    table("Latency, average", "us, sockperf half round trip", lat)
    table("Latency, p99", "us", lat, "p99_us")
    table("Connection rate", "connections/s, wrk, Connection: close",
          [s for s in scens if s == "S5"])

    udp(o, res, scens, cols, table)

    wan = [s for s in scens if WAN_RE.match(s)]
    if wan:
        o.append("## Long-RTT paths (Gbit/s, iperf3 receiver)")
        o.append("")
        o.append("Through the delay line (test/bench/delayline.c in a router "
                 "namespace between R and H, MTU %s, no GSO): the namespace "
                 "downloads from (iperf3 -R) or uploads to a server in R; the "
                 "kernel column is H itself as the client over the same "
                 "line. Retr: segments the sender retransmitted (median; "
                 "for downloads the remote sender)." % meta.get("mtu_wan", "?")
                 + (" Bottleneck in the delay line: %s Mbit/s, buffer %s ms "
                    "(WAN_RATE, WAN_QUEUE_MS)." % (meta["rate_wan"],
                                                  meta.get("queue_wan", "?"))
                    if meta.get("rate_wan") else ""))
        o.append("")
        hdr = ["Cell"] + [IMPL_TITLE[i] for i in cols if i != "slirp4netns" and i != "loopback"]
        hdr += ["ours/kernel"] + (["pasta/kernel", "ours/pasta"] if has_pasta else [])
        hdr += ["before/kernel"] if has_base else []
        hdr += ["upstream/kernel"] if has_up else []
        hdr += ["retr " + IMPL_TITLE[i] for i in cols if i in ("ours", "base", "pasta", "upstream", "veth")]
        o.append("| " + " | ".join(hdr) + " |")
        o.append("|" + "---|" * len(hdr))
        for s in wan:
            line = [SCEN_TITLE.get(s, s)]
            line += [res.cell(s, i) or "-" for i in cols
                     if i != "slirp4netns" and i != "loopback"]
            line.append(spread(res.ratio(s, "ours", "veth")) or "-")
            if has_pasta:
                line.append(spread(res.ratio(s, "pasta", "veth")) or "-")
                line.append(spread(res.ratio(s, "ours", "pasta")) or "-")
            if has_base:
                line.append(spread(res.ratio(s, "base", "veth")) or "-")
            if has_up:
                line.append(spread(res.ratio(s, "upstream", "veth")) or "-")
            for i in cols:
                if i in ("ours", "base", "pasta", "upstream", "veth"):
                    rt = res.values(s, i, "retrans")
                    line.append("%.0f" % statistics.median(rt) if rt else "-")
            o.append("| " + " | ".join(line) + " |")
        o.append("")

    many = [s for s in scens if MANY_RE.match(s)]
    if many:
        size = num(meta.get("flow_size"))
        o.append("## Many flows")
        o.append("")
        o.append("N connections started at once, each sending %s, through "
                 "the tap (M1: namespace -> gateway -> host loopback; M2: "
                 "remote -> forwarded port -> namespace; kernel veth: remote "
                 "-> host). A flow's completion time runs from its connect() "
                 "to the server's answer that all its bytes arrived, each "
                 "one compared with the expected stream. Aggregate: N x size "
                 "/ time from the first connect() to the last answer. A run "
                 "where any flow failed is 'fail'." % (
                     "%.0f KiB" % (size / 1024) if size and size < 1 << 20
                     else "%.0f MiB" % (size / (1 << 20)) if size else "?"))
        o.append("")
        table("Many flows, aggregate throughput", "Gbit/s", many)
        table("Many flows, completion time p99", "ms", many, "p99_us",
              scale=1000)
        table("Many flows, completion time max", "ms", many, "max_us",
              scale=1000)
        table("Many flows, completion time p50", "ms", many, "p50_us",
              scale=1000)
        o.append("### Many flows: slow flows, retransmissions, client CPU")
        o.append("")
        o.append("Flows over %.0f s (summed over repetitions), segments the "
                 "client's namespace retransmitted (median), CPU seconds of "
                 "the client (median; one thread: near the run's wall time "
                 "would mean the client is the bottleneck)." % SLOW_FLOW_S)
        o.append("")
        hdr = ["Scenario"] + [IMPL_TITLE[i] for i in cols]
        o.append("| " + " | ".join(hdr) + " |")
        o.append("|" + "---|" * len(hdr))
        for s in many:
            line = [SCEN_TITLE.get(s, s)]
            for i in cols:
                if not res.values(s, i):
                    line.append(res.cell(s, i) or "-")
                    continue
                slow = res.values(s, i, "stalls")
                rt = res.values(s, i, "retrans")
                cc = res.values(s, i, "client_cpu_s")
                line.append("%s > %.0f s, retr %s, client %s s" % (
                    int(sum(slow)) if slow else "-", SLOW_FLOW_S,
                    "%.0f" % statistics.median(rt) if rt else "-",
                    fmt(statistics.median(cc)) if cc else "-"))
            o.append("| " + " | ".join(line) + " |")
        o.append("")

    if "S6" in scens:
        o.append("## S6: S2 with SO_PEEK_OFF and with the forced fallback "
                 "(ours, Gbit/s)")
        o.append("")
        o.append("| SO_PEEK_OFF | --no-peek-offset | ratio peek/fallback |")
        o.append("|---|---|---|")
        o.append("| %s | %s | %s |" % (
            res.cell("S6", "ours", variant="peek") or "-",
            res.cell("S6", "ours", variant="fallback") or "-",
            spread(res.ratio("S6", "ours", "ours", va="peek",
                             vb="fallback")) or "-"))
        o.append("")

    daemons = [d for d in DAEMONS if d in impls]
    if daemons and [s for s in scens if not MIG_RE.match(s)]:
        o.append("## Daemon cost")
        o.append("")
        o.append("CPU: utime+stime of the daemon during the client's run, "
                 "per GB received (bulk), per 1,000 connections (S5) or per "
                 "million round trips (S4). Peak RSS: VmHWM in MiB at the end "
                 "of the run.")
        o.append("")
        hdr = ["Scenario"] + ["%s CPU" % IMPL_TITLE[d] for d in daemons] + \
              ["%s RSS" % IMPL_TITLE[d] for d in daemons]
        o.append("| " + " | ".join(hdr) + " |")
        o.append("|" + "---|" * len(hdr))
        for s in [s for s in scens if not MIG_RE.match(s)]:
            units = {"S5": "s/1k conn"}.get(s, "s/M rt" if s.startswith("S4")
                                            else "s/M replies" if s.startswith("Q")
                                            else "s/GB")
            line = [SCEN_TITLE.get(s, s) + " (" + units + ")"]
            variants = ["peek", "fallback"] if s == "S6" else [""]
            for field, scale in (("cpu_per_unit", 1), ("rss_kib", 1024)):
                for d in daemons:
                    cells = [spread([x / scale for x in
                                     res.values(s, d, field, v)]) or "-"
                             for v in variants if res.runs(s, d, v)]
                    line.append(" / ".join(cells) or "-")
            o.append("| " + " | ".join(line) + " |")
        o.append("")

    stall_scens = [s for s in bulk + (["S6"] if "S6" in scens else [])]
    if stall_scens:
        o.append("## Stalls")
        o.append("")
        o.append("Per-second iperf3 intervals below %d%% of the run's median "
                 "(summed over repetitions; '-' for runs shorter than 3 s), "
                 "lowest interval as a fraction of the median, the "
                 "sender's retransmissions (median) and, for daemons, frames "
                 "the namespace's tap dropped because its queue to the "
                 "daemon was full (summed)." % (STALL_FRAC * 100))
        o.append("")
        hdr = ["Scenario"] + [IMPL_TITLE[i] for i in cols]
        o.append("| " + " | ".join(hdr) + " |")
        o.append("|" + "---|" * len(hdr))
        for s in stall_scens:
            line = [SCEN_TITLE.get(s, s)]
            for i in cols:
                v = "peek" if s == "S6" and i == "ours" else ""
                st = res.values(s, i, "stalls", v)
                dr = res.values(s, i, "tap_drops", v)
                mf = res.values(s, i, "min_interval_frac", v)
                rt = res.values(s, i, "retrans", v)
                if not res.values(s, i, variant=v):
                    line.append(res.cell(s, i, variant=v) or "-")
                    continue
                line.append("%s stalls, min %s, retr %s%s" % (
                    int(sum(st)) if st else "-",
                    fmt(min(mf)) if mf else "-",
                    "%.0f" % statistics.median(rt) if rt else "-",
                    ", tap drops %d" % sum(dr) if dr else ""))
            o.append("| " + " | ".join(line) + " |")
        o.append("")

    migration(o, os.path.join(os.path.dirname(tsv), "migrate.tsv"), scens,
              meta)

    targets(o, res, scens, impls)

    notes = []
    for r in res.rows:
        if r["status"] != "ok" or r["note"] not in ("", "-"):
            key = (r["scenario"], r["impl"], r["variant"], r["status"],
                   r["note"])
            if key not in notes:
                notes.append(key)
    if notes:
        o.append("## Notes on runs")
        o.append("")
        for s, i, v, st, n in notes:
            o.append("- %s %s%s: %s%s" % (s, i, (" " + v) if v else "", st,
                                          (" - " + n) if n not in ("", "-")
                                          else ""))
        o.append("")
    print("\n".join(o))


def migration(o, path, scens, meta):
    """Live migration table (MIG.N) from migrate.tsv, if there is one."""
    mig = [s for s in scens if MIG_RE.match(s)]
    if not mig or not os.path.exists(path):
        return
    rows = read_tsv(path)
    pairs = []
    for r in rows:
        if r["pair"] not in pairs:
            pairs.append(r["pair"])
    o.append("## Live migration (ms)")
    o.append("")
    o.append("A QEMU 10 guest (TCG, %s) on passt --vhost-user holding N "
             "idle TCP connections (half inbound through -t, half outbound "
             "through the gateway; each echoes a probe before and after) "
             "moves to a second QEMU and passt on the same host, each passt "
             "with its own passt-repair (test/bench/migrate.sh). Total, "
             "downtime, setup: QMP query-migrate on the source (its downtime "
             "ends when the source has sent everything). Paused: from the "
             "source's STOP event to the destination's RESUME (QMP event "
             "timestamps), the destination's loading included. RAM sent "
             "stopped: QEMU's downtime-bytes, the guest's pages dirtied "
             "since the last pass, which the downtime mostly is. passt: "
             "from QEMU's SET_DEVICE_STATE_FD to the end of the device "
             "state stream in its debug log, source / destination (the "
             "destination's includes waiting for QEMU to pass the stream "
             "on). Intact: connections that echoed after the move, of all "
             "runs. Upstream: %s." % (meta.get("mig_qemu", "?"),
                                     meta.get("mig_upstream", "?")))
    o.append("")
    hdr = ["Connections", "source -> destination", "total", "downtime",
           "paused", "RAM sent stopped (MiB)", "setup", "passt source",
           "passt destination", "intact", "runs"]
    o.append("| " + " | ".join(hdr) + " |")
    o.append("|" + "---|" * len(hdr))
    for s in mig:
        for p in pairs:
            runs = [r for r in rows if r["scenario"] == s and r["pair"] == p]
            if not runs:
                continue
            ok = [r for r in runs if r["status"] == "ok"]

            def cell(k, scale=1):
                v = [num(r.get(k)) / scale for r in ok
                     if num(r.get(k)) is not None]
                return spread(v) or "-"
            alive = sum(int(num(r["survived"]) or 0) for r in runs
                        if num(r.get("survived")) is not None)
            tried = sum(int(num(r["conns"]) or 0) for r in runs
                        if r["status"] != "n/a")
            st = {r["status"] for r in runs}
            line = [MIG_RE.match(s).group(1), p.replace("-", " -> "),
                    cell("total_ms"), cell("downtime_ms"), cell("paused_ms"),
                    cell("downtime_kib", 1024), cell("setup_ms"),
                    cell("passt_src_ms"), cell("passt_dst_ms"),
                    "%d of %d" % (alive, tried) if tried else "-",
                    "%d ok%s" % (len(ok), "".join(
                        ", %d %s" % (sum(1 for r in runs if r["status"] == x),
                                     x) for x in sorted(st - {"ok"})))]
            o.append("| " + " | ".join(line) + " |")
    o.append("")


def udp(o, res, scens, cols, table):
    """UDP bulk (U) and DNS-like (Q) tables."""
    bulk = [s for s in scens if s.startswith("U")]
    gso = [s for s in scens if s.startswith("G")]
    dns = [s for s in scens if s.startswith("Q")]
    if gso:
        o.append("## UDP with segmentation offload")
        o.append("")
        o.append("test/bench/udpgso.c: one flow, the sender writes as many "
                 "datagrams of the size in the name as fit in 64 KiB (at "
                 "most 64) per send() with UDP_SEGMENT, the receiver reads "
                 "with UDP_GRO and counts datagrams; G1 namespace -> "
                 "gateway -> host loopback, G2 remote -> forwarded -u port "
                 "-> namespace; kernel veth: remote -> host.")
        o.append("")
        table("UDP GSO, datagrams received", "per second", gso)
        table("UDP GSO, received throughput", "Gbit/s", gso, "gbps")
        table("UDP GSO, lost", "% of datagrams sent", gso, "loss_pct")
    if bulk:
        o.append("## UDP bulk")
        o.append("")
        o.append("One flow of iperf3 -u -b 0 (as fast as the sender can), "
                 "-w 4M, datagrams of the size in the name; U1 namespace -> "
                 "gateway -> host loopback, U2 remote -> forwarded -u port "
                 "-> namespace; kernel veth: remote -> host. Received: what "
                 "iperf3's server counted; lost: sent but never received "
                 "(anywhere: the daemon, a full socket buffer, the tap).")
        o.append("")
        table("UDP bulk, datagrams received", "per second", bulk)
        table("UDP bulk, received throughput", "Gbit/s", bulk, "gbps")
        table("UDP bulk, lost", "% of datagrams sent", bulk, "loss_pct")
    if dns:
        o.append("## DNS-like clients")
        o.append("")
        o.append("test/bench/udpq.c: N clients, each with one 32-byte query "
                 "in flight from a new socket (a new source port: a new "
                 "flow) to an echo server, namespace -> gateway -> host "
                 "loopback (kernel veth: remote -> host). Unanswered: no "
                 "answer within 1 s; refused: ICMP port unreachable.")
        o.append("")
        table("DNS-like, replies", "per second", dns)
        table("DNS-like, latency p99", "us", dns, "p99_us")
        hdr = ["Scenario"] + [IMPL_TITLE[i] for i in cols]
        o.append("### DNS-like: unanswered / refused queries (summed over "
                 "repetitions)")
        o.append("")
        o.append("| " + " | ".join(hdr) + " |")
        o.append("|" + "---|" * len(hdr))
        for s in dns:
            line = [SCEN_TITLE.get(s, s)]
            for i in cols:
                if not res.runs(s, i):
                    line.append("-")
                    continue
                un = res.values(s, i, "retrans")
                rf = res.values(s, i, "stalls")
                line.append("%d / %d" % (sum(un), sum(rf)) if un or rf
                            else res.cell(s, i) or "-")
            o.append("| " + " | ".join(line) + " |")
        o.append("")


def targets(o, res, scens, impls):
    """The figures issue 7 sets, with the measured value and PASS/MISS."""
    rows = []
    issue = ["7"]

    def med(v):
        return statistics.median(v) if v else None

    def add(name, got, ok, want):
        if got is None or got == "-":
            rows.append((issue[0], name, want, "-", "n/a"))
        else:
            rows.append((issue[0], name, want, got, "PASS" if ok else "MISS"))

    if "ours" not in impls:
        return
    for s in ("S1", "S2R"):
        if s in scens and "veth" in impls:
            r = med(res.ratio(s, "ours", "veth"))
            add("%s ours/kernel veth" % s, fmt(r), r is not None and r >= 0.7,
                ">= 0.7")
            st = res.values(s, "ours", "stalls")
            add("%s stalls (intervals < 25%% of median)" % s,
                str(int(sum(st))) if st else None, st and sum(st) == 0, "0")
    if "S2" in scens and "veth" in impls:
        r = med(res.ratio("S2", "ours", "veth"))
        add("S2 ours/kernel veth", fmt(r), r is not None and r >= 1.0, ">= 1.0")
    for s in ("S3", "S3T"):
        if s in scens and "loopback" in impls:
            r = med(res.ratio(s, "ours", "loopback"))
            add("%s ours/kernel lo" % s, fmt(r), r is not None and r >= 0.8,
                ">= 0.8")
    if "pasta" in impls:
        if "S5" in scens:
            r = med(res.ratio("S5", "ours", "pasta"))
            add("S5 ours/Debian pasta", fmt(r), r is not None and r >= 1.5,
                ">= 1.5")
        for s in ("S4.1", "S4.2"):
            if s not in scens:
                continue
            for f, what in (("value", "average"), ("p99_us", "p99")):
                r = med(res.ratio(s, "ours", "pasta", f))
                add("%s %s latency ours/Debian pasta" % (s, what), fmt(r),
                    r is not None and r <= 1.0, "<= 1.0")
    if "S2" in scens:
        c = med(res.values("S2", "ours", "cpu_per_unit"))
        add("S2 daemon CPU per GB (s)", fmt(c), c is not None and c <= 0.4,
            "<= 0.4")
    rss = [v for s in scens for var in ("", "peek", "fallback")
           for v in res.values(s, "ours", "rss_kib", var)]
    if rss:
        m = max(rss) / 1024
        add("peak RSS, all runs (MiB)", fmt(m), m <= 16, "<= 16")
    issue[0] = "20"
    for s in ("S1", "S2", "S2R", "S3", "S3T", "S5"):
        ref = kernel_ref(s) if s != "S5" else "veth"
        if s in scens and ref in impls:
            r = med(res.ratio(s, "ours", ref))
            add("%s ours/kernel" % s, fmt(r), r is not None and r >= 0.8,
                ">= 0.8")
    for s in ("S4.1", "S4.2"):
        if s in scens and "veth" in impls:
            r = med(res.ratio(s, "ours", "veth"))
            add("%s average latency ours/kernel" % s, fmt(r),
                r is not None and r <= 1.5, "<= 1.5")
    if "S3" in scens and "upstream" in impls:
        r = med(res.ratio("S3", "ours", "upstream"))
        add("S3 ours/Debian 13 pasta", fmt(r), r is not None and r >= 1.0,
            ">= 1.0")
    if "S2" in scens:
        c = med(res.values("S2", "ours", "cpu_per_unit"))
        add("S2 daemon CPU per GB (s)", fmt(c), c is not None and c <= 0.2,
            "<= 0.2")
    if rss:
        add("peak RSS, all runs (MiB)", fmt(m), m <= 8, "<= 8")
    for s in [s for s in scens if WAN_RE.match(s)]:
        if "veth" in impls:
            r = med(res.ratio(s, "ours", "veth"))
            add("%s ours/kernel" % s, fmt(r), r is not None and r >= WAN_TARGET,
                ">= %.2f" % WAN_TARGET)
    issue[0] = "31"
    for s in [s for s in scens if s.startswith("U")]:
        if "veth" in impls:
            r = med(res.ratio(s, "ours", "veth"))
            add("%s received datagrams ours/kernel" % s, fmt(r),
                r is not None and r >= UDP_BULK_TARGET,
                ">= %.1f" % UDP_BULK_TARGET)
    for s in ("U1.1400", "U2.1400"):
        if s in scens:
            c = med(res.values(s, "ours", "cpu_per_unit"))
            add("%s daemon CPU per GB (s)" % s, fmt(c),
                c is not None and c <= UDP_CPU_1400_TARGET,
                "<= %.2f" % UDP_CPU_1400_TARGET)
    for s in [s for s in scens if s.startswith("Q")]:
        if "veth" in impls:
            r = med(res.ratio(s, "ours", "veth"))
            add("%s replies/s ours/kernel" % s, fmt(r),
                r is not None and r >= 0.8, ">= 0.8")
        un = res.values(s, "ours", "retrans") + res.values(s, "ours", "stalls")
        if res.runs(s, "ours"):
            add("%s queries unanswered or refused, ours" % s,
                "%d" % sum(un) if un else None, un and sum(un) == 0, "0")
    issue[0] = "13"
    for s in [s for s in scens if MANY_RE.match(s)]:
        runs = res.runs(s, "ours")
        if not runs:
            continue
        bad = sum(1 for r in runs.values() if r["status"] != "ok")
        add("%s runs with a flow failed or unverified, ours" % s,
            "%d of %d" % (bad, len(runs)), bad == 0, "0")
        if "veth" in impls:
            r = med(res.ratio(s, "ours", "veth", "p99_us"))
            add("%s p99 completion ours/kernel veth" % s, fmt(r),
                r is not None and r <= 2.0, "<= 2.0")
        if s.endswith(".100"):
            mx = res.values(s, "ours", "max_us")
            m = max(mx) / 1e6 if mx else None
            add("%s slowest flow, ours, all repetitions (s)" % s,
                "%.3f" % m if m is not None else None,
                m is not None and m <= 1.0, "<= 1.0")
    if not rows:
        return
    o.append("## Targets")
    o.append("")
    o.append("| Issue | Figure | Target | Measured (median) | |")
    o.append("|---|---|---|---|---|")
    for r in rows:
        o.append("| %s | %s | %s | %s | %s |" % r)
    o.append("")


def cmd_smoke(tsv):
    """The suite works if ours and the kernel gave numbers in every run."""
    rows = read_tsv(tsv)
    bad = [r for r in rows if r["impl"] in ["ours"] + KERNELS and
           (r["status"] != "ok" or num(r["value"]) is None)]
    others = [r for r in rows if r["impl"] not in ["ours"] + KERNELS and
              r["status"] == "fail"]
    for r in others:
        print("bench smoke: warning: %s %s failed: %s" % (
            r["scenario"], r["impl"], r["note"]))
    for r in bad:
        print("bench smoke: %s %s gave no number (%s): %s" % (
            r["scenario"], r["impl"], r["status"], r["note"]))
    ok = [r for r in rows if r["status"] == "ok"]
    failed = len(bad) + (0 if ok else 1)
    print("bench-smoke: %d passed, %d failed, %d skipped" % (
        len(ok), failed, len(rows) - len(ok) - len(bad)))
    return 1 if failed else 0


def main(argv):
    if len(argv) == 5 and argv[1] == "parse":
        cmd_parse(argv[2], argv[3], argv[4])
        return 0
    if len(argv) == 4 and argv[1] == "report":
        cmd_report(argv[2], argv[3])
        return 0
    if len(argv) == 3 and argv[1] == "smoke":
        return cmd_smoke(argv[2])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
