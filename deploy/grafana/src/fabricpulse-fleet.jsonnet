// FabricPulse fleet overview: is the fabric healthy, and where is it not?
local g = import 'lib.libsonnet';

local sel = 'plan=~"$plan", op=~"$op"';
local scrapeLabels = ['Time', '__name__', 'job', 'instance'];

g.dashboard(
  uid='fabricpulse-fleet',
  title='FabricPulse / Fleet',
  description='Collective bandwidth at the largest size, sweep status, regressions, agents and hang culprits.',
  variables=[
    g.queryVariable('plan', 'Plan', 'fabricpulse_last_sweep_success', 'plan'),
    g.queryVariable('op', 'Op', 'fabricpulse_busbw_bytes_per_second{plan=~"$plan"}', 'op'),
    g.queryVariable('node', 'Node', 'fabricpulse_agent_workers', 'node'),
  ],
  panels=[
    g.row('Status'),
    g.stat(
      'Last sweep',
      'Whether each plan\'s last sweep succeeded (fabricpulse_last_sweep_success).',
      [g.target('fabricpulse_last_sweep_success{plan=~"$plan"}', '{{plan}}')],
      w=8,
      mappings=g.valueMappings([['0', 'FAILED', 'red'], ['1', 'OK', 'green']]),
    ),
    g.stat(
      'Since last successful sweep',
      'Age of each plan\'s last successful sweep. FabricPulseNoRecentSuccess fires past the plan\'s period (26h unless configured).',
      [g.target('time() - fabricpulse_last_success_timestamp_seconds{plan=~"$plan"}', '{{plan}}')],
      unit='s',
      w=8,
      thresholds=g.thresholds([
        { color: 'green', value: null },
        { color: 'orange', value: 26 * 3600 },
      ]),
    ),
    g.stat(
      'Agents (coordinator)',
      'Registered agents by state, as the coordinator sees them (heartbeats).',
      [g.target('fabricpulse_agents', '{{state}}')],
      w=4,
      overrides=[g.override('lost', {
        thresholds: g.thresholds([{ color: 'green', value: null }, { color: 'red', value: 1 }]),
      })],
      thresholds=g.thresholds([{ color: 'blue', value: null }]),
    ),
    g.stat(
      'Agent scrapes',
      'Agent metrics endpoints Prometheus reaches (up) and fails to reach.',
      [
        g.target('sum(up{%s})' % g.agentJob, 'up', 'A'),
        g.target('count(up{%s} == 0) or vector(0)' % g.agentJob, 'down', 'B'),
      ],
      w=4,
      overrides=[g.override('down', {
        thresholds: g.thresholds([{ color: 'green', value: null }, { color: 'red', value: 1 }]),
      })],
      thresholds=g.thresholds([{ color: 'blue', value: null }]),
    ),

    g.row('Bus bandwidth at the largest size'),
    g.timeseries(
      'busbw at the largest size',
      'nccl-tests bus bandwidth of each plan and op at the largest size it measures (size in the legend).',
      [g.target(g.busbwAtLargestSize(sel), '{{plan}} {{op}} {{dtype}} {{placement}} n={{nranks}} ({{size}} B)')],
      unit='Bps',
      h=9,
    ),
    g.timeseries(
      'busbw / baseline at the largest size',
      'Last busbw over its baseline (median of recent good sweeps); below the coordinator\'s threshold is a regression.',
      [g.target(
        '(%s)\nand\n(%s)' % [g.baselineRatio(sel), g.busbwAtLargestSize(sel)],
        '{{plan}} {{op}} {{dtype}} {{placement}} n={{nranks}} ({{size}} B)'
      )],
      unit='percentunit',
      h=9,
    ),
    g.timeseries(
      'Sweep duration',
      'Wall time of each plan\'s last finished sweep.',
      [g.target('fabricpulse_sweep_duration_seconds{plan=~"$plan"}', '{{plan}}')],
      unit='s',
    ),
    g.timeseries(
      'Sweeps finished per hour',
      'Sweeps finished in the preceding hour, by plan, trigger and outcome.',
      [g.target(
        'sum by (plan, trigger, outcome) (increase(fabricpulse_sweeps_total{plan=~"$plan"}[1h]))',
        '{{plan}} {{trigger}} {{outcome}}'
      )],
      bars=true,
    ),

    g.row('Regressions and hangs'),
    g.table(
      'Current regressions',
      'Steps of the last sweep below baseline x threshold (fabricpulse_regression == 1), with busbw / baseline.',
      [g.tableTarget(
        'fabricpulse_busbw_bytes_per_second{%(s)s}\n  / fabricpulse_baseline_busbw_bytes_per_second{%(s)s}\nand\nfabricpulse_regression{%(s)s} == 1' % { s: sel }
      )],
      transformations=[{
        id: 'organize',
        options: { excludeByName: { [c]: true for c in scrapeLabels }, indexByName: {}, renameByName: { Value: 'busbw / baseline' } },
      }],
      overrides=[g.override('busbw / baseline', { unit: 'percentunit' })],
      sortBy=[{ desc: false, displayName: 'busbw / baseline' }],
    ),
    g.timeseries(
      'Regressions found per hour',
      'Steps found below baseline x threshold in the preceding hour, by plan and op.',
      [g.target(
        'sum by (plan, op) (increase(fabricpulse_regressions_total{%s}[1h]))' % sel,
        '{{plan}} {{op}}'
      )],
      bars=true,
    ),
    g.table(
      'Hang culprits (last failed sweep)',
      'The rank, GPU and node the last failed sweep\'s diagnosis named (fabricpulse_hang_culprit == 1). Click a node for its dashboard.',
      [g.tableTarget('fabricpulse_hang_culprit{node=~"$node"} == 1')],
      w=8,
      transformations=[{
        id: 'organize',
        options: { excludeByName: { [c]: true for c in scrapeLabels + ['Value'] }, indexByName: {}, renameByName: {} },
      }],
      overrides=[g.override('node', {
        links: [{ title: 'Node dashboard', url: '/d/fabricpulse-node/fabricpulse-node?var-node=${__value.raw}&${__url_time_range}' }],
      })],
    ),
    g.timeseries(
      'Hangs per node (1h)',
      'Failed sweeps whose diagnosis named a culprit on the node, in the preceding hour.',
      [g.target('sum by (node) (increase(fabricpulse_hangs_total{node=~"$node"}[1h]))', '{{node}}')],
      w=8,
      bars=true,
    ),
    g.timeseries(
      'Communicator init time',
      'Last communicator init time (slowest rank), by communicator size.',
      [g.target('fabricpulse_comm_init_seconds', '{{nranks}} ranks')],
      unit='s',
      w=8,
    ),

    g.row('Node verdicts (campaign plans)'),
    g.stat(
      'Nodes by verdict',
      'Nodes of each campaign plan by verdict (fabricpulse_node_verdict == 1): pass, degraded, fail (confirmed by a second measurement), suspect (one bad result, its second pass pending), untested (no result within the validity window).',
      [g.target('count by (plan, verdict) (fabricpulse_node_verdict{plan=~"$plan"} == 1)', '{{plan}} {{verdict}}')],
      w=12,
      thresholds=g.thresholds([{ color: 'blue', value: null }]),
    ),
    g.stat(
      'Campaign coverage',
      'Measured share of the first-pass nodes of each campaign plan\'s newest ended campaign (FabricPulseCampaignCoverageLow below 90 %).',
      [g.target('fabricpulse_campaign_coverage_ratio{plan=~"$plan"}', '{{plan}}')],
      unit='percentunit',
      w=12,
      thresholds=g.thresholds([
        { color: 'red', value: null },
        { color: 'orange', value: 0.9 },
        { color: 'green', value: 0.99 },
      ]),
    ),
    g.table(
      'Node verdicts',
      'Each node\'s verdict in each campaign plan (node x verdict), worst first; `fabricpulse nodes` shows the evidence. Click a node for its dashboard.',
      [g.tableTarget('fabricpulse_node_verdict{plan=~"$plan", verdict!="pass"} == 1')],
      w=24,
      transformations=[{
        id: 'organize',
        options: { excludeByName: { [c]: true for c in scrapeLabels + ['Value'] }, indexByName: {}, renameByName: {} },
      }],
      overrides=[g.override('node', {
        links: [{ title: 'Node dashboard', url: '/d/fabricpulse-node/fabricpulse-node?var-node=${__value.raw}&${__url_time_range}' }],
      })],
      sortBy=[{ desc: false, displayName: 'verdict' }],
    ),
  ],
)
