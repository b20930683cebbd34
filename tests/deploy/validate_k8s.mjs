// Validates rendered Kubernetes manifests offline.
//
//   node tests/deploy/validate_k8s.mjs [--modules DIR] [--expect Kind=N ...]
//       [--rules-out FILE] FILE...
//
// 1. Schema: every document is validated with its kubernetes-models class
//    (@kubernetes-models/prometheus-operator for monitoring.coreos.com):
//    wrong types, bad enums and missing required fields fail. An apiVersion /
//    kind with no model fails too (a typo'd apiVersion is an error, not a
//    skip). These models do not flag unknown fields.
// 2. Cross-object checks the schemas cannot make:
//    - no two objects share kind/namespace/name; namespaced objects have a
//      namespace (plain manifests must not depend on kubectl's context);
//    - a workload's selector matches its pod template's labels;
//    - every container's volumeMounts name a volume of the pod, probes and
//      named ports refer to ports the container declares, env names are
//      unique;
//    - ConfigMap / PVC / ServiceAccount a pod refers to are in the set;
//    - every Service selects some pod template and its named targetPorts
//      exist there; every ServiceMonitor selects a Service that has the
//      endpoint's port.
//    - every Secret a pod mounts (secret / projected volumes) or a
//      ServiceMonitor reads (tlsConfig, basicAuth) is rendered, is written by
//      a rendered cert-manager Certificate (spec.secretName), or is named by
//      --external-secret; every Certificate's Issuer is rendered unless it is
//      a ClusterIssuer;
//    - every container's env $(VAR) references name a variable defined
//      before it in the same container.
// --expect Kind=N: the files hold exactly N objects of that kind.
// --external-secret NAME: a Secret the user creates (bring-your-own TLS).
// --rules-out FILE: write the groups of every PrometheusRule to FILE as a
//   Prometheus rule file (for `promtool check rules`).
// DIR defaults to .tools/node/node_modules of this checkout.
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
let modulesDir = join(repo, ".tools/node/node_modules");
const files = [];
const expect = new Map();
let rulesOut = "";
const externalSecrets = new Set();
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === "--modules") modulesDir = resolve(argv[++i]);
  else if (argv[i] === "--expect") {
    const [kind, n] = argv[++i].split("=");
    expect.set(kind, Number(n));
  } else if (argv[i] === "--rules-out") rulesOut = argv[++i];
  else if (argv[i] === "--external-secret") externalSecrets.add(argv[++i]);
  else files.push(argv[i]);
}
if (files.length === 0) {
  console.error("usage: validate_k8s.mjs [--modules DIR] [--expect Kind=N] FILE...");
  process.exit(2);
}

const load = (rel) => import(pathToFileURL(join(modulesDir, rel)).href);
const yaml = await load("js-yaml/dist/js-yaml.mjs");

const errors = [];
const fail = (where, msg) => errors.push(`${where}: ${msg}`);

// Namespaced kinds this chart renders (cluster-scoped ones need no namespace).
const clusterScoped = new Set([
  "Namespace", "ClusterRole", "ClusterRoleBinding", "PersistentVolume",
  "StorageClass", "CustomResourceDefinition", "PriorityClass", "RuntimeClass",
]);

async function modelFor(apiVersion, kind) {
  const base = apiVersion.startsWith("monitoring.coreos.com/")
    ? `@kubernetes-models/prometheus-operator/${apiVersion}`
    : apiVersion.startsWith("cert-manager.io/")
      ? `@kubernetes-models/cert-manager/${apiVersion}`
      : `kubernetes-models/${apiVersion}`;
  try {
    const mod = await load(`${base}/${kind}.js`);
    return mod[kind];
  } catch {
    return undefined;
  }
}

const docs = [];
for (const file of files) {
  let parsed;
  try {
    parsed = yaml.loadAll(readFileSync(file, "utf8"));
  } catch (e) {
    fail(file, `invalid YAML: ${e.message}`);
    continue;
  }
  for (const doc of parsed) {
    if (doc === null || doc === undefined) continue;
    docs.push({ file, doc });
  }
}

