import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { expect } from 'vitest';
import { startTestServer, type TestServer } from './server.js';

/**
 * For a suite that hands out secrets (gateway keys, their rotations): the server logs at trace
 * level into memory, the suite records every secret it sees, and at its end none may be found in
 * the audit trail, the logs or the database files (read again after the server closed, which
 * checkpoints the WAL into the main file).
 */
export interface SecretWatch {
  /** every secret the suite saw */
  readonly secrets: string[];
  /** the server's log lines so far, joined */
  logs(): string;
  /** the data directory's files as text, now */
  dataFiles(): string[];
  /** `text` holds none of the secrets (nor `also`); a failure names the place and the secret's first characters */
  expectNone(where: string, text: string, also?: string[]): void;
  /**
   * Audit trail, logs and data files hold none of the secrets (nor `also`); then the server is closed
   * and its files are read again. The suite's server is closed after this.
   */
  expectNowhere(also?: string[]): Promise<void>;
}

/** A test server logging at trace level into memory, and the watch over the secrets a suite hands out. */
export async function startWatchedServer(): Promise<{ server: TestServer; watch: SecretWatch }> {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      lines.push(String(chunk));
      cb();
    },
  });
  const server = await startTestServer({ logger: pino({ level: 'trace' }, stream) });
  const secrets: string[] = [];
  const dataFiles = () =>
    readdirSync(server.dataDir).map((f) => readFileSync(join(server.dataDir, f)).toString('latin1'));
  const expectNone = (where: string, text: string, also: string[] = []) => {
    for (const secret of [...secrets, ...also])
      expect(text.includes(secret), `${where} holds ${secret.slice(0, 8)}…`).toBe(false);
  };
  const watch: SecretWatch = {
    secrets,
    logs: () => lines.join(''),
    dataFiles,
    expectNone,
    async expectNowhere(also = []) {
      expectNone('audit', JSON.stringify(server.server.db.prepare('SELECT * FROM audit').all()), also);
      expectNone('logs', lines.join(''), also);
      dataFiles().forEach((text, i) => expectNone(`data file ${i}`, text, also));
      await server.close();
      dataFiles().forEach((text, i) => expectNone(`closed data file ${i}`, text, also));
    },
  };
  return { server, watch };
}
