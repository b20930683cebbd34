#!/usr/bin/env python3
"""Static checks of FabricPulse's Grafana dashboards and Prometheus rules.

Used by tests/deploy/check_observability.sh; promtool does the PromQL parsing:

  observability_lint.py --contract docs/metrics.md \
      --rules deploy/prometheus/*_rules.yaml \
      --dashboards deploy/grafana/*.json \
      --queries-out DIR/dashboard_queries.yaml

1. Dashboard structure: uid, title, schemaVersion >= 36, a `datasource`
   variable of type datasource (query prometheus), every panel on it, unique
   panel ids, gridPos inside 24 columns and not overlapping, every target
   with an expr, every $variable used defined. The scope variables cluster,
   namespace and job (multi-valued query variables, "All" = .*, the
   default) come first, and every selector of every panel query carries
   their matchers (cluster=~"$cluster", ...); a variable query carries those
   of the scope variables before it.
2. Every dashboard query (panel targets, label_values() selectors) with its
   variables replaced by concrete values, written as recording rules to
   --queries-out for `promtool check rules` to parse.
3. The metrics contract (docs/metrics.md): metric names in dashboard
   queries are contract metrics or `up`; in rule files also the rules' own
   recorded fabricpulse:* series. Labels in selectors belong to that metric;
   labels in by/without/on/ignoring/group_*, legends and alert templates
   belong to some contract metric (or are job/instance).

Prints what it checked; exits 1 on any problem.
"""

import argparse
import json
import os
import re
import sys

try:
    import yaml
except ImportError:
    sys.exit("observability_lint: PyYAML missing for %s; run "
             "scripts/install-observability-tools.sh" % sys.executable)

# Added by Prometheus at scrape time (job, instance), or by the scrape
# config's relabeling or external labels: Kubernetes service discovery
# (namespace), a multi-cluster setup (cluster). Not in the contract: the
# daemons never export them.
TARGET_LABELS = {"job", "instance", "cluster", "namespace"}
# The dashboards' scope variables, in this order (deploy/grafana/src/
# lib.libsonnet scopeVariables).
SCOPE_VARIABLES = ("cluster", "namespace", "job")
EXTRA_METRICS = {"up": set()}

# Concrete values for dashboard variables when checking queries.
SAMPLE_VALUES = {
    "cluster": "gpu-cluster-a", "namespace": "fabricpulse",
    "job": "fabricpulse-agent", "plan": "nightly-full", "op": "all_reduce", "node": "gpu-node-01",
    "size": "1048576", "dtype": "float", "placement": "out_of_place",
    "nranks": "8", "gpu": "0", "rank": "0",
}
BUILTIN_VALUES = {
    "__rate_interval": "5m", "__interval": "1m", "__range": "1d",
    "__range_s": "86400", "__range_ms": "86400000", "__interval_ms": "60000",
}

PROMQL_WORDS = {
    "by", "without", "on", "ignoring", "group_left", "group_right", "and",
    "or", "unless", "bool", "offset", "atan2", "inf", "nan",
    # aggregation operators (may be followed by `by (...)`, not `(`)
    "sum", "min", "max", "avg", "group", "stddev", "stdvar", "count",
    "count_values", "bottomk", "topk", "quantile",
}
GROUPING = re.compile(
    r"\b(by|without|on|ignoring|group_left|group_right)\s*\(([^()]*)\)")