const key = (d) => `${d.kind}/${d.metadata?.namespace ?? ""}/${d.metadata?.name}`;
const seen = new Set();
const counts = new Map();
for (const { file, doc } of docs) {
  const where = `${file}: ${doc.kind ?? "?"}/${doc.metadata?.name ?? "?"}`;
  if (typeof doc.apiVersion !== "string" || typeof doc.kind !== "string") {
    fail(where, "no apiVersion or kind");
    continue;
  }
  if (!doc.metadata?.name) fail(where, "no metadata.name");
  if (!clusterScoped.has(doc.kind) && !doc.metadata?.namespace) {
    fail(where, "no metadata.namespace");
  }
  if (seen.has(key(doc))) fail(where, "duplicate object");
  seen.add(key(doc));
  counts.set(doc.kind, (counts.get(doc.kind) ?? 0) + 1);
  const Model = await modelFor(doc.apiVersion, doc.kind);
  if (!Model) {
    fail(where, `no model for ${doc.apiVersion} ${doc.kind} (typo in apiVersion or kind?)`);
    continue;
  }
  try {
    new Model(doc).validate();
  } catch (e) {
    const detail = e.errors
      ? e.errors.map((x) => `${x.instancePath || "/"} ${x.message ?? x.keyword} ${JSON.stringify(x.params ?? {})}`).join("; ")
      : e.message;
    fail(where, `schema: ${detail}`);
  }
}

// ---- cross-object checks --------------------------------------------------
const byKind = (kind) => docs.map((d) => d.doc).filter((d) => d.kind === kind);
const has = (kind, ns, name) =>
  docs.some(({ doc }) => doc.kind === kind && doc.metadata?.name === name &&
    (doc.metadata?.namespace ?? "") === (ns ?? ""));
const matches = (selector, labels) =>
  Object.entries(selector ?? {}).every(([k, v]) => (labels ?? {})[k] === v);

const workloads = docs.map((d) => d.doc)
  .filter((d) => ["Deployment", "DaemonSet", "StatefulSet", "Job"].includes(d.kind));
for (const w of workloads) {
  const where = `${w.kind}/${w.metadata.name}`;
  const ns = w.metadata.namespace;
  const tpl = w.spec?.template ?? {};
  const podLabels = tpl.metadata?.labels ?? {};
  const sel = w.spec?.selector?.matchLabels;
  if (w.kind !== "Job" && (!sel || Object.keys(sel).length === 0)) fail(where, "empty selector");
  if (sel && !matches(sel, podLabels)) fail(where, "selector does not match the pod template's labels");
  const pod = tpl.spec ?? {};
  const volumes = new Set((pod.volumes ?? []).map((v) => v.name));
  for (const v of pod.volumes ?? []) {
    if (v.configMap && !has("ConfigMap", ns, v.configMap.name)) {
      fail(where, `volume ${v.name}: ConfigMap ${v.configMap.name} is not rendered`);
    }
    if (v.persistentVolumeClaim && !has("PersistentVolumeClaim", ns, v.persistentVolumeClaim.claimName)) {
      fail(where, `volume ${v.name}: PVC ${v.persistentVolumeClaim.claimName} is not rendered`);
    }
  }
  const sa = pod.serviceAccountName;
  if (sa && sa !== "default" && !has("ServiceAccount", ns, sa)) {
    fail(where, `ServiceAccount ${sa} is not rendered`);
  }
  for (const c of [...(pod.initContainers ?? []), ...(pod.containers ?? [])]) {
    const cw = `${where} container ${c.name}`;
    for (const m of c.volumeMounts ?? []) {
      if (!volumes.has(m.name)) fail(cw, `volumeMount ${m.name} has no volume`);
    }
    const ports = new Set((c.ports ?? []).map((p) => p.name).filter(Boolean));
    for (const probe of ["startupProbe", "readinessProbe", "livenessProbe"]) {
      const p = c[probe];
      const port = p?.tcpSocket?.port ?? p?.httpGet?.port ?? p?.grpc?.port;
      if (typeof port === "string" && !ports.has(port)) fail(cw, `${probe} names unknown port ${port}`);
    }
    const envNames = (c.env ?? []).map((e) => e.name);
    const dup = envNames.filter((n, i) => envNames.indexOf(n) !== i);
    if (dup.length) fail(cw, `duplicate env ${[...new Set(dup)].join(", ")}`);
  }
}

// Secrets: rendered, made by a Certificate, or declared external.
const secretKnown = (ns, name) => externalSecrets.has(name) || has("Secret", ns, name) ||
  byKind("Certificate").some((c) => c.metadata.namespace === ns && c.spec?.secretName === name);
