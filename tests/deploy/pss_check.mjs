// Pod Security Standards checker: the checks of Kubernetes' PodSecurity
// admission (k8s.io/pod-security-admission, policy/check_*.go), ported line by
// line to JavaScript so that they run offline here, where neither Go nor the
// Kubernetes modules can be installed. It is NOT the upstream library: it is
// held to it by the upstream conformance fixtures (--conformance, below),
// which every pod must pass or fail exactly as they say.
//
//   node tests/deploy/pss_check.mjs --level baseline|restricted
//       [--version latest|v1.N] [--modules DIR] [--quiet] FILE...
//     Evaluates every Pod and every pod template (Deployment, DaemonSet,
//     StatefulSet, ReplicaSet, ReplicationController, Job, CronJob) in the
//     multi-document YAML FILEs. Prints one line per pod spec:
//       ok   DaemonSet/x  restricted:latest
//       DENY DaemonSet/x  violates PodSecurity "restricted:latest": <reasons>
//     with the admission plugin's own message format (reason (detail), ...).
//     Exits 1 when any is denied, 2 on bad usage or a file without pods.
//
//   node tests/deploy/pss_check.mjs --conformance DIR
//     DIR holds <version>-<level>-<pass|fail>.yaml, the upstream fixtures
//     (tests/deploy/pss-fixtures/, copied from test/testdata/ of
//     kubernetes/pod-security-admission): every "pass" pod must be allowed
//     and every "fail" pod denied at that level and version. Exits 1 on any
//     disagreement, naming the fixture.
//
// Versions: the checks carry their upstream minimum versions, so any v1.N
// evaluates as the admission plugin of that release would; "latest" is the
// newest version the port knows (maxVersion, below), as upstream maps
// "latest" to its newest. DIR/--modules default to .tools/node/node_modules.
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join, resolve, basename } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

// ---- helpers (policy/helpers.go, policy/visitor.go) -------------------------
const joinQuote = (items) => (items.length === 0 ? "" : `"${items.join('", "')}"`);
const pluralize = (singular, plural, n) => (n === 1 ? singular : plural);
const sortedSet = (set) => [...set].sort();
// Go's nil: a field that is absent or null.
const isNil = (v) => v === undefined || v === null;
function visitContainers(spec, fn) {
  for (const c of spec.initContainers ?? []) fn(c);
  for (const c of spec.containers ?? []) fn(c);
  for (const c of spec.ephemeralContainers ?? []) fn(c);
}
const isWindows = (spec) => !isNil(spec.os) && spec.os.name === "windows";
// relaxPolicyForUserNamespacePod: hostUsers explicitly false.
const userNamespaced = (spec) => !isNil(spec.hostUsers) && spec.hostUsers === false;
const allowed = { allowed: true };
const deny = (reason, detail) => ({ allowed: false, reason, detail });

// ---- checks (policy/check_*.go) -------------------------------------------
function allowPrivilegeEscalation_1_8(meta, spec) {
  const bad = [];
  visitContainers(spec, (c) => {
    const v = c.securityContext?.allowPrivilegeEscalation;
    if (isNil(c.securityContext) || isNil(v) || v === true) bad.push(c.name);
  });
  if (bad.length > 0) {
    return deny("allowPrivilegeEscalation != false",
      `${pluralize("container", "containers", bad.length)} ${joinQuote(bad)} must set securityContext.allowPrivilegeEscalation=false`);
  }
  return allowed;
}
const allowPrivilegeEscalation_1_25 = (meta, spec) =>
  isWindows(spec) ? allowed : allowPrivilegeEscalation_1_8(meta, spec);

const allowedAppArmorAnnotation = (p) =>
  p.length === 0 || p === "runtime/default" || p.startsWith("localhost/");