SELECTOR = re.compile(r"([a-zA-Z_:][\w:]*)?\s*\{([^{}]*)\}")
MATCHER = re.compile(r"([a-zA-Z_]\w*)\s*(=~|!~|!=|=)")
STRING = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|`[^`]*`')
IDENT = re.compile(r"(?<![\w.:])([a-zA-Z_:][\w:]*)")
VARIABLE = re.compile(r"\$\{(\w+)(?::[^}]*)?\}|\$(\w+)|\[\[(\w+)\]\]")


class Problems:
    def __init__(self):
        self.items = []

    def add(self, where, what):
        self.items.append("%s: %s" % (where, what))


def parse_contract(path):
    """metric name -> set of its labels, from the contract's tables."""
    metrics = {}
    row = re.compile(r"^\|\s*`([a-z_:][a-z0-9_:]*)`\s*\|[^|]*\|([^|]*)\|")
    with open(path) as f:
        for line in f:
            m = row.match(line)
            if not m:
                continue
            labels_cell = re.sub(r"\([^)]*\)", "", m.group(2))
            labels = {l.strip() for l in labels_cell.split(",") if l.strip()}
            metrics.setdefault(m.group(1), set()).update(labels)
    if not metrics:
        sys.exit("observability_lint: no metrics found in %s" % path)
    return metrics


class ContractChecker:
    def __init__(self, metrics):
        self.metrics = dict(metrics)
        self.metrics.update(EXTRA_METRICS)
        self.all_labels = set().union(*metrics.values()) | TARGET_LABELS

    def check_expr(self, where, expr, problems, recorded=()):
        """Checks names and labels of one PromQL expression."""
        for name, body in SELECTOR.findall(expr):
            labels = {m[0] for m in MATCHER.findall(STRING.sub('""', body))}
            if name and name in self.metrics:
                allowed = self.metrics[name] | TARGET_LABELS
            else:
                allowed = self.all_labels
            for label in sorted(labels - allowed - {"__name__"}):
                problems.add(where, "label %r is not a label of %s" %
                             (label, name or "any contract metric"))
        for _, body in GROUPING.findall(expr):
            for label in (l.strip() for l in body.split(",")):
                if label and label not in self.all_labels:
                    problems.add(where, "grouping label %r is in no contract "
                                 "metric" % label)
        names = self.metric_names(expr)
        for name in sorted(names):
            if name in self.metrics or name in recorded:
                continue
            if name.startswith("fabricpulse:") and not recorded:
                problems.add(where, "recorded series %s: dashboards must use "
                             "contract metrics only" % name)
            elif name.startswith("fabricpulse:"):
                problems.add(where, "series %s is recorded by no rule" % name)
            else:
                problems.add(where, "metric %s is not in docs/metrics.md" %
                             name)
        return names

    @staticmethod
    def metric_names(expr):
        text = STRING.sub('""', expr)
        text = SELECTOR.sub(lambda m: (m.group(1) or "") + " ", text)
        text = GROUPING.sub(" ", text)
        text = re.sub(r"\[[^\]]*\]", " ", text)
        names = set()
        for m in IDENT.finditer(text):
            word = m.group(1)
            if word.lower() in PROMQL_WORDS:
                continue
            if re.match(r"\s*\(", text[m.end():]):
                continue  # function call
            names.add(word)
        return names

    def check_labels(self, where, labels, problems, kind):
        for label in sorted(set(labels) - self.all_labels):
            problems.add(where, "%s refers to label %r, in no contract "
                         "metric" % (kind, label))


def substitute(expr, values, where, problems):
    def repl(m):
        name = m.group(1) or m.group(2) or m.group(3)
        if name in values:
            return values[name]
        problems.add(where, "undefined variable $%s in %r" % (name, expr))
        return "x"
    return VARIABLE.sub(repl, expr)


def scope_problems(expr, scope):
    """What in `expr` (variables not yet replaced) lacks a matcher of the
    scope variables `scope`: each selector needs name=~"$name" for each."""
    out = []
    if not scope:
        return out
    for name, body in SELECTOR.findall(expr):
        missing = [v for v in scope if not re.search(
            r'(?:^|[\s,])%s\s*=~\s*"\$%s"' % (v, v), body)]
        if missing:
            out.append("selector %s{%s} lacks the scope matcher(s) %s" % (
                name, body.strip(), ", ".join('%s=~"$%s"' % (v, v)
                                            for v in missing)))
    # Metric names outside any selector (a bare `up`) carry no matcher.
    for name in sorted(ContractChecker.metric_names(SELECTOR.sub(" ", expr))):
        out.append("metric %s has no selector with the scope matchers %s" %
                   (name, ", ".join('%s=~"$%s"' % (v, v) for v in scope)))
    return out


def check_scope_variables(where, variables, problems):
    """The scope variables exist, first after the datasource, multi-valued
    with "All" = .* as their default. Returns their names."""
    names = [v.get("name") for v in variables if v.get("type") != "datasource"]
    if tuple(names[:len(SCOPE_VARIABLES)]) != SCOPE_VARIABLES:
        problems.add(where, "the first template variables after datasource "
                     "must be %s, not %s" % (", ".join(SCOPE_VARIABLES),
                                             names[:len(SCOPE_VARIABLES)]))
    for v in variables:
        if v.get("name") not in SCOPE_VARIABLES:
            continue
        vwhere = "%s variable %s" % (where, v.get("name"))
        if not (v.get("type") == "query" and v.get("multi") and
                v.get("includeAll") and v.get("allValue") == ".*"):
            problems.add(vwhere, "must be a multi-valued query variable "
                         "with includeAll and allValue .* (so that \"All\" "
                         "matches series without the label)")
        if (v.get("current") or {}).get("value") != ["$__all"]:
            problems.add(vwhere, "default (current) must be All")
    return [n for n in SCOPE_VARIABLES if n in names]


def flatten_panels(panels):
    for p in panels:
        yield p
        for child in p.get("panels", []) or []:
            yield child


def parse_variable_query(variable):
    """(expr, label) of a Grafana query variable: label_values(expr, label)
    gives its label, query_result(expr) gives label None; None if the query
    is neither."""
    q = variable.get("query")
    q = q.get("query") if isinstance(q, dict) else q
    m = re.fullmatch(r"\s*label_values\((.*),\s*(\w+)\s*\)\s*", q or "",
                     re.S)
    if m:
        return m.group(1), m.group(2)
    m = re.fullmatch(r"\s*query_result\((.*)\)\s*", q or "", re.S)
    if m:
        return m.group(1), None
    return None


def check_dashboard(path, contract, problems, queries,
                    sample_values=SAMPLE_VALUES):
    """Checks one dashboard; appends (group, record, where, expr) for each of
    its queries to `queries`, variables replaced by `sample_values` (name ->
    value; "x" for a variable not in it). Returns the dashboard, or None."""
    where = os.path.basename(path)
    try:
        with open(path) as f:
            dash = json.load(f)
    except (OSError, ValueError) as e:
        problems.add(where, "not valid JSON: %s" % e)
        return None

    uid = dash.get("uid")
    if not isinstance(uid, str) or not re.fullmatch(r"[A-Za-z0-9_-]{1,40}",
                                                    uid or ""):
        problems.add(where, "uid missing or not 1-40 of [A-Za-z0-9_-]")
    if not isinstance(dash.get("title"), str) or not dash["title"].strip():
        problems.add(where, "title missing")
    schema = dash.get("schemaVersion")
    if not isinstance(schema, int) or schema < 36:
        problems.add(where, "schemaVersion %r < 36" % schema)

    variables = (dash.get("templating") or {}).get("list")
    if not isinstance(variables, list):
        problems.add(where, "templating.list missing")
        variables = []
    names = [v.get("name") for v in variables]
    if len(names) != len(set(names)):
        problems.add(where, "duplicate template variable names %s" % names)
    ds = [v for v in variables if v.get("type") == "datasource"]
    if not any(v.get("name") == "datasource" and v.get("query") == "prometheus"
               for v in ds):
        problems.add(where, "no template variable `datasource` of type "
                     "datasource with query prometheus")
    ds_refs = {"${datasource}", "$datasource"}
    scope = check_scope_variables(where, variables, problems)

    values = dict(BUILTIN_VALUES)
    for v in variables:
        name = v.get("name")
        if v.get("type") == "datasource":
            continue
        values[name] = sample_values.get(name, "x")

    def ds_ok(obj):
        d = obj.get("datasource")
        return isinstance(d, dict) and d.get("uid") in ds_refs

    n_queries = 0
    group = re.sub(r"\W", "_", uid or where)

    # Variable queries: label_values(selector, label) / query_result(expr).
    for v in variables:
        if v.get("type") != "query":
            continue
        vwhere = "%s variable %s" % (where, v.get("name"))
        if not ds_ok(v):
            problems.add(vwhere, "datasource is not ${datasource}")
        parsed = parse_variable_query(v)
        if parsed is None:
            problems.add(vwhere, "query %r is not label_values(selector, "
                         "label) or query_result(expr)" % v.get("query"))
            continue
        expr, label = parsed
        if label is not None:
            contract.check_labels(vwhere, [label], problems, "label_values")
        before = scope[:scope.index(v.get("name"))] if v.get(
            "name") in scope else scope
        for p in scope_problems(expr, before):
            problems.add(vwhere, p)
        expr = substitute(expr, values, vwhere, problems)
        contract.check_expr(vwhere, expr, problems)
        queries.append((group, "%s:var_%s" % (group, v.get("name")), vwhere,
                        expr))
        n_queries += 1

    panels = dash.get("panels")
    if not isinstance(panels, list) or not panels:
        problems.add(where, "no panels")
        panels = []
    ids = []
    boxes = []
    n_panels = 0
    for p in flatten_panels(panels):
        pid = p.get("id")
        pwhere = "%s panel %r (%s)" % (where, p.get("title"), pid)
        ids.append(pid)
        if not isinstance(pid, int):
            problems.add(pwhere, "id missing or not an integer")
        gp = p.get("gridPos")
        if not isinstance(gp, dict) or not all(
                isinstance(gp.get(k), int) for k in ("h", "w", "x", "y")):
            problems.add(pwhere, "gridPos needs integer h, w, x, y")
        elif not (gp["w"] >= 1 and gp["h"] >= 1 and gp["x"] >= 0 and
                  gp["y"] >= 0 and gp["x"] + gp["w"] <= 24):
            problems.add(pwhere, "gridPos %r outside the 24-column grid" % gp)
        else:
            for other_where, o in boxes:
                if (gp["x"] < o["x"] + o["w"] and o["x"] < gp["x"] + gp["w"]
                        and gp["y"] < o["y"] + o["h"]
                        and o["y"] < gp["y"] + gp["h"]):
                    problems.add(pwhere, "overlaps %s" % other_where)
            boxes.append((pwhere, gp))
        if p.get("type") == "row":
            continue
        n_panels += 1
        if not isinstance(p.get("title"), str) or not p["title"].strip():
            problems.add(pwhere, "title missing")
        if not ds_ok(p):
            problems.add(pwhere, "datasource is not ${datasource}")
        targets = p.get("targets")
        if not isinstance(targets, list) or not targets:
            problems.add(pwhere, "no targets")
            continue
        ref_ids = [t.get("refId") for t in targets]
        if len(ref_ids) != len(set(ref_ids)) or not all(ref_ids):
            problems.add(pwhere, "refIds missing or not unique: %s" % ref_ids)
        for t in targets:
            twhere = "%s target %s" % (pwhere, t.get("refId"))
            if not ds_ok(t):
                problems.add(twhere, "datasource is not ${datasource}")
            expr = t.get("expr")
            if not isinstance(expr, str) or not expr.strip():
                problems.add(twhere, "expr missing")
                continue
            for sp in scope_problems(expr, scope):
                problems.add(twhere, sp)
            expr = substitute(expr, values, twhere, problems)
            contract.check_expr(twhere, expr, problems)
            legend = t.get("legendFormat") or ""
            contract.check_labels(twhere, re.findall(r"\{\{\s*(\w+)\s*\}\}",
                                                     legend),
                                  problems, "legendFormat")
            queries.append((group, "%s:panel_%s_%s" % (group, pid,
                                                       t.get("refId")),
                            twhere, expr))
            n_queries += 1
    dup = sorted({i for i in ids if ids.count(i) > 1}, key=str)
    if dup:
        problems.add(where, "duplicate panel ids %s" % dup)
    print("  %s: uid %s, %d panels, %d variables, %d queries" %
          (where, uid, n_panels, len(variables), n_queries))
    return dash


def check_rules(path, contract, problems, recorded):
    where = os.path.basename(path)
    with open(path) as f:
        doc = yaml.safe_load(f)
    n = 0
    for g in doc.get("groups", []):
        for r in g.get("rules", []):
            name = r.get("record") or r.get("alert")
            rwhere = "%s %s" % (where, name)
            contract.check_expr(rwhere, str(r.get("expr", "")), problems,
                                recorded)
            n += 1
            if "alert" not in r:
                continue
            labels = r.get("labels") or {}
            if labels.get("severity") not in ("critical", "warning", "info"):
                problems.add(rwhere, "severity label missing or unknown")
            annotations = r.get("annotations") or {}
            for key in ("summary", "description"):
                if not str(annotations.get(key, "")).strip():
                    problems.add(rwhere, "annotation %s missing" % key)
            text = " ".join(str(v) for v in annotations.values())
            refs = re.findall(r"\$labels\.(\w+)|\.Labels\.(\w+)", text)
            contract.check_labels(rwhere, [a or b for a, b in refs], problems,
                                  "annotation")
            for metric in re.findall(r"\bfabricpulse[_:][\w:]*", text):
                if metric not in contract.metrics and metric not in recorded:
                    problems.add(rwhere, "annotation names %s, not in the "
                                 "contract nor recorded" % metric)
    print("  %s: %d rules" % (where, n))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--contract", required=True)
    ap.add_argument("--rules", nargs="*", default=[])
    ap.add_argument("--dashboards", nargs="*", default=[])
    ap.add_argument("--queries-out", required=True)
    args = ap.parse_args()

    contract = ContractChecker(parse_contract(args.contract))
    print("observability_lint: %d contract metrics, %d labels" %
          (len(contract.metrics) - len(EXTRA_METRICS),
           len(contract.all_labels) - len(TARGET_LABELS)))
    problems = Problems()

    recorded = set()
    for path in args.rules:
        with open(path) as f:
            for g in (yaml.safe_load(f) or {}).get("groups", []):
                recorded.update(r["record"] for r in g.get("rules", [])
                                if "record" in r)
    for path in args.rules:
        check_rules(path, contract, problems, recorded)

    queries = []
    uids, titles = {}, {}
    for path in args.dashboards:
        dash = check_dashboard(path, contract, problems, queries)
        if not dash:
            continue
        for key, seen in (("uid", uids), ("title", titles)):
            if dash.get(key) in seen:
                problems.add(path, "%s %r also in %s" %
                             (key, dash.get(key), seen[dash.get(key)]))
            seen[dash.get(key)] = path

    groups = {}
    for group, record, where, expr in queries:
        groups.setdefault(group, []).append(
            {"record": record, "expr": expr, "labels": {"source": where}})
    with open(args.queries_out, "w") as f:
        # JSON is YAML: no quoting questions for PromQL text.
        json.dump({"groups": [{"name": g, "rules": rules}
                              for g, rules in groups.items()]}, f, indent=2)
    print("observability_lint: wrote %d dashboard queries to %s" %
          (len(queries), args.queries_out))

    if problems.items:
        for p in problems.items:
            print("FAIL: %s" % p, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
