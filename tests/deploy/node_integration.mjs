// Node verdicts where Kubernetes acts on them (issue 30; chart README,
// "Kubernetes integration"): the shipped NFD and NPD files, and the chart's
// wiring of them (tests/deploy/check_chart.sh runs both modes).
//
//   node tests/deploy/node_integration.mjs [--modules DIR] [--nfd-dir DIR]
//       [--monitor FILE] static
//     - deploy/nfd/*.yaml: every document is a nfd.k8s-sigs.io/v1alpha1
//       NodeFeatureRule in the rule format NFD documents (customization
//       guide, "Feature rule format"), as far as FabricPulse uses it: the
//       schema NFD_RULE_SCHEMA below, written here from those docs; unknown
//       fields refused, as `kubectl apply --validate=strict` does; taints
//       have an effect NoSchedule, PreferNoSchedule or NoExecute and a
//       prefixed key NFD accepts; each op has the number of values NFD's
//       table gives it. nodefeaturerule-taint-failed.yaml matches
//       local.label fabricpulse.io/nccl-health with op In and value ["fail"]
//       only, taints fabricpulse.io/nccl-health=fail, and, evaluated as
//       nfd-master would against a node of each verdict (and one with no
//       verdict), taints the "fail" node and no other.
//     - deploy/npd/fabricpulse-monitor.json: what NPD's custom plugin monitor
//       accepts (pkg/custompluginmonitor/types/config.go: known fields,
//       plugin "custom", Go durations, rule timeout <= global timeout, a
//       default condition for every permanent rule) and the contract of
//       `fabricpulse node-check` (path and args under the chart's default
//       agent.npd.hostDir, 80-character output, one plugin at a time).
//
//   node tests/deploy/node_integration.mjs [--modules DIR] render
//       [--expect nfd,npd,labels | --off] [--monitor-exact]
//       [--node-labels-configmap NAME] FILE...
//     The rendered chart's agent DaemonSet and ConfigMaps:
//     - nfd: FABRICPULSE_NFD_FEATURES_DIR=D, a writable mount of a hostPath
//       volume (path D, DirectoryOrCreate) at D, and a toleration of taint
//       key fabricpulse.io/nccl-health (every effect);
//     - npd: FABRICPULSE_VERDICT_FILE=D/node-verdict.json, hostPath D
//       (DirectoryOrCreate) at D in the agent and in the init container
//       copy-cli (which is given D), and ConfigMap <fullname>-npd-plugin
//       whose fabricpulse-monitor.json is deploy/npd/fabricpulse-monitor.json
//       with D for the default folder (--monitor-exact: byte for byte);
//     - nfd or npd: agent and copy-cli run as uid 0 with every capability
//       dropped (IPC_LOCK added only with RDMA), no privilege escalation, not
//       privileged;
//     - labels: FABRICPULSE_LABELS_DIR=D, a read-only ConfigMap mount at D;
//       the chart's ConfigMap (keys node names, values labels that pass the
//       values schema's agentLabels pattern) and the checksum/node-labels
//       pod annotation, or --node-labels-configmap's name, not rendered;
//     - --off: none of it (no such env, volume, init container, toleration
//       or ConfigMap).
// --nfd-dir, --monitor: check these instead of deploy/nfd/ and
// deploy/npd/fabricpulse-monitor.json (the tests of this checker).
// Prints one line; exits 1 listing every problem, 2 on bad usage.
import { readFileSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
let modulesDir = join(repo, ".tools/node/node_modules");
let mode = "";
let expect = new Set();
let off = false;
let monitorExact = false;
let externalLabels = "";
let nfdDir = join(repo, "deploy/nfd");
let monitorPath = join(repo, "deploy/npd/fabricpulse-monitor.json");
const files = [];
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  if (a === "--modules") modulesDir = resolve(argv[++i]);
  else if (a === "--expect") expect = new Set(argv[++i].split(",").filter(Boolean));
  else if (a === "--off") off = true;
  else if (a === "--monitor-exact") monitorExact = true;
  else if (a === "--node-labels-configmap") externalLabels = argv[++i];
  else if (a === "--nfd-dir") nfdDir = resolve(argv[++i]);
  else if (a === "--monitor") monitorPath = resolve(argv[++i]);
  else if (!mode && (a === "static" || a === "render")) mode = a;
  else files.push(a);
}
const usage = "usage: node_integration.mjs [--modules DIR] [--nfd-dir DIR] [--monitor FILE] static | " +
  "render [--expect nfd,npd,labels | --off] [--monitor-exact] [--node-labels-configmap NAME] FILE...";
