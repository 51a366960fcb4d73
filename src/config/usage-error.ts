/** A mistake in the command line: the CLI prints its message and exits 2. Kept in its own module
 * so that importing it never loads a command's code (serve.ts would load the whole server). The
 * dashboard's bundle has its own copy of the class, so src/cli/main.ts also knows it by name. */
export class UsageError extends Error {
  override name = 'UsageError';
}
