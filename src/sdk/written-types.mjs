/**
 * The SDK's types as a consumer gets them (src/build.mjs writes dist/types/ from this): src/sdk/types.ts with
 * each type that is a schema's (`type Test = z.infer<typeof s.Test>`, or `z.input` for a request) written out
 * as plain declarations, as a consumer has no zod. A schema that another one holds and that has such a line is
 * written as its name (Flag, ProctoringMode, TestSection); a schema extending another's fields (all of them,
 * first) `extends` it; fields named by a list that types.ts imports (SETTING_FLAGS) as a `Partial<Record<…>>`
 * of it. `AssessClient` is written as an interface: each member typed `FromRecord` as the method of its place's
 * operation record (its path's parameters, its body, the return type its `read` is written with).
 */

import ts from "typescript";

/** A schema's type, with its JSDoc: `(export )type Name = z.infer<typeof s.Schema>;` on one line. */
const ALIAS =
  /^(\/\*\*(?:[^*]|\*(?!\/))*\*\/\n)?(export )?type (\w+) = z\.(?:infer|input)<typeof s\.(\w+)>;$/gm;
const ANY_OTHER = "[field: string]: unknown;";

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

/**
 * `source` (types.ts) with its schemas' types and its client written out; `schemas` is api/schemas.ts loaded,
 * `lists` the arrays types.ts imports by name, `operations` api/operations/index.ts loaded, `answers` the return
 * type of each operation's `read` as written (answerTypes).
 */