if (!mode || (mode === "render" && files.length === 0) || (mode === "static" && files.length) ||
    [...expect].some((e) => !["nfd", "npd", "labels"].includes(e)) || (off && expect.size)) {
  console.error(usage);
  process.exit(2);
}

const yaml = await import(pathToFileURL(join(modulesDir, "js-yaml/dist/js-yaml.mjs")).href);
const errors = [];
const fail = (where, msg) => errors.push(`${where}: ${msg}`);
const deepEqual = (a, b) => JSON.stringify(a) === JSON.stringify(b);

const HEALTH = "fabricpulse.io/nccl-health";
const VERDICTS = ["pass", "degraded", "fail", "suspect", "untested"];
const TAINT_EFFECTS = ["NoSchedule", "PreferNoSchedule", "NoExecute"];
const monitorText = readFileSync(monitorPath, "utf8");
const chartValues = yaml.load(readFileSync(join(repo, "helm/fabricpulse/values.yaml"), "utf8"));
const DEFAULT_NPD_DIR = chartValues.agent.npd.hostDir;

// ---- static: deploy/nfd ----------------------------------------------------
// The NodeFeatureRule fields FabricPulse's rules use, as NFD's customization
// guide documents them ("Feature rule format": name, labels, taints,
// matchFeatures / matchExpressions, matchAny). Written for this check, not
// NFD's CRD: anything else (matchName, vars, annotations, extendedResources,
// templates, an expression's type, metadata besides name) is refused, as is
// any unknown field (the API server would prune it silently; kubectl's
// strict validation refuses it). A rule that needs more extends this.
const NFD_API_VERSION = "nfd.k8s-sigs.io/v1alpha1";
const NFD_KIND = "NodeFeatureRule";
// Operator -> [min, max] number of values (the guide's matchExpressions table).
const NFD_OPS = {
  In: [1, Infinity], NotIn: [1, Infinity], InRegexp: [1, Infinity], Exists: [0, 0], DoesNotExist: [0, 0],
  Gt: [1, 1], Lt: [1, 1], GtLt: [2, 2], IsTrue: [0, 0], IsFalse: [0, 0],
};
const stringMap = { type: "object", additionalProperties: { type: "string" } };
const nfdMatchFeatures = {
  type: "array",
  items: {
    type: "object",
    required: ["feature", "matchExpressions"],
    additionalProperties: false,
    properties: {
      feature: { type: "string", minLength: 1 },
      matchExpressions: {
        type: "object",
        additionalProperties: {
          type: "object",
          required: ["op"],
          additionalProperties: false,
          properties: {
            op: { enum: Object.keys(NFD_OPS) },
            value: { type: "array", items: { type: "string" } },
          },
        },
      },
    },
  },
};
const NFD_RULE_SCHEMA = {
  type: "object",
  required: ["apiVersion", "kind", "metadata", "spec"],
  additionalProperties: false,
  properties: {
    apiVersion: { const: NFD_API_VERSION },
    kind: { const: NFD_KIND },
    metadata: {
      type: "object",
      required: ["name"],
      additionalProperties: false,
      properties: { name: { type: "string", minLength: 1 } },
    },
    spec: {
      type: "object",
      required: ["rules"],
      additionalProperties: false,
      properties: {
        rules: {
          type: "array",
          minItems: 1,
          items: {
            type: "object",
            required: ["name"],
            additionalProperties: false,
            properties: {
              name: { type: "string", minLength: 1 },
              labels: stringMap,
              taints: {
                type: "array",
                items: {
                  type: "object",
                  required: ["key"],
                  additionalProperties: false,
                  properties: {
                    key: { type: "string", minLength: 1 },
                    value: { type: "string" },
                    effect: { enum: TAINT_EFFECTS },
                  },
                },
              },
              matchFeatures: nfdMatchFeatures,
              matchAny: {
                type: "array",
                items: {
                  type: "object",
                  required: ["matchFeatures"],
                  additionalProperties: false,
                  properties: { matchFeatures: nfdMatchFeatures },
                },
              },
            },
          },
        },
      },
    },
  },
};

