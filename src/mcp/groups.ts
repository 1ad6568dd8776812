import { UsageError } from "../errors.js";

/**
 * What `--allow-writes` can name: each write tool belongs to one group (tools.ts). Plain `--allow-writes` allows
 * every group. Kept apart from the tool table so that declaring the command loads none of it.
 */
export const WRITE_GROUPS = ["invite", "links", "callbacks", "employees", "users", "gdpr"] as const;
export type WriteGroup = (typeof WRITE_GROUPS)[number];

/** `--allow-writes`: every group; `--allow-writes invite,links`: those; absent: none. */
export function allowedGroups(value: boolean | string | undefined): Set<WriteGroup> {
  if (value === undefined || value === false) return new Set();
  if (value === true) return new Set(WRITE_GROUPS);
  const names = value
    .split(",")
    .map((name) => name.trim().toLowerCase())
    .filter(Boolean);
  const unknown = names.filter((name) => !(WRITE_GROUPS as readonly string[]).includes(name));
  if (names.length === 0 || unknown.length > 0) {
    throw new UsageError(
      `--allow-writes: ${unknown.length > 0 ? `unknown group(s) ${unknown.join(", ")}` : "no group given"}`,
      `Use --allow-writes alone for every write, or some of ${WRITE_GROUPS.join(", ")}, comma-separated.`,
    );
  }
  return new Set(names as WriteGroup[]);
}