export function writtenTypes(source, schemas, { lists = {}, operations, answers = {} } = {}) {
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

  /** The list that names some of an object's fields, all of one optional type: `[list, their type]`. */
  function listed(def) {
    for (const [list, keys] of Object.entries(lists)) {
      const values = keys.map((key) => def.shape[key]?._zod.def);
      if (values.some((value) => value?.type !== "optional")) continue;
      const types = new Set(values.map((value) => type(value.innerType)));
      if (types.size === 1) return [list, keys, [...types][0]];
    }
    return undefined;
  }

  const declaration = (jsdoc = "", exported = "", name) => {
    const { doc, notes } = fieldNotes(jsdoc);
    const schema = aliases.find((alias) => alias.name === name).schema;
    const def = object(schema);
    for (const key of Object.keys(notes)) {
      if (!def?.shape[key]) throw new Error(`src/sdk/types.ts: ${name} has no field ${key} to note`);
    }
    if (!def) return `${doc}${exported}type ${name} = ${type(schema, true)};`;
    const list = listed(def);
    if (list) {
      const [listName, keys, of] = list;
      const rest = {
        ...def,
        shape: Object.fromEntries(Object.entries(def.shape).filter(([key]) => !keys.includes(key))),
      };
      const lines = fields(rest).map((line) => `  ${line}\n`);
      return `${doc}${exported}type ${name} = {\n${lines.join("")}} & Partial<Record<(typeof ${listName})[number], ${of}>>;`;
    }
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
  const written = operations ? writtenClient(source, operations, answers, schemas, names) : source;
  return withoutUnusedImports(
    written.replace(ALIAS, (_, doc, exported, name) => declaration(doc, exported, name)),
  );
}

/**
 * `source` without the imports its published declarations do not use (the exported ones, but `@internal`, and
 * the local ones they name): the compiler would drop them, and the file's JSDoc with the first.
 */
function withoutUnusedImports(source) {
  const file = ts.createSourceFile("types.ts", source, ts.ScriptTarget.Latest, true);
  const locals = new Map();
  const roots = [];
  for (const statement of file.statements) {
    if (ts.isImportDeclaration(statement)) continue;
    const exported = statement.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
    const internal = ts.getJSDocTags(statement).some((tag) => tag.tagName.text === "internal");
    if (exported && !internal) roots.push(statement);
    else if (statement.name) locals.set(statement.name.text, statement);
  }
  const used = new Set();
  const visit = (node) => {
    if (ts.isIdentifier(node) && !used.has(node.text)) {
      used.add(node.text);
      if (locals.has(node.text)) visit(locals.get(node.text));
    }
    ts.forEachChild(node, visit);
  };
  for (const root of roots) visit(root);
  const unused = file.statements.filter((statement) => {
    if (!ts.isImportDeclaration(statement)) return false;
    const { name, namedBindings } = statement.importClause ?? {};
    const names = [
      ...(name ? [name.text] : []),
      ...(namedBindings && ts.isNamespaceImport(namedBindings) ? [namedBindings.name.text] : []),
      ...(namedBindings && ts.isNamedImports(namedBindings)
        ? namedBindings.elements.map((e) => e.name.text)
        : []),
    ];
    return !names.some((n) => used.has(n));
  });
  let text = source;
  for (const statement of unused.reverse()) {
    const end = text[statement.end] === "\n" ? statement.end + 1 : statement.end;
    text = text.slice(0, statement.getStart(file)) + text.slice(end);
  }
  return text;
}

/**
 * The return type each operation's `read` is written with (`s.Report`, `Fields | undefined`), by operation:
 * `source` is api/operations/index.ts (parsed by the TypeScript compiler, without checking its types).
 */
export function answerTypes(source) {
  const file = ts.createSourceFile("index.ts", source, ts.ScriptTarget.Latest, true);
  const functions = new Map();
  let table;
  for (const statement of file.statements) {
    if (ts.isFunctionDeclaration(statement) && statement.name) functions.set(statement.name.text, statement);
    if (!ts.isVariableStatement(statement)) continue;
    for (const { name, initializer } of statement.declarationList.declarations) {
      if (name.text === "OPERATIONS") table = initializer;
      else if (initializer && ts.isArrowFunction(initializer)) functions.set(name.text, initializer);
    }
  }
  while (table && !ts.isObjectLiteralExpression(table)) table = table.expression;
  if (!table) throw new Error("src/api/operations/index.ts: no OPERATIONS object found");
  const answers = {};
  for (const property of table.properties) {
    const fields = property.initializer?.arguments?.[2];
    const read = fields?.properties?.find((field) => field.name?.text === "read");
    if (!read) continue;
    const fn = ts.isIdentifier(read.initializer) ? functions.get(read.initializer.text) : read.initializer;
    if (!fn?.type) {
      throw new Error(
        `src/api/operations/index.ts: ${property.name.text}: write the return type of its read (the SDK's declarations show it)`,
      );
    }
    answers[property.name.text] = fn.type.getText(file);
  }
  return answers;
}

/**
 * `type ClientMembers = { … }; export type AssessClient = …;` as `export interface AssessClient { … }`, each
 * `name: FromRecord` (or `FromRecord<"param">`: its body's name) member as its place's operation's method. A
 * record whose place is no member is written at the end of its resource's members (a resource of its own at the
 * end if there is none), its summary as its comment: adding an operation is adding its record.
 */
function writtenClient(source, { OPERATIONS, pathParameters }, answers, schemas, names) {
  const file = ts.createSourceFile("types.ts", source, ts.ScriptTarget.Latest, true);
  const aliasOf = (name) => file.statements.find((s) => ts.isTypeAliasDeclaration(s) && s.name.text === name);
  const members = aliasOf("ClientMembers");
  const alias = aliasOf("AssessClient");
  const literal = members?.type;
  if (!alias || !literal || !ts.isTypeLiteralNode(literal) || members.end > alias.getStart(file)) {
    throw new Error(
      "src/sdk/types.ts: no `type ClientMembers = { …members… };` followed by `export type AssessClient = …`",
    );
  }
  const records = Object.entries(OPERATIONS);
  const byPlace = new Map(records.map(([operation, r]) => [`${r.resource}.${r.verb}`, [operation, r]]));
  const named = (schema, what) => {
    const name = names.get(schema._zod.def);
    if (!name) throw new Error(`src/sdk/types.ts: ${what}: its schema has no type of its own here`);
    return name;
  };
  const answer = (operation) =>
    answers[operation].replace(/\bs\.(\w+)/g, (_, schema) => named(schemas[schema], `${operation}'s answer`));

  /** The method of the record at `place` (`body`: its body's name), after its name. */
  function method(place, body) {
    const verb = place.slice(place.lastIndexOf(".") + 1);
    const found =
      byPlace.get(place) ??
      (verb === "iterate"
        ? records.find(([, r]) => r.pagination && `${r.resource}.iterate` === place)
        : undefined);
    if (!found)
      throw new Error(`src/sdk/types.ts: AssessClient's ${place} is FromRecord, but no record is there`);
    const [operation, r] = found;
    if (r.pagination) {
      const item = named(r.pagination.items, `${operation}'s items`);
      return verb === "iterate" && !byPlace.has(place)
        ? `(options?: IterateOptions): AsyncGenerator<${item}>`
        : `(request?: PageRequest): Promise<Page<${item}>>`;
    }
    if (!r.read)
      throw new Error(`src/sdk/types.ts: ${operation} (${place}) has no read: write its member out`);
    const params = pathParameters(r.path).map((name) => `${name}: number`);
    if (r.body === "fields") params.push(`${body}: ${named(schemas.AnyRecord, `${operation}'s body`)}`);
    else if (r.body && r.body !== "empty") params.push(`${body}: ${named(r.body, `${operation}'s body`)}`);
    return `(${params.join(", ")}): Promise<${answer(operation)}>`;
  }

  const places = new Set();
  const edits = [];
  /** Each resource's type literal (`""` the client's own), where a record with no member is added. */
  const literals = new Map();
  (function walk(node, path) {
    literals.set(path.join("."), node);
    for (const member of node.members) {
      const name = member.name && ts.isPropertyName(member.name) ? member.name.text : undefined;
      if (name === undefined) continue;
      const place = [...path, name].join(".");
      const type = ts.isPropertySignature(member) ? member.type : undefined;
      if (type && ts.isTypeLiteralNode(type) && type.members.some((m) => m.name)) {
        walk(type, [...path, name]);
        continue;
      }
      places.add(place);
      if (type && ts.isTypeReferenceNode(type) && type.typeName.getText(file) === "FromRecord") {
        const param = type.typeArguments?.[0];
        const body = param ? JSON.parse(param.getText(file)) : "body";
        edits.push([member.getStart(file), member.end, `${name}${method(place, body)};`]);
      }
    }
  })(literal, []);
  const added = new Map();
  for (const [, r] of records) {
    const place = `${r.resource}.${r.verb}`;
    if (places.has(place)) continue;
    const doc = `/** ${r.summary.replace(/\*\//g, "*\\/")} */`;
    const members = [`${doc}\n${r.verb}${method(place)};`];
    if (r.pagination && !places.has(`${r.resource}.iterate`))
      members.push(
        `/** Every item of ${r.verb}, page after page. */\niterate${method(`${r.resource}.iterate`)};`,
      );
    const path = r.resource.split(".");
    let at = path.length;
    while (!literals.has(path.slice(0, at).join("."))) at--;
    const key = path.slice(0, at).join(".");
    const nested = path.slice(at).reduceRight(
      (inner, name, n) => [
        `${at + n === 0 ? "readonly " : ""}${name}: {`,
        ...inner.map((line) => `  ${line}`),
        "};",
      ],
      members.flatMap((member) => member.split("\n")),
    );
    added.set(key, [...(added.get(key) ?? []), ...nested]);
  }
  for (const [key, lines] of added) {
    const node = literals.get(key);
    const close = node.end - 1;
    const lineStart = source.lastIndexOf("\n", close) + 1;
    const indent = `${source.slice(lineStart, close)}  `;
    edits.push([lineStart, lineStart, lines.map((line) => `${indent}${line}\n`).join("")]);
  }
  let text = source.slice(literal.getStart(file), literal.end);
  for (const [start, end, replacement] of edits.sort(([a], [b]) => b - a)) {
    const at = start - literal.getStart(file);
    text = text.slice(0, at) + replacement + text.slice(end - literal.getStart(file));
  }
  return `${source.slice(0, members.getStart(file))}export interface AssessClient ${text}${source.slice(alias.end)}`;
}
