import { UsageError } from './serve.js';

export async function dashboardCommand(_argv: string[]): Promise<number> {
  throw new UsageError('the dashboard is not built yet');
}
