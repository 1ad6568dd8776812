import { randomBytes } from "node:crypto";
import type { RequestOptions } from "./transport.js";

export interface FilePart {
  field: string;
  filename: string;
  contentType: string;
  data: Buffer;
}

/** A multipart/form-data body of one file, one Buffer: a Content-Length (gateways refuse chunks), same bytes per retry. */
export function multipartFile(part: FilePart): NonNullable<RequestOptions["raw"]> {
  const boundary = freshBoundary(part.data);
  const head =
    `--${boundary}\r\n` +
    `Content-Disposition: form-data; name="${quoted(part.field)}"; filename="${quoted(part.filename)}"\r\n` +
    `Content-Type: ${part.contentType}\r\n\r\n`;
  const body = Buffer.concat([
    Buffer.from(head, "utf8"),
    part.data,
    Buffer.from(`\r\n--${boundary}--\r\n`, "utf8"),
  ]);
  return {
    contentType: `multipart/form-data; boundary=${boundary}`,
    data: () => body,
    describe: {
      multipart: {
        [part.field]: { filename: part.filename, contentType: part.contentType, bytes: part.data.length },
      },
    },
  };
}

/** A boundary that cannot occur in the file: random, and checked anyway. */
function freshBoundary(data: Buffer): string {
  for (;;) {
    const boundary = `assess-${randomBytes(16).toString("hex")}`;
    if (!data.includes(boundary)) return boundary;
  }
}

/** As browsers do: quotes and line breaks percent-encoded; backslashes too (some parsers read them as escapes). */
function quoted(value: string): string {
  return value.replace(/"/g, "%22").replace(/\\/g, "%5C").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}
