// Types for the undici files src/api/undici.ts imports directly (see there why), from undici's declarations.
declare module "undici/lib/dispatcher/agent.js" {
  import { Agent } from "undici";
  export default Agent;
}

declare module "undici/lib/api/api-request.js" {
  import type { Dispatcher } from "undici";
  export default function request(
    this: Dispatcher,
    options: Dispatcher.RequestOptions,
  ): Promise<Dispatcher.ResponseData>;
}
