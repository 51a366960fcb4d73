import type { IdentityTestResult } from '../../contract/index.js';

export type Step = IdentityTestResult['steps'][number];
type StepStatus = Step['status'];
export interface StepOutcome {
  status: StepStatus;
  detail: string;
}

/**
 * Runs named checks in order and records each with its duration. Once a gating step fails,
 * every later step is recorded as skipped.
 */
export class StepRunner {
  readonly steps: Step[] = [];
  private blockedBy: string | null = null;

  async run(
    id: string,
    check: () => Promise<StepOutcome> | StepOutcome,
    opts: { gate?: boolean } = {},
  ): Promise<boolean> {
    if (this.blockedBy) {
      this.steps.push({ id, status: 'skipped', detail: `skipped: step ${this.blockedBy} failed`, duration_ms: 0 });
      return false;
    }
    const started = performance.now();
    let outcome: StepOutcome;
    try {
      outcome = await check();
    } catch (err) {
      outcome = { status: 'failed', detail: `unexpected error: ${(err as Error).message}` };
    }
    this.steps.push({ id, ...outcome, duration_ms: Math.max(0, Math.round(performance.now() - started)) });
    const failed = outcome.status === 'failed';
    if (failed && opts.gate !== false) this.blockedBy = id;
    return !failed;
  }

  get ok(): boolean {
    return this.steps.every((s) => s.status === 'passed' || s.status === 'warning');
  }
}

export const passed = (detail: string): StepOutcome => ({ status: 'passed', detail });
export const failed = (detail: string): StepOutcome => ({ status: 'failed', detail });
export const warning = (detail: string): StepOutcome => ({ status: 'warning', detail });
