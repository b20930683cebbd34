// Security properties of the rendered chart that neither the Kubernetes
// schemas nor Pod Security look at (tests/deploy/check_chart.sh runs it on
// every profile):
//
//   node tests/deploy/chart_security.mjs [--modules DIR] [--insecure] FILE...
//
// - TLS wiring: both daemons get FABRICPULSE_TLS_CERT/_KEY/_CA and
//   FABRICPULSE_TRUST_DOMAIN and no FABRICPULSE_INSECURE (with --insecure:
//   the reverse, and no TLS volume); each TLS file lies under a read-only
//   mount of a volume that is a Secret / projected Secrets with mode 0440
//   (288) or a hostPath; the agent's files are named by $(NODE_NAME) unless
//   they come from the node (hostPath).
// - cert-manager: every Certificate names exactly one identity
//   spiffe://<FABRICPULSE_TRUST_DOMAIN>/<role>/<name> of a known role (or
//   none, for the metrics serving certificates); every agent Certificate's
//   Secret is projected into the agent pods under <node>.crt / <node>.key,
//   where <node> is the name in its URI SAN.
// - NetworkPolicy: every ingress peer is pinned to a namespace by
//   kubernetes.io/metadata.name (set by the API server only) or is an
//   ipBlock or a bare namespaceSelector: a bare podSelector (which any pod
//   of the namespace can satisfy by copying labels) is refused; the agents'
//   gRPC port admits the coordinator only.
// Prints one line; exits 1 listing every problem.
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
let modulesDir = join(repo, ".tools/node/node_modules");
let insecure = false;
const files = [];
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === "--modules") modulesDir = resolve(argv[++i]);
  else if (argv[i] === "--insecure") insecure = true;
  else files.push(argv[i]);
}
if (files.length === 0) {
  console.error("usage: chart_security.mjs [--modules DIR] [--insecure] FILE...");
  process.exit(2);
}
const yaml = await import(pathToFileURL(join(modulesDir, "js-yaml/dist/js-yaml.mjs")).href);
const docs = files.flatMap((f) => yaml.loadAll(readFileSync(f, "utf8")).filter((d) => d));
const errors = [];
const fail = (where, msg) => errors.push(`${where}: ${msg}`);
const byKind = (k) => docs.filter((d) => d.kind === k);
const component = (d) => d.metadata?.labels?.["app.kubernetes.io/component"];

const roles = new Set(["coordinator", "agent", "operator", "viewer"]);
let trustDomain = "";
const agentPods = [];
let checkedContainers = 0;

for (const w of [...byKind("Deployment"), ...byKind("DaemonSet")]) {
  const where = `${w.kind}/${w.metadata.name}`;
  const pod = w.spec.template.spec;
  const volumes = new Map((pod.volumes ?? []).map((v) => [v.name, v]));
  if (w.kind === "DaemonSet") agentPods.push(pod);
  for (const c of pod.containers ?? []) {
    checkedContainers++;
    const env = new Map((c.env ?? []).map((e) => [e.name, e.value]));
    const tlsEnv = ["FABRICPULSE_TLS_CERT", "FABRICPULSE_TLS_KEY", "FABRICPULSE_TLS_CA"];
    if (insecure) {
      if (env.get("FABRICPULSE_INSECURE") !== "1") fail(where, "--insecure: FABRICPULSE_INSECURE is not \"1\"");
      for (const n of tlsEnv) if (env.has(n)) fail(where, `--insecure: ${n} is set`);
      if (volumes.has("tls")) fail(where, "--insecure: a tls volume is mounted");
      continue;
    }
    if (env.has("FABRICPULSE_INSECURE")) fail(where, "FABRICPULSE_INSECURE is set without --insecure");
    const td = env.get("FABRICPULSE_TRUST_DOMAIN");
    if (!td) fail(where, "FABRICPULSE_TRUST_DOMAIN is not set");
    else if (trustDomain && td !== trustDomain) fail(where, `trust domain ${td} differs from ${trustDomain}`);
    else trustDomain = td;
    for (const n of tlsEnv) {
      const file = env.get(n);
      if (!file) {
        fail(where, `${n} is not set`);
        continue;
      }
      // The innermost mount holding the file.
      const mount = (c.volumeMounts ?? []).filter((m) => file.startsWith(`${m.mountPath}/`))
        .sort((a, b) => b.mountPath.length - a.mountPath.length)[0];
      if (!mount) {
        fail(where, `${n}=${file} is under no volume mount`);
        continue;
      }
      if (mount.readOnly !== true) fail(where, `${n}: mount ${mount.name} is not readOnly`);
      const v = volumes.get(mount.name);
      const mode = v?.secret?.defaultMode ?? v?.projected?.defaultMode;
      if (v?.hostPath) continue;
      if (!v?.secret && !(v?.projected?.sources ?? []).every((s) => s.secret)) {
        fail(where, `${n}: volume ${mount.name} is neither Secrets nor a hostPath`);
      } else if (mode !== 288) {
        fail(where, `${n}: volume ${mount.name} has mode ${mode} (want 288 = 0440)`);
      }
      if (w.kind === "DaemonSet" && n !== "FABRICPULSE_TLS_CA" && !file.includes("$(NODE_NAME)")) {
        fail(where, `${n}=${file}: every agent pod would read the same key (no $(NODE_NAME))`);
      }
    }
  }
}
if (checkedContainers === 0) fail("workloads", "no Deployment or DaemonSet");

