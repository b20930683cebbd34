#!/usr/bin/env python3
"""Live checks of FabricPulse's metrics against a running Prometheus.

Helper of tests/deploy/check_live_metrics.sh (which starts the cluster and
Prometheus and holds the list of expected-empty queries). Subcommands:

  wait URL QUERY [--min V] [--timeout S]
      Poll URL/api/v1/query until QUERY returns a sample (>= V if given).
  empty URL QUERY...
      Fail unless each QUERY returns no sample now (the caller has waited
      for a scrape and rule evaluation of the state it means).
  queries URL --expect FILE --values k=v,... --dashboards ... --rules ...
          [--only KEY,... | --only-listed] [--show N]
      Evaluate every dashboard query (observability_lint's extraction, the
      variables replaced by real values) and every recording/alert rule
      expression (or only the queries named, or only those FILE lists), and
      compare with the expectations in FILE. A dashboard query's KEY is
      observability_lint's record name (<uid>:panel_<id>_<refId>,
      <uid>:var_<name>) or, for a panel, <uid> "<panel title>" <refId>
      (stable when panels are added). --show N prints the first N series
      of each dashboard query's result (labels and value).
  expr DASHBOARD TITLE [REFID] --values k=v,...
      Print the query of that panel (target REFID, default A), variables
      replaced, for a check of its values (e.g. `live empty URL "(EXPR) == 0"`).
  series --before A --after B [--allow-plan P] [--allow-ops ...]
      Compare two /metrics snapshots of one daemon: no fabricpulse_* series
      may disappear, and every new one must be one the caller allows.
"""

import argparse
import contextlib
import io
import json
import os
import re
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import observability_lint as lint  # noqa: E402  (reused, not duplicated)
import yaml  # noqa: E402  (observability_lint has checked it is installed)


# --------------------------------------------------------------------------
# Prometheus HTTP API


class QueryError(Exception):
    pass


def prom_get(url, path, **params):
    full = "%s%s?%s" % (url.rstrip("/"), path, urllib.parse.urlencode(params))
    try:
        with urllib.request.urlopen(full, timeout=10) as r:
            body = json.load(r)
    except urllib.error.HTTPError as e:  # 400/422: bad or failing query
        try:
            body = json.load(e)
        except ValueError:
            raise QueryError("HTTP %d" % e.code)
    except (urllib.error.URLError, OSError, ValueError) as e:
        raise QueryError(str(e))
    if body.get("status") != "success":
        raise QueryError("%s: %s" % (body.get("errorType"), body.get("error")))
    return body["data"]


def query(url, expr):
    """Instant query: list of (labels, value) of a vector, or of a scalar."""
    data = prom_get(url, "/api/v1/query", query=expr)
    kind, result = data["resultType"], data["result"]
    if kind == "vector":
        return [(s["metric"], float(s["value"][1])) for s in result]
    if kind == "matrix":
        return [(s["metric"], float(s["values"][-1][1])) for s in result]
    if kind in ("scalar", "string"):
        return [({}, result[1])]
    raise QueryError("unexpected result type %s" % kind)


def cmd_wait(args):
    start = time.monotonic()
    last = None
    while True:
        try:
            result = query(args.url, args.query)
            last = result
            if result and (args.min is None or
                           any(v >= args.min for _, v in result)):
                print("  %s: %d series after %.1fs" %
                      (args.query, len(result), time.monotonic() - start))
                return 0
        except QueryError as e:
            last = e
        if time.monotonic() - start > args.timeout:
            print("FAIL: %s: no sample%s within %.0fs (last answer: %s)" %
                  (args.query, "" if args.min is None else " >= %g" % args.min,
                   args.timeout, last), file=sys.stderr)
            return 1
        time.sleep(0.2)


