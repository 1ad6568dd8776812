/** The few text styles messages use; chalk's instances fit it. */
export type Style = Record<"bold" | "dim" | "red" | "green" | "yellow", (text: string) => string>;

const same = (text: string) => text;
export const plainStyle: Style = { bold: same, dim: same, red: same, green: same, yellow: same };

/** chalk when `enabled` (useColor), else plain text: chalk's detection costs ~5 ms a piped run never needs. */
export async function loadStyle(enabled: boolean): Promise<Style> {
  if (!enabled) return plainStyle;
  const { Chalk } = await import("chalk");
  return new Chalk({ level: 1 });
}