const allowedAppArmorType = (t) => t === "RuntimeDefault" || t === "Localhost";
function appArmorProfile_1_0(meta, spec) {
  const badSetters = [];
  const badValues = new Set();
  const podProfile = spec.securityContext?.appArmorProfile;
  if (!isNil(spec.securityContext) && !isNil(podProfile) && !allowedAppArmorType(podProfile.type ?? "")) {
    badSetters.push("pod");
    badValues.add(podProfile.type ?? "");
  }
  const badContainers = [];
  visitContainers(spec, (c) => {
    const p = c.securityContext?.appArmorProfile;
    if (!isNil(c.securityContext) && !isNil(p) && !allowedAppArmorType(p.type ?? "")) {
      badContainers.push(c.name);
      badValues.add(p.type ?? "");
    }
  });
  if (badContainers.length > 0) {
    badSetters.push(`${pluralize("container", "containers", badContainers.length)} ${joinQuote(badContainers)}`);
  }
  const forbiddenAnnotations = [];
  for (const [k, v] of Object.entries(meta.annotations ?? {})) {
    if (k.startsWith("container.apparmor.security.beta.kubernetes.io/") && !allowedAppArmorAnnotation(String(v))) {
      forbiddenAnnotations.push(`${k}=${JSON.stringify(String(v))}`);
    }
  }
  let badValueList = sortedSet(badValues);
  if (forbiddenAnnotations.length > 0) {
    forbiddenAnnotations.sort();
    badValueList = badValueList.concat(forbiddenAnnotations);
    badSetters.push(pluralize("annotation", "annotations", forbiddenAnnotations.length));
  }
  if (badSetters.length > 0) {
    return deny(pluralize("forbidden AppArmor profile", "forbidden AppArmor profiles", badValueList.length),
      `${badSetters.join(" and ")} must not set AppArmor profile type to ${joinQuote(badValueList)}`);
  }
  return allowed;
}

const capabilitiesAllowed_1_0 = new Set([
  "AUDIT_WRITE", "CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "KILL", "MKNOD",
  "NET_BIND_SERVICE", "SETFCAP", "SETGID", "SETPCAP", "SETUID", "SYS_CHROOT",
]);
function capabilitiesBaseline_1_0(meta, spec) {
  const bad = [];
  const nonDefault = new Set();
  visitContainers(spec, (c) => {
    const caps = c.securityContext?.capabilities;
    if (isNil(c.securityContext) || isNil(caps)) return;
    let valid = true;
    for (const cap of caps.add ?? []) {
      if (!capabilitiesAllowed_1_0.has(cap)) {
        valid = false;
        nonDefault.add(cap);
      }
    }
    if (!valid) bad.push(c.name);
  });
  if (bad.length > 0) {
    return deny("non-default capabilities",
      `${pluralize("container", "containers", bad.length)} ${joinQuote(bad)} must not include ${joinQuote(sortedSet(nonDefault))} in securityContext.capabilities.add`);
  }
  return allowed;
}

function capabilitiesRestricted_1_22(meta, spec) {
  const missingDropAll = [];
  const addingForbidden = [];
  const forbidden = new Set();
  visitContainers(spec, (c) => {
    const caps = c.securityContext?.capabilities;
    if (isNil(c.securityContext) || isNil(caps)) {
      missingDropAll.push(c.name);
      return;
    }
    if (!(caps.drop ?? []).some((d) => d === "ALL")) missingDropAll.push(c.name);
    let addedForbidden = false;
    for (const cap of caps.add ?? []) {
      if (cap !== "NET_BIND_SERVICE") {
        addedForbidden = true;
        forbidden.add(cap);
      }
    }
    if (addedForbidden) addingForbidden.push(c.name);
  });
  const details = [];
  if (missingDropAll.length > 0) {
    details.push(`${pluralize("container", "containers", missingDropAll.length)} ${joinQuote(missingDropAll)} must set securityContext.capabilities.drop=["ALL"]`);
  }
  if (addingForbidden.length > 0) {
    details.push(`${pluralize("container", "containers", addingForbidden.length)} ${joinQuote(addingForbidden)} must not include ${joinQuote(sortedSet(forbidden))} in securityContext.capabilities.add`);
  }
  if (details.length > 0) return deny("unrestricted capabilities", details.join("; "));
  return allowed;
}
const capabilitiesRestricted_1_25 = (meta, spec) =>
  isWindows(spec) ? allowed : capabilitiesRestricted_1_22(meta, spec);

