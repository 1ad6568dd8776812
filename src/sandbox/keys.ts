/** The two demo accounts of the sandbox and the API keys that select them. */
export type AccountId = "acme" | "globex";

export const SANDBOX_KEYS: { acme: string; globex: string } = Object.freeze({
  acme: "sbx-acme-4f9a2c7e1b3d",
  globex: "sbx-globex-8d6e0a5c9f21",
});

const accountsByKey = new Map<string, AccountId>([
  [SANDBOX_KEYS.acme, "acme"],
  [SANDBOX_KEYS.globex, "globex"],
]);

export function accountForKey(key: string | undefined): AccountId | undefined {
  return key === undefined ? undefined : accountsByKey.get(key);
}
