import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isValidNativeName, PROVIDER_NAME_PATTERN, providerNameFor } from "./index.js";

describe("provider name derivation", () => {
  it("always yields a name models accept, for any valid native name", () => {
    const nativeName = fc.string({
      minLength: 1,
      maxLength: 256,
      unit: fc.constantFrom(..."abcXYZ09._-/:+@~!"),
    });
    fc.assert(
      fc.property(nativeName, (name) => {
        fc.pre(isValidNativeName(name));
        const provider = providerNameFor(name);
        expect(provider).toMatch(PROVIDER_NAME_PATTERN);
        expect(providerNameFor(name)).toBe(provider);
      }),
      { numRuns: 2000 },
    );
  });
});