function hostNamespaces_1_0(meta, spec) {
  const ns = [];
  if (spec.hostNetwork === true) ns.push("hostNetwork=true");
  if (spec.hostPID === true) ns.push("hostPID=true");
  if (spec.hostIPC === true) ns.push("hostIPC=true");
  if (ns.length > 0) return deny("host namespaces", ns.join(", "));
  return allowed;
}

function hostPathVolumes_1_0(meta, spec) {
  const vols = (spec.volumes ?? []).filter((v) => !isNil(v.hostPath)).map((v) => v.name);
  if (vols.length > 0) {
    return deny("hostPath volumes", `${pluralize("volume", "volumes", vols.length)} ${joinQuote(vols)}`);
  }
  return allowed;
}

function hostPorts_1_0(meta, spec) {
  const bad = [];
  const ports = new Set();
  visitContainers(spec, (c) => {
    let valid = true;
    for (const p of c.ports ?? []) {
      if ((p.hostPort ?? 0) !== 0) {
        valid = false;
        ports.add(String(p.hostPort));
      }
    }
    if (!valid) bad.push(c.name);
  });
  if (bad.length > 0) {
    return deny("hostPort",
      `${pluralize("container", "containers", bad.length)} ${joinQuote(bad)} ${pluralize("uses", "use", bad.length)} ${pluralize("hostPort", "hostPorts", ports.size)} ${sortedSet(ports).join(", ")}`);
  }
  return allowed;
}

function forbiddenHosts(handler) {
  if (isNil(handler)) return [];
  const hosts = [];
  if (!isNil(handler.httpGet) && (handler.httpGet.host ?? "") !== "") hosts.push(handler.httpGet.host);
  if (!isNil(handler.tcpSocket) && (handler.tcpSocket.host ?? "") !== "") hosts.push(handler.tcpSocket.host);
  return hosts;
}
function hostProbesAndHostLifecycle_1_34(meta, spec) {
  const bad = new Set();
  const forbidden = new Set();
  visitContainers(spec, (c) => {
    const handlers = [c.livenessProbe, c.readinessProbe, c.startupProbe];
    if (!isNil(c.lifecycle)) handlers.push(c.lifecycle.postStart, c.lifecycle.preStop);
    for (const h of handlers) {
      const hosts = forbiddenHosts(h);
      if (hosts.length > 0) {
        bad.add(c.name);
        hosts.forEach((x) => forbidden.add(x));
      }
    }
  });
  if (bad.size > 0) {
    return deny("probe or lifecycle host",
      `${pluralize("container", "containers", bad.size)} ${joinQuote(sortedSet(bad))} ${pluralize("uses", "use", bad.size)} ${pluralize("probe or lifecycle host", "probe or lifecycle hosts", forbidden.size)} ${joinQuote(sortedSet(forbidden))}`);
  }
  return allowed;
}

function privileged_1_0(meta, spec) {
  const bad = [];
  visitContainers(spec, (c) => {
    if (c.securityContext?.privileged === true) bad.push(c.name);
  });
  if (bad.length > 0) {
    return deny("privileged",
      `${pluralize("container", "containers", bad.length)} ${joinQuote(bad)} must not set securityContext.privileged=true`);
  }
  return allowed;
}

function procMount_1_0(meta, spec) {
  const bad = [];
  const types = new Set();
  visitContainers(spec, (c) => {
    const pm = c.securityContext?.procMount;
    if (isNil(c.securityContext) || isNil(pm)) return;
    if (pm !== "Default") {
      bad.push(c.name);
      types.add(pm);
    }
  });
  if (bad.length > 0) {
    return deny("procMount",
      `${pluralize("container", "containers", bad.length)} ${joinQuote(bad)} must not set securityContext.procMount to ${joinQuote(sortedSet(types))}`);
  }
  return allowed;
}
const procMount_1_35_baseline = (meta, spec) => (userNamespaced(spec) ? allowed : procMount_1_0(meta, spec));

