// How the rendered chart's pods get GPUs (tests/deploy/check_chart.sh runs
// it on every profile): FabricPulse shares GPU nodes with training jobs the
// way dcgm-exporter does, so no pod ever requests a GPU resource; the GPU
// profile's agent sees the node's GPUs through the NVIDIA container runtime
// instead (helm/fabricpulse/README.md, "Sharing GPUs with training jobs").
//
//   node tests/deploy/gpu_sharing.mjs [--modules DIR] [--gpu RUNTIMECLASS] FILE...
//
// - No container of any pod requests or limits a resource whose name is
//   nvidia.com/* (nvidia.com/gpu, MIG slices) or contains "gpu".
// - With --gpu: the agent DaemonSet has runtimeClassName RUNTIMECLASS ("" =
//   none) and its container sets NVIDIA_VISIBLE_DEVICES=all and
//   NVIDIA_DRIVER_CAPABILITIES=compute,utility. Without it: none of these.
// Prints one line; exits 1 listing every problem.
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
let modulesDir = join(repo, ".tools/node/node_modules");
let runtimeClass = null; // null: not the GPU profile
const files = [];
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === "--modules") modulesDir = resolve(argv[++i]);
  else if (argv[i] === "--gpu") runtimeClass = argv[++i] ?? "";
  else files.push(argv[i]);
}
if (files.length === 0) {
  console.error("usage: gpu_sharing.mjs [--modules DIR] [--gpu RUNTIMECLASS] FILE...");
  process.exit(2);
}
const yaml = await import(pathToFileURL(join(modulesDir, "js-yaml/dist/js-yaml.mjs")).href);
const docs = files.flatMap((f) => yaml.loadAll(readFileSync(f, "utf8")).filter((d) => d));
const errors = [];
const fail = (where, msg) => errors.push(`${where}: ${msg}`);
const gpuResource = (name) => name.startsWith("nvidia.com/") || name.includes("gpu");
const nvidiaEnv = ["NVIDIA_VISIBLE_DEVICES", "NVIDIA_DRIVER_CAPABILITIES"];

let pods = 0;
let agents = 0;
for (const w of docs.filter((d) => ["Deployment", "DaemonSet", "StatefulSet", "Job"].includes(d.kind))) {
  const where = `${w.kind}/${w.metadata.name}`;
  const pod = w.spec.template.spec;
  pods++;
  for (const c of [...(pod.initContainers ?? []), ...(pod.containers ?? [])]) {
    for (const part of ["requests", "limits"]) {
      for (const name of Object.keys(c.resources?.[part] ?? {})) {
        if (gpuResource(name)) {
          fail(where, `container "${c.name}" has resources.${part}["${name}"]: a GPU resource takes GPUs from training pods`);
        }
      }
    }
  }
  if (w.kind !== "DaemonSet") continue;
  agents++;
  const env = new Map((pod.containers ?? []).flatMap((c) => (c.env ?? []).map((e) => [e.name, e.value])));
  if (runtimeClass === null) {
    if (pod.runtimeClassName) fail(where, `runtimeClassName ${pod.runtimeClassName} outside GPU mode`);
    for (const name of nvidiaEnv) {
      if (env.has(name)) fail(where, `${name} is set outside GPU mode`);
    }
    continue;
  }
  if ((pod.runtimeClassName ?? "") !== runtimeClass) {
    fail(where, `runtimeClassName is "${pod.runtimeClassName ?? ""}", want "${runtimeClass}"`);
  }
  if (env.get("NVIDIA_VISIBLE_DEVICES") !== "all") {
    fail(where, `NVIDIA_VISIBLE_DEVICES is ${JSON.stringify(env.get("NVIDIA_VISIBLE_DEVICES"))}, want "all"`);
  }
  if (env.get("NVIDIA_DRIVER_CAPABILITIES") !== "compute,utility") {
    fail(where, `NVIDIA_DRIVER_CAPABILITIES is ${JSON.stringify(env.get("NVIDIA_DRIVER_CAPABILITIES"))}, want "compute,utility"`);
  }
}
if (agents === 0 && runtimeClass !== null) fail("chart", "no agent DaemonSet rendered");
if (errors.length > 0) {
  console.error(`gpu_sharing: ${errors.length} problem(s):\n  ${errors.join("\n  ")}`);
  process.exit(1);
}
console.log(`gpu_sharing: ok, ${pods} pod templates, no GPU resource${runtimeClass !== null ? `; agent on runtime class "${runtimeClass}" with every GPU` : ""}`);
