// FabricPulse fleet overview: is the fabric healthy, and where is it not?
local g = import 'lib.libsonnet';

local sel = 'plan=~"$plan", op=~"$op"';
local scrapeLabels = ['Time', '__name__', 'job', 'instance'];

// A node-pair series (fabricpulse_pair_*) of the pairs with a node in $node.
local pairSel(metric) = '%s\nor\n%s' % [g.sel(metric, 'node_a=~"$node"'), g.sel(metric, 'node_b=~"$node"')];
local nodeLink = g.override('node', {
  links: [{ title: 'Node dashboard', url: '/d/fabricpulse-node/fabricpulse-node?var-node=${__value.raw}&${__url_time_range}' }],
});

g.dashboard(
  uid='fabricpulse-fleet',
  title='FabricPulse / Fleet',
  description='Collective bandwidth at the largest size, sweep status, versions, regressions, agents, NICs, hang culprits, the pairwise matrix, isolations and deferred schedules.',
  variables=[
    g.queryVariable('plan', 'Plan', g.sel('fabricpulse_last_sweep_success'), 'plan'),
    g.queryVariable('op', 'Op', g.sel('fabricpulse_busbw_bytes_per_second', 'plan=~"$plan"'), 'op'),
    g.queryVariable('node', 'Node', g.sel('fabricpulse_agent_workers'), 'node'),
  ],
  panels=[
    g.row('Status'),
    g.stat(
      'Last sweep',
      'Whether each scheduled plan\'s last sweep succeeded (fabricpulse_last_sweep_success), by the rule of FabricPulseSweepFailing: on-demand sweeps (plan adhoc) are left out, so a failed ad-hoc sweep does not turn this red (it shows in Sweeps finished per hour).',
      [g.target(g.sel('fabricpulse_last_sweep_success', 'plan=~"$plan", plan!="adhoc"'), '{{plan}}')],
      w=8,
      mappings=g.valueMappings([['0', 'FAILED', 'red'], ['1', 'OK', 'green']]),
    ),
    g.stat(
      'Since last successful sweep',
      'Age of each scheduled plan\'s last successful sweep. FabricPulseNoRecentSuccess fires past the plan\'s period (26h unless configured); like it, this leaves out on-demand sweeps (plan adhoc), which have no period.',
      [g.target('time() - ' + g.sel('fabricpulse_last_success_timestamp_seconds', 'plan=~"$plan", plan!="adhoc"'), '{{plan}}')],
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
      [g.target(g.sel('fabricpulse_agents'), '{{state}}')],
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
        g.target('sum(%s)' % g.sel('up', g.agentJob), 'up', 'A'),
        g.target('count(%s == 0) or vector(0)' % g.sel('up', g.agentJob), 'down', 'B'),
      ],
      w=4,
      overrides=[g.override('down', {
        thresholds: g.thresholds([{ color: 'green', value: null }, { color: 'red', value: 1 }]),
      })],
      thresholds=g.thresholds([{ color: 'blue', value: null }]),
    ),
    g.table(
      'Versions',
      'Daemons by component and version (fabricpulse_build_info; the version as --version prints it: project version and git commit). More than one version of a component is a rollout in progress, or one that stopped half way.',
      [g.tableTarget('count by (component, version) (%s)' % g.sel('fabricpulse_build_info'))],
      w=8,
      h=5,
      transformations=[{
        id: 'organize',
        options: { excludeByName: { Time: true }, indexByName: {}, renameByName: { Value: 'daemons' } },
      }],
      sortBy=[{ desc: false, displayName: 'component' }],
    ),
    g.stat(
      'Versions running',
      'Distinct FabricPulse versions among the coordinator and agents: 1 when every daemon runs the same build.',
      [g.target('count(count by (version) (%s))' % g.sel('fabricpulse_build_info'), 'versions')],
      w=4,
      thresholds=g.thresholds([{ color: 'green', value: null }, { color: 'orange', value: 2 }]),
    ),
    g.stat(
      'NICs down',
      'Network interfaces whose link is not up on the agents\' nodes (fabricpulse_agent_nic_up == 0; loopback and virtual interfaces are not exported). The node dashboard lists them.',
      [g.target('count(%s == 0) or vector(0)' % g.sel('fabricpulse_agent_nic_up', 'node=~"$node"'), 'down')],
      w=4,
      thresholds=g.thresholds([{ color: 'green', value: null }, { color: 'red', value: 1 }]),
    ),
    g.stat(
      'Node pairs flagged',
      'Node pairs with rank pairs flagged slow in the last pairwise matrix that measured them (fabricpulse_pair_flagged > 0, what FabricPulsePairFlagged fires on). The Pairwise matrix row shows which.',
      [g.target('count((%s) > 0) or vector(0)' % pairSel('fabricpulse_pair_flagged'), 'flagged')],
      w=4,
      thresholds=g.thresholds([{ color: 'green', value: null }, { color: 'orange', value: 1 }]),
    ),
    g.stat(
      'Deferred firings (time range)',
      'Schedule firings held back over the dashboard\'s time range, because a member GPU was busy with another job or the members ran another sweep (fabricpulse_schedule_deferred_total). Not a fault; many of them delay the checks.',
      [g.target('sum(increase(%s[$__range]))' % g.sel('fabricpulse_schedule_deferred_total'), 'deferred', instant=true)],
      w=4,
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
      [g.target(g.sel('fabricpulse_sweep_duration_seconds', 'plan=~"$plan"'), '{{plan}}')],
      unit='s',
    ),
    g.timeseries(
      'Sweeps finished per hour',
      'Sweeps finished in the preceding hour, by plan, trigger and outcome.',
      [g.target(
        'sum by (plan, trigger, outcome) (increase(%s[1h]))' % g.sel('fabricpulse_sweeps_total', 'plan=~"$plan"'),
        '{{plan}} {{trigger}} {{outcome}}'
      )],
      bars=true,
    ),

    g.row('Regressions and hangs'),
    g.table(
      'Current regressions',
      'Steps of the last sweep below baseline x threshold (fabricpulse_regression == 1), with busbw / baseline.',
      [g.tableTarget(
        '%s\n  / %s\nand\n%s == 1' % [
          g.sel('fabricpulse_busbw_bytes_per_second', sel),
          g.sel('fabricpulse_baseline_busbw_bytes_per_second', sel),
          g.sel('fabricpulse_regression', sel),
        ]
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
        'sum by (plan, op) (increase(%s[1h]))' % g.sel('fabricpulse_regressions_total', sel),
        '{{plan}} {{op}}'
      )],
      bars=true,
    ),
    g.table(
      'Hang culprits (last failed sweep)',
      'The rank, GPU and node the last failed sweep\'s diagnosis named (fabricpulse_hang_culprit == 1). Click a node for its dashboard.',
      [g.tableTarget('%s == 1' % g.sel('fabricpulse_hang_culprit', 'node=~"$node"'))],
      w=8,
      transformations=[{
        id: 'organize',
        options: { excludeByName: { [c]: true for c in scrapeLabels + ['Value'] }, indexByName: {}, renameByName: {} },
      }],
      overrides=[nodeLink],
    ),
    g.timeseries(
      'Hangs per node (1h)',
      'Failed sweeps whose diagnosis named a culprit on the node, in the preceding hour.',
      [g.target('sum by (node) (increase(%s[1h]))' % g.sel('fabricpulse_hangs_total', 'node=~"$node"'), '{{node}}')],
      w=8,
      bars=true,
    ),
    g.timeseries(
      'Communicator init time',
      'Last communicator init time (slowest rank), by communicator size.',
      [g.target(g.sel('fabricpulse_comm_init_seconds'), '{{nranks}} ranks')],
      unit='s',
      w=8,
    ),

    g.row('Pairwise matrix (fabricpulse matrix)'),
    g.table(
      'Lowest busbw per node pair',
      'The node x node matrix of the last pairwise matrix that measured each node pair: the lowest busbw of its rank pairs, at that matrix\'s largest size (fabricpulse_pair_busbw_bytes_per_second, lowest over path classes; a node\'s own pair is its ranks within it). A row or column lower than the rest is a slow node, one cell a slow link. Run `fabricpulse matrix` to measure again.',
      [g.tableTarget('min by (node_a, node_b) (\n  %s\n)' % std.strReplace(pairSel('fabricpulse_pair_busbw_bytes_per_second'), '\n', '\n  '))],
      h=10,
      transformations=[{
        id: 'groupingToMatrix',
        options: { columnField: 'node_b', rowField: 'node_a', valueField: 'Value', emptyValue: 'null' },
      }],
      unit='Bps',
    ),
    g.table(
      'Node pairs, flagged first',
      'Each node pair of the last matrices with its path class, lowest busbw and the rank pairs flagged slow: below half the median of their path class at their size in the same matrix (fabricpulse_pair_flagged; FabricPulsePairFlagged fires on any). `fabricpulse matrix --sweep ID` prints the pairs.',
      [
        g.tableTarget(pairSel('fabricpulse_pair_busbw_bytes_per_second'), 'A'),
        g.tableTarget(pairSel('fabricpulse_pair_flagged'), 'B'),
      ],
      h=10,
      transformations=[
        { id: 'merge', options: {} },
        {
          id: 'organize',
          options: {
            excludeByName: { [c]: true for c in scrapeLabels },
            indexByName: { node_a: 0, node_b: 1, path: 2, 'Value #A': 3, 'Value #B': 4 },
            renameByName: { 'Value #A': 'lowest busbw', 'Value #B': 'flagged rank pairs' },
          },
        },
      ],
      overrides=[
        g.override('lowest busbw', { unit: 'Bps' }),
        g.override('flagged rank pairs', {
          decimals: 0,
          'custom.cellOptions': { type: 'color-background' },
          thresholds: g.thresholds([{ color: 'transparent', value: null }, { color: 'orange', value: 1 }]),
        }),
      ],
      sortBy=[{ desc: true, displayName: 'flagged rank pairs' }],
    ),

    g.row('Isolations and deferred schedules'),
    g.table(
      'Isolations (time range)',
      'Isolations the coordinator ran by itself after a regressed or failed sweep of a plan with isolate_on, by verdict, over the dashboard\'s time range (fabricpulse_isolations_total): node, link or nodes named a culprit (FabricPulseIsolationNamedCulprit; `fabricpulse results --sweep PARENT` names it), none found nothing that stands out, gave_up, skipped and interrupted did not finish.',
      [g.tableTarget('sum by (plan, verdict) (increase(%s[$__range]))' % g.sel('fabricpulse_isolations_total', 'plan=~"$plan"'))],
      w=8,
      transformations=[{
        id: 'organize',
        options: { excludeByName: { Time: true }, indexByName: {}, renameByName: { Value: 'isolations' } },
      }],
      overrides=[
        g.override('isolations', { decimals: 0 }),
        g.override('verdict', {
          mappings: g.valueMappings([['node', 'node', 'red'], ['link', 'link', 'red'], ['nodes', 'nodes', 'red'], ['none', 'none', 'green']]),
          'custom.cellOptions': { type: 'color-text' },
        }),
      ],
      sortBy=[{ desc: true, displayName: 'isolations' }],
    ),
    g.timeseries(
      'Isolations per hour',
      'Isolations the coordinator ran by itself in the preceding hour, by plan and verdict.',
      [g.target('sum by (plan, verdict) (increase(%s[1h]))' % g.sel('fabricpulse_isolations_total', 'plan=~"$plan"'), '{{plan}} {{verdict}}')],
      w=8,
      bars=true,
    ),
    g.timeseries(
      'Deferred schedule firings per hour',
      'Firings of each schedule held back in the preceding hour, by reason: gpu_busy (a member GPU ran another job, or the sweep yielded to one) or members_busy (its members ran another sweep). Each is retried every 5 s; a schedule deferred every time never measures (FabricPulseNoRecentSuccess).',
      [g.target('sum by (schedule, reason) (increase(%s[1h]))' % g.sel('fabricpulse_schedule_deferred_total'), '{{schedule}} {{reason}}')],
      w=8,
      bars=true,
    ),

    g.row('Node verdicts (campaign plans)'),
    g.stat(
      'Nodes by verdict',
      'Nodes of each campaign plan by verdict (fabricpulse_node_verdict == 1): pass, degraded, fail (confirmed by a second measurement), suspect (one bad result, its second pass pending), untested (no result within the validity window).',
      [g.target('count by (plan, verdict) (%s == 1)' % g.sel('fabricpulse_node_verdict', 'plan=~"$plan"'), '{{plan}} {{verdict}}')],
      w=12,
      thresholds=g.thresholds([{ color: 'blue', value: null }]),
    ),
    g.stat(
      'Campaign coverage',
      'Measured share of the first-pass nodes of each campaign plan\'s newest ended campaign (FabricPulseCampaignCoverageLow below 90 %).',
      [g.target(g.sel('fabricpulse_campaign_coverage_ratio', 'plan=~"$plan"'), '{{plan}}')],
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
      [g.tableTarget('%s == 1' % g.sel('fabricpulse_node_verdict', 'plan=~"$plan", verdict!="pass"'))],
      w=24,
      transformations=[{
        id: 'organize',
        options: { excludeByName: { [c]: true for c in scrapeLabels + ['Value'] }, indexByName: {}, renameByName: {} },
      }],
      overrides=[nodeLink],
      sortBy=[{ desc: false, displayName: 'verdict' }],
    ),
  ],
)
