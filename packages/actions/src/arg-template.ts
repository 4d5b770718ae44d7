import type { ArgTemplate, ParamSpec } from "./catalog-schema.js";

const PLACEHOLDER = /^\{([a-z][a-z0-9_]{0,31})\}$/;

/** The parameter a whole-element placeholder names, or undefined for a literal. */
export function placeholderName(arg: string): string | undefined {
  return PLACEHOLDER.exec(arg)?.[1];
}

/**
 * Why an argument template is not acceptable, or undefined. A placeholder must be a whole
 * argument: `--name={name}` or `{a}{b}` would splice a value into an argument, so any brace in a
 * literal is refused. A placeholder outside an optional group must name a required parameter; a
 * boolean may appear only inside a group, which it switches on and off.
 */
export function templateProblem(
  templates: readonly ArgTemplate[],
  params: Readonly<Record<string, ParamSpec>>,
): string | undefined {
  for (const template of templates) {
    const inGroup = typeof template !== "string";
    for (const arg of typeof template === "string" ? [template] : template.optional) {
      const name = placeholderName(arg);
      if (name === undefined) {
        if (arg.includes("{") || arg.includes("}")) {
          return `argument ${JSON.stringify(arg)} splices a placeholder into an argument; a placeholder must be a whole argument`;
        }
        continue;
      }
      const spec = params[name];
      if (!spec) return `placeholder {${name}} names no declared parameter`;
      if (!inGroup && spec.optional) return `optional parameter {${name}} must sit inside an optional group`;
      if (!inGroup && spec.type === "boolean")
        return `boolean parameter {${name}} must sit inside an optional group`;
    }
  }
  return undefined;
}

export type ParamValue = string | number | boolean;

/**
 * The argument array for the given (already validated) values. Each placeholder becomes exactly
 * one argument; an optional group is dropped unless every placeholder in it has a value (a boolean
 * counts only when true, and adds no argument of its own).
 */
export function expandTemplate(
  templates: readonly ArgTemplate[],
  values: Readonly<Record<string, ParamValue | undefined>>,
): ExpandedArgs {
  const argv: string[] = [];
  const fromParams = new Set<number>();
  for (const template of templates) {
    if (typeof template === "string") {
      const name = placeholderName(template);
      if (name !== undefined) fromParams.add(argv.length);
      argv.push(name === undefined ? template : String(values[name]));
      continue;
    }
    const group: { arg: string; param: boolean }[] = [];
    let complete = true;
    for (const arg of template.optional) {
      const name = placeholderName(arg);
      if (name === undefined) {
        group.push({ arg, param: false });
        continue;
      }
      const value = values[name];
      if (value === undefined || value === false) complete = false;
      else if (value !== true) group.push({ arg: String(value), param: true });
    }
    if (!complete) continue;
    for (const { arg, param } of group) {
      if (param) fromParams.add(argv.length);
      argv.push(arg);
    }
  }
  return { argv, fromParams };
}

/** An expanded argument array and which of its positions a parameter supplied. */
export interface ExpandedArgs {
  readonly argv: string[];
  readonly fromParams: ReadonlySet<number>;
}

/** Every parameter name the templates mention. */
export function templateNames(templates: readonly ArgTemplate[]): string[] {
  const names: string[] = [];
  for (const template of templates) {
    for (const arg of typeof template === "string" ? [template] : template.optional) {
      const name = placeholderName(arg);
      if (name !== undefined) names.push(name);
    }
  }
  return names;
}
