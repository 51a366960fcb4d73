/**
 * The appliance's roles: the one table every part of the program takes them from (the contract,
 * the server, the command lines, the dashboard). Without zod: the dashboard's start path reads
 * them (the session, the command line) before any schema is needed, and building zod's first
 * schemas is a measurable part of a start (docs/performance.md). common.ts builds the `Role`
 * schema from this list.
 *
 * The order is the roles' rank, strongest first: a subject holding several gets the first it
 * holds. The first migration's CHECK on api_tokens.role lists the same roles (a test compares).
 */
export const ROLES = ['it_admin', 'app_owner', 'auditor'] as const;
export type Role = (typeof ROLES)[number];
export const isRole = (v: unknown): v is Role => (ROLES as readonly unknown[]).includes(v);
/** The strongest of the roles held (ROLES is in rank order), or null. */
export const strongestRole = (held: ReadonlySet<Role>): Role | null => ROLES.find((r) => held.has(r)) ?? null;
export const MUTATING_ROLES: readonly Role[] = ['it_admin', 'app_owner'];
export const mayMutate = (role: Role | null | undefined): boolean => role != null && MUTATING_ROLES.includes(role);
