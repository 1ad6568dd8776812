/** The few text styles messages use; chalk's instances fit it. */
export interface Style {
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
}

const same = (text: string) => text;
export const plainStyle: Style = { bold: same, dim: same, red: same, green: same, yellow: same };

/**
 * Styles for one stream: chalk when `enabled` (see useColor: a terminal, NO_COLOR unset), plain text
 * otherwise. chalk is loaded only then: its own colour detection imports node:os and node:tty, ~5 ms that
 * piped and CI runs (and the start-up benchmark) should not pay for colours they never show.
 */
export async function loadStyle(enabled: boolean): Promise<Style> {
  if (!enabled) return plainStyle;
  const { Chalk } = await import("chalk");
  return new Chalk({ level: 1 });
}
