import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Database from '../db/sqlite-driver.js';
import { createRng } from './prng.js';
import {
  COUNTRIES,
  accountingExportFiles,
  crmExportFiles,
  engineeringShareFiles,
  hrShareFiles,
  officeExportFiles,
} from './documents.js';

export interface DemoSourcePaths {
  hrShare: string;
  engineeringShare: string;
  officeExport: string;
  crmExport: string;
  accountingExport: string;
  operationsDb: string;
}

/** Writes only what is missing, so a restart keeps whatever is there (and is fast). */
function writeTree(root: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    const file = join(root, rel);
    if (existsSync(file)) continue;
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
  }
}

/** Creates (idempotently) the demo's local sources under root and returns their paths. */
export function createDemoSources(root: string): DemoSourcePaths {
  const paths: DemoSourcePaths = {
    hrShare: join(root, 'hr-share'),
    engineeringShare: join(root, 'engineering-share'),
    officeExport: join(root, 'office-export'),
    crmExport: join(root, 'crm-export'),
    accountingExport: join(root, 'accounting-export'),
    operationsDb: join(root, 'operations.sqlite'),
  };
  writeTree(paths.hrShare, hrShareFiles());
  writeTree(paths.engineeringShare, engineeringShareFiles());
  writeTree(paths.officeExport, officeExportFiles());
  writeTree(paths.crmExport, crmExportFiles());
  writeTree(paths.accountingExport, accountingExportFiles());
  if (!existsSync(paths.operationsDb)) createOperationsDb(paths.operationsDb);
  return paths;
}

/** A small relational database: customers, products, employees, orders, order lines. */
function createOperationsDb(file: string): void {
  const tmp = `${file}.tmp-${process.pid}`;
  rmSync(tmp, { force: true });
  const db = new Database(tmp);
  try {
    const rng = createRng(7);
    db.exec(`
      CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, country TEXT NOT NULL, segment TEXT NOT NULL, created_on TEXT NOT NULL);
      CREATE TABLE products (id INTEGER PRIMARY KEY, sku TEXT NOT NULL UNIQUE, name TEXT NOT NULL, unit_price_eur REAL NOT NULL);
      CREATE TABLE employees (id INTEGER PRIMARY KEY, name TEXT NOT NULL, department TEXT NOT NULL, hired_on TEXT NOT NULL);
      CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customers(id), sales_rep_id INTEGER REFERENCES employees(id), ordered_on TEXT NOT NULL, status TEXT NOT NULL);
      CREATE TABLE order_lines (id INTEGER PRIMARY KEY, order_id INTEGER NOT NULL REFERENCES orders(id), product_id INTEGER NOT NULL REFERENCES products(id), quantity INTEGER NOT NULL);
    `);
    const day = (offset: number) => new Date(Date.UTC(2023, 0, 1) + offset * 86_400_000).toISOString().slice(0, 10);
    const prefixes = [
      'Alpha',
      'Beacon',
      'Cobalt',
      'Delta',
      'Evergreen',
      'Foxglove',
      'Granite',
      'Harbor',
      'Iris',
      'Juniper',
      'Keystone',
      'Lumen',
    ];
    const suffixes = [
      'Systems',
      'Retail',
      'Logistics',
      'Health',
      'Foods',
      'Media',
      'Energy',
      'Partners',
      'Labs',
      'Works',
    ];
    db.transaction(() => {
      const customer = db.prepare('INSERT INTO customers (name, country, segment, created_on) VALUES (?, ?, ?, ?)');
      for (let i = 0; i < 120; i++) {
        customer.run(
          `${prefixes[i % prefixes.length]} ${suffixes[Math.floor(i / prefixes.length) % suffixes.length]}`,
          rng.pick(COUNTRIES),
          rng.pick(['enterprise', 'mid-market', 'smb']),
          day(rng.int(0, 900)),
        );
      }
      const product = db.prepare('INSERT INTO products (sku, name, unit_price_eur) VALUES (?, ?, ?)');
      const kinds = ['Licence', 'Support plan', 'Training day', 'Consulting day', 'Storage pack'];
      const tiers = ['Basic', 'Standard', 'Professional', 'Enterprise', 'Premium', 'Team', 'Site', 'Starter'];
      for (let i = 0; i < 40; i++)
        product.run(
          `SKU-${1000 + i}`,
          `${kinds[i % kinds.length]} ${tiers[Math.floor(i / kinds.length)]}`,
          rng.int(9, 2400) + 0.99,
        );
      const employee = db.prepare('INSERT INTO employees (name, department, hired_on) VALUES (?, ?, ?)');
      const first = ['Alex', 'Sam', 'Robin', 'Kim', 'Noah', 'Mia', 'Leo', 'Emma', 'Liam', 'Zoe'];
      const last = ['Müller', 'Martin', 'Jansen', 'Rossi', 'Novak', 'Berg', 'Costa', 'Weber', 'Laine'];
      for (let i = 0; i < 45; i++)
        employee.run(
          `${first[i % first.length]} ${last[i % last.length]}`,
          rng.pick(['Sales', 'Finance', 'Support', 'Engineering', 'HR']),
          day(rng.int(-2000, 900)),
        );
      const order = db.prepare(
        'INSERT INTO orders (customer_id, sales_rep_id, ordered_on, status) VALUES (?, ?, ?, ?)',
      );
      const line = db.prepare('INSERT INTO order_lines (order_id, product_id, quantity) VALUES (?, ?, ?)');
      for (let i = 1; i <= 300; i++) {
        order.run(
          rng.int(1, 120),
          rng.int(1, 45),
          day(rng.int(300, 1000)),
          rng.weighted([
            ['fulfilled', 8],
            ['open', 2],
            ['cancelled', 1],
          ] as const),
        );
        for (let n = rng.int(1, 3); n > 0; n--) line.run(i, rng.int(1, 40), rng.int(1, 25));
      }
    })();
  } finally {
    db.close();
  }
  renameSync(tmp, file);
}