// Volume sources allowed by restricted; every other one is named as upstream does.
const restrictedVolumeAllowed = ["configMap", "csi", "downwardAPI", "emptyDir", "ephemeral", "image",
  "persistentVolumeClaim", "projected", "secret"];
const restrictedVolumeNamed = ["hostPath", "gcePersistentDisk", "awsElasticBlockStore", "gitRepo", "nfs",
  "iscsi", "glusterfs", "rbd", "flexVolume", "cinder", "cephfs", "flocker", "fc", "azureFile",
  "vsphereVolume", "quobyte", "azureDisk", "photonPersistentDisk", "portworxVolume", "scaleIO", "storageos"];
function restrictedVolumes_1_0(meta, spec) {
  const bad = [];
  const types = new Set();
  for (const v of spec.volumes ?? []) {
    // The API server defaults a volume with no source to emptyDir
    // (SetDefaults_Volume) before admission sees it.
    if (![...restrictedVolumeAllowed, ...restrictedVolumeNamed].some((k) => !isNil(v[k]))) continue;
    if (restrictedVolumeAllowed.some((k) => !isNil(v[k]))) continue;
    bad.push(v.name);
    types.add(restrictedVolumeNamed.find((k) => !isNil(v[k])) ?? "unknown");
  }
  if (bad.length > 0) {
    return deny("restricted volume types",
      `${pluralize("volume", "volumes", bad.length)} ${joinQuote(bad)} ${pluralize("uses", "use", bad.length)} ${pluralize("restricted volume type", "restricted volume types", types.size)} ${joinQuote(sortedSet(types))}`);
  }
  return allowed;
}

function runAsNonRoot_1_0(meta, spec) {
  const badSetters = [];
  let podRunAsNonRoot = false;
  const podValue = spec.securityContext?.runAsNonRoot;
  if (!isNil(spec.securityContext) && !isNil(podValue)) {
    if (podValue !== true) badSetters.push("pod");
    else podRunAsNonRoot = true;
  }
  const explicitlyBad = [];
  const implicitlyBad = [];
  visitContainers(spec, (c) => {
    const v = c.securityContext?.runAsNonRoot;
    if (!isNil(c.securityContext) && !isNil(v)) {
      if (v !== true) explicitlyBad.push(c.name);
    } else if (!podRunAsNonRoot) {
      implicitlyBad.push(c.name);
    }
  });
  if (explicitlyBad.length > 0) {
    badSetters.push(`${pluralize("container", "containers", explicitlyBad.length)} ${joinQuote(explicitlyBad)}`);
  }
  if (badSetters.length > 0) {
    return deny("runAsNonRoot != true", `${badSetters.join(" and ")} must not set securityContext.runAsNonRoot=false`);
  }
  if (implicitlyBad.length > 0) {
    return deny("runAsNonRoot != true",
      `pod or ${pluralize("container", "containers", implicitlyBad.length)} ${joinQuote(implicitlyBad)} must set securityContext.runAsNonRoot=true`);
  }
  return allowed;
}
const runAsNonRoot_1_35 = (meta, spec) => (userNamespaced(spec) ? allowed : runAsNonRoot_1_0(meta, spec));

function runAsUser_1_23(meta, spec) {
  const badSetters = [];
  if (spec.securityContext?.runAsUser === 0) badSetters.push("pod");
  const bad = [];
  visitContainers(spec, (c) => {
    if (c.securityContext?.runAsUser === 0) bad.push(c.name);
  });
  if (bad.length > 0) badSetters.push(`${pluralize("container", "containers", bad.length)} ${joinQuote(bad)}`);
  if (badSetters.length > 0) return deny("runAsUser=0", `${badSetters.join(" and ")} must not set runAsUser=0`);
  return allowed;
}
const runAsUser_1_35 = (meta, spec) => (userNamespaced(spec) ? allowed : runAsUser_1_23(meta, spec));

