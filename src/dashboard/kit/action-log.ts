/** One request the dashboard sent that changed something, or tried to: the action log (`:log`). */
export interface ActionLogEntry {
  /** a sequence number, the row's key */
  seq: number;
  at: number;
  route: string;
  method: string;
  /** the path and query as sent, under the appliance's prefix */
  path: string;
  /** the HTTP status, or null when no answer came (connection refused, timeout) */
  status: number | null;
  requestId: string | undefined;
  /** the failure in words, when it failed */
  error: string | null;
  /** the same request as a command line: secrets removed, the token as $TOKEN */
  command: string;
}

/** What to say beside a copied command about its credential ($TOKEN). */
export { credentialNote } from '../../client/equivalent-command.js';