for (const w of workloads) {
  const where = `${w.kind}/${w.metadata.name}`;
  const ns = w.metadata.namespace;
  for (const v of w.spec?.template?.spec?.volumes ?? []) {
    const names = [v.secret?.secretName, ...(v.projected?.sources ?? []).map((src) => src.secret?.name)]
      .filter(Boolean);
    for (const n of names) {
      if (!secretKnown(ns, n)) fail(where, `volume ${v.name}: Secret ${n} is neither rendered, nor made by a Certificate, nor --external-secret`);
    }
  }
  for (const c of [...(w.spec?.template?.spec?.initContainers ?? []), ...(w.spec?.template?.spec?.containers ?? [])]) {
    const defined = new Set();
    for (const e of c.env ?? []) {
      for (const m of String(e.value ?? "").matchAll(/\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g)) {
        if (!defined.has(m[1])) fail(`${where} container ${c.name}`, `env ${e.name} refers to $(${m[1]}), not defined before it`);
      }
      defined.add(e.name);
    }
  }
}
for (const sm of byKind("ServiceMonitor")) {
  for (const ep of sm.spec?.endpoints ?? []) {
    const t = ep.tlsConfig ?? {};
    const refs = new Set([t.ca?.secret?.name, t.cert?.secret?.name, t.keySecret?.name,
      ep.basicAuth?.username?.name, ep.basicAuth?.password?.name].filter(Boolean));
    for (const n of refs) {
      if (!secretKnown(sm.metadata.namespace, n)) fail(`ServiceMonitor/${sm.metadata.name}`, `Secret ${n} is neither rendered, nor made by a Certificate, nor --external-secret`);
    }
  }
}
for (const cert of byKind("Certificate")) {
  const ref = cert.spec?.issuerRef ?? {};
  if ((ref.kind ?? "Issuer") === "Issuer" && !has("Issuer", cert.metadata.namespace, ref.name)) {
    fail(`Certificate/${cert.metadata.name}`, `Issuer ${ref.name} is not rendered`);
  }
}

for (const svc of byKind("Service")) {
  const where = `Service/${svc.metadata.name}`;
  const sel = svc.spec?.selector;
  if (!sel) continue;
  const targets = workloads.filter((w) =>
    w.metadata.namespace === svc.metadata.namespace && matches(sel, w.spec?.template?.metadata?.labels));
  if (targets.length === 0) {
    fail(where, "selects no pod template");
    continue;
  }
  for (const p of svc.spec.ports ?? []) {
    if (typeof p.targetPort !== "string") continue;
    const found = targets.some((w) => (w.spec.template.spec.containers ?? [])
      .some((c) => (c.ports ?? []).some((cp) => cp.name === p.targetPort)));
    if (!found) fail(where, `targetPort ${p.targetPort} is no container port of the selected pods`);
  }
}

for (const sm of byKind("ServiceMonitor")) {
  const where = `ServiceMonitor/${sm.metadata.name}`;
  const namespaces = sm.spec?.namespaceSelector?.matchNames ?? [sm.metadata.namespace];
  const services = byKind("Service").filter((s) =>
    namespaces.includes(s.metadata.namespace) && matches(sm.spec?.selector?.matchLabels, s.metadata.labels));
  if (services.length === 0) {
    fail(where, "selects no Service");
    continue;
  }
  for (const ep of sm.spec.endpoints ?? []) {
    if (ep.port && !services.some((s) => (s.spec.ports ?? []).some((p) => p.name === ep.port))) {
      fail(where, `endpoint port ${ep.port} is on no selected Service`);
    }
  }
  if (sm.spec.jobLabel && !services.every((s) => s.metadata.labels?.[sm.spec.jobLabel])) {
    fail(where, `jobLabel ${sm.spec.jobLabel} is missing on a selected Service`);
  }
}

for (const [kind, n] of expect) {
  const got = counts.get(kind) ?? 0;
  if (got !== n) fail("--expect", `${kind}: want ${n}, got ${got}`);
}

if (rulesOut) {
  const groups = byKind("PrometheusRule").flatMap((r) => r.spec?.groups ?? []);
  if (groups.length === 0) fail("--rules-out", "no PrometheusRule groups to write");
  writeFileSync(rulesOut, yaml.dump({ groups }, { lineWidth: -1 }));
}

const summary = [...counts].sort().map(([k, n]) => `${n} ${k}`).join(", ");
if (errors.length) {
  for (const e of errors) console.error(`validate_k8s: ${e}`);
  console.error(`validate_k8s: FAIL (${errors.length} problem(s)) in ${docs.length} object(s): ${summary}`);
  process.exit(1);
}
console.log(`validate_k8s: ok, ${docs.length} object(s): ${summary}`);
