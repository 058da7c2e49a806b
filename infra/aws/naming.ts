/** `group-requests` → `GroupRequests`: construct ids derived from catalog names stay stable and stage-free. */
export const pascalCase = (name: string) =>
  name
    .split(/[^a-zA-Z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');
