import { Api } from "../../api/endpoints.js";
import type { Context } from "../../context.js";
import { ApiError } from "../../errors.js";
import { Client } from "../../sdk/client.js";

/** One cheap call (the first test) tells whether a key is accepted. Network failures propagate. */
export async function verifyKey(ctx: Context, key: string): Promise<{ ok: boolean; status?: number }> {
  const client = await ctx.clientFor(key);
  try {
    await new Client(new Api(client), ctx.io.env).tests.list({ page: 1, pageSize: 1 });
    return { ok: true };
  } catch (error) {
    if (error instanceof ApiError && (error.status === 401 || error.status === 403))
      return { ok: false, status: error.status };
    throw error;
  } finally {
    await client.close();
  }
}
