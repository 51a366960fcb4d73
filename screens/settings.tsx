import React from 'react';
import type { Settings } from '../src/contract/index.js';
import { defineScreen } from '../src/dashboard/kit/screen-api.js';
import { flatten } from '../src/dashboard/kit/flatten.js';
import { leadingColumns, trailingColumns, widthOf } from '../src/dashboard/kit/text.js';
import { blank, cell, LineView, seg, wrapped, type Line } from '../src/dashboard/kit/line-view.js';
import { auditKeyLine } from '../src/dashboard/kit/audit-key.js';

const REDACTED = '[redacted]';
const READ_ONLY_NOTE =
  "settings come from the appliance's own configuration and are changed on the appliance, not here.";

interface Setting {
  section: string;
  key: string;
  value: string;
}

/** Every setting as section / key path / value; nested values flattened (a.b[0].c). */
function settingRows(data: Settings | undefined): Setting[] {
  return (data?.sections ?? []).flatMap((s) =>
    flatten(s.values ?? {}).map(([key, value]) => ({
      section: s.name ?? '?',
      key: key === '(value)' ? '(empty)' : key,
      value,
    })),
  );
}

/**
 * A key path cut in its middle, "conn_eng…re.sources[1].path": its end is what tells the keys of one
 * object apart (cut at the end, a source's id, name, type and path all read "conn_eng_share.sources[…").
 */
function keyText(key: string, width: number): string {
  if (widthOf(key) <= width) return key;
  const head = Math.floor((width - 1) / 3);
  return `${leadingColumns(key, head)}…${trailingColumns(key, width - 1 - head)}`;
}

function lines(rows: Setting[], width: number): Line[] {
  const keyWidth = Math.min(Math.max(12, Math.floor(width * 0.45)), Math.max(8, ...rows.map((r) => widthOf(r.key))));
  const out: Line[] = [];
  let section: string | null = null;
  for (const r of rows) {
    if (r.section !== section) {
      if (section !== null) out.push(blank());
      out.push([seg(`[${r.section}]`, { bold: true })]);
      section = r.section;
    }
    const redacted = r.value === REDACTED;
    out.push(
      ...wrapped(
        [seg('  '), cell(keyText(r.key, keyWidth), keyWidth, { dim: true }), seg('  ')],
        redacted ? `${REDACTED} (hidden by the appliance)` : r.value,
        width,
        redacted ? { tone: 'muted', bold: true } : {},
      ),
    );
  }
  return out;
}

export const settingsScreen = defineScreen({
  name: 'settings',
  title: 'Settings',
  resources: () => [{ id: 'settings', route: 'settings' }],
  render: ({ resources, width, height, state, setScroll }) => {
    const all = settingRows(resources.settings.data as Settings | undefined);
    const needle = state.filter.toLowerCase();
    const rows = needle ? all.filter((r) => `${r.section} ${r.key} ${r.value}`.toLowerCase().includes(needle)) : all;
    const sections = new Set(all.map((r) => r.section)).size;
    const count = needle
      ? `${rows.length} of ${all.length} settings match "${state.filter}" (Esc clears)`
      : `${all.length} settings in ${sections} section${sections === 1 ? '' : 's'} · / filters`;
    const fixed: Line[] = [
      ...wrapped([seg('Read only: ', { bold: true })], READ_ONLY_NOTE, width),
      [seg(count, { dim: true })],
      ...auditKeyLine((resources.settings.data as Settings | undefined)?.audit_key_fingerprint),
    ];
    const body = rows.length
      ? lines(rows, width)
      : [[seg(needle ? '  No setting matches the filter.' : '  The appliance reported no settings.', { dim: true })]];
    return (
      <LineView fixed={fixed} lines={body} width={width} height={height} scroll={state.scroll} setScroll={setScroll} />
    );
  },
  filter: true,
});