const selinuxTypes_1_0 = new Set(["", "container_t", "container_init_t", "container_kvm_t"]);
const selinuxTypes_1_31 = new Set([...selinuxTypes_1_0, "container_engine_t"]);
function seLinuxOptions(meta, spec, allowedTypes) {
  const badSetters = [];
  const badTypes = new Set();
  let setUser = false;
  let setRole = false;
  const valid = (o) => {
    let ok = true;
    if (!allowedTypes.has(o.type ?? "")) {
      ok = false;
      badTypes.add(o.type ?? "");
    }
    if ((o.user ?? "").length > 0) {
      ok = false;
      setUser = true;
    }
    if ((o.role ?? "").length > 0) {
      ok = false;
      setRole = true;
    }
    return ok;
  };
  const podOpts = spec.securityContext?.seLinuxOptions;
  if (!isNil(spec.securityContext) && !isNil(podOpts) && !valid(podOpts)) badSetters.push("pod");
  const bad = [];
  visitContainers(spec, (c) => {
    const o = c.securityContext?.seLinuxOptions;
    if (!isNil(c.securityContext) && !isNil(o) && !valid(o)) bad.push(c.name);
  });
  if (bad.length > 0) badSetters.push(`${pluralize("container", "containers", bad.length)} ${joinQuote(bad)}`);
  if (badSetters.length > 0) {
    const data = [];
    if (badTypes.size > 0) data.push(`${pluralize("type", "types", badTypes.size)} ${joinQuote(sortedSet(badTypes))}`);
    if (setUser) data.push("user may not be set");
    if (setRole) data.push("role may not be set");
    return deny("seLinuxOptions",
      `${badSetters.join(" and ")} set forbidden securityContext.seLinuxOptions: ${data.join("; ")}`);
  }
  return allowed;
}
const seLinuxOptions_1_0 = (meta, spec) => seLinuxOptions(meta, spec, selinuxTypes_1_0);
const seLinuxOptions_1_31 = (meta, spec) => seLinuxOptions(meta, spec, selinuxTypes_1_31);

const validSeccomp = (t) => t === "Localhost" || t === "RuntimeDefault";
const validSeccompAnnotation = (v) => v === "runtime/default" || v === "docker/default" || v.startsWith("localhost/");
function seccompProfileBaseline_1_0(meta, spec) {
  const forbidden = new Set();
  const ann = meta.annotations ?? {};
  const podKey = "seccomp.security.alpha.kubernetes.io/pod";
  if (podKey in ann && !validSeccompAnnotation(String(ann[podKey]))) {
    forbidden.add(`${podKey}=${JSON.stringify(String(ann[podKey]))}`);
  }
  visitContainers(spec, (c) => {
    const key = `container.seccomp.security.alpha.kubernetes.io/${c.name}`;
    if (key in ann && !validSeccompAnnotation(String(ann[key]))) {
      forbidden.add(`${key}=${JSON.stringify(String(ann[key]))}`);
    }
  });
  if (forbidden.size > 0) {
    return deny("seccompProfile",
      `forbidden ${pluralize("annotation", "annotations", forbidden.size)} ${sortedSet(forbidden).join(", ")}`);
  }
  return allowed;
}
function seccompProfileBaseline_1_19(meta, spec) {
  const badSetters = [];
  const badValues = new Set();
  const podProfile = spec.securityContext?.seccompProfile;
  if (!isNil(spec.securityContext) && !isNil(podProfile) && !validSeccomp(podProfile.type)) {
    badSetters.push("pod");
    badValues.add(podProfile.type ?? "");
  }
  const bad = [];
  visitContainers(spec, (c) => {
    const p = c.securityContext?.seccompProfile;
    if (!isNil(c.securityContext) && !isNil(p) && !validSeccomp(p.type)) {
      bad.push(c.name);
      badValues.add(p.type ?? "");
    }
  });
  if (bad.length > 0) badSetters.push(`${pluralize("container", "containers", bad.length)} ${joinQuote(bad)}`);
  if (badSetters.length > 0) {
    return deny("seccompProfile",
      `${badSetters.join(" and ")} must not set securityContext.seccompProfile.type to ${joinQuote(sortedSet(badValues))}`);
  }
  return allowed;
}
function seccompProfileRestricted_1_19(meta, spec) {
  const badSetters = [];
  const badValues = new Set();
  let podSet = false;
  const podProfile = spec.securityContext?.seccompProfile;
  if (!isNil(spec.securityContext) && !isNil(podProfile)) {
    if (!validSeccomp(podProfile.type)) {
      badSetters.push("pod");
      badValues.add(podProfile.type ?? "");
    } else {
      podSet = true;
    }
  }
  const explicitlyBad = [];
  const implicitlyBad = [];
  visitContainers(spec, (c) => {
    const p = c.securityContext?.seccompProfile;
    if (!isNil(c.securityContext) && !isNil(p)) {
      if (!validSeccomp(p.type)) {
        explicitlyBad.push(c.name);
        badValues.add(p.type ?? "");
      }
    } else if (!podSet) {
      implicitlyBad.push(c.name);
    }
  });
  if (explicitlyBad.length > 0) {
    badSetters.push(`${pluralize("container", "containers", explicitlyBad.length)} ${joinQuote(explicitlyBad)}`);
  }
  if (badSetters.length > 0) {
    return deny("seccompProfile",
      `${badSetters.join(" and ")} must not set securityContext.seccompProfile.type to ${joinQuote(sortedSet(badValues))}`);
  }
  if (implicitlyBad.length > 0) {
    return deny("seccompProfile",
      `pod or ${pluralize("container", "containers", implicitlyBad.length)} ${joinQuote(implicitlyBad)} must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"`);
  }
  return allowed;
}
const seccompProfileRestricted_1_25 = (meta, spec) =>
  isWindows(spec) ? allowed : seccompProfileRestricted_1_19(meta, spec);

