import { readdirSync, statSync, type Stats } from 'node:fs';
import { join, resolve } from 'node:path';
import type { ServerConfig } from '../config.js';
import { guessFromName, modelIdFromEntry } from './file-names.js';

/** A model known to the appliance, before the active flag is applied. */
export interface CatalogModel {
  id: string;
  name: string;
  family: string;
  parameters: number | null;
  quantization: string | null;
  size_bytes: number | null;
  state: 'present' | 'missing';
  path: string;
  source: 'config' | 'models_dir';
}

/** Why a change may not point at a model whose files are missing (the API's 422 detail). */
export const notPresentMessage = (modelId: string) =>
  `model ${modelId} is not present on the appliance: only models present on the appliance can be activated or routed to; copy the model files onto the appliance first (the service does not download models)`;

const TTL_MS = 5000;
/** Bounds the walk of a model folder, so a mistaken models_dir (say, /) cannot stall a request. */
const MAX_WALK_ENTRIES = 20_000;
const MAX_WALK_DEPTH = 8;

function statOrNull(path: string): Stats | null {
  try {
    return statSync(path); // follows symlinks: a dangling link is a missing model
  } catch {
    return null;
  }
}

function folderSize(dir: string): number {
  let total = 0;
  let seen = 0;
  const walk = (d: string, depth: number) => {
    if (depth > MAX_WALK_DEPTH) return;
    let entries;
    try {
      entries = readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (++seen > MAX_WALK_ENTRIES) return;
      const st = statOrNull(join(d, e.name));
      if (!st) continue;
      if (st.isDirectory()) walk(join(d, e.name), depth + 1);
      else if (st.isFile()) total += st.size;
    }
  };
  walk(dir, 0);
  return total;
}

function onDisk(path: string): { state: 'present' | 'missing'; size_bytes: number | null } {
  const st = statOrNull(path);
  if (!st) return { state: 'missing', size_bytes: null };
  return { state: 'present', size_bytes: st.isDirectory() ? folderSize(path) : st.size };
}

function scanModelsDir(dir: string, taken: Set<string>, takenPaths: Set<string>): CatalogModel[] {
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch {
    return [];
  }
  const out: CatalogModel[] = [];
  for (const entry of names) {
    if (entry.startsWith('.')) continue; // hidden files and partial copies such as .foo.gguf.part
    const path = join(dir, entry);
    if (takenPaths.has(resolve(path))) continue;
    const st = statOrNull(path);
    if (!st || !(st.isFile() || st.isDirectory())) continue;
    const id = modelIdFromEntry(entry, st.isDirectory());
    if (taken.has(id)) continue;
    taken.add(id);
    out.push({
      id,
      name: id,
      ...guessFromName(entry),
      size_bytes: st.isDirectory() ? folderSize(path) : st.size,
      state: 'present',
      path,
      source: 'models_dir',
    });
  }
  return out;
}

/** Every model of the config plus every entry of models_dir, read from the disk. */
function scanModels(config: ServerConfig): CatalogModel[] {
  const fromConfig: CatalogModel[] = config.models.map((m) => ({
    id: m.id,
    name: m.name,
    family: m.family,
    parameters: m.parameters,
    quantization: m.quantization,
    ...onDisk(m.path),
    path: m.path,
    source: 'config',
  }));
  if (!config.models_dir) return fromConfig;
  const taken = new Set(fromConfig.map((m) => m.id));
  const takenPaths = new Set(config.models.map((m) => resolve(m.path)));
  return [...fromConfig, ...scanModelsDir(config.models_dir, taken, takenPaths)];
}

export interface ModelCatalog {
  /** the models, rescanned at most every few seconds; `fresh` rescans now (before a change) */
  list(opts?: { fresh?: boolean }): CatalogModel[];
  get(id: string, opts?: { fresh?: boolean }): CatalogModel | undefined;
}

const catalogs = new WeakMap<ServerConfig, ModelCatalog>();

/** One catalog per server config, shared by every route group that needs the models. */
export function modelCatalog(config: ServerConfig): ModelCatalog {
  let catalog = catalogs.get(config);
  if (catalog) return catalog;
  let cached: { at: number; models: CatalogModel[] } | null = null;
  const list = (opts: { fresh?: boolean } = {}) => {
    const now = Date.now();
    if (opts.fresh || !cached || now - cached.at >= TTL_MS) cached = { at: now, models: scanModels(config) };
    return cached.models;
  };
  catalog = { list, get: (id, opts) => list(opts).find((m) => m.id === id) };
  catalogs.set(config, catalog);
  return catalog;
}
