/**
 * The build writes the SDK's schema types out as plain declarations (src/sdk/written-types.mjs): what it writes
 * of each kind of schema, and the mistakes it refuses rather than publish a wrong type. test/api/surface.test.ts
 * compares the whole of what it writes of src/sdk/types.ts with the committed declarations.
 */
import { describe, expect, it } from "vitest";
import * as z from "zod";
// @ts-expect-error: a plain ES module of the build's, without declarations
import { writtenTypes } from "../../src/sdk/written-types.mjs";

const Mode = z.enum(["on", "off"]);
const Part = z.looseObject({ size: z.number().nullish() });
const Base = z.looseObject({
  id: z.preprocess((value) => Number(value), z.number()),
  name: z.string().nullish(),
});
const schemas = {
  Mode,
  Part,
  Base,
  Body: z.lazy(() =>
    z.strictObject({
      mode: Mode.describe("described, the same schema").optional(),
      tags: z.array(z.union([z.string(), z.literal(1)])),
      extra: z.record(z.string(), z.string()).optional(),
    }),
  ),
  Whole: z.lazy(() => Base.extend({ parts: z.array(Part).nullish() })),
};

const source = `import type * as s from "../api/schemas.js";
import type * as z from "../parse/zod.js";
type Mode = z.infer<typeof s.Mode>;
export type Part = z.infer<typeof s.Part>;
export type Base = z.infer<typeof s.Base>;
/**
 * A body.
 * @field mode How it runs.
 */
export type Body = z.input<typeof s.Body>;
export type Whole = z.infer<typeof s.Whole>;
`;

describe("the SDK's schema types written out", () => {
  it("as plain declarations: a schema with a line as its name, extended fields as extends, notes as JSDoc", () => {
    expect(writtenTypes(source, schemas)).toBe(`type Mode = "on" | "off";
export interface Part {
  size?: number | null;
  [field: string]: unknown;
}
export interface Base {
  id: number;
  name?: string | null;
  [field: string]: unknown;
}
/** A body. */
export interface Body {
  /** How it runs. */
  mode?: Mode;
  tags: (string | 1)[];
  extra?: Record<string, string>;
}
export interface Whole extends Base {
  parts?: Part[] | null;
}
`);
  });

  it("refuses a schema it cannot write, a schema that is not there, a note of no field", () => {
    const line = (name: string) => `export type T = z.infer<typeof s.${name}>;\n`;
    expect(() => writtenTypes(line("When"), { When: z.date() })).toThrow("no type written for a zod date");
    expect(() => writtenTypes(line("Gone"), {})).toThrow("api/schemas.ts has no Gone");
    expect(() => writtenTypes(`/** @field nope Why. */\n${line("Part")}`, schemas)).toThrow(
      "T has no field nope to note",
    );
  });
});