const sysctls_1_0 = new Set(["kernel.shm_rmid_forced", "net.ipv4.ip_local_port_range",
  "net.ipv4.tcp_syncookies", "net.ipv4.ping_group_range", "net.ipv4.ip_unprivileged_port_start"]);
const sysctls_1_27 = new Set([...sysctls_1_0, "net.ipv4.ip_local_reserved_ports"]);
const sysctls_1_29 = new Set([...sysctls_1_27, "net.ipv4.tcp_keepalive_time", "net.ipv4.tcp_fin_timeout",
  "net.ipv4.tcp_keepalive_intvl", "net.ipv4.tcp_keepalive_probes"]);
const sysctls_1_32 = new Set([...sysctls_1_29, "net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem"]);
const sysctls_1_37 = new Set([...sysctls_1_32, "net.ipv4.tcp_slow_start_after_idle", "net.ipv4.tcp_notsent_lowat"]);
const sysctls = (allowedSet) => (meta, spec) => {
  const forbidden = (spec.securityContext?.sysctls ?? []).map((s) => s.name).filter((n) => !allowedSet.has(n));
  if (forbidden.length > 0) return deny("forbidden sysctls", forbidden.join(", "));
  return allowed;
};

function windowsHostProcess_1_0(meta, spec) {
  const bad = [];
  visitContainers(spec, (c) => {
    if (c.securityContext?.windowsOptions?.hostProcess === true) bad.push(c.name);
  });
  const setters = [];
  if (spec.securityContext?.windowsOptions?.hostProcess === true) setters.push("pod");
  if (bad.length > 0) setters.push(`${pluralize("container", "containers", bad.length)} ${joinQuote(bad)}`);
  if (setters.length > 0) {
    return deny("hostProcess", `${setters.join(" and ")} must not set securityContext.windowsOptions.hostProcess=true`);
  }
  return allowed;
}

