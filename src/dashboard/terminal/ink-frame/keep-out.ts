/**
 * Marks an Ink `<Transform>` function whose lines must not be remembered: the dashboard's frame
 * builder (output.ts) keeps finished rows between frames, and a line that reveals a secret at
 * output time (SecretDialog) must leave no copy behind once it is off the screen.
 */
const KEEP_OUT = Symbol.for('appliance-admin.frame.keep-out');

type Transformer = (line: string, index: number) => string;

export function keepOut<T extends Transformer>(transform: T): T {
  return Object.assign(transform, { [KEEP_OUT]: true });
}

export const isKeptOut = (transform: Transformer): boolean =>
  (transform as { [KEEP_OUT]?: boolean })[KEEP_OUT] === true;
