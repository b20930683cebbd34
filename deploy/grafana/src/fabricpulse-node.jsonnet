// FabricPulse node view: one or more nodes' agents, workers, GPUs and ranks.
local g = import 'lib.libsonnet';

local n = 'node=~"$node"';
local rankSel = 'node=~"$node", plan=~"$plan", op=~"$op", size=~"$size"';
local scrapeLabels = ['Time', '__name__', 'job', 'instance'];

// The node label of each agent endpoint (job, instance): its own series of
// the last day, so that an endpoint Prometheus no longer reaches keeps it.
local agentNode = 'max by (cluster, namespace, job, instance, node) (last_over_time(%s[1d]))' % g.sel('fabricpulse_agent_workers', n);

g.dashboard(
  uid='fabricpulse-node',
  title='FabricPulse / Node',
  description='Per-node agent health and version, worker restarts, GPU busy and memory, NICs, per-rank latency, late-arrival and wrong-element counts and hang culprits.',
  variables=[
    g.queryVariable('node', 'Node', g.sel('fabricpulse_agent_workers'), 'node'),
    g.queryVariable('plan', 'Plan', g.sel('fabricpulse_agent_rank_latency_seconds', n), 'plan'),
    g.queryVariable('op', 'Op', g.sel('fabricpulse_agent_rank_latency_seconds', n + ', plan=~"$plan"'), 'op'),
    g.queryVariable('size', 'Size (bytes)', g.sel('fabricpulse_agent_rank_latency_seconds', n + ', plan=~"$plan", op=~"$op"'), 'size', sort=3),
  ],
  panels=[
    g.row('Agent and workers'),
    g.stat(
      'Agent scrape',
      'Whether Prometheus reaches the node\'s agent (up), named by the node label of the agent\'s own series in the last day.',
      [g.target(
        '(%s * 0)\n  + on(cluster, namespace, job, instance) group_left()\n    %s' % [agentNode, g.sel('up', g.agentJob)],
        '{{node}}'
      )],
      mappings=g.valueMappings([['0', 'DOWN', 'red'], ['1', 'UP', 'green']]),
    ),
    g.stat(
      'Workers ready / configured',
      'Workers ready and configured on each node.',
      [
        g.target(g.sel('fabricpulse_agent_workers_ready', n), '{{node}} ready', 'A'),
        g.target(g.sel('fabricpulse_agent_workers', n), '{{node}} configured', 'B'),
      ],
      thresholds=g.thresholds([{ color: 'blue', value: null }]),
    ),
    g.stat(
      'Worker restarts (time range)',
      'Workers the agent restarted after they died or hung, over the dashboard\'s time range.',
      [g.target('sum by (node) (increase(%s[$__range]))' % g.sel('fabricpulse_agent_worker_restarts_total', n), '{{node}}', instant=true)],
      thresholds=g.thresholds([
        { color: 'green', value: null },
        { color: 'orange', value: 1 },
        { color: 'red', value: 3 },
      ]),
    ),
    g.stat(
      'Hangs (time range)',
      'Failed sweeps whose diagnosis named a culprit on the node, over the dashboard\'s time range.',
      [g.target('sum by (node) (increase(%s[$__range]))' % g.sel('fabricpulse_hangs_total', n), '{{node}}', instant=true)],
      thresholds=g.thresholds([{ color: 'green', value: null }, { color: 'red', value: 1 }]),
    ),
    g.table(
      'Agent version',
      'The FabricPulse version each node\'s agent runs (fabricpulse_build_info of the agent\'s endpoint, named by the node label of its own series in the last day). The fleet dashboard\'s Versions counts every daemon.',
      [g.tableTarget(
        '(%s * 0)\n  + on(cluster, namespace, job, instance) group_left(version)\n    %s' % [agentNode, g.sel('fabricpulse_build_info', 'component="agent"')]
      )],
      transformations=[{
        id: 'organize',
        options: { excludeByName: { Time: true, Value: true }, indexByName: { node: 0, version: 1 }, renameByName: {} },
      }],
      sortBy=[{ desc: false, displayName: 'node' }],
    ),
    g.timeseries(
      'Worker restarts per hour',
      'Worker restarts in the preceding hour. FabricPulseWorkerRestarts fires at 3.',
      [g.target('increase(%s[1h])' % g.sel('fabricpulse_agent_worker_restarts_total', n), '{{node}}')],
      bars=true,
    ),

    g.row('GPUs'),
    g.stateTimeline(
      'GPU busy',
      'Other compute processes on the GPU (NVML). Scheduled sweeps skip busy GPUs.',
      [g.target(g.sel('fabricpulse_agent_gpu_busy', n), '{{node}} GPU {{gpu}}')],
      g.valueMappings([['0', 'idle', 'green'], ['1', 'busy', 'orange']]),
    ),
    g.timeseries(
      'GPU memory per worker',
      'GPU memory each local worker holds on each GPU (NVML\'s per-process figure, as nvidia-smi shows it; fabricpulse_agent_worker_gpu_memory_bytes). 0 while a worker holds no CUDA context (before its first sweep, after --release-idle-after); after a hung sweep the killed worker\'s memory must come back. No series for CPU ranks, without NVML, or in a container without hostPID.',
      [g.target(g.sel('fabricpulse_agent_worker_gpu_memory_bytes', n), '{{node}} worker {{worker}} GPU {{gpu}}')],
      unit='bytes',
    ),

    g.row('NICs'),
    g.stateTimeline(
      'NIC link state',
      'Each network interface\'s operational state (sysfs operstate, read at each scrape; fabricpulse_agent_nic_up). Loopback and virtual interfaces (veth, bridges, bonds, VLANs) are not exported; at most 16 per node.',
      [g.target(g.sel('fabricpulse_agent_nic_up', n), '{{node}} {{nic}}')],
      g.valueMappings([['0', 'down', 'red'], ['1', 'up', 'green']]),
    ),
    g.table(
      'NICs',
      'Each network interface now: link state and speed (fabricpulse_agent_nic_up, fabricpulse_agent_nic_speed_bytes; no speed when the interface reports none, e.g. while its link is down or in a VM).',
      [
        g.tableTarget(g.sel('fabricpulse_agent_nic_up', n), 'A'),
        g.tableTarget(g.sel('fabricpulse_agent_nic_speed_bytes', n), 'B'),
      ],
      transformations=[
        { id: 'merge', options: {} },
        {
          id: 'organize',
          options: {
            excludeByName: { [c]: true for c in scrapeLabels },
            indexByName: { node: 0, nic: 1, 'Value #A': 2, 'Value #B': 3 },
            renameByName: { 'Value #A': 'link', 'Value #B': 'speed' },
          },
        },
      ],
      overrides=[
        g.override('link', {
          mappings: g.valueMappings([['0', 'DOWN', 'red'], ['1', 'up', 'green']]),
          'custom.cellOptions': { type: 'color-background' },
        }),
        g.override('speed', { unit: 'Bps' }),
      ],
      sortBy=[{ desc: false, displayName: 'link' }],
    ),

    g.row('Ranks'),
    g.timeseries(
      'Per-rank latency',
      'Each rank\'s mean time per op in its plan\'s last sweep on its node, at the op\'s smallest and largest size, as its agent reports it (a plan\'s next sweep replaces its series; every step is in the history).',
      [g.target(g.sel('fabricpulse_agent_rank_latency_seconds', rankSel), '{{node}} rank {{rank}} {{plan}} {{op}} {{size}} B')],
      unit='s',
      h=9,
    ),
    g.timeseries(
      'Per-rank latency / fastest rank',
      'Each rank\'s time over the fastest rank\'s for the same plan, op and size, across all nodes: 1 is the fastest, a straggler stands out above.',
      [g.target(
        '%s\n  / on(cluster, namespace, plan, op, size) group_left()\n    min by (cluster, namespace, plan, op, size) (%s)' % [
          g.sel('fabricpulse_agent_rank_latency_seconds', rankSel),
          g.sel('fabricpulse_agent_rank_latency_seconds', 'plan=~"$plan", op=~"$op", size=~"$size"'),
        ],
        '{{node}} rank {{rank}} {{plan}} {{op}} {{size}} B'
      )],
      unit='suffix:x',
      h=9,
    ),
    g.table(
      'Per-rank latency, slowest first',
      'Each rank\'s mean time per op in its plan\'s last sweep on its node, at the op\'s smallest and largest size.',
      [g.tableTarget('sort_desc(%s)' % g.sel('fabricpulse_agent_rank_latency_seconds', rankSel))],
      transformations=[{
        id: 'organize',
        options: { excludeByName: { [c]: true for c in scrapeLabels }, indexByName: {}, renameByName: { Value: 'time (mean)' } },
      }],
      overrides=[g.override('time (mean)', { unit: 's' })],
      sortBy=[{ desc: true, displayName: 'time (mean)' }],
    ),
    g.table(
      'Late-arrival counts (time range)',
      'Steps in which the rank entered the collective last by the straggler margin (>= 200 us after the median rank, >= 3 x the other ranks\' spread and >= 5 % of the step time), over the dashboard\'s time range. A rank that leads this table consistently is a straggler: its host makes every other rank wait.',
      [g.tableTarget('sort_desc(sum by (node, rank) (increase(%s[$__range])))' % g.sel('fabricpulse_late_arrival_total', n))],
      transformations=[{
        id: 'organize',
        options: { excludeByName: { Time: true }, indexByName: {}, renameByName: { Value: 'late in steps' } },
      }],
      overrides=[g.override('late in steps', { decimals: 0 })],
      sortBy=[{ desc: true, displayName: 'late in steps' }],
    ),
    g.timeseries(
      'Late-arrival counts per hour',
      'Steps in which the rank entered the collective last by the straggler margin, in the preceding hour.',
      [g.target('sum by (node, rank) (increase(%s[1h]))' % g.sel('fabricpulse_late_arrival_total', n), '{{node}} rank {{rank}}')],
      w=12,
      bars=true,
    ),
    g.timeseries(
      'Wrong elements per rank per hour',
      'Wrong output elements the data check found on each rank in the preceding hour (sweeps with --check). Anything above zero is a corrupting GPU, link or NIC on that rank.',
      [g.target('sum by (node, rank) (increase(%s[1h]))' % g.sel('fabricpulse_wrong_elements_total', n), '{{node}} rank {{rank}}')],
      w=12,
      bars=true,
    ),

    g.row('Hangs'),
    g.table(
      'Hang culprit (last failed sweep)',
      'The rank and GPU the last failed sweep\'s diagnosis named, if on these nodes.',
      [g.tableTarget('%s == 1' % g.sel('fabricpulse_hang_culprit', n))],
      transformations=[{
        id: 'organize',
        options: { excludeByName: { [c]: true for c in scrapeLabels + ['Value'] }, indexByName: {}, renameByName: {} },
      }],
    ),
    g.timeseries(
      'Hangs per hour',
      'Failed sweeps whose diagnosis named a culprit on the node, in the preceding hour.',
      [g.target('increase(%s[1h])' % g.sel('fabricpulse_hangs_total', n), '{{node}}')],
      bars=true,
    ),
  ],
)
