/**
 * What `--allow-writes` can name: each write tool belongs to one group (tools.ts). Plain `--allow-writes` allows
 * every group. Kept apart from the tool table so that declaring the command loads none of it.
 */
export const WRITE_GROUPS = ["invite", "links", "callbacks", "employees", "users", "gdpr"] as const;
export type WriteGroup = (typeof WRITE_GROUPS)[number];
