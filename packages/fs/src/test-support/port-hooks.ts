import type { FsPort } from "../port/types.js";

type Hooks = {
  [K in keyof FsPort]?: FsPort[K] extends (...args: infer A) => unknown
    ? (...args: A) => void | Promise<void>
    : never;
};

/**
 * A port that runs `before` hooks ahead of the real operation and `after` hooks once it is done:
 * how a test makes something happen at an exact step of a write (a concurrent edit while the
 * temporary file is written, a cancellation once the rename has happened).
 */
export function hookedPort(io: FsPort, hooks: { before?: Hooks; after?: Hooks }): FsPort {
  return new Proxy(io, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver) as unknown;
      if (typeof value !== "function") return value;
      const name = key as keyof FsPort;
      // Unhooked methods pass through as they are (`scanReady` answers synchronously).
      if (!hooks.before?.[name] && !hooks.after?.[name]) return (value as () => unknown).bind(target);
      return async (...args: unknown[]) => {
        await (hooks.before?.[name] as ((...a: unknown[]) => unknown) | undefined)?.(...args);
        const result = await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        await (hooks.after?.[name] as ((...a: unknown[]) => unknown) | undefined)?.(...args);
        return result;
      };
    },
  });
}
