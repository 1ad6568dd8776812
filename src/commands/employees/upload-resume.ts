import { readFile, stat } from "node:fs/promises";
import { basename, extname } from "node:path";
import { multipartFile } from "../../api/multipart.js";
import type { Context } from "../../context.js";
import { UsageError } from "../../errors.js";
import { field } from "../../fields.js";
import { unreadable } from "../../files.js";
import { withSent } from "../shared/fields.js";
import { arg } from "../shared/flags.js";
import { verb } from "../shared/verb.js";
import { employeeArg } from "./body.js";
import { CERTIFICATE_SKILLS_COLUMN } from "./certificates.js";
import { inferredSkills } from "./records.js";

/** The limit the service enforces (413 above it); checked here so a large file is not sent in vain. */
const MAX_RESUME_BYTES = 5 * 1024 * 1024;

/** Accepted types, each with the bytes its files start with, so a misnamed file is caught before sending. */
const RESUME_TYPES: Record<string, { contentType: string; kind: string; magic: Buffer }> = {
  ".pdf": { contentType: "application/pdf", kind: "PDF", magic: Buffer.from("%PDF-") },
  ".doc": {
    contentType: "application/msword",
    kind: "Word 97-2003 (DOC)",
    magic: Buffer.from("d0cf11e0a1b11ae1", "hex"),
  },
  ".docx": {
    contentType: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    kind: "Word (DOCX)",
    magic: Buffer.from("504b0304", "hex"),
  },
};

export default verb({
  summary: "Upload an employee's resume (PDF, DOC or DOCX, at most 5 MiB); the service infers skills from it",
  args: [employeeArg(), arg.text("<file>", "the resume: a .pdf, .doc or .docx file")],
  notes: "Sent as multipart/form-data with the file in a part named `file`.",
  examples: [
    "assess employees upload-resume 501 ada-lovelace.pdf",
    "assess employees upload-resume 501 cv.docx --json",
  ],
  run,
});

async function run(ctx: Context, _o: unknown, [employeeId, path]: [number, string]) {
  if (!path) throw new UsageError("Missing <file>", "Give the resume to upload: a .pdf, .doc or .docx file.");
  const type = RESUME_TYPES[extname(path).toLowerCase()];
  if (!type)
    throw new UsageError(
      `${path}: only PDF, DOC and DOCX resumes can be uploaded`,
      "Convert the resume to PDF and try again.",
    );
  const data = await readResume(path);
  if (!data.subarray(0, type.magic.length).equals(type.magic)) {
    throw new UsageError(
      `${path} does not look like a ${type.kind} file (its content does not match its extension)`,
    );
  }
  const filename = basename(path);
  const client = await ctx.client();
  const answer = await client.employees.uploadResume(
    employeeId,
    multipartFile({ field: "file", filename, contentType: type.contentType, data }),
  );
  ctx.success(
    `Uploaded ${filename} (${formatBytes(data.length)}) for employee ${employeeId}${inferredSkills(answer, "it")}`,
  );
  await ctx.out.record(withSent(ctx.out, answer, { employeeId }), [
    { key: "employeeId", header: "EMPLOYEE" },
    { key: "fileName", header: "FILE", get: (row) => field(row, "fileName") ?? filename },
    { key: "size", header: "BYTES", get: (row) => field(row, "size") ?? data.length },
    CERTIFICATE_SKILLS_COLUMN,
  ]);
  return 0;
}

/** The file's bytes, after checking it exists, is a file, is not empty and is within the size limit. */
async function readResume(path: string): Promise<Buffer> {
  const info = await stat(path).catch((error) => {
    throw unreadable(path, error);
  });
  if (!info.isFile()) throw new UsageError(`${path} is not a file`);
  if (info.size === 0) throw new UsageError(`${path} is empty`);
  if (info.size > MAX_RESUME_BYTES) {
    throw new UsageError(
      `${path} is ${formatBytes(info.size)}; the service accepts resumes up to ${formatBytes(MAX_RESUME_BYTES)}`,
      "Shrink the file (for example, export the PDF without embedded images) and try again.",
    );
  }
  return readFile(path);
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
