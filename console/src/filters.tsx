import { useState } from 'preact/hooks';
import { Field } from './ui.tsx';

/** A report type's filter as openapi.json describes it (the request body's `oneOf` entry for that type). */
export interface PropertySchema {
  type?: string;
  enum?: string[];
  items?: { enum?: string[] };
  description?: string;
  default?: unknown;
}

export type FilterValues = Record<string, unknown>;

const OPERATORS = ['eq', 'neq', 'contains', 'gt', 'gte', 'lt', 'lte', 'exists', 'notExists'] as const;

/** `ticketCreatedAfter` → `Ticket created after`. */
export const humanize = (name: string) =>
  name
    .replace(/([A-Z])/g, ' $1')
    .toLowerCase()
    .replace(/^./, (first) => first.toUpperCase())
    .trim();

const isDate = (schema: PropertySchema) => (schema.description ?? '').includes('RFC 3339');

/**
 * One filter as a typed control: yes/no/any for booleans, a choice for an enum, boxes for a list of enums, a list of
 * ids one per line, a date and time in the browser's zone (sent as UTC), a number, the custom-field and tracker rules
 * row by row, or text. Writes the value the API takes into `values` (absent = no filter).
 */
export function FilterControl(props: { name: string; schema: PropertySchema; onChange: (value: unknown) => void }) {
  const { name, schema, onChange } = props;
  const label = humanize(name);
  if (name.endsWith('Rules')) return <RulesBuilder label={label} onChange={onChange} />;
  if (schema.type === 'boolean') {
    return (
      <Field label={label} hint={schema.default === false ? 'Default: no' : undefined}>
        {(id, hint) => (
          <select
            id={id}
            aria-describedby={hint}
            onChange={(event) => {
              const value = event.currentTarget.value;
              onChange(value === '' ? undefined : value === 'yes');
            }}
          >
            <option value="">Any</option>
            <option value="yes">Yes</option>
            <option value="no">No</option>
          </select>
        )}
      </Field>
    );
  }
  if (schema.enum) {
    return (
      <Field label={label}>
        {(id) => (
          <select id={id} onChange={(event) => onChange(event.currentTarget.value || undefined)}>
            <option value="">Any</option>
            {schema.enum!.map((value) => (
              <option key={value}>{value}</option>
            ))}
          </select>
        )}
      </Field>
    );
  }
  if (schema.type === 'array' && schema.items?.enum) {
    return <EnumBoxes label={label} values={schema.items.enum} onChange={onChange} />;
  }
  if (schema.type === 'array') {
    return (
      <Field label={label} hint="One id per line (or separated by commas)">
        {(id, hint) => (
          <textarea
            id={id}
            rows={2}
            aria-describedby={hint}
            onInput={(event) => {
              const ids = event.currentTarget.value
                .split(/[\n,]+/)
                .map((entry) => entry.trim())
                .filter(Boolean);
              onChange(ids.length ? ids : undefined);
            }}
          />
        )}
      </Field>
    );
  }
  if (isDate(schema)) {
    return (
      <Field label={label} hint="In your time zone; sent as UTC">
        {(id, hint) => (
          <input
            id={id}
            type="datetime-local"
            aria-describedby={hint}
            onInput={(event) => {
              const value = event.currentTarget.value;
              onChange(value ? new Date(value).toISOString() : undefined);
            }}
          />
        )}
      </Field>
    );
  }
  if (schema.type === 'number' || schema.type === 'integer') {
    return (
      <Field label={label}>
        {(id) => (
          <input
            id={id}
            type="number"
            min={0}
            onInput={(event) => {
              const value = event.currentTarget.value;
              onChange(value === '' ? undefined : Number(value));
            }}
          />
        )}
      </Field>
    );
  }
  return (
    <Field label={label}>
      {(id) => <input id={id} maxLength={256} onInput={(event) => onChange(event.currentTarget.value || undefined)} />}
    </Field>
  );
}

function EnumBoxes(props: { label: string; values: string[]; onChange: (value: unknown) => void }) {
  const [chosen, setChosen] = useState<string[]>([]);
  return (
    <fieldset class="field boxes">
      <legend>{props.label}</legend>
      {props.values.map((value) => (
        <label key={value} class="check">
          <input
            type="checkbox"
            checked={chosen.includes(value)}
            onChange={(event) => {
              const next = event.currentTarget.checked ? [...chosen, value] : chosen.filter((entry) => entry !== value);
              setChosen(next);
              props.onChange(next.length ? next : undefined);
            }}
          />{' '}
          {value}
        </label>
      ))}
    </fieldset>
  );
}

interface Rule {
  field: string;
  operator: (typeof OPERATORS)[number];
  value: string;
}

/** A typed value: a number or true/false when it reads as one, else text. */
const typed = (text: string): unknown =>
  /^-?\d+(\.\d+)?$/.test(text) ? Number(text) : text === 'true' ? true : text === 'false' ? false : text;

/** Rules over custom fields or tracker values, built row by row and sent as the JSON text the API takes. */
function RulesBuilder(props: { label: string; onChange: (value: unknown) => void }) {
  const [rules, setRules] = useState<Rule[]>([]);
  const update = (next: Rule[]) => {
    setRules(next);
    const complete = next.filter((rule) => rule.field.trim());
    props.onChange(
      complete.length
        ? JSON.stringify(
            complete.map((rule) =>
              rule.operator === 'exists' || rule.operator === 'notExists'
                ? { field: rule.field.trim(), operator: rule.operator }
                : { field: rule.field.trim(), operator: rule.operator, value: typed(rule.value) },
            ),
          )
        : undefined,
    );
  };
  return (
    <fieldset class="field rules">
      <legend>{props.label}</legend>
      {rules.map((rule, index) => (
        <fieldset class="rule" key={index} aria-label={`Rule ${index + 1}`}>
          <input
            aria-label={`Rule ${index + 1} field`}
            placeholder="field"
            value={rule.field}
            onInput={(event) =>
              update(rules.map((r, i) => (i === index ? { ...r, field: event.currentTarget.value } : r)))
            }
          />
          <select
            aria-label={`Rule ${index + 1} operator`}
            value={rule.operator}
            onChange={(event) =>
              update(
                rules.map((r, i) =>
                  i === index ? { ...r, operator: event.currentTarget.value as Rule['operator'] } : r,
                ),
              )
            }
          >
            {OPERATORS.map((operator) => (
              <option key={operator}>{operator}</option>
            ))}
          </select>
          <input
            aria-label={`Rule ${index + 1} value`}
            placeholder="value"
            disabled={rule.operator === 'exists' || rule.operator === 'notExists'}
            value={rule.value}
            onInput={(event) =>
              update(rules.map((r, i) => (i === index ? { ...r, value: event.currentTarget.value } : r)))
            }
          />
          <button type="button" onClick={() => update(rules.filter((_, i) => i !== index))}>
            Remove rule {index + 1}
          </button>
        </fieldset>
      ))}
      {rules.length < 20 ? (
        <button type="button" onClick={() => update([...rules, { field: '', operator: 'eq', value: '' }])}>
          Add rule
        </button>
      ) : null}
    </fieldset>
  );
}
