import { readFileSync, statfsSync } from 'node:fs';
import os from 'node:os';
import { detectAccelerators, type Accelerator } from './accelerators.js';

export interface HostFacts {
  hostname: string;
  os: string;
  cpus: number;
  memory_bytes: number;
  disk_free_bytes: number | null;
  accelerators: Accelerator[];
  /** when these facts were read (epoch ms) */
  read_at: number;
}

/**
 * Host facts are read again after this long. They change slowly, but free disk space changes with
 * every write: read at each 2 s poll, the deployment status would never answer 304. The status's
 * components are computed on every request.
 */
const FACTS_TTL_MS = 30_000;

function osName(): string {
  const kernel = `${os.type()} ${os.release()}`;
  try {
    const pretty = /^PRETTY_NAME=(?:"([^"]*)"|(.*))$/m.exec(readFileSync('/etc/os-release', 'utf8'));
    const name = (pretty?.[1] ?? pretty?.[2] ?? '').trim();
    return name ? `${name} (${kernel})` : kernel;
  } catch {
    return kernel;
  }
}

/** Free space for an unprivileged writer in `dir`, or null when the file system cannot say. */
function diskFreeBytes(dir: string): number | null {
  try {
    const s = statfsSync(dir);
    return Number(s.bavail) * Number(s.bsize);
  } catch {
    return null;
  }
}

function readHostFacts(dataDir: string): HostFacts {
  return {
    hostname: os.hostname(),
    os: osName(),
    cpus: os.availableParallelism(),
    memory_bytes: os.totalmem(),
    disk_free_bytes: diskFreeBytes(dataDir),
    accelerators: detectAccelerators(),
    read_at: Date.now(),
  };
}

/** Host facts, re-read at most every couple of seconds. */
export function hostFactsReader(dataDir: string): () => HostFacts {
  let cached: HostFacts | null = null;
  return () => {
    if (!cached || Date.now() - cached.read_at >= FACTS_TTL_MS) cached = readHostFacts(dataDir);
    return cached;
  };
}
