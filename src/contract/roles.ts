/**
 * The appliance's roles, without zod: the dashboard's start path reads them (the session, the
 * command line) before any schema is needed, and zod's first schemas are a cost every start would pay
 * (docs/performance.md). common.ts builds the `Role` schema from this list.
 */
export const ROLES = ['it_admin', 'app_owner', 'auditor'] as const;
export type Role = (typeof ROLES)[number];
export const MUTATING_ROLES: readonly Role[] = ['it_admin', 'app_owner'];
export const mayMutate = (role: Role | null | undefined): boolean => role != null && MUTATING_ROLES.includes(role);
