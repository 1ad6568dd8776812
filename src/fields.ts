/** Field names as the real service spells them: `TestInvitationId`, `test_invitation_id`... name one field. */

export type Fields = Record<string, unknown>;

export function isRecord(value: unknown): value is Fields {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `TestInvitationId` → `testinvitationid`; a trailing space (`"TotalScore "`, seen in the service's samples) goes too. */
export function fold(key: string): string {
  return key.replace(/[_\-\s]/g, "").toLowerCase();
}

/** The own key of `record` that spells `name` in any casing (own keys only: `__proto__` names nothing). */
export function findKey(record: object, name: string): string | undefined {
  if (Object.hasOwn(record, name)) return name;
  const wanted = fold(name);
  return Object.keys(record).find((key) => fold(key) === wanted);
}

export function field(record: unknown, name: string): unknown {
  if (!isRecord(record)) return undefined;
  const key = findKey(record, name);
  return key === undefined ? undefined : record[key];
}
