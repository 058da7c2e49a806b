import type { Template, TemplateResource } from './template.ts';

/** A nested stack of a template: the `AWS::CloudFormation::Stack` resource and what it deploys. */
export interface NestedTemplate {
  /** The logical id of the `AWS::CloudFormation::Stack` resource in its parent. */
  resourceId: string;
  /** What its resources' logical ids are prefixed with in the flat template (the nested stack's construct id). */
  prefix: string;
  /** Its own template, itself possibly with nested stacks. */
  template: Template;
  /** Its own nested stacks. */
  nested: NestedTemplate[];
}

const NESTED_STACK = 'AWS::CloudFormation::Stack';

/**
 * One template with the resources of every nested stack in it, as CloudFormation would deploy them together: each
 * nested resource's logical id prefixed with its stack's `prefix`, each `Ref` to a nested stack's parameter replaced
 * by the value its parent passes, and each `Fn::GetAtt [<nested stack>, Outputs.<name>]` by that output's value.
 * Everything that reads a template resource by resource (the local runner, the infra tests) then works unchanged on
 * a deployment made of nested stacks. Pseudo parameters keep their meaning, except `AWS::StackName`, which names
 * the root stack everywhere.
 */
export function flattenTemplate(root: Template, nested: readonly NestedTemplate[]): Template {
  const resources: Record<string, TemplateResource> = {};
  /** Nested stack resource id → its outputs' values, in the flat template's ids. */
  const outputs = new Map<string, Record<string, unknown>>();
  /** Nested stack resource id → the flat ids of everything it deploys (for a DependsOn on the nested stack). */
  const members = new Map<string, string[]>();

  const byId = new Map(nested.map((child) => [child.resourceId, child]));
  for (const [id, resource] of Object.entries(root.Resources)) {
    if (resource.Type !== NESTED_STACK) {
      resources[id] = resource;
      continue;
    }
    const child = byId.get(id);
    if (!child) throw new Error(`nested stack ${id}: its template was not given`);
    const flat = flattenTemplate(child.template, child.nested);
    const parameters = (resource.Properties?.Parameters ?? {}) as Record<string, unknown>;
    const declared = new Set(Object.keys((child.template as { Parameters?: object }).Parameters ?? {}));
    const rename = renamer(child.prefix, new Set(Object.keys(flat.Resources)), declared, parameters, id);
    const ids: string[] = [];
    for (const [childId, childResource] of Object.entries(flat.Resources)) {
      const flatId = `${child.prefix}${childId}`;
      if (flatId in root.Resources || flatId in resources) {
        throw new Error(`flattening ${id}: the logical id ${flatId} is taken`);
      }
      resources[flatId] = rename(childResource) as TemplateResource;
      ids.push(flatId);
    }
    members.set(id, ids);
    outputs.set(
      id,
      Object.fromEntries(Object.entries(flat.Outputs ?? {}).map(([name, output]) => [name, rename(output.Value)])),
    );
  }

  // A nested stack's output used by its parent or by a sibling's parameters; an output may itself be a sibling's.
  const resolveOutputs = (value: unknown, depth = 0): unknown => {
    if (depth > 32) throw new Error('nested stack outputs refer to each other in a cycle');
    if (Array.isArray(value)) return value.map((item) => resolveOutputs(item, depth));
    if (value === null || typeof value !== 'object') return value;
    const getAtt = (value as { 'Fn::GetAtt'?: unknown })['Fn::GetAtt'];
    if (getAtt !== undefined && Object.keys(value).length === 1) {
      const [target, attribute] = Array.isArray(getAtt) ? getAtt.map(String) : String(getAtt).split(/\.(.*)/s);
      const values = outputs.get(String(target));
      if (values) {
        const name = String(attribute).replace(/^Outputs\./, '');
        if (!(name in values)) throw new Error(`nested stack ${target} has no output ${name}`);
        return resolveOutputs(values[name], depth + 1);
      }
    }
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, resolveOutputs(inner, depth)]));
  };
  const flatResources: Record<string, TemplateResource> = {};
  for (const [id, resource] of Object.entries(resources)) {
    const dependsOn = resource.DependsOn === undefined ? undefined : [resource.DependsOn].flat();
    const resolved = resolveOutputs({ ...resource, DependsOn: undefined }) as TemplateResource;
    if (dependsOn) resolved.DependsOn = dependsOn.flatMap((dependency) => members.get(dependency) ?? [dependency]);
    else delete resolved.DependsOn;
    flatResources[id] = resolved;
  }
  const flat: Template = { ...root, Resources: flatResources };
  if (root.Outputs) flat.Outputs = resolveOutputs(root.Outputs) as Template['Outputs'];
  return flat;
}

/**
 * Rewrites one nested stack's JSON into the flat template's ids: its own resources prefixed, its parameters
 * replaced by what the parent passes (already in the parent's ids), everything else unchanged.
 */
function renamer(
  prefix: string,
  own: ReadonlySet<string>,
  declared: ReadonlySet<string>,
  parameters: Readonly<Record<string, unknown>>,
  stackId: string,
): (value: unknown) => unknown {
  const parameter = (name: string) => {
    if (!(name in parameters)) throw new Error(`nested stack ${stackId}: its parent passes no parameter ${name}`);
    return parameters[name];
  };
  const rename = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(rename);
    if (value === null || typeof value !== 'object') return value;
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 1) {
      const [key, argument] = entries[0]!;
      if (key === 'Ref' && typeof argument === 'string') {
        if (own.has(argument)) return { Ref: `${prefix}${argument}` };
        if (declared.has(argument)) return parameter(argument);
        return value;
      }
      if (key === 'Fn::GetAtt') {
        const [target, ...attribute] = Array.isArray(argument) ? argument : String(argument).split(/\.(.*)/s);
        if (own.has(String(target))) return { 'Fn::GetAtt': [`${prefix}${target}`, ...attribute.filter(Boolean)] };
        return value;
      }
      if (key === 'Fn::Sub') return { 'Fn::Sub': renameSub(argument) };
    }
    const out: Record<string, unknown> = {};
    for (const [key, inner] of entries) {
      if (key === 'DependsOn') {
        out[key] = [inner]
          .flat()
          .map((dependency) => (own.has(String(dependency)) ? `${prefix}${dependency}` : dependency));
      } else {
        out[key] = rename(inner);
      }
    }
    return out;
  };
  // `${Name}` / `${Name.Attribute}` of an own resource gets the prefix; of a parameter, it becomes a variable bound
  // to the parameter's value; a variable of the Sub's own map and a pseudo parameter stay as they are.
  const renameSub = (argument: unknown): unknown => {
    const [text, variables] = typeof argument === 'string' ? [argument, {}] : (argument as [string, object]);
    const bound: Record<string, unknown> = Object.fromEntries(
      Object.entries(variables).map(([name, inner]) => [name, rename(inner)]),
    );
    const rewritten = text.replace(/\$\{([^!}][^}]*)\}/g, (whole, name: string) => {
      if (name in bound) return whole;
      const [target, attribute] = name.split(/\.(.*)/s) as [string, string | undefined];
      if (own.has(target)) return `\${${prefix}${target}${attribute ? `.${attribute}` : ''}}`;
      if (declared.has(name)) {
        bound[name] = parameter(name);
        return whole;
      }
      return whole;
    });
    return Object.keys(bound).length === 0 ? rewritten : [rewritten, bound];
  };
  return rename;
}
