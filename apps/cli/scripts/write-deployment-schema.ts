import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { deploymentJsonSchema } from "../src/deployment-schema.js";

const target = join(import.meta.dirname, "..", "deployment.schema.json");
writeFileSync(target, `${JSON.stringify(deploymentJsonSchema(), null, 2)}\n`);
console.log(`wrote ${target}`);
