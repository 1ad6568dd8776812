/** A binary-safe multipart/form-data parser over a fully read body (resumes are at most a few MiB). */

export interface MultipartPart {
  name: string;
  filename: string | undefined;
  contentType: string | undefined;
  data: Buffer;
}

export function boundaryOf(contentType: string | undefined): string | undefined {
  if (!contentType || !/^multipart\/form-data\b/i.test(contentType)) return undefined;
  const m = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  return m ? (m[1] ?? m[2]) : undefined;
}

/** Returns undefined when the body is not well-formed multipart for this boundary. */
export function parseMultipart(body: Buffer, boundary: string): MultipartPart[] | undefined {
  const delimiter = Buffer.from(`--${boundary}`, "latin1");
  const parts: MultipartPart[] = [];
  let pos = body.indexOf(delimiter);
  if (pos < 0) return undefined;
  for (;;) {
    pos += delimiter.length;
    // `--` after a delimiter closes the body.
    if (body[pos] === 0x2d && body[pos + 1] === 0x2d) return parts;
    if (body[pos] === 0x0d && body[pos + 1] === 0x0a) pos += 2;
    else if (body[pos] === 0x0a) pos += 1;
    else return undefined;
    const headerEnd = body.indexOf("\r\n\r\n", pos, "latin1");
    if (headerEnd < 0) return undefined;
    const headers = parseHeaders(body.toString("utf8", pos, headerEnd));
    const dataStart = headerEnd + 4;
    const next = body.indexOf(Buffer.from(`\r\n--${boundary}`, "latin1"), dataStart);
    if (next < 0) return undefined;
    const disposition = headers.get("content-disposition") ?? "";
    const name = paramOf(disposition, "name");
    if (name !== undefined) {
      parts.push({
        name,
        filename: paramOf(disposition, "filename"),
        contentType: headers.get("content-type"),
        data: body.subarray(dataStart, next),
      });
    }
    pos = next + 2;
  }
}

function parseHeaders(block: string): Map<string, string> {
  const map = new Map<string, string>();
  for (const line of block.split("\r\n")) {
    const colon = line.indexOf(":");
    if (colon > 0) map.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return map;
}

function paramOf(header: string, key: string): string | undefined {
  const m = new RegExp(`(?:^|;)\\s*${key}=(?:"((?:[^"\\\\]|\\\\.)*)"|([^;]*))`, "i").exec(header);
  if (!m) return undefined;
  return m[1] !== undefined ? m[1].replace(/\\(.)/g, "$1") : m[2]?.trim();
}
