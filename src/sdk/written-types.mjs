/**
 * The SDK's types as a consumer gets them (src/build.mjs writes dist/types/ from this): src/sdk/types.ts with
 * each type that is a schema's (`type Test = z.infer<typeof s.Test>`, or `z.input` for a request) written out
 * as plain declarations, as a consumer has no zod. A schema that another one holds and that has such a line is
 * written as its name (Flag, ProctoringMode, TestSection); a schema extending another's fields (all of them,
 * first) `extends` it.
 */

/** A schema's type, with its JSDoc: `(export )type Name = z.infer<typeof s.Schema>;` on one line. */
const ALIAS =
  /^(\/\*\*(?:[^*]|\*(?!\/))*\*\/\n)?(export )?type (\w+) = z\.(?:infer|input)<typeof s\.(\w+)>;$/gm;
const ANY_OTHER = "[field: string]: unknown;";
const IMPORTS = /^import type \* as [sz] from "[^"]+";\n/gm;

/**
 * A type's JSDoc without its `@field name text` lines, and those as `{ name: text }`: what the written-out
 * field's own JSDoc says.
 */
function fieldNotes(jsdoc) {
  const lines = jsdoc
    .replace(/^\/\*\*\s*|\s*\*\/\n$/g, "")
    .split("\n")
    .map((line) => line.replace(/^\s*\* ?/, ""))
    .filter((line) => line !== "");
  const notes = {};
  for (const [, key, note] of lines.map((line) => line.match(/^@field (\w+) (.+)$/)).filter(Boolean)) {
    notes[key] = note;
  }
  const own = lines.filter((line) => !line.startsWith("@field "));
  const doc =
    own.length === 0
      ? ""
      : own.length === 1
        ? `/** ${own[0]} */\n`
        : `/**\n${own.map((line) => ` * ${line}\n`).join("")} */\n`;
  return { doc, notes };
}

/** `source` (types.ts) with its schemas' types written out; `schemas` is api/schemas.ts loaded. */
export function writtenTypes(source, schemas) {
  const aliases = [...source.matchAll(ALIAS)].map(([, , , name, schema]) => {
    if (!schemas[schema]) throw new Error(`src/sdk/types.ts: ${name}: api/schemas.ts has no ${schema}`);
    return { name, schema: schemas[schema] };
  });
  const names = new Map(aliases.map(({ name, schema }) => [schema._zod.def, name]));
  const fieldsOf = new Map();

  /** The type of `schema` as TypeScript's text; a named one as its name, unless `top`. */
  function type(schema, top = false) {
    const def = schema._zod.def;
    if (!top && names.has(def)) return names.get(def);
    switch (def.type) {
      case "lazy":
        return type(def.getter(), top);
      case "pipe":
        return type(def.out);
      case "optional":
        return `${type(def.innerType)} | undefined`;
      case "nullable":
        return `${type(def.innerType)} | null`;
      case "string":
      case "number":
      case "boolean":
      case "unknown":
        return def.type;
      case "literal":
        return def.values.map((value) => JSON.stringify(value)).join(" | ");
      case "enum":
        return Object.values(def.entries)
          .map((value) => JSON.stringify(value))
          .join(" | ");
      case "union":
        return def.options.map((option) => type(option)).join(" | ");
      case "array": {
        const item = type(def.element);
        return /[|&]/.test(item) ? `(${item})[]` : `${item}[]`;
      }
      case "record":
        return `Record<${type(def.keyType)}, ${type(def.valueType)}>`;
      case "object":
        return `{ ${fields(def).join(" ")} }`;
      default:
        throw new Error(`src/sdk/written-types.mjs: no type written for a zod ${def.type}`);
    }
  }

  /** An object's fields, each `name?: type;`, and `[field: string]: unknown;` when it keeps any other. */
  function fields(def) {
    const lines = Object.entries(def.shape).map(([key, value]) => {
      const optional = value._zod.def.type === "optional";
      return `${key}${optional ? "?" : ""}: ${type(optional ? value._zod.def.innerType : value)};`;
    });
    if (def.catchall?._zod.def.type === "unknown") lines.push(ANY_OTHER);
    return lines;
  }

  /** The object's definition under a lazy one, if it is one. */
  function object(schema) {
    const def = schema._zod.def;
    return def.type === "lazy" ? object(def.getter()) : def.type === "object" ? def : undefined;
  }

  const declaration = (jsdoc = "", exported = "", name) => {
    const { doc, notes } = fieldNotes(jsdoc);
    const schema = aliases.find((alias) => alias.name === name).schema;
    const def = object(schema);
    for (const key of Object.keys(notes)) {
      if (!def?.shape[key]) throw new Error(`src/sdk/types.ts: ${name} has no field ${key} to note`);
    }
    if (!def) return `${doc}${exported}type ${name} = ${type(schema, true)};`;
    const lines = fields(def);
    const named = lines.filter((line) => line !== ANY_OTHER);
    // A type written before whose fields are this one's first, and that keeps others alike: this one extends it.
    const base = [...fieldsOf].find(
      ([, them]) =>
        them.named.length < named.length &&
        them.named.every((line, i) => named[i] === line) &&
        them.lines.includes(ANY_OTHER) === lines.includes(ANY_OTHER),
    );
    fieldsOf.set(name, { lines, named });
    const own = base ? named.slice(base[1].named.length) : lines;
    const head = base ? `interface ${name} extends ${base[0]}` : `interface ${name}`;
    const noted = own.map((line) => {
      const note = notes[line.match(/^\w+/)?.[0]];
      return note ? `  /** ${note} */\n  ${line}` : `  ${line}`;
    });
    return `${doc}${exported}${head} {\n${noted.join("\n")}\n}`;
  };
  return source
    .replace(ALIAS, (_, doc, exported, name) => declaration(doc, exported, name))
    .replace(IMPORTS, "");
}