// ---- registry (policy/registry.go) ------------------------------------------
// [id, level, [[minimum minor of v1, fn, overridden baseline ids], ...]]
const checks = [
  ["allowPrivilegeEscalation", "restricted", [[8, allowPrivilegeEscalation_1_8], [25, allowPrivilegeEscalation_1_25]]],
  ["appArmorProfile", "baseline", [[0, appArmorProfile_1_0]]],
  ["capabilities_baseline", "baseline", [[0, capabilitiesBaseline_1_0]]],
  ["capabilities_restricted", "restricted", [[22, capabilitiesRestricted_1_22, ["capabilities_baseline"]],
    [25, capabilitiesRestricted_1_25, ["capabilities_baseline"]]]],
  ["hostNamespaces", "baseline", [[0, hostNamespaces_1_0]]],
  ["hostPathVolumes", "baseline", [[0, hostPathVolumes_1_0]]],
  ["hostPorts", "baseline", [[0, hostPorts_1_0]]],
  ["hostProbesAndHostLifecycle", "baseline", [[34, hostProbesAndHostLifecycle_1_34]]],
  ["privileged", "baseline", [[0, privileged_1_0]]],
  ["procMount", "baseline", [[0, procMount_1_0], [35, procMount_1_35_baseline]]],
  ["procMount_restricted", "restricted", [[35, procMount_1_0, ["procMount"]]]],
  ["restrictedVolumes", "restricted", [[0, restrictedVolumes_1_0, ["hostPathVolumes"]]]],
  ["runAsNonRoot", "restricted", [[0, runAsNonRoot_1_0], [35, runAsNonRoot_1_35]]],
  ["runAsUser", "restricted", [[23, runAsUser_1_23], [35, runAsUser_1_35]]],
  ["seLinuxOptions", "baseline", [[0, seLinuxOptions_1_0], [31, seLinuxOptions_1_31]]],
  ["seccompProfile_baseline", "baseline", [[0, seccompProfileBaseline_1_0], [19, seccompProfileBaseline_1_19]]],
  ["seccompProfile_restricted", "restricted", [[19, seccompProfileRestricted_1_19, ["seccompProfile_baseline"]],
    [25, seccompProfileRestricted_1_25, ["seccompProfile_baseline"]]]],
  ["sysctls", "baseline", [[0, sysctls(sysctls_1_0)], [27, sysctls(sysctls_1_27)], [29, sysctls(sysctls_1_29)],
    [32, sysctls(sysctls_1_32)], [37, sysctls(sysctls_1_37)]]],
  ["windowsHostProcess", "baseline", [[0, windowsHostProcess_1_0]]],
];
const maxVersion = Math.max(...checks.flatMap(([, , vs]) => vs.map(([m]) => m)));

// The checks of a level at v1.<minor>, in upstream order: baseline ids sorted,
// then restricted ids sorted; a restricted check's overrides drop the
// baseline checks it replaces at that version.
function checksFor(level, minor) {
  const active = (lvl) => checks.filter(([, l]) => l === lvl).map(([id, , vs]) => {
    const v = vs.filter(([m]) => m <= minor).pop();
    return v ? { id, fn: v[1], overrides: v[2] ?? [] } : undefined;
  }).filter(Boolean).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const baseline = active("baseline");
  if (level === "baseline") return baseline;
  const restricted = active("restricted");
  const overridden = new Set(restricted.flatMap((c) => c.overrides));
  return [...baseline.filter((c) => !overridden.has(c.id)), ...restricted];
}

function parseVersion(v) {
  if (v === "latest") return maxVersion;
  const m = /^v1\.(\d+)$/.exec(v);
  if (!m) throw new Error(`--version must be latest or v1.N, not ${JSON.stringify(v.slice(0, 20))}`);
  return Math.min(Number(m[1]), maxVersion); // newer than the port: evaluated as its newest, like upstream
}

// Evaluates one pod spec; returns "" when allowed, else the admission message.
export function evaluate(level, version, meta, spec) {
  const minor = parseVersion(version);
  const denied = checksFor(level, minor).map((c) => c.fn(meta ?? {}, spec ?? {})).filter((r) => !r.allowed);
  if (denied.length === 0) return "";
  const detail = denied.map((r) => (r.detail ? `${r.reason} (${r.detail})` : r.reason)).join(", ");
  return `violates PodSecurity "${level}:${version}": ${detail}`;
}

