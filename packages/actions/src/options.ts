import Type, { type Static } from "typebox";

// The light entry `@pablo/actions/options`: what a host needs to validate `[options.actions]`
// without loading the builtins and their database drivers.

/** `[options.actions]` of a deployment file. */
export const ActionsOptionsSchema = Type.Object(
  {
    catalogs: Type.Array(Type.String({ minLength: 1, maxLength: 4096 }), {
      maxItems: 64,
      description: "Catalog files (YAML) to load, relative to the deployment file's directory.",
    }),
    trusted_keys: Type.Array(Type.String({ minLength: 1, maxLength: 4096 }), {
      maxItems: 16,
      description: "Ed25519 public key files (PEM); only actions signed by one of them load.",
    }),
  },
  { additionalProperties: false, description: "[options.actions]: signed action catalogs." },
);
export type ActionsOptions = Static<typeof ActionsOptionsSchema>;
