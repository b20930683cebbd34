// FabricPulse node view: one or more nodes' agents, workers, GPUs and ranks.
local g = import 'lib.libsonnet';

local n = 'node=~"$node"';
local rankSel = 'node=~"$node", plan=~"$plan", op=~"$op", size=~"$size"';
local scrapeLabels = ['Time', '__name__', 'job', 'instance'];

g.dashboard(
  uid='fabricpulse-node',
  title='FabricPulse / Node',
  description='Per-node agent health, worker restarts, GPU busy, per-rank latency, late-arrival and wrong-element counts and hang culprits.',
  variables=[
    g.queryVariable('node', 'Node', 'fabricpulse_agent_workers', 'node'),
    g.queryVariable('plan', 'Plan', 'fabricpulse_agent_rank_latency_seconds{%s}' % n, 'plan'),
    g.queryVariable('op', 'Op', 'fabricpulse_agent_rank_latency_seconds{%s, plan=~"$plan"}' % n, 'op'),
    g.queryVariable('size', 'Size (bytes)', 'fabricpulse_agent_rank_latency_seconds{%s, plan=~"$plan", op=~"$op"}' % n, 'size', sort=3),
  ],
  panels=[
    g.row('Agent and workers'),
    g.stat(
      'Agent scrape',
      'Whether Prometheus reaches the node\'s agent (up), named by the node label of the agent\'s own series in the last day.',
      [g.target(
        '(max by (job, instance, node) (last_over_time(fabricpulse_agent_workers{%s}[1d])) * 0)\n  + on(job, instance) group_left()\n    up{%s}' % [n, g.agentJob],
        '{{node}}'
      )],
      mappings=g.valueMappings([['0', 'DOWN', 'red'], ['1', 'UP', 'green']]),
    ),
    g.stat(
      'Workers ready / configured',
      'Workers ready and configured on each node.',
      [
        g.target('fabricpulse_agent_workers_ready{%s}' % n, '{{node}} ready', 'A'),
        g.target('fabricpulse_agent_workers{%s}' % n, '{{node}} configured', 'B'),
      ],
      thresholds=g.thresholds([{ color: 'blue', value: null }]),
    ),
    g.stat(
      'Worker restarts (time range)',
      'Workers the agent restarted after they died or hung, over the dashboard\'s time range.',
      [g.target('sum by (node) (increase(fabricpulse_agent_worker_restarts_total{%s}[$__range]))' % n, '{{node}}', instant=true)],
      thresholds=g.thresholds([
        { color: 'green', value: null },
        { color: 'orange', value: 1 },
        { color: 'red', value: 3 },
      ]),
    ),
    g.stat(
      'Hangs (time range)',
      'Failed sweeps whose diagnosis named a culprit on the node, over the dashboard\'s time range.',
      [g.target('sum by (node) (increase(fabricpulse_hangs_total{%s}[$__range]))' % n, '{{node}}', instant=true)],
      thresholds=g.thresholds([{ color: 'green', value: null }, { color: 'red', value: 1 }]),
    ),
    g.timeseries(
      'Worker restarts per hour',
      'Worker restarts in the preceding hour. FabricPulseWorkerRestarts fires at 3.',
      [g.target('increase(fabricpulse_agent_worker_restarts_total{%s}[1h])' % n, '{{node}}')],
      bars=true,
    ),
    g.stateTimeline(
      'GPU busy',
      'Other compute processes on the GPU (NVML). Scheduled sweeps skip busy GPUs.',
      [g.target('fabricpulse_agent_gpu_busy{%s}' % n, '{{node}} GPU {{gpu}}')],
      g.valueMappings([['0', 'idle', 'green'], ['1', 'busy', 'orange']]),
    ),

    g.row('Ranks'),
    g.timeseries(
      'Per-rank latency',
      'Each rank\'s mean time per op in its plan\'s last sweep on its node, at the op\'s smallest and largest size, as its agent reports it (a plan\'s next sweep replaces its series; every step is in the history).',
      [g.target('fabricpulse_agent_rank_latency_seconds{%s}' % rankSel, '{{node}} rank {{rank}} {{plan}} {{op}} {{size}} B')],
      unit='s',
      h=9,
    ),
    g.timeseries(
      'Per-rank latency / fastest rank',
      'Each rank\'s time over the fastest rank\'s for the same plan, op and size, across all nodes: 1 is the fastest, a straggler stands out above.',
      [g.target(
        'fabricpulse_agent_rank_latency_seconds{%s}\n  / on(plan, op, size) group_left()\n    min by (plan, op, size) (fabricpulse_agent_rank_latency_seconds{plan=~"$plan", op=~"$op", size=~"$size"})' % rankSel,
        '{{node}} rank {{rank}} {{plan}} {{op}} {{size}} B'
      )],
      unit='suffix:x',
      h=9,
    ),
    g.table(
      'Per-rank latency, slowest first',
      'Each rank\'s mean time per op in its plan\'s last sweep on its node, at the op\'s smallest and largest size.',
      [g.tableTarget('sort_desc(fabricpulse_agent_rank_latency_seconds{%s})' % rankSel)],
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
      [g.tableTarget('sort_desc(sum by (node, rank) (increase(fabricpulse_late_arrival_total{%s}[$__range])))' % n)],
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
      [g.target('sum by (node, rank) (increase(fabricpulse_late_arrival_total{%s}[1h]))' % n, '{{node}} rank {{rank}}')],
      w=12,
      bars=true,
    ),
    g.timeseries(
      'Wrong elements per rank per hour',
      'Wrong output elements the data check found on each rank in the preceding hour (sweeps with --check). Anything above zero is a corrupting GPU, link or NIC on that rank.',
      [g.target('sum by (node, rank) (increase(fabricpulse_wrong_elements_total{%s}[1h]))' % n, '{{node}} rank {{rank}}')],
      w=12,
      bars=true,
    ),

    g.row('Hangs'),
    g.table(
      'Hang culprit (last failed sweep)',
      'The rank and GPU the last failed sweep\'s diagnosis named, if on these nodes.',
      [g.tableTarget('fabricpulse_hang_culprit{%s} == 1' % n)],
      transformations=[{
        id: 'organize',
        options: { excludeByName: { [c]: true for c in scrapeLabels + ['Value'] }, indexByName: {}, renameByName: {} },
      }],
    ),
    g.timeseries(
      'Hangs per hour',
      'Failed sweeps whose diagnosis named a culprit on the node, in the preceding hour.',
      [g.target('increase(fabricpulse_hangs_total{%s}[1h])' % n, '{{node}}')],
      bars=true,
    ),
  ],
)
