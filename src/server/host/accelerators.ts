import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

export interface Accelerator {
  name: string;
  kind: string;
  memory_bytes: number | null;
}

/** PCI vendors whose display devices are compute accelerators; virtual and BMC adapters are not. */
const GPU_VENDORS: Record<string, string> = { '0x10de': 'NVIDIA', '0x1002': 'AMD', '0x8086': 'Intel' };

const readText = (path: string): string | null => {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return null;
  }
};
const list = (dir: string): string[] => {
  try {
    return readdirSync(dir).sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  } catch {
    return [];
  }
};

/** NVIDIA GPUs from the driver's /proc entries, else from its /dev nodes. */
function nvidia(root: string): Accelerator[] {
  const gpus = list(join(root, 'proc/driver/nvidia/gpus'));
  if (gpus.length) {
    return gpus.map((bus) => {
      const info = readText(join(root, 'proc/driver/nvidia/gpus', bus, 'information')) ?? '';
      const model = /^Model:\s*(.+)$/m.exec(info)?.[1]?.trim();
      return { name: model || `NVIDIA GPU ${bus}`, kind: 'gpu', memory_bytes: null };
    });
  }
  return list(join(root, 'dev'))
    .filter((n) => /^nvidia\d+$/.test(n))
    .map((n) => ({ name: `NVIDIA GPU (${n})`, kind: 'gpu', memory_bytes: null }));
}

/** Other GPUs from the DRM class in sysfs (AMD, Intel, and NVIDIA when its driver did not show). */
function drm(root: string, skipNvidia: boolean): Accelerator[] {
  const out: Accelerator[] = [];
  for (const card of list(join(root, 'sys/class/drm')).filter((n) => /^card\d+$/.test(n))) {
    const device = join(root, 'sys/class/drm', card, 'device');
    const vendorId = readText(join(device, 'vendor'))?.toLowerCase();
    const vendor = vendorId ? GPU_VENDORS[vendorId] : undefined;
    if (!vendor || (skipNvidia && vendor === 'NVIDIA')) continue;
    const deviceId = readText(join(device, 'device'));
    const vram = Number(readText(join(device, 'mem_info_vram_total')));
    out.push({
      name: `${vendor} GPU${deviceId ? ` ${deviceId}` : ''} (${card})`,
      kind: 'gpu',
      memory_bytes: Number.isSafeInteger(vram) && vram > 0 ? vram : null,
    });
  }
  return out;
}

/** Accelerators found on this host, read from /proc, /dev and /sys; [] when there are none. */
export function detectAccelerators(root = '/'): Accelerator[] {
  const nv = nvidia(root);
  return [...nv, ...drm(root, nv.length > 0)];
}