// nfd-master's match of one expression against an attribute feature (a map
// name -> value; a missing name matches only NotIn / DoesNotExist).
function matchExpression(expr, present, value) {
  const vals = expr.value ?? [];
  switch (expr.op) {
    case "In": return present && vals.includes(value);
    case "NotIn": return !present || !vals.includes(value);
    case "InRegexp": return present && vals.some((r) => new RegExp(r).test(value));
    case "Exists": return present;
    case "DoesNotExist": return !present;
    default: throw new Error(`op ${expr.op} is not evaluated by this check`);
  }
}
function matchTerms(terms, features) {
  return terms.every((term) => {
    if (term.feature !== "local.label") throw new Error(`feature ${term.feature} is not evaluated by this check`);
    if (term.matchName) throw new Error("matchName is not evaluated by this check");
    return Object.entries(term.matchExpressions ?? {}).every(([name, expr]) =>
      matchExpression(expr, Object.hasOwn(features, name), features[name]));
  });
}
const ruleMatches = (rule, features) =>
  (rule.matchFeatures ? matchTerms(rule.matchFeatures, features) : true) &&
  (rule.matchAny ? rule.matchAny.some((any) => matchTerms(any.matchFeatures ?? [], features)) : true);

// NFD's limits on a taint key's prefix (customization guide, "taints").
function taintKeyProblem(key) {
  const m = /^(([a-z0-9]([-a-z0-9]*[a-z0-9])?\.)+[a-z0-9]([-a-z0-9]*[a-z0-9])?)\/([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)$/.exec(key);
  if (!m) return "is not <dns prefix>/<name> (NFD refuses unprefixed taint keys)";
  const prefix = m[1];
  const k8s = prefix === "kubernetes.io" || prefix.endsWith(".kubernetes.io");
  const feature = prefix === "feature.node.kubernetes.io" || prefix.endsWith(".feature.node.kubernetes.io");
  if (k8s && !feature) return `has prefix ${prefix}, which NFD refuses`;
  return "";
}

function checkNfd() {
  const require = createRequire(join(modulesDir, "ajv/package.json"));
  const Ajv = require("ajv").default;
  const validate = new Ajv({ allErrors: true }).compile(NFD_RULE_SCHEMA);
  const dir = nfdDir;
  const list = (x) => (Array.isArray(x) ? x : []);
  let rules = 0;
  let taintRule = null;
  for (const name of readdirSync(dir).filter((f) => /\.ya?ml$/.test(f)).sort()) {
    const docs = yaml.loadAll(readFileSync(join(dir, name), "utf8")).filter((d) => d);
    if (docs.length === 0) fail(`${name}`, "no document");
    for (const doc of docs) {
      const where = `${name}: ${doc.kind}/${doc.metadata?.name}`;
      rules++;
      if (doc.apiVersion !== NFD_API_VERSION || doc.kind !== NFD_KIND) {
        fail(where, `apiVersion/kind ${doc.apiVersion} ${doc.kind}, want ${NFD_API_VERSION} ${NFD_KIND}`);
        continue;
      }
      if (!doc.metadata?.name) fail(where, "no metadata.name");
      if (doc.metadata?.namespace) fail(where, "NodeFeatureRule is cluster-scoped: no metadata.namespace");
      if (!validate(doc)) {
        for (const e of validate.errors) fail(where, `rule schema: ${e.instancePath || "/"} ${e.message} ${JSON.stringify(e.params)}`);
      }
      for (const rule of doc.spec?.rules ?? []) {
        const terms = [...list(rule?.matchFeatures), ...list(rule?.matchAny).flatMap((a) => list(a?.matchFeatures))];
        for (const term of terms) {
          for (const [key, expr] of Object.entries(term?.matchExpressions ?? {})) {
            const [min, max] = NFD_OPS[expr?.op] ?? [0, Infinity];
            const n = Array.isArray(expr?.value) ? expr.value.length : 0;
            if (n < min || n > max) {
              fail(where, `rule "${rule.name}": ${term.feature} ${key}: op ${expr.op} takes ${min === max ? min : `${min} or more`} value(s), has ${n}`);
            }
          }
        }
        for (const t of rule.taints ?? []) {
          if (!TAINT_EFFECTS.includes(t.effect)) fail(where, `rule "${rule.name}": taint effect ${t.effect}, want one of ${TAINT_EFFECTS.join(", ")}`);
          const p = taintKeyProblem(t.key ?? "");
          if (p) fail(where, `rule "${rule.name}": taint key ${t.key} ${p}`);
        }
      }
      if (name === "nodefeaturerule-taint-failed.yaml") taintRule = doc;
    }
  }
  if (!taintRule) {
    fail(nfdDir, "no nodefeaturerule-taint-failed.yaml");
    return rules;
  }
  const where = "nodefeaturerule-taint-failed.yaml";
  const tainting = (taintRule.spec?.rules ?? []).filter((r) => (r.taints ?? []).length);
  if (tainting.length !== 1) fail(where, `${tainting.length} rules with taints, want 1`);
  for (const rule of tainting) {
    if (rule.matchAny) fail(where, `rule "${rule.name}": matchAny (want a single matchFeatures term)`);
    const terms = rule.matchFeatures ?? [];
    const exprs = terms.flatMap((t) => Object.entries(t.matchExpressions ?? {}).map(([n, e]) => [t.feature, n, e]));
    const want = [["local.label", HEALTH, { op: "In", value: ["fail"] }]];
    if (!deepEqual(exprs, want)) {
      fail(where, `rule "${rule.name}" matches ${JSON.stringify(exprs)}, want only ${JSON.stringify(want)}`);
    }
    if (!deepEqual(rule.taints, [{ key: HEALTH, value: "fail", effect: rule.taints[0]?.effect }])) {
      fail(where, `rule "${rule.name}": taints ${JSON.stringify(rule.taints)}, want one ${HEALTH}=fail`);
    }
  }
  // Evaluated as nfd-master would, against a node of each verdict.
  try {
    for (const verdict of [...VERDICTS, null]) {
      const features = verdict === null ? {} : {
        [HEALTH]: verdict, "fabricpulse.io/nccl-tested": "20261204T021628Z", "fabricpulse.io/nccl-plan": "nightly-full",
      };
      const taints = (taintRule.spec?.rules ?? []).filter((r) => ruleMatches(r, features)).flatMap((r) => r.taints ?? []);
      const label = verdict ?? "(no verdict file)";
      if (verdict === "fail" && !taints.some((t) => t.key === HEALTH)) fail(where, "a node with verdict fail is not tainted");
      if (verdict !== "fail" && taints.length) fail(where, `a node with verdict ${label} is tainted: ${JSON.stringify(taints)}`);
    }
  } catch (e) {
    fail(where, e.message);
  }
  return rules;
}

// ---- static: deploy/npd ----------------------------------------------------
const GO_DURATION = /^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$/;
const goSeconds = (d) => {
  const unit = { ns: 1e-9, us: 1e-6, "µs": 1e-6, ms: 1e-3, s: 1, m: 60, h: 3600 };
  let total = 0;
  for (const m of d.matchAll(/([0-9]+(?:\.[0-9]+)?)(ns|us|µs|ms|s|m|h)/g)) total += Number(m[1]) * unit[m[2]];
  return total;
};
function unknownKeys(where, obj, known) {
  for (const k of Object.keys(obj ?? {})) if (!known.includes(k)) fail(where, `unknown field ${k} (NPD ignores it)`);
}

// NPD's validation (types/config.go ApplyConfiguration + Validate) and the
// node-check contract. `dir`: the host folder the paths must be under.
function checkMonitor(where, m, dir) {
  unknownKeys(where, m, ["plugin", "pluginConfig", "source", "conditions", "rules", "metricsReporting"]);
  if (m.plugin !== "custom") fail(where, `plugin ${m.plugin}, NPD supports only "custom"`);
  const pc = m.pluginConfig ?? {};
  unknownKeys(`${where} pluginConfig`, pc, ["invoke_interval", "timeout", "max_output_length", "concurrency",
    "enable_message_change_based_condition_update", "skip_initial_status"]);
  for (const k of ["invoke_interval", "timeout"]) {
    if (typeof pc[k] !== "string" || !GO_DURATION.test(pc[k])) fail(where, `pluginConfig.${k} ${JSON.stringify(pc[k])} is no Go duration`);
  }
  if (!(goSeconds(pc.invoke_interval ?? "") > 0)) fail(where, "pluginConfig.invoke_interval must be > 0");
  const want = { invoke_interval: "60s", timeout: "10s", max_output_length: 80, concurrency: 1 };
  for (const [k, v] of Object.entries(want)) if (pc[k] !== v) fail(where, `pluginConfig.${k} ${JSON.stringify(pc[k])}, want ${JSON.stringify(v)}`);
  if (typeof m.source !== "string" || !m.source) fail(where, "no source");
  if (m.metricsReporting !== undefined && typeof m.metricsReporting !== "boolean") fail(where, "metricsReporting is not a boolean");
  const conditions = m.conditions ?? [];
  for (const c of conditions) {
    unknownKeys(`${where} condition`, c, ["type", "reason", "message"]);
    for (const k of ["type", "reason", "message"]) if (typeof c[k] !== "string" || !c[k]) fail(where, `a condition has no ${k}`);
  }
  const rules = m.rules ?? [];
  if (rules.length !== 1) fail(where, `${rules.length} rules, want 1`);
  for (const r of rules) {
    const rw = `${where} rule ${r.reason}`;
    unknownKeys(rw, r, ["type", "condition", "reason", "path", "args", "timeout", "invoke_interval"]);
    if (!["temporary", "permanent"].includes(r.type)) fail(rw, `type ${r.type}`);
    if (r.type === "permanent" && !conditions.some((c) => c.type === r.condition)) {
      fail(rw, `permanent rule's condition ${r.condition} has no default condition`);
    }
    if (r.timeout !== undefined) {
      if (!GO_DURATION.test(r.timeout)) fail(rw, `timeout ${r.timeout} is no Go duration`);
      else if (goSeconds(r.timeout) > goSeconds(pc.timeout ?? "5s")) fail(rw, "timeout is greater than the global timeout (NPD refuses to start)");
    }
    if (!Array.isArray(r.args) || !r.args.every((a) => typeof a === "string")) fail(rw, "args is not a list of strings");
    const want = { type: "permanent", condition: "FabricPulseUnhealthy", reason: "FabricPulseVerdictFailed",
      path: `${dir}/bin/fabricpulse`, args: ["node-check", "--verdict-file", `${dir}/node-verdict.json`], timeout: "10s" };
    for (const [k, v] of Object.entries(want)) if (!deepEqual(r[k], v)) fail(rw, `${k} ${JSON.stringify(r[k])}, want ${JSON.stringify(v)}`);
  }
  const cond = conditions.find((c) => c.type === "FabricPulseUnhealthy");
  if (!cond || cond.reason !== "FabricPulseHealthy") fail(where, "no condition FabricPulseUnhealthy with default reason FabricPulseHealthy");
}

// ---- render ------------------------------------------------------------------
function checkRender() {
  const docs = files.flatMap((f) => yaml.loadAll(readFileSync(f, "utf8")).filter((d) => d));
  const ds = docs.filter((d) => d.kind === "DaemonSet");
  if (ds.length !== 1) {
    fail("render", `${ds.length} DaemonSets, want the agent's`);
    return "";
  }
  const w = ds[0];
  const where = `DaemonSet/${w.metadata.name}`;
  const fullname = w.metadata.name.replace(/-agent$/, "");
  const pod = w.spec.template.spec;
  const agent = (pod.containers ?? []).find((c) => c.name === "agent");
  const inits = pod.initContainers ?? [];
  const env = new Map((agent?.env ?? []).map((e) => [e.name, e.value]));
  const volumes = new Map((pod.volumes ?? []).map((v) => [v.name, v]));
  const mountAt = (c, path) => (c?.volumeMounts ?? []).find((m) => m.mountPath === path);
  const configMaps = docs.filter((d) => d.kind === "ConfigMap");
  const npdCM = configMaps.find((c) => c.metadata.name === `${fullname}-npd-plugin`);
  const labelsCM = configMaps.find((c) => c.metadata.name === `${fullname}-node-labels`);
  const healthToleration = (pod.tolerations ?? []).find((t) => t.key === HEALTH);
  const on = {
    nfd: env.has("FABRICPULSE_NFD_FEATURES_DIR"),
    npd: env.has("FABRICPULSE_VERDICT_FILE"),
    labels: env.has("FABRICPULSE_LABELS_DIR"),
  };

  if (off) {
    for (const n of ["FABRICPULSE_NFD_FEATURES_DIR", "FABRICPULSE_VERDICT_FILE", "FABRICPULSE_LABELS_DIR"]) {
      if (env.has(n)) fail(where, `${n} is set`);
    }
    for (const n of ["nfd-features", "npd-host", "node-labels"]) if (volumes.has(n)) fail(where, `volume ${n} is rendered`);
    if (inits.length) fail(where, `init containers ${inits.map((c) => c.name).join(", ")}`);
    if (healthToleration) fail(where, `tolerates ${HEALTH}`);
    if (npdCM) fail("render", `ConfigMap ${npdCM.metadata.name} is rendered`);
    if (labelsCM) fail("render", `ConfigMap ${labelsCM.metadata.name} is rendered`);
    if (w.spec.template.metadata?.annotations?.["checksum/node-labels"]) fail(where, "checksum/node-labels annotation");
    return "off";
  }
  for (const e of expect) if (!on[e]) fail(where, `${e} is expected on, but its variable is not set`);
  for (const [k, v] of Object.entries(on)) if (v && !expect.has(k)) fail(where, `${k} is on, not expected`);

  // A writable hostPath folder mounted at its own path.
  const hostFolder = (name, dir, containers) => {
    const v = volumes.get(name);
    if (!v?.hostPath) return fail(where, `no hostPath volume ${name}`);
    if (v.hostPath.path !== dir) fail(where, `volume ${name}: path ${v.hostPath.path}, want ${dir}`);
    if (v.hostPath.type !== "DirectoryOrCreate") fail(where, `volume ${name}: type ${v.hostPath.type}, want DirectoryOrCreate`);
    for (const c of containers) {
      const m = mountAt(c, dir);
      if (!m || m.name !== name) fail(where, `container ${c?.name}: volume ${name} is not mounted at ${dir}`);
      else if (m.readOnly) fail(where, `container ${c.name}: ${dir} is read-only`);
    }
  };
  if (on.nfd) {
    hostFolder("nfd-features", env.get("FABRICPULSE_NFD_FEATURES_DIR"), [agent]);
    if (!healthToleration || healthToleration.operator !== "Exists" || healthToleration.effect) {
      fail(where, `want toleration {key: ${HEALTH}, operator: Exists} (every effect), got ${JSON.stringify(healthToleration)}`);
    }
  } else if (healthToleration) fail(where, `tolerates ${HEALTH} without nfd`);
  if (on.npd) {
    const file = env.get("FABRICPULSE_VERDICT_FILE");
    const dir = file.replace(/\/node-verdict\.json$/, "");
    if (dir === file) fail(where, `FABRICPULSE_VERDICT_FILE=${file} is not <hostDir>/node-verdict.json`);
    const copy = inits.find((c) => c.name === "copy-cli");
    if (!copy) fail(where, "no init container copy-cli");
    hostFolder("npd-host", dir, [agent, copy].filter(Boolean));
    if (copy) {
      const cmd = copy.command ?? [];
      if (cmd[0] !== "sh" || cmd[1] !== "-c" || cmd.at(-1) !== dir) fail(where, `copy-cli: command is not [sh, -c, SCRIPT, NAME, ${dir}]`);
      if (copy.image !== agent?.image) fail(where, "copy-cli runs another image than the agent");
      if (!/command -v fabricpulse/.test(cmd[2] ?? "") || !/mv -f "\$dst\/bin\/\.fabricpulse\.tmp" "\$dst\/bin\/fabricpulse"/.test(cmd[2] ?? "")) {
        fail(where, "copy-cli does not rename the CLI into $dst/bin/fabricpulse");
      }
    }
    if (!npdCM) fail("render", `no ConfigMap ${fullname}-npd-plugin`);
    else {
      const text = npdCM.data?.["fabricpulse-monitor.json"];
      if (Object.keys(npdCM.data ?? {}).length !== 1 || typeof text !== "string") {
        fail(`ConfigMap/${npdCM.metadata.name}`, "want exactly the key fabricpulse-monitor.json");
      } else {
        let rendered = null;
        try {
          rendered = JSON.parse(text);
        } catch (e) {
          fail(`ConfigMap/${npdCM.metadata.name}`, `invalid JSON: ${e.message}`);
        }
        if (rendered) {
          checkMonitor(`ConfigMap/${npdCM.metadata.name}`, rendered, dir);
          const shipped = JSON.parse(monitorText.replaceAll(`"${DEFAULT_NPD_DIR}/`, `"${dir}/`));
          if (!deepEqual(rendered, shipped)) fail(`ConfigMap/${npdCM.metadata.name}`, "differs from deploy/npd/fabricpulse-monitor.json (with this hostDir)");
          if (monitorExact && text !== monitorText) fail(`ConfigMap/${npdCM.metadata.name}`, "is not byte for byte deploy/npd/fabricpulse-monitor.json");
        }
      }
    }
  } else if (npdCM) fail("render", `ConfigMap ${npdCM.metadata.name} without npd`);
  if (on.nfd || on.npd) {
    const rdma = (agent?.securityContext?.capabilities?.add ?? []).includes("IPC_LOCK");
    for (const c of [agent, ...inits]) {
      const sc = c?.securityContext ?? {};
      const cw = `${where} container ${c?.name}`;
      if (sc.runAsUser !== 0 || sc.runAsNonRoot !== false) fail(cw, "does not run as uid 0 (runAsUser 0, runAsNonRoot false)");
      if (sc.allowPrivilegeEscalation !== false) fail(cw, "allowPrivilegeEscalation is not false");
      if (sc.privileged) fail(cw, "privileged");
      if (!(sc.capabilities?.drop ?? []).includes("ALL")) fail(cw, "capabilities not dropped (ALL)");
      const add = sc.capabilities?.add ?? [];
      const allowed = c === agent && rdma ? ["IPC_LOCK"] : [];
      if (add.some((x) => !allowed.includes(x))) fail(cw, `adds capabilities ${add.join(", ")}`);
    }
  }
  if (on.labels) {
    const dir = env.get("FABRICPULSE_LABELS_DIR");
    const m = mountAt(agent, dir);
    const v = volumes.get(m?.name);
    if (!m || m.readOnly !== true || !v?.configMap) fail(where, `no read-only ConfigMap mount at ${dir}`);
    const wantName = externalLabels || `${fullname}-node-labels`;
    if (v?.configMap && v.configMap.name !== wantName) fail(where, `node labels from ConfigMap ${v.configMap.name}, want ${wantName}`);
    const checksum = w.spec.template.metadata?.annotations?.["checksum/node-labels"];
    if (externalLabels) {
      if (labelsCM) fail("render", `ConfigMap ${labelsCM.metadata.name} rendered with --node-labels-configmap`);
      if (checksum) fail(where, "checksum/node-labels annotation for a ConfigMap the chart does not render");
    } else if (!labelsCM) {
      fail("render", `no ConfigMap ${wantName}`);
    } else {
      if (!checksum) fail(where, "no checksum/node-labels annotation (agents read their labels at start only)");
      const schema = JSON.parse(readFileSync(join(repo, "helm/fabricpulse/values.schema.json"), "utf8"));
      const labelsRe = new RegExp(schema.definitions.agentLabels.pattern);
      const entries = Object.entries(labelsCM.data ?? {});
      if (entries.length === 0) fail(`ConfigMap/${wantName}`, "no entries");
      for (const [node, labels] of entries) {
        if (!/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(node) || node.length > 253) fail(`ConfigMap/${wantName}`, `key ${node} is no node name`);
        if (typeof labels !== "string" || !labelsRe.test(labels)) fail(`ConfigMap/${wantName}`, `${node}: ${JSON.stringify(labels)} is no labels text`);
      }
    }
  } else if (labelsCM) fail("render", `ConfigMap ${labelsCM.metadata.name} is not mounted`);
  return Object.entries(on).filter(([, v]) => v).map(([k]) => k).join(",") || "none";
}

let summary;
if (mode === "static") {
  const rules = checkNfd();
  let monitor = null;
  try {
    monitor = JSON.parse(monitorText);
  } catch (e) {
    fail("fabricpulse-monitor.json", `invalid JSON: ${e.message}`);
  }
  if (monitor) checkMonitor("fabricpulse-monitor.json", monitor, DEFAULT_NPD_DIR);
  summary = `${rules} NodeFeatureRule(s) (taints only verdict fail), NPD monitor under ${DEFAULT_NPD_DIR}`;
} else {
  summary = `agent wiring: ${checkRender()}`;
}
if (errors.length) {
  for (const e of errors) console.error(`node_integration: ${e}`);
  console.error(`node_integration: FAIL (${errors.length} problem(s))`);
  process.exit(1);
}
console.log(`node_integration: ok, ${summary}`);
