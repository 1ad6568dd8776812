import { Chalk, type ChalkInstance } from "chalk";

export type Style = ChalkInstance;

/** Colours for one stream: on only when that stream is a terminal and NO_COLOR is unset (see useColor). */
export function createStyle(enabled: boolean): Style {
  return new Chalk({ level: enabled ? 1 : 0 });
}
