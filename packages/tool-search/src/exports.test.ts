import { describe, expect, it } from "vitest";
import * as api from "./index.js";
import { createToolSearch } from "./index.js";

describe("@pablo/tool-search public surface", () => {
  it("exports exactly these names", () => {
    expect(Object.keys(api).sort()).toEqual([
      "DeferredToolSet",
      "ToolIndex",
      "ToolSearch",
      "createToolSearch",
      "createToolSearchTool",
      "documentOf",
      "onDemandCatalog",
      "parametersOf",
      "stem",
      "tokenize",
    ]);
  });

  it("shows the model this ToolSearch definition", () => {
    const { tool } = createToolSearch();
    expect({
      name: tool.providerName,
      description: tool.description,
      schema: JSON.parse(JSON.stringify(tool.inputSchema)),
    }).toMatchInlineSnapshot(`
        {
          "description": "Load on-demand tools. Give an exact tool name from the On-demand tools list, several names separated by commas, or a short description of the capability you need; the best matches become callable from your next turn.",
          "name": "ToolSearch",
          "schema": {
            "additionalProperties": false,
            "properties": {
              "limit": {
                "description": "Most tools to load (default 5).",
                "maximum": 20,
                "minimum": 1,
                "type": "integer",
              },
              "query": {
                "description": "An exact tool name (or several, comma-separated, or "select:a,b"), or a few words describing the capability you need.",
                "maxLength": 500,
                "minLength": 1,
                "type": "string",
              },
            },
            "required": [
              "query",
            ],
            "type": "object",
          },
        }
      `);
  });
});