def cmd_empty(args):
    failed = False
    for expr in args.query:
        try:
            result = query(args.url, expr)
        except QueryError as e:
            print("FAIL: %s: query failed: %s" % (expr, e), file=sys.stderr)
            failed = True
            continue
        if result:
            print("FAIL: %s: expected no data, got %s" % (expr, ", ".join(
                "%s %g" % (m, v) for m, v in result[:5])), file=sys.stderr)
            failed = True
        else:
            print("  %s: no data, as expected" % expr)
    return 1 if failed else 0


# --------------------------------------------------------------------------
# Every dashboard query and rule expression


TITLE_KEY = re.compile(r'^(\S+)\s+"(.+)"\s+(\w+)$')


def normalize_key(key):
    """One spelling of a title key: <uid> "<title>" <refId>."""
    m = TITLE_KEY.match(key.strip())
    return '%s "%s" %s' % m.groups() if m else key.strip()


def title_keys(group, dash):
    """panel id -> title key prefix '<uid> "<title>"', for titles that
    are unique in the dashboard (a repeated title has no title key)."""
    titles = {}
    for p in lint.flatten_panels((dash or {}).get("panels") or []):
        if p.get("type") != "row":
            titles.setdefault(p.get("title"), []).append(p.get("id"))
    return {ids[0]: '%s "%s"' % (group, t) for t, ids in titles.items()
            if len(ids) == 1}


