// Small builders for FabricPulse's Grafana dashboards (JSON model as Grafana
// 10 exports it, schemaVersion 39). No grafonnet: it is not packaged for
// Debian, and these dashboards need only a handful of panel types.
//
// Panels are given a width and height only; `dashboard` lays them out left to
// right, wrapping at 24 columns, and numbers them, so ids are unique and
// gridPos is always consistent.
{
  // Every panel and target reads from the dashboard's datasource variable.
  ds:: { type: 'prometheus', uid: '${datasource}' },

  // FabricPulse scrape jobs are recognised by name (see alert_rules.yaml).
  agentJob:: 'job=~".*fabricpulse-agent.*"',

  // Scope: every dashboard has the variables cluster, namespace and job
  // (scopeVariables, "All" by default) and every selector of every query
  // carries their matchers (tests/deploy/observability_lint.py refuses one
  // that does not). "All" is .*, which also matches a series without the
  // label, so a plain Prometheus whose targets have no cluster or namespace
  // label (static_configs, no Kubernetes relabeling) shows everything.
  scopeMatchers:: 'cluster=~"$cluster", namespace=~"$namespace", job=~"$job"',

  // The inside of a selector: the scope, then `extra` (e.g. 'plan=~"$plan"').
  matchers(extra=''):: if extra == '' then $.scopeMatchers else $.scopeMatchers + ', ' + extra,

  // A scoped selector: sel('fabricpulse_agents', 'state="lost"') is
  // fabricpulse_agents{cluster=~"$cluster", ..., state="lost"}.
  sel(metric, extra=''):: '%s{%s}' % [metric, $.matchers(extra)],

  // busbw at the largest size of each (plan, op, dtype, placement, nranks),
  // as fabricpulse:busbw_bytes_per_second:largest_size records it (see the
  // comment there): algbw * mean latency is the step's bytes. `extra`: the
  // matchers after the scope (matchers()), e.g. 'plan=~"$plan"'.
  busbwAtLargestSize(extra):: |||
    fabricpulse_busbw_bytes_per_second{%(m)s}
    and
    (
        fabricpulse_algbw_bytes_per_second{%(m)s}
          * ignoring(stat) fabricpulse_latency_seconds{%(m)s, stat="mean"}
      == ignoring(size) group_left()
        max without(size) (
          fabricpulse_algbw_bytes_per_second{%(m)s}
            * ignoring(stat) fabricpulse_latency_seconds{%(m)s, stat="mean"}
        )
    )
  ||| % { m: $.matchers(extra) },

  // busbw / baseline, only where a (non-zero) baseline exists; `extra` as
  // above.
  baselineRatio(extra):: |||
    fabricpulse_busbw_bytes_per_second{%(m)s}
      / (fabricpulse_baseline_busbw_bytes_per_second{%(m)s} > 0)
  ||| % { m: $.matchers(extra) },

  datasourceVariable():: {
    current: {},
    hide: 0,
    includeAll: false,
    label: 'Data source',
    multi: false,
    name: 'datasource',
    options: [],
    query: 'prometheus',
    refresh: 1,
    regex: '',
    skipUrlSync: false,
    type: 'datasource',
  },

  // label_values() variable. multi variables get "All" = .* so that "All"
  // also matches values that appeared after the list was loaded.
  // sort: 1 alphabetical, 3 numerical (ascending).
  // metricSelector: a selector, scoped by the caller (sel()).
  queryVariable(name, label, metricSelector, labelName, multi=true, sort=1):: {
    local query = 'label_values(%s, %s)' % [metricSelector, labelName],
    current: {},
    datasource: $.ds,
    definition: query,
    hide: 0,
    includeAll: multi,
    [if multi then 'allValue']: '.*',
    label: label,
    multi: multi,
    name: name,
    options: [],
    query: { query: query, refId: 'PrometheusVariableQueryEditor-VariableQuery' },
    refresh: 2,
    regex: '',
    skipUrlSync: false,
    sort: sort,
    type: 'query',
  },

  // cluster, namespace and job, each narrowing the next, multi-valued and
  // "All" (.*) by default: with no such label in the data the list offers
  // only "All", and every query still matches every series.
  scopeVariables():: [
    $.queryVariable('cluster', 'Cluster', 'fabricpulse_build_info', 'cluster'),
    $.queryVariable('namespace', 'Namespace', 'fabricpulse_build_info{cluster=~"$cluster"}', 'namespace'),
    $.queryVariable('job', 'Job', 'fabricpulse_build_info{cluster=~"$cluster", namespace=~"$namespace"}', 'job'),
  ],

  target(expr, legend='__auto', refId='A', instant=false, format='time_series'):: {
    datasource: $.ds,
    editorMode: 'code',
    expr: expr,
    format: format,
    instant: instant,
    legendFormat: legend,
    range: !instant,
    refId: refId,
  },

  // Instant query shaped as a table (one row per series, labels as columns).
  tableTarget(expr, refId='A'):: $.target(expr, '__auto', refId, true, 'table'),

  thresholds(steps=[{ color: 'green', value: null }]):: { mode: 'absolute', steps: steps },

  // Value mappings from [[value, text, color], ...].
  valueMappings(entries):: [{
    options: std.foldl(
      function(acc, i) acc {
        [entries[i][0]]: { color: entries[i][2], index: i, text: entries[i][1] },
      },
      std.range(0, std.length(entries) - 1),
      {}
    ),
    type: 'value',
  }],

  // Field override by (display) name.
  override(name, properties):: {
    matcher: { id: 'byName', options: name },
    properties: [{ id: k, value: properties[k] } for k in std.objectFields(properties)],
  },

  local basePanel(type, title, description, targets, w, h) = {
    datasource: $.ds,
    description: description,
    fieldConfig: { defaults: {}, overrides: [] },
    gridPos: { h: h, w: w },
    options: {},
    targets: targets,
    title: title,
    type: type,
  },

  legend:: { calcs: [], displayMode: 'list', placement: 'bottom', showLegend: true },

  timeseries(title, description, targets, unit='short', w=12, h=8, logScale=false, bars=false):: basePanel('timeseries', title, description, targets, w, h) + {
    fieldConfig+: {
      defaults+: {
        color: { mode: 'palette-classic' },
        custom: {
          axisPlacement: 'auto',
          drawStyle: if bars then 'bars' else 'line',
          fillOpacity: if bars then 80 else 0,
          lineWidth: 1,
          pointSize: 4,
          scaleDistribution: if logScale then { type: 'log', log: 10 } else { type: 'linear' },
          showPoints: 'auto',
          spanNulls: false,
          stacking: { group: 'A', mode: 'none' },
        },
        mappings: [],
        thresholds: $.thresholds(),
        unit: unit,
      },
    },
    options: {
      legend: $.legend { displayMode: 'table', calcs: ['lastNotNull'] },
      tooltip: { mode: 'multi', sort: 'desc' },
    },
  },

  stat(title, description, targets, unit='short', w=6, h=5, mappings=[], thresholds=$.thresholds(), overrides=[]):: basePanel('stat', title, description, targets, w, h) + {
    fieldConfig: {
      defaults: {
        color: { mode: 'thresholds' },
        mappings: mappings,
        thresholds: thresholds,
        unit: unit,
      },
      overrides: overrides,
    },
    options: {
      colorMode: 'background',
      graphMode: 'none',
      justifyMode: 'auto',
      orientation: 'auto',
      reduceOptions: { calcs: ['lastNotNull'], fields: '', values: false },
      textMode: 'auto',
    },
  },

  // Instant tables: `organize` hides the scrape labels and the timestamp and
  // renames value columns; `renames` maps column name -> shown name.
  table(title, description, targets, w=12, h=8, transformations=[], overrides=[], unit='short', sortBy=[]):: basePanel('table', title, description, targets, w, h) + {
    fieldConfig: {
      defaults: {
        custom: { align: 'auto', cellOptions: { type: 'auto' }, inspect: false },
        mappings: [],
        thresholds: $.thresholds(),
        unit: unit,
      },
      overrides: overrides,
    },
    options: {
      cellHeight: 'sm',
      footer: { countRows: false, fields: '', reducer: ['sum'], show: false },
      showHeader: true,
      sortBy: sortBy,
    },
    transformations: transformations,
  },

  barchart(title, description, targets, xField, unit='short', w=24, h=10, logScale=false, transformations=[]):: basePanel('barchart', title, description, targets, w, h) + {
    fieldConfig+: {
      defaults+: {
        color: { mode: 'palette-classic' },
        custom: {
          axisPlacement: 'auto',
          fillOpacity: 80,
          gradientMode: 'none',
          lineWidth: 1,
          scaleDistribution: if logScale then { type: 'log', log: 10 } else { type: 'linear' },
        },
        mappings: [],
        thresholds: $.thresholds(),
        unit: unit,
      },
    },
    options: {
      barRadius: 0,
      barWidth: 0.9,
      groupWidth: 0.7,
      legend: $.legend,
      orientation: 'vertical',
      showValue: 'never',
      stacking: 'none',
      tooltip: { mode: 'multi', sort: 'none' },
      xField: xField,
      xTickLabelRotation: -45,
      xTickLabelSpacing: 0,
    },
    transformations: transformations,
  },

  stateTimeline(title, description, targets, mappings, w=12, h=8):: basePanel('state-timeline', title, description, targets, w, h) + {
    fieldConfig+: {
      defaults+: {
        color: { mode: 'thresholds' },
        custom: { fillOpacity: 80, lineWidth: 0 },
        mappings: mappings,
        thresholds: $.thresholds(),
      },
    },
    options: {
      alignValue: 'left',
      legend: $.legend,
      mergeValues: true,
      rowHeight: 0.9,
      showValue: 'never',
      tooltip: { mode: 'single', sort: 'none' },
    },
  },

  row(title):: { collapsed: false, gridPos: { h: 1, w: 24 }, panels: [], title: title, type: 'row' },

  // Transformations for per-size tables built from several instant queries
  // (one per value column) that share the same labels: merge them into one
  // row per size, sort by size as a number, hide `hidden` columns and rename.
  // keepSizeNumeric=false turns size back into a string (a bar chart's x).
  perSizeTransformations(hidden, renames, keepSizeNumeric=true):: [
    { id: 'merge', options: {} },
    {
      id: 'convertFieldType',
      options: { conversions: [{ destinationType: 'number', targetField: 'size' }], fields: {} },
    },
    { id: 'sortBy', options: { fields: {}, sort: [{ desc: false, field: 'size' }] } },
  ] + (if keepSizeNumeric then [] else [{
         id: 'convertFieldType',
         options: { conversions: [{ destinationType: 'string', targetField: 'size' }], fields: {} },
       }]) + [{
    id: 'organize',
    options: {
      excludeByName: { [c]: true for c in hidden },
      indexByName: {},
      renameByName: renames,
    },
  }],

  // Places panels left to right (wrapping at 24 columns) and numbers them.
  local layout(panels) =
    local step(state, p) =
      local w = p.gridPos.w;
      local h = p.gridPos.h;
      local wrap = state.x + w > 24 || p.type == 'row';
      local x = if wrap then 0 else state.x;
      local y = if wrap then state.y + state.lineH else state.y;
      {
        x: x + w,
        y: y,
        lineH: if wrap then h else std.max(state.lineH, h),
        out: state.out + [p { id: std.length(state.out) + 1, gridPos: { h: h, w: w, x: x, y: y } }],
      };
    std.foldl(step, panels, { x: 0, y: 0, lineH: 0, out: [] }).out,

  dashboard(uid, title, description, variables, panels, tags=[]):: {
    annotations: {
      list: [{
        builtIn: 1,
        datasource: { type: 'grafana', uid: '-- Grafana --' },
        enable: true,
        hide: true,
        iconColor: 'rgba(0, 211, 255, 1)',
        name: 'Annotations & Alerts',
        type: 'dashboard',
      }],
    },
    description: description,
    editable: true,
    fiscalYearStartMonth: 0,
    graphTooltip: 1,
    id: null,
    links: [{
      asDropdown: true,
      icon: 'external link',
      includeVars: false,
      keepTime: true,
      tags: ['fabricpulse'],
      targetBlank: false,
      title: 'FabricPulse',
      type: 'dashboards',
    }],
    liveNow: false,
    panels: layout(panels),
    refresh: '1m',
    schemaVersion: 39,
    tags: ['fabricpulse'] + tags,
    templating: { list: [$.datasourceVariable()] + [
      v { current: { selected: true, text: ['All'], value: ['$__all'] } }
      for v in $.scopeVariables()
    ] + variables },
    time: { from: 'now-7d', to: 'now' },
    timepicker: {},
    timezone: '',
    title: title,
    uid: uid,
    version: 1,
    weekStart: '',
  },
}