for (const cert of byKind("Certificate")) {
  const where = `Certificate/${cert.metadata.name}`;
  if (cert.spec.isCA) continue;
  const uris = cert.spec.uris ?? [];
  if (component(cert) === "metrics") {
    if (uris.length) fail(where, "a metrics serving certificate must carry no identity");
    continue;
  }
  if (uris.length !== 1) {
    fail(where, `has ${uris.length} URI SANs, want 1 identity`);
    continue;
  }
  const m = /^spiffe:\/\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(uris[0]);
  if (!m || !roles.has(m[2])) {
    fail(where, `URI SAN ${uris[0]} is no spiffe://<trust domain>/<role>/<name>`);
    continue;
  }
  if (trustDomain && m[1] !== trustDomain) fail(where, `trust domain ${m[1]}, the daemons use ${trustDomain}`);
  const expectRole = { coordinator: "coordinator", agent: "agent", cli: "operator|viewer" }[component(cert)];
  if (!expectRole || !new RegExp(`^(${expectRole})$`).test(m[2])) fail(where, `role ${m[2]} for component ${component(cert)}`);
  if (m[2] === "agent") {
    const node = m[3];
    const projected = agentPods.some((p) => (p.volumes ?? []).some((v) => (v.projected?.sources ?? []).some((s) =>
      s.secret?.name === cert.spec.secretName &&
      (s.secret.items ?? []).some((i) => i.key === "tls.crt" && i.path === `${node}.crt`) &&
      (s.secret.items ?? []).some((i) => i.key === "tls.key" && i.path === `${node}.key`))));
    if (!projected) fail(where, `Secret ${cert.spec.secretName} is not projected into the agent pods as ${node}.crt / ${node}.key`);
  }
}

const pinned = (peer) => peer.ipBlock ||
  (peer.namespaceSelector && !peer.podSelector) ||
  (peer.namespaceSelector?.matchLabels?.["kubernetes.io/metadata.name"] && peer.podSelector);
for (const np of byKind("NetworkPolicy")) {
  const where = `NetworkPolicy/${np.metadata.name}`;
  for (const rule of np.spec.ingress ?? []) {
    if (!rule.from) fail(where, `a rule admits every source (no from) on ${JSON.stringify(rule.ports ?? "all ports")}`);
    for (const peer of rule.from ?? []) {
      if (!pinned(peer)) fail(where, `peer ${JSON.stringify(peer)} is a pod selector not pinned to a namespace by kubernetes.io/metadata.name`);
    }
  }
  if (component(np) === "agent") {
    const grpc = (np.spec.ingress ?? []).filter((r) => (r.ports ?? []).some((p) => p.port === "grpc"));
    const peers = grpc.flatMap((r) => r.from ?? []);
    if (peers.length === 0 || !peers.every((p) => p.podSelector?.matchLabels?.["app.kubernetes.io/component"] === "coordinator")) {
      fail(where, "the agents' gRPC port admits more than the coordinator");
    }
  }
}

if (errors.length) {
  for (const e of errors) console.error(`chart_security: ${e}`);
  console.error(`chart_security: FAIL (${errors.length} problem(s))`);
  process.exit(1);
}
console.log(`chart_security: ok, ${checkedContainers} container(s), ${byKind("Certificate").length} Certificate(s), ` +
  `${byKind("NetworkPolicy").length} NetworkPolicy(s)${insecure ? " (insecure)" : `, trust domain ${trustDomain}`}`);