def parse_expectations(path):
    """KEY | EXPECT | REASON lines; # comments. EXPECT: data, empty,
    evaluates, or if:<PromQL guard> (data exactly when the guard has)."""
    table = {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            parts = [p.strip() for p in line.split(" | ", 2)]
            if len(parts) != 3 or not parts[2]:
                sys.exit("live_metrics: %s:%d: want KEY | EXPECT | REASON" %
                         (path, n))
            key, expect, reason = parts
            key = normalize_key(key)
            if not (expect in ("data", "empty", "zero", "evaluates") or
                    expect.startswith("if:")):
                sys.exit("live_metrics: %s:%d: unknown expectation %r" %
                         (path, n, expect))
            if key in table:
                sys.exit("live_metrics: %s:%d: %s listed twice" % (path, n,
                                                                  key))
            table[key] = (expect, reason)
    return table


def rule_key(rule):
    """record:NAME / alert:NAME, plus {k=v,...} of its labels but severity
    (tells apart rules of one name: per-plan constants, alert reasons)."""
    kind = "record" if "record" in rule else "alert"
    labels = {k: v for k, v in (rule.get("labels") or {}).items()
              if k != "severity"}
    key = "%s:%s" % (kind, rule.get(kind))
    if labels:
        key += "{%s}" % ",".join("%s=%s" % kv for kv in sorted(labels.items()))
    return key


def collect(args, values):
    """[(key, kind, where, expr, extra, alias)] for every query to evaluate:
    extra is (label, value, is_all) of a label_values() variable (the value
    the check substitutes; is_all: it is the variable's "All" value), alias
    a panel query's title key (None where its title is not unique)."""
    contract = lint.ContractChecker(lint.parse_contract(args.contract))
    problems = lint.Problems()
    items = []
    for path in args.dashboards:
        found = []
        dash = lint.check_dashboard(path, contract, problems, found,
                                    sample_values=values)
        labels, all_values = {}, {}
        for v in ((dash or {}).get("templating") or {}).get("list", []):
            parsed = lint.parse_variable_query(v) if v.get(
                "type") == "query" else None
            if parsed and parsed[1]:
                labels[v.get("name")] = parsed[1]
            if v.get("includeAll"):
                all_values[v.get("name")] = v.get("allValue")
        panel_re = re.compile(r":panel_(\d+)_(\w+)$")
        titles = None
        for group, record, where, expr in found:
            var = record.split(":var_", 1)[1] if ":var_" in record else None
            alias = None
            m = panel_re.search(record)
            if m:
                if titles is None:
                    titles = title_keys(group, dash)
                if int(m.group(1)) in titles:
                    alias = "%s %s" % (titles[int(m.group(1))], m.group(2))
            extra = None
            if var:
                extra = (labels.get(var), values.get(var),
                         var in all_values and
                         values.get(var) == all_values[var])
            items.append((record, "variable" if var else "panel", where, expr,
                          extra, alias))
    # Reported with the live results (not instead of them): the live check
    # says what such a query returns.
    lint_problems = ["observability_lint: %s" % p for p in problems.items]
    n_rules = 0
    for path in args.rules:
        with open(path) as f:
            doc = yaml.safe_load(f) or {}
        for g in doc.get("groups", []):
            for r in g.get("rules", []):
                n_rules += 1
                key = rule_key(r)
                where = "%s %s" % (os.path.basename(path), key)
                kind = "record" if "record" in r else "alert"
                items.append((key, kind, where, str(r["expr"]), None, None))
                if kind == "record":
                    sel = ",".join('%s="%s"' % kv for kv in sorted(
                        (r.get("labels") or {}).items()))
                    items.append((key + " (series)", "series", where,
                                  "%s{%s}" % (r["record"], sel), None, None))
    keys = [i[0] for i in items] + [i[5] for i in items if i[5]]
    dup = sorted({k for k in keys if keys.count(k) > 1})
    if dup:
        sys.exit("live_metrics: query keys not unique: %s" % dup)
    return items, n_rules, lint_problems


def check_rule_health(url, n_rules):
    """Every rule loaded and evaluated by Prometheus without error."""
    bad = []
    data = prom_get(url, "/api/v1/rules")
    loaded = [r for g in data["groups"] for r in g["rules"]]
    for r in loaded:
        if r.get("health") != "ok" or r.get("lastError"):
            bad.append("rule %s: health %s %s" % (r.get("name"), r.get(
                "health"), r.get("lastError", "")))
    if len(loaded) != n_rules:
        bad.append("Prometheus loaded %d rules, the rule files have %d" %
                   (len(loaded), n_rules))
    print("  /api/v1/rules: %d rules loaded in %d groups, %d unhealthy" %
          (len(loaded), len(data["groups"]), len(bad)))
    return bad


def parse_values(text):
    return dict(v.split("=", 1) for v in text.split(",") if v)


def show_result(result, n):
    """The first n series of a result, one line each: labels = value."""
    lines = []
    for metric, value in sorted(result, key=lambda r: sorted(
            r[0].items()))[:n]:
        labels = ", ".join('%s="%s"' % kv for kv in sorted(metric.items())
                           if kv[0] != "__name__")
        lines.append("          {%s} %s" % (labels, value if isinstance(
            value, str) else "%.6g" % value))
    if len(result) > n:
        lines.append("          ... %d more" % (len(result) - n))
    return lines


def cmd_queries(args):
    values = parse_values(args.values)
    table = parse_expectations(args.expect)
    items, n_rules, lint_problems = collect(args, values)
    failures = lint_problems + check_rule_health(args.url, n_rules)
    names = {i[0]: i for i in items}
    names.update({i[5]: i for i in items if i[5]})
    if args.only or args.only_listed:
        only = set(normalize_key(k) for k in args.only.split(",") if k)
        if args.only_listed:
            only |= set(table)
        for key in sorted(only - set(names)):
            failures.append("--only %s: no such query" % key)
        items = [i for i in items if i[0] in only or i[5] in only or
                 (i[1] == "series" and i[0][:-len(" (series)")] in only)]
    listed_as = {}  # query key -> the table's key for it
    for key in table:
        if key in names:
            listed_as.setdefault(names[key][0], []).append(key)
    for key, spellings in listed_as.items():
        if len(spellings) > 1:
            failures.append("%s: listed twice in the expectation table, as "
                            "%s" % (key, " and ".join(spellings)))
    unused = set(table) - {i[0] for i in items} - {i[5] for i in items}
    for key in sorted(unused):
        failures.append("%s: in the expectation table but no such query "
                        "(stale entry?)" % key)
    counts = {}
    print()
    for key, kind, where, expr, extra, alias in items:
        default = "evaluates" if kind == "alert" else "data"
        base = key[:-len(" (series)")] if kind == "series" else key
        entry = table.get(base) or (table.get(alias) if alias else None)
        expect = (entry or (default, ""))[0]
        one_line = " ".join(expr.split())
        try:
            result = query(args.url, expr)
        except QueryError as e:
            failures.append("%s [%s]: query failed: %s\n      %s" %
                            (key, where, e, one_line))
            print("  FAIL  %-9s %-58s error" % (expect.split(":")[0], key))
            continue
        has = bool(result)
        want = None
        if expect == "data":
            want = True
        elif expect == "empty":
            want = False
        elif expect == "zero":  # series that exist, every one at 0
            want = True
            nonzero = [m for m, v in result if float(v) != 0]
            if nonzero:
                failures.append("%s [%s]: expected every value 0, got %d "
                                "non-zero: %s" % (key, where, len(nonzero),
                                                  nonzero[:3]))
        elif expect.startswith("if:"):
            try:
                want = bool(query(args.url, expect[3:]))
            except QueryError as e:
                failures.append("%s: guard %r failed: %s" % (key, expect[3:],
                                                             e))
                continue
        ok = want is None or want == has
        if not ok:
            failures.append("%s [%s]: expected %s, got %s\n      %s" % (
                key, where,
                "data" if want else "no data",
                "%d series" % len(result) if has else "no data", one_line))
        offered = []
        if has and extra and extra[0]:  # label_values: offers our value
            label, value, is_all = extra
            offered = sorted({m.get(label) for m, _ in result} - {None})
            # "All" (allValue) is offered whatever the values are.
            if not is_all and value not in offered:
                ok = False
                failures.append("%s [%s]: label_values(..., %s) offers %s, "
                                "not the value %r the check substitutes" %
                                (key, where, label, offered, value))
        counts[kind] = counts.get(kind, 0) + 1
        print("  %-4s  %-9s %-58s %s" % ("ok" if ok else "FAIL",
                                         expect.split(":")[0],
                                         alias or key, "%d series" %
                                         len(result) if has else "empty"))
        if args.show and kind == "variable" and extra and extra[0]:
            print("          offers: %s%s" % (", ".join(offered) or "-",
                                             " (and All = %s)" % extra[1]
                                             if extra[2] else ""))
        elif args.show and kind == "panel":
            for line in show_result(result, args.show):
                print(line)
    print()
    print("live_metrics: evaluated %s" % ", ".join(
        "%d %s" % (n, k) for k, n in sorted(counts.items())))
    listed = {k: v for k, v in table.items() if k not in unused}
    if listed:
        print("live_metrics: expectations other than the default (panel, "
              "variable, record: data; alert: evaluates without error):")
        for key, (expect, reason) in sorted(listed.items()):
            print("  %-58s %s: %s" % (key, expect, reason))
    if failures:
        for f in failures:
            print("FAIL: %s" % f, file=sys.stderr)
        return 1
    return 0


# --------------------------------------------------------------------------
# Series bounds from /metrics snapshots

SAMPLE = re.compile(r"^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+\S+(?:\s+\d+)?$")
LABEL = re.compile(r'([a-zA-Z_]\w*)="((?:[^"\\]|\\.)*)"')


def parse_series(path, prefix="fabricpulse_"):
    series = set()
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            m = SAMPLE.match(line)
            if not m:
                sys.exit("live_metrics: %s: cannot parse %r" % (path, line))
            if m.group(1).startswith(prefix):
                labels = tuple(sorted(LABEL.findall(m.group(2) or "")))
                series.add((m.group(1), labels))
    return series


def show(s):
    return "%s{%s}" % (s[0], ",".join('%s="%s"' % kv for kv in s[1]))


def cmd_expr(args):
    values = parse_values(args.values)
    contract = lint.ContractChecker(lint.parse_contract(args.contract))
    problems = lint.Problems()
    found = []
    with contextlib.redirect_stdout(io.StringIO()):  # its summary line
        dash = lint.check_dashboard(args.dashboard, contract, problems,
                                    found, sample_values=values)
    ids = [p.get("id") for p in lint.flatten_panels(
        (dash or {}).get("panels") or []) if p.get("title") == args.title]
    if len(ids) != 1:
        sys.exit("live_metrics: %d panels titled %r in %s" % (
            len(ids), args.title, args.dashboard))
    suffix = ":panel_%s_%s" % (ids[0], args.refid)
    exprs = [e for _, record, _, e in found if record.endswith(suffix)]
    if not exprs:
        sys.exit("live_metrics: panel %r has no target %s" % (args.title,
                                                            args.refid))
    print(" ".join(exprs[0].split()))
    return 0


def cmd_series(args):
    before, after = parse_series(args.before), parse_series(args.after)
    allow_ops = set(filter(None, args.allow_ops.split(",")))
    allow_sizes = set(filter(None, args.allow_sizes.split(",")))
    ranks = set()
    for spec in filter(None, args.ranks.split(",")):  # node:rank
        ranks.add(tuple(spec.split(":", 1)))
    befores = {(n, l) for n, l in before}
    reasons, bad = {}, []
    for s in sorted(after - before):
        name, labels = s[0], dict(s[1])
        why = None
        if (args.allow_plan and labels.get("plan") == args.allow_plan and
                labels.get("op", "") in allow_ops | {""} and
                labels.get("size", "") in allow_sizes | {""}):
            why = "plan %s (sweeps run in between)" % args.allow_plan
        elif (args.allow_baseline and name in (
                "fabricpulse_baseline_busbw_bytes_per_second",
                "fabricpulse_regression") and
              ("fabricpulse_busbw_bytes_per_second", s[1]) in befores):
            why = "baseline or regression of an existing step (the plan " \
                  "now has a baseline)"
        elif (args.allow_baseline and
              name == "fabricpulse_regressions_total" and
              any(n == "fabricpulse_busbw_bytes_per_second" and
                  dict(l).get("plan") == labels.get("plan") and
                  dict(l).get("op") == labels.get("op") for n, l in befores)):
            why = "regression counter of an existing plan and op (the " \
                  "plan now has a baseline)"
        elif (name in ("fabricpulse_late_arrival_total",
                       "fabricpulse_wrong_elements_total") and
              (labels.get("node"), labels.get("rank")) in ranks):
            why = "per-rank counter of a fleet rank (first late step or wrong data)"
        elif (args.allow_hang and name == "fabricpulse_hangs_total" and
              labels.get("node") in {n for n, _ in ranks}):
            why = "hang counter of a fleet node (a diagnosed failed sweep)"
        elif (args.allow_hang and name == "fabricpulse_hang_culprit" and
              (labels.get("node"), labels.get("rank")) in ranks):
            why = "hang culprit of a fleet rank (a diagnosed failed sweep)"
        elif (args.allow_pairs and name in (
                "fabricpulse_pair_busbw_bytes_per_second",
                "fabricpulse_pair_flagged") and
              {labels.get("node_a"), labels.get("node_b")} <=
              {n for n, _ in ranks}):
            why = "node-pair series of fleet nodes (a pairwise matrix)"
        elif (args.allow_agent_ops and
              name == "fabricpulse_agent_rank_latency_seconds" and
              labels.get("op") in allow_ops and
              labels.get("size") in allow_sizes):
            why = "rank latency of an op/size of the sweeps run in between"
        if why:
            reasons[why] = reasons.get(why, 0) + 1
        else:
            bad.append(show(s))
    gone = sorted(show(s) for s in before - after)
    print("  %s: %d fabricpulse_* series -> %s: %d (+%d, -%d)" % (
        os.path.basename(args.before), len(before),
        os.path.basename(args.after), len(after), len(after - before),
        len(gone)))
    for why, n in sorted(reasons.items()):
        print("    +%d %s" % (n, why))
    if args.same_plan:
        # Less what --allow-baseline let in (a baseline of existing steps).
        allowed = {s for s in after - before if s[0] in (
            "fabricpulse_baseline_busbw_bytes_per_second",
            "fabricpulse_regression", "fabricpulse_regressions_total") and
            show(s) not in bad} if args.allow_baseline else set()
        b = sum(1 for s in before if dict(s[1]).get("plan") == args.same_plan)
        a = sum(1 for s in after - allowed
                if dict(s[1]).get("plan") == args.same_plan)
        print("    plan %s: %d series -> %d" % (args.same_plan, b, a))
        if a != b:
            bad.append("plan %s has %d series, was %d" % (args.same_plan, a,
                                                          b))
    if args.allow_replaced:
        # Per-sweep series a later sweep replaces (docs/metrics.md): an
        # agent's rank latency (its node's last sweep), the coordinator's
        # ad-hoc steps (the last ad-hoc sweep).
        replaced = [s for s in gone
                    if s.startswith("fabricpulse_agent_rank_latency_seconds{")
                    or 'plan="adhoc"' in s]
        if replaced:
            print("    -%d replaced by a later sweep" % len(replaced))
        gone = [s for s in gone if s not in replaced]
    failed = False
    for s in gone:
        print("FAIL: series disappeared: %s" % s, file=sys.stderr)
        failed = True
    for s in bad:
        print("FAIL: unexpected new series: %s" % s, file=sys.stderr)
        failed = True
    return 1 if failed else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    w = sub.add_parser("wait")
    w.add_argument("url")
    w.add_argument("query")
    w.add_argument("--min", type=float)
    w.add_argument("--timeout", type=float, default=20)
    e = sub.add_parser("empty")
    e.add_argument("url")
    e.add_argument("query", nargs="+")
    q = sub.add_parser("queries")
    q.add_argument("url")
    q.add_argument("--only", default="",
                   help="KEY,...: evaluate only these queries")
    q.add_argument("--only-listed", action="store_true",
                   help="evaluate only the queries --expect lists")
    q.add_argument("--show", type=int, default=0, metavar="N",
                   help="print the first N series of each dashboard query")
    q.add_argument("--expect", required=True)
    q.add_argument("--values", required=True)
    q.add_argument("--contract", required=True)
    q.add_argument("--dashboards", nargs="+", required=True)
    q.add_argument("--rules", nargs="+", required=True)
    x = sub.add_parser("expr")
    x.add_argument("dashboard")
    x.add_argument("title")
    x.add_argument("refid", nargs="?", default="A")
    x.add_argument("--values", required=True)
    x.add_argument("--contract", default="docs/metrics.md")
    s = sub.add_parser("series")
    s.add_argument("--before", required=True)
    s.add_argument("--after", required=True)
    s.add_argument("--allow-plan", default="")
    s.add_argument("--allow-ops", default="")
    s.add_argument("--allow-sizes", default="")
    s.add_argument("--allow-baseline", action="store_true")
    s.add_argument("--allow-agent-ops", action="store_true")
    s.add_argument("--allow-hang", action="store_true",
                   help="a failed sweep ran: hang series of the fleet's "
                   "nodes and ranks may appear")
    s.add_argument("--allow-pairs", action="store_true",
                   help="a pairwise matrix ran: node-pair series of the "
                   "fleet's nodes (--ranks) may appear")
    s.add_argument("--allow-replaced", action="store_true",
                   help="another sweep ran: per-sweep series (agent rank "
                   "latency, ad-hoc steps) may be replaced")
    s.add_argument("--ranks", default="", help="node:rank,... of the fleet")
    s.add_argument("--same-plan", default="",
                   help="this plan's series count must not change")
    args = ap.parse_args()
    return {"wait": cmd_wait, "empty": cmd_empty, "queries": cmd_queries,
            "series": cmd_series, "expr": cmd_expr}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