// Pod specs of a document: a Pod, or the pod template of a workload.
function podsOf(doc) {
  switch (doc?.kind) {
    case "Pod":
      return [{ meta: doc.metadata, spec: doc.spec }];
    case "Deployment": case "DaemonSet": case "StatefulSet": case "ReplicaSet":
    case "ReplicationController": case "Job": case "PodTemplate":
      return [{ meta: (doc.template ?? doc.spec?.template)?.metadata, spec: (doc.template ?? doc.spec?.template)?.spec }];
    case "CronJob":
      return [{ meta: doc.spec?.jobTemplate?.spec?.template?.metadata, spec: doc.spec?.jobTemplate?.spec?.template?.spec }];
    default:
      return [];
  }
}

// ---- command line -----------------------------------------------------------
async function main() {
  let modulesDir = join(repo, ".tools/node/node_modules");
  let level = "";
  let version = "latest";
  let conformance = "";
  let quiet = false;
  const files = [];
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--modules") modulesDir = resolve(argv[++i]);
    else if (argv[i] === "--level") level = argv[++i];
    else if (argv[i] === "--version") version = argv[++i];
    else if (argv[i] === "--conformance") conformance = argv[++i];
    else if (argv[i] === "--quiet") quiet = true;
    else files.push(argv[i]);
  }
  const usage = (msg) => {
    console.error(`pss_check: ${msg}\nusage: pss_check.mjs --level baseline|restricted [--version latest|v1.N] FILE...\n       pss_check.mjs --conformance DIR`);
    process.exit(2);
  };
  const yaml = await import(pathToFileURL(join(modulesDir, "js-yaml/dist/js-yaml.mjs")).href);
  const loadDocs = (f) => yaml.loadAll(readFileSync(f, "utf8")).filter((d) => d);

  if (conformance) {
    let agree = 0;
    const wrong = [];
    const seen = new Set();
    for (const f of readdirSync(conformance).filter((n) => n.endsWith(".yaml")).sort()) {
      const m = /^(v1\.\d+)-(baseline|restricted)-(pass|fail)\.yaml$/.exec(f);
      if (!m) usage(`unexpected fixture file ${f}`);
      const [, ver, lvl, want] = m;
      seen.add(`${ver}-${lvl}-${want}`);
      for (const doc of loadDocs(join(conformance, f))) {
        const msg = evaluate(lvl, ver, doc.metadata, doc.spec);
        if ((msg === "") === (want === "pass")) agree++;
        else wrong.push(`${f} ${doc.metadata?.name}: expected ${want === "pass" ? "allowed" : "denied"}, got ${msg || "allowed"}`);
      }
    }
    if (seen.size === 0) usage(`no fixtures in ${conformance}`);
    for (const w of wrong) console.error(`pss_check: conformance: ${w}`);
    const summary = `${agree} of ${agree + wrong.length} upstream fixtures agree (${[...seen].sort().join(", ")})`;
    if (wrong.length > 0) {
      console.error(`pss_check: FAIL: ${summary}`);
      process.exit(1);
    }
    console.log(`pss_check: ok, ${summary}`);
    return;
  }

  if (level !== "baseline" && level !== "restricted") usage("--level must be baseline or restricted");
  try {
    parseVersion(version);
  } catch (e) {
    usage(e.message);
  }
  if (files.length === 0) usage("no FILE");
  let pods = 0;
  let denied = 0;
  for (const f of files) {
    for (const doc of loadDocs(f)) {
      for (const { meta, spec } of podsOf(doc)) {
        pods++;
        const where = `${doc.kind}/${doc.metadata?.name ?? "?"}`;
        const msg = evaluate(level, version, meta, spec);
        if (msg) {
          denied++;
          console.log(`DENY ${where} (${basename(f)}): ${msg}`);
        } else if (!quiet) {
          console.log(`ok   ${where} (${basename(f)}) ${level}:${version}`);
        }
      }
    }
  }
  if (pods === 0) usage(`no Pod or pod template in ${files.join(", ")}`);
  if (denied > 0) process.exit(1);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
