/** Fields as the real service spells them (`TestInvitationId`, `test_invitation_id`... name one field), read as text or numbers. */

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

/** The first of the fields `names` that is a non-empty text or a number, as text. */
export function textOf(row: unknown, ...names: string[]): string | undefined {
  return names.map((name) => text(field(row, name))).find((value) => value !== undefined);
}

/** The first of the fields `names` that has a value (not null), as a number if it is one. */
export function numberOf(row: unknown, ...names: string[]): number | undefined {
  const value = names.map((name) => field(row, name)).find((value) => value !== undefined && value !== null);
  if (typeof value === "number" && Number.isFinite(value)) return value;
  if (typeof value === "string" && value.trim() !== "" && Number.isFinite(Number(value)))
    return Number(value);
  return undefined;
}

/** A non-empty text, or a number as text. */
export function text(value: unknown): string | undefined {
  if (typeof value === "string") return value.trim() === "" ? undefined : value;
  return typeof value === "number" ? String(value) : undefined;
}

/** An id: a positive safe whole number, or its digits in a text (spaces around allowed). */
export function positiveId(value: unknown): number | undefined {
  const id = typeof value === "string" && /^\s*\d+\s*$/.test(value) ? Number(value) : value;
  return typeof id === "number" && Number.isSafeInteger(id) && id > 0 ? id : undefined;
}
