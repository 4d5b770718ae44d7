import Type, { type Static } from "typebox";

/** `[options.plugins.web].options`. */
export const WebOptionsSchema = Type.Object(
  {
    allowLoopback: Type.Optional(
      Type.Boolean({
        description:
          "Allow requests to loopback hosts (localhost, 127.0.0.0/8, ::1), and plain http to them only. Off by default.",
      }),
    ),
    maxBytes: Type.Optional(
      Type.Integer({
        minimum: 1024,
        maximum: 8_388_608,
        description: "Most response bytes read (default 1 MiB).",
      }),
    ),
    timeoutMs: Type.Optional(
      Type.Integer({
        minimum: 100,
        maximum: 120_000,
        description: "Time limit of one request (default 15000 ms).",
      }),
    ),
    userAgent: Type.Optional(
      Type.String({ minLength: 1, maxLength: 200, description: "User-Agent header." }),
    ),
    search: Type.Optional(
      Type.Object(
        {
          endpoint: Type.String({
            minLength: 1,
            description:
              "URL of a JSON search endpoint: GET <endpoint>?q=<query>&limit=<n> answering {results:[{title,url,snippet}]}.",
          }),
        },
        { additionalProperties: false, description: "The HTTP search backend used when none is injected." },
      ),
    ),
  },
  { additionalProperties: false },
);

export type WebOptions = Static<typeof WebOptionsSchema>;

export interface ResolvedWebOptions {
  readonly allowLoopback: boolean;
  readonly maxBytes: number;
  readonly timeoutMs: number;
  readonly userAgent: string;
}

export function resolveWebOptions(options: WebOptions | undefined): ResolvedWebOptions {
  return {
    allowLoopback: options?.allowLoopback ?? false,
    maxBytes: options?.maxBytes ?? 1_048_576,
    timeoutMs: options?.timeoutMs ?? 15_000,
    userAgent: options?.userAgent ?? "pablo-plugin-web/0.1",
  };
}
