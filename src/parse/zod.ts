/**
 * The parts of zod this CLI uses, for `import * as z from "./zod.js"`: named exports let esbuild keep ~190 KB
 * of zod's ~760 KB namespace (~7 ms off every command). Add a name here when code needs another part.
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
  type ZodArray,
  type ZodOptional,
  type ZodType,
} from "zod";
