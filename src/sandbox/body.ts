/** The request body, read once and parsed lazily (JSON for the routes, multipart for resumes and the record). */
import { createHash } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { ApiError, badRequest, MSG, statusError } from "./errors.js";
import { boundaryOf, type MultipartPart, parseMultipart } from "./multipart.js";

/** Far above any legitimate request (1000 candidates ≈ 100 KB, a resume ≤ 5 MiB). */
export const MAX_BODY_BYTES = 64 * 1024 * 1024;

export class BodyTooLarge extends Error {}

export function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new BodyTooLarge());
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)));
    req.on("error", reject);
  });
}

const UNPARSED = Symbol("unparsed");

export class RequestBody {
  readonly raw: Buffer;
  /** Lower-cased for type checks; the header as sent is kept because the multipart boundary is case-sensitive. */
  readonly contentType: string;
  private readonly contentTypeHeader: string;
  private parsedJson: unknown = UNPARSED;
  private jsonError = false;
  private parts: MultipartPart[] | undefined | typeof UNPARSED = UNPARSED;

  constructor(raw: Buffer, contentType: string | undefined) {
    this.raw = raw;
    this.contentTypeHeader = contentType ?? "";
    this.contentType = this.contentTypeHeader.toLowerCase();
  }

  get isJsonType(): boolean {
    return /^application\/(?:[\w.+-]*\+)?json\b/.test(this.contentType);
  }

  get isMultipart(): boolean {
    return this.contentType.startsWith("multipart/form-data");
  }

  private tryJson(): unknown {
    if (this.parsedJson === UNPARSED) {
      try {
        this.parsedJson = JSON.parse(this.raw.toString("utf8"));
      } catch {
        this.parsedJson = undefined;
        this.jsonError = true;
      }
    }
    return this.parsedJson;
  }

  /** For routes: undefined when empty; 415 when not declared application/json; 400 when it does not parse. */
  json(): unknown {
    if (this.raw.length === 0) return undefined;
    if (!this.isJsonType) {
      throw statusError(
        415,
        "Unsupported Media Type: send the body as JSON with Content-Type: application/json",
      );
    }
    const value = this.tryJson();
    if (this.jsonError) throw badRequest(MSG.invalidJson);
    return value;
  }

  /** The multipart parts, or an ApiError when the body is not (well-formed) multipart/form-data. */
  multipart(): MultipartPart[] {
    if (this.parts === UNPARSED) {
      const boundary = boundaryOf(this.contentTypeHeader);
      this.parts = boundary ? parseMultipart(this.raw, boundary) : undefined;
    }
    if (this.parts === undefined) {
      throw this.isMultipart
        ? badRequest("The multipart/form-data body could not be parsed")
        : statusError(415, "Unsupported Media Type: upload the file as multipart/form-data");
    }
    return this.parts;
  }

  /** What RecordedRequest.body holds: parsed JSON, a multipart summary with file digests, or the text. */
  forRecord(): unknown {
    if (this.raw.length === 0) return undefined;
    if (this.isMultipart) {
      try {
        const parts = this.multipart();
        const fields: Record<string, string> = {};
        const files: Array<{
          name: string;
          filename: string;
          contentType: string;
          size: number;
          sha256: string;
        }> = [];
        for (const p of parts) {
          if (p.filename === undefined) fields[p.name] = p.data.toString("utf8");
          else {
            files.push({
              name: p.name,
              filename: p.filename,
              contentType: p.contentType ?? "application/octet-stream",
              size: p.data.length,
              sha256: createHash("sha256").update(p.data).digest("hex"),
            });
          }
        }
        return { multipart: { fields, files } };
      } catch (e) {
        if (!(e instanceof ApiError)) throw e;
        return this.raw.toString("latin1");
      }
    }
    const value = this.tryJson();
    return this.jsonError ? this.raw.toString("utf8") : value;
  }
}