export interface DemoModelFile {
  id: string;
  name: string;
  family: string;
  parameters: number;
  quantization: string;
  file: string;
  /** false: configured but not on disk, to show the missing state */
  present: boolean;
}

export const DEMO_MODELS: DemoModelFile[] = [
  {
    id: 'llama-3.1-8b-instruct',
    name: 'Llama 3.1 8B Instruct',
    family: 'llama',
    parameters: 8_030_000_000,
    quantization: 'Q4_K_M',
    file: 'llama-3.1-8b-instruct.Q4_K_M.gguf',
    present: true,
  },
  {
    id: 'mistral-7b-instruct-v0.3',
    name: 'Mistral 7B Instruct v0.3',
    family: 'mistral',
    parameters: 7_250_000_000,
    quantization: 'Q5_K_M',
    file: 'mistral-7b-instruct-v0.3.Q5_K_M.gguf',
    present: true,
  },
  {
    id: 'qwen2.5-14b-instruct',
    name: 'Qwen2.5 14B Instruct',
    family: 'qwen',
    parameters: 14_770_000_000,
    quantization: 'Q4_K_M',
    file: 'qwen2.5-14b-instruct.Q4_K_M.gguf',
    present: true,
  },
  {
    id: 'qwen2.5-coder-7b-instruct',
    name: 'Qwen2.5 Coder 7B Instruct',
    family: 'qwen',
    parameters: 7_620_000_000,
    quantization: 'Q4_K_M',
    file: 'qwen2.5-coder-7b-instruct.Q4_K_M.gguf',
    present: true,
  },
  {
    id: 'phi-3.5-mini-instruct',
    name: 'Phi-3.5 Mini Instruct',
    family: 'phi',
    parameters: 3_820_000_000,
    quantization: 'Q8_0',
    file: 'phi-3.5-mini-instruct.Q8_0.gguf',
    present: true,
  },
  {
    id: 'nomic-embed-text-v1.5',
    name: 'Nomic Embed Text v1.5',
    family: 'nomic-bert',
    parameters: 137_000_000,
    quantization: 'F16',
    file: 'nomic-embed-text-v1.5.f16.gguf',
    present: true,
  },
  {
    id: 'llama-3.3-70b-instruct',
    name: 'Llama 3.3 70B Instruct',
    family: 'llama',
    parameters: 70_550_000_000,
    quantization: 'Q4_K_M',
    file: 'llama-3.3-70b-instruct.Q4_K_M.gguf',
    present: false,
  },
];

/**
 * Small placeholder files named like real GGUF weights: they start with the GGUF magic and
 * version, and nothing more. The appliance does not run models, so the demo ships no weights.
 */
export function createDemoModelFiles(dir: string): void {
  mkdirSync(dir, { recursive: true });
  for (const m of DEMO_MODELS) {
    const file = join(dir, m.file);
    if (!m.present) {
      rmSync(file, { force: true });
      continue;
    }
    if (existsSync(file)) continue;
    const header = Buffer.alloc(4096);
    header.write('GGUF', 0, 'latin1');
    header.writeUInt32LE(3, 4);
    header.write(`placeholder for ${m.name}; not real weights\n`, 24, 'utf8');
    writeFileSync(file, header);
  }
}
