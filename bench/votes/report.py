"""bench/votes/report.py ROUNDS.jsonl OUT.json: bench/votes/run's table.

Per case and rate of votes, the medians of the rounds: req/s, the server's
CPU a request (its CPU over the requests wrk counted), wrk's p99, the
snapshots swapped in a second; then the open loop's p50 and p99 at its
fixed rates. Each voting figure also as a ratio to the quiet one: the
median of the rounds' ratios, each voting run to the quiet run of its
round (bench/votes/run runs them seconds apart), so that a guest whose
speed drifts between rounds moves no ratio. A
negative rate is the control: that many votes a second written into
another database, which the machine pays for and flagpole does not load.
An open-loop p99 under votes is also given as a ratio to the control's at
the same rates: the part of the tail that is flagpole's (its loads, their
queries, what the votes undo in its caches), with the machine's share for
the writer and PostgreSQL's commits divided out. A run that fell more than
2 % short of the fixed rate (the route saturated) is marked. Prints a
Markdown table and writes the medians and the table to OUT.json.
"""
import json
import statistics
import sys
from collections import defaultdict

rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
wrk = defaultdict(list)
opened = defaultdict(list)
votes = defaultdict(list)
for r in rows:
    if r["kind"] == "wrk":
        w = r["wrk"]
        secs = w["duration_us"] / 1e6
        wrk[(r["case"], r["rate"])].append({
            "round": r["round"],
            "rps": w["requests"] / secs,
            "cpu_us": 1e6 * r["cpu_s"] / max(w["requests"], 1),
            "p99_ms": w["latency_us"]["p99"] / 1000,
            "swaps": r["loads"] / r["wall_s"],
            # the other processes' share of the machine's CPUs: wrk, and
            # under votes PostgreSQL and the writer
            "others": (r.get("busy_s", 0) - r["cpu_s"]) / r["wall_s"] if "busy_s" in r else float("nan"),
            "non2xx": w["errors"]["status"],
        })
    elif r["kind"] == "open":
        v = r["vegeta"]
        opened[(r["case"], r.get("target", 0), r["rate"])].append({
            "round": r["round"],
            "p50_ms": v["latencies"]["50th"] / 1e6, "p99_ms": v["latencies"]["99th"] / 1e6,
            "rps": v["throughput"], "success": v["success"]})
    elif r["kind"] == "writer":
        if r["written"]["secs"] and r["written"]["votes"] is not None:
            votes[r["rate"]].append(r["written"]["votes"] / r["written"]["secs"])


def med(xs, k):
    return statistics.median(x[k] for x in xs)


def paired(xs, qs, k):
    """The median over the rounds of xs[k] / qs[k], each run of xs to the
    run of qs of its round; None without a round in both."""
    base = {q["round"]: q[k] for q in qs}
    rs = [x[k] / base[x["round"]] for x in xs if base.get(x["round"])]
    return statistics.median(rs) if rs else None


def label(rate):
    """A rate as the table shows it: a negative one is the control's."""
    return "%d elsewhere" % -rate if rate < 0 else "%d" % rate


cases = list(dict.fromkeys(c for c, _ in wrk))
rates = sorted({r for _, r in wrk}, key=lambda r: (r < 0, abs(r)))
out = {"wrk": {}, "open": {}, "writer_votes": votes}
lines = ["| case | votes/s | req/s | CPU a request | wrk p99 | swaps/s | other CPUs | req/s vs quiet | CPU vs quiet | p99 vs quiet |",
         "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
for c in cases:
    q = wrk.get((c, 0))
    for rate in rates:
        xs = wrk.get((c, rate))
        if not xs:
            continue
        m = {k: med(xs, k) for k in ("rps", "cpu_us", "p99_ms", "swaps", "others")}
        m["rounds"] = len(xs)
        out["wrk"]["%s@%d" % (c, rate)] = m
        ratio = ""
        if q and rate and paired(xs, q, "rps") is not None:
            m["vs_quiet"] = {k: paired(xs, q, k) for k in ("rps", "cpu_us", "p99_ms")}
            ratio = "| %.2f | %.2fx | %.2fx" % (m["vs_quiet"]["rps"], m["vs_quiet"]["cpu_us"], m["vs_quiet"]["p99_ms"])
        else:
            ratio = "| | |"
        lines.append("| `%s` | %s | %.0f | %.1f µs | %.2f ms | %.1f | %.2f %s |" % (c, label(rate), m["rps"], m["cpu_us"], m["p99_ms"], m["swaps"], m["others"], ratio))
if opened:
    lines += ["", "| case | votes/s | open-loop rate | p50 | p99 | p99 vs quiet | p99 vs control |", "|---|---:|---:|---:|---:|---:|---:|"]
    for c in cases:
        for (cc, target, rate), xs in sorted(opened.items(), key=lambda kv: (kv[0][1], kv[0][2] < 0, abs(kv[0][2]))):
            if cc != c:
                continue
            q = opened.get((c, target, 0))
            m = {k: med(xs, k) for k in ("p50_ms", "p99_ms", "rps", "success")}
            out["open"]["%s@%d@%d" % (c, target, rate)] = m
            vq = paired(xs, q, "p99_ms") if q and rate else None
            ratio = "%.2fx" % vq if vq is not None else ""
            ctl = opened.get((c, target, -rate)) if rate > 0 else None
            vc = paired(xs, ctl, "p99_ms") if ctl else None
            own = "%.2fx" % vc if vc is not None else ""
            m["p99_vs_quiet"], m["p99_vs_control"] = vq, vc
            short = " (saturated)" if target and m["rps"] < 0.98 * target else ""
            lines.append("| `%s` | %s | %.0f%s | %.2f ms | %.2f ms | %s | %s |" % (c, label(rate), m["rps"], short, m["p50_ms"], m["p99_ms"], ratio, own))
for rate, vs in sorted(votes.items()):
    if rate:
        lines.append("")
        lines.append("writer asked for %s votes/s, committed %s a second (each run)" % (label(rate), ", ".join("%.0f" % v for v in vs)))
table = "\n".join(lines)
print(table)
out["table"] = table
json.dump(out, open(sys.argv[2], "w"), indent=1)
