/**
 * The parts of zod this CLI uses, for `import * as z from "./zod.js"`. zod's own `z` is one namespace object
 * holding everything (every locale, JSON Schema, coercion...), ~760 KB that a bundler must keep whole; named
 * exports let esbuild keep only these (~190 KB), which took ~7 ms off every command that talks to the
 * service (bench/startup.mjs). Add a name here when code needs another part of zod.
 */
export {
  array,
  boolean,
  email,
  enum,
  type infer,
  type input,
  lazy,
  literal,
  looseObject,
  NEVER,
  null,
  number,
  object,
  preprocess,
  record,
  registry,
  strictObject,
  string,
  toJSONSchema,
  tuple,
  union,
  unknown,
  url,
  type ZodType,
} from "zod";
