import React from 'react';
import type { Deployment, InstallPlan } from '../src/contract/index.js';
import { defineScreen, type ResourceEntry } from '../src/dashboard/kit/screen-api.js';
import { ago, bytes } from '../src/dashboard/kit/format.js';
import { widthOf } from '../src/dashboard/kit/text.js';
import {
  badge,
  blank,
  cell,
  heading,
  LineView,
  pairs,
  plain,
  seg,
  wrapped,
  type Line,
} from '../src/dashboard/kit/line-view.js';
import { tableTime } from '../src/dashboard/kit/table-time.js';
import { auditKeyLine } from '../src/dashboard/kit/audit-key.js';

type Accelerator = Deployment['host']['accelerators'][number];
const accelerators = (list: Accelerator[] | undefined) =>
  list?.length
    ? list
        .map(
          (a) =>
            `${a.name ?? '?'} (${[a.kind, a.memory_bytes ? bytes(a.memory_bytes) : null].filter(Boolean).join(', ')})`,
        )
        .join('; ')
    : 'none';

function statusLines(d: Deployment | undefined, width: number): Line[] {
  if (!d) return [];
  const h = d.host;
  return [
    [seg('Deployment  ', { bold: true }), badge(d.status), seg(`   version ${d.version ?? '?'}`)],
    [seg(`  checked ${tableTime(d.checked_at)} UTC (${ago(d.checked_at)})`, { dim: true })],
    ...auditKeyLine(d.audit_key_fingerprint),
    blank(),
    heading('Host'),
    ...pairs(
      [
        ['hostname', h?.hostname],
        ['os', h?.os],
        ['cpus', h?.cpus],
        ['memory', bytes(h?.memory_bytes)],
        ['free disk', h?.disk_free_bytes === null ? 'unknown' : bytes(h?.disk_free_bytes)],
        ['accelerators', accelerators(h?.accelerators)],
      ],
      width,
    ),
    blank(),
    heading('Components'),
    ...componentLines(d.components ?? [], width),
  ];
}

/** Down, then degraded, then the rest in the appliance's order (sort is stable): the overview's Enter lands here. */
const RANK: Record<string, number> = { down: 0, degraded: 1 };
const worstFirst = (list: Deployment['components']) =>
  [...list].sort((a, b) => (RANK[a.status] ?? 2) - (RANK[b.status] ?? 2));

function componentLines(list: Deployment['components'], width: number): Line[] {
  if (!list.length) return [plain('  (the appliance listed no components)')];
  const name = Math.min(24, Math.max(4, ...list.map((c) => widthOf(c.name ?? ''))));
  const version = Math.min(14, Math.max(7, ...list.map((c) => widthOf(c.version ?? ''))));
  return [
    [
      seg('  '),
      cell('Status', 11, { dim: true }),
      seg('  '),
      cell('Name', name, { dim: true }),
      seg('  '),
      cell('Version', version, { dim: true }),
      seg('  '),
      seg('Message', { dim: true }),
    ],
    ...worstFirst(list).flatMap((c) =>
      wrapped(
        [
          seg('  '),
          badge(c.status, 11),
          seg('  '),
          cell(c.name, name),
          seg('  '),
          cell(c.version ?? '–', version),
          seg('  '),
        ],
        c.message ?? '',
        width,
      ),
    ),
  ];
}

function planLines(p: InstallPlan | undefined, entry: ResourceEntry, width: number): Line[] {
  if (!p)
    return [
      heading('Install plan'),
      plain(entry.status === 'error' ? '  not available: the request failed (see above)' : '  loading…'),
    ];
  const steps = p.steps ?? [];
  const reqs = p.requirements ?? [];
  const done = steps.filter((s) => s.status === 'done').length;
  const title = Math.min(32, Math.max(5, ...steps.map((s) => widthOf(s.title ?? ''))));
  const rName = Math.min(20, Math.max(4, ...reqs.map((r) => widthOf(r.name ?? ''))));
  const rReq = Math.min(16, Math.max(8, ...reqs.map((r) => widthOf(r.required ?? ''))));
  const rAct = Math.min(24, Math.max(6, ...reqs.map((r) => widthOf(r.actual ?? ''))));
  const unmet = reqs.filter((r) => !r.ok).length;
  return [
    [seg('Install plan', { bold: true }), seg(`   ${done} of ${steps.length} steps done`, { dim: true })],
    ...(steps.length
      ? steps.flatMap((s) =>
          wrapped(
            [seg('  '), badge(s.status, 9), seg('  '), cell(s.title ?? s.id, title), seg('  ')],
            s.detail ?? '',
            width,
            { dim: s.status === 'done' },
          ),
        )
      : [plain('  (no steps)')]),
    blank(),
    [
      seg('Requirements', { bold: true }),
      seg(unmet ? `   ${unmet} not met` : '   all met', { dim: !unmet, tone: unmet ? 'bad' : undefined }),
    ],
    [
      seg('  '),
      cell('Name', rName, { dim: true }),
      seg('  '),
      cell('Required', rReq, { dim: true }),
      seg('  '),
      cell('Actual', rAct, { dim: true }),
      seg('  '),
      seg('OK', { dim: true }),
    ],
    ...reqs.map((r): Line => [
      seg('  '),
      cell(r.name, rName),
      seg('  '),
      cell(r.required, rReq),
      seg('  '),
      cell(r.actual, rAct),
      seg('  '),
      r.ok ? seg('● ok', { tone: 'ok' }) : seg('✕ not met', { tone: 'bad', bold: true }),
    ]),
  ];
}

export const deploymentScreen = defineScreen({
  name: 'deployment',
  title: 'Deployment',
  resources: () => [
    { id: 'deployment', route: 'deployment' },
    { id: 'plan', route: 'installPlan' },
  ],
  render: ({ resources, width, height, state, setScroll }) => {
    const lines = [
      ...statusLines(resources.deployment.data as Deployment | undefined, width),
      blank(),
      ...planLines(resources.plan.data as InstallPlan | undefined, resources.plan, width),
    ];
    return <LineView lines={lines} width={width} height={height} scroll={state.scroll} setScroll={setScroll} />;
  },
});
