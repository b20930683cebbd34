// FabricPulse op drill-down: one (plan, op, dtype, placement, nranks) across
// its size schedule, last sweep against baseline, like an nccl-tests table.
local g = import 'lib.libsonnet';

local m = 'plan="$plan", op="$op", dtype="$dtype", placement="$placement", nranks="$nranks"';
local bw = g.sel('fabricpulse_busbw_bytes_per_second', m);
local baseline = g.sel('fabricpulse_baseline_busbw_bytes_per_second', m);
// Latency without its `stat` label, so its rows merge with the others.
local latency(stat) = 'max without(stat) (%s)' % g.sel('fabricpulse_latency_seconds', '%s, stat="%s"' % [m, stat]);

// Label columns every per-size table hides (they are the variables).
local hidden = ['Time', '__name__', 'cluster', 'namespace', 'job', 'instance', 'plan', 'op', 'dtype', 'placement', 'nranks'];

local variable(name, label, matchers) = g.queryVariable(
  name, label, g.sel('fabricpulse_busbw_bytes_per_second', matchers), name, multi=false
);

g.dashboard(
  uid='fabricpulse-op-drilldown',
  title='FabricPulse / Op drill-down',
  description='busbw, algbw and latency of one op against size: last sweep, baseline and 24h ago.',
  tags=['nccl-tests'],
  variables=[
    variable('plan', 'Plan', ''),
    variable('op', 'Op', 'plan="$plan"'),
    variable('dtype', 'Dtype', 'plan="$plan", op="$op"'),
    variable('placement', 'Placement', 'plan="$plan", op="$op", dtype="$dtype"'),
    variable('nranks', 'Ranks', 'plan="$plan", op="$op", dtype="$dtype", placement="$placement"') { sort: 3 },
  ],
  panels=[
    g.row('Against size (last sweep)'),
    g.barchart(
      'busbw against size: last sweep, baseline, 24h ago',
      'Bus bandwidth per size of the last sweep, its baseline (median of recent good sweeps) and the value 24h ago.',
      [
        g.tableTarget(bw, 'A'),
        g.tableTarget(baseline, 'B'),
        g.tableTarget(bw + ' offset 1d', 'C'),
      ],
      'size',
      unit='Bps',
      transformations=g.perSizeTransformations(
        hidden,
        { 'Value #A': 'last sweep', 'Value #B': 'baseline', 'Value #C': '24h ago' },
        keepSizeNumeric=false
      ),
    ),
    g.barchart(
      'Latency against size',
      'Per-op time of the slowest rank per size (mean, p50, p99), log scale.',
      [
        g.tableTarget(latency('mean'), 'A'),
        g.tableTarget(latency('p50'), 'B'),
        g.tableTarget(latency('p99'), 'C'),
      ],
      'size',
      unit='s',
      logScale=true,
      transformations=g.perSizeTransformations(
        hidden,
        { 'Value #A': 'mean', 'Value #B': 'p50', 'Value #C': 'p99' },
        keepSizeNumeric=false
      ),
    ),
    g.table(
      'Per-size results',
      'The last sweep per size, nccl-tests style, with its baseline and regression flag.',
      [
        g.tableTarget(bw, 'A'),
        g.tableTarget(baseline, 'B'),
        g.tableTarget(g.baselineRatio(m), 'C'),
        g.tableTarget(g.sel('fabricpulse_algbw_bytes_per_second', m), 'D'),
        g.tableTarget(latency('mean'), 'E'),
        g.tableTarget(latency('p99'), 'F'),
        g.tableTarget(g.sel('fabricpulse_regression', m), 'G'),
      ],
      w=24,
      h=12,
      transformations=g.perSizeTransformations(hidden, {
        'Value #A': 'busbw',
        'Value #B': 'baseline busbw',
        'Value #C': 'busbw / baseline',
        'Value #D': 'algbw',
        'Value #E': 'time (mean)',
        'Value #F': 'time (p99)',
        'Value #G': 'regression',
      }),
      overrides=[
        g.override('size', { unit: 'bytes' }),
        g.override('busbw', { unit: 'Bps' }),
        g.override('baseline busbw', { unit: 'Bps' }),
        g.override('algbw', { unit: 'Bps' }),
        g.override('busbw / baseline', {
          unit: 'percentunit',
          'custom.cellOptions': { type: 'color-text' },
          thresholds: g.thresholds([{ color: 'red', value: null }, { color: 'green', value: 0.9 }]),
        }),
        g.override('time (mean)', { unit: 's' }),
        g.override('time (p99)', { unit: 's' }),
        g.override('regression', {
          mappings: g.valueMappings([['0', 'ok', 'green'], ['1', 'REGRESSION', 'red']]),
          'custom.cellOptions': { type: 'color-background' },
        }),
      ],
    ),

    g.row('Over time'),
    g.timeseries(
      'busbw per size',
      'Bus bandwidth of every size over time.',
      [g.target(bw, '{{size}} B')],
      unit='Bps',
    ),
    g.timeseries(
      'busbw / baseline per size',
      'Last busbw over its baseline per size; below the coordinator\'s threshold is a regression.',
      [g.target(g.baselineRatio(m), '{{size}} B')],
      unit='percentunit',
    ),
    g.timeseries(
      'Latency (mean) per size',
      'Per-op mean time of the slowest rank, every size, log scale.',
      [g.target(latency('mean'), '{{size}} B')],
      unit='s',
      logScale=true,
    ),
    g.timeseries(
      'Regressions found per hour',
      'Steps of this plan and op found below baseline x threshold in the preceding hour (all dtypes, placements and sizes).',
      [g.target('increase(%s[1h])' % g.sel('fabricpulse_regressions_total', 'plan="$plan", op="$op"'), '{{plan}} {{op}}')],
      bars=true,
    ),
  ],
)
