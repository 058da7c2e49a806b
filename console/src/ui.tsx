import type { ComponentChildren, JSX } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from './api.ts';
import { signIn } from './session.ts';
import { useSignal } from './state.ts';

/** True when the session may change things: a `read` session gets no control that does (CONTRACT §24). */
export function useCanManage(): boolean {
  const state = useSignal(signIn);
  return state.kind === 'signed-in' && state.session.access === 'manage';
}

export function useOrg(): string {
  const state = useSignal(signIn);
  return state.kind === 'signed-in' ? state.session.org : '';
}

/** Loads something when `deps` change, and again every `everyMs` while `keepPolling` says so. */
export function useLoad<T>(
  load: () => Promise<T>,
  deps: unknown[],
  options: { everyMs?: number; keepPolling?: (value: T) => boolean } = {},
) {
  const [state, setState] = useState<{ value?: T; error?: unknown; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  const latest = useRef(0);
  useEffect(() => {
    const run = ++latest.current;
    let timer: ReturnType<typeof setTimeout> | undefined;
    load().then(
      (value) => {
        if (run !== latest.current) return;
        setState({ value, loading: false });
        if (options.everyMs && (options.keepPolling?.(value) ?? true)) {
          timer = setTimeout(() => setTick((count) => count + 1), options.everyMs);
        }
      },
      (error: unknown) => run === latest.current && setState({ error, loading: false }),
    );
    return () => clearTimeout(timer);
  }, [...deps, tick]);
  return { ...state, reload: () => setTick((count) => count + 1) };
}

export function PageTitle({ children, actions }: { children: ComponentChildren; actions?: ComponentChildren }) {
  const heading = useRef<HTMLHeadingElement>(null);
  // A new page moves focus to its heading, so a keyboard or screen-reader user starts there.
  useEffect(() => heading.current?.focus(), []);
  return (
    <div class="page-title">
      <h1 tabIndex={-1} ref={heading}>
        {children}
      </h1>
      {actions ? <div class="actions">{actions}</div> : null}
    </div>
  );
}

export function Section(props: { title: string; children: ComponentChildren; actions?: ComponentChildren }) {
  const id = `section-${props.title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
  return (
    <section class="card" aria-labelledby={id}>
      <div class="section-head">
        <h2 id={id}>{props.title}</h2>
        {props.actions ? <div class="actions">{props.actions}</div> : null}
      </div>
      {props.children}
    </section>
  );
}

/** What a failure says, from its problem document: its detail, and when to try again when the service said. */
export function describeError(error: unknown): string {
  if (error instanceof ApiError) {
    const problem = error.problem;
    const code = problem?.code ? `${problem.code}: ` : '';
    return `${code}${error.message}`;
  }
  return error instanceof Error ? error.message : String(error);
}

export function ErrorNotice({ error }: { error: unknown }) {
  if (!error) return null;
  return (
    <p class="notice error" role="alert">
      {describeError(error)}
    </p>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p class="muted" role="status">
      Loading {what}…
    </p>
  );
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <p class="muted empty">{children}</p>;
}

/** A status shown as a word and a colour (the word alone carries it). */
export function Badge({ value }: { value: string }) {
  return <span class={`badge badge-${value.toLowerCase().replace(/[^a-z]+/g, '-')}`}>{value}</span>;
}

const timeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** A time in the browser's zone, its exact UTC value on hover and for machines. */
export function Time({ value }: { value: string | null | undefined }) {
  if (!value) return <span class="muted">—</span>;
  return (
    <time dateTime={value} title={value}>
      {timeFormat.format(new Date(value))}
    </time>
  );
}

export function Table(props: { label: string; head: string[]; children: ComponentChildren }) {
  return (
    // A region that may scroll sideways on a narrow screen: focusable, so the keyboard can scroll it.
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard (WCAG 2.1.1)
    <section class="table-wrap" tabIndex={0} aria-label={props.label}>
      <table>
        <caption class="visually-hidden">{props.label}</caption>
        <thead>
          <tr>
            {props.head.map((cell) => (
              <th scope="col" key={cell}>
                {cell}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{props.children}</tbody>
      </table>
    </section>
  );
}

/** A button that runs an action, shows that it runs, and reports a failure next to itself. */
export function ActionButton(
  props: Omit<JSX.IntrinsicElements['button'], 'onClick'> & {
    onAction: () => Promise<unknown>;
    busyLabel?: string;
    children: ComponentChildren;
  },
) {
  const { onAction, busyLabel, children, ...rest } = props;
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  return (
    <span class="action">
      <button
        type="button"
        {...rest}
        disabled={busy || Boolean(rest.disabled)}
        onClick={async () => {
          setBusy(true);
          setError(undefined);
          try {
            await onAction();
          } catch (failure) {
            setError(failure);
          } finally {
            setBusy(false);
          }
        }}
      >
        {busy && busyLabel ? busyLabel : children}
      </button>
      {error ? (
        <span class="inline-error" role="alert">
          {describeError(error)}
        </span>
      ) : null}
    </span>
  );
}

/** Copies a text; says so for a moment. */
export function CopyButton({ text, label }: { text: string; label: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <span class="action">
      <button
        type="button"
        onClick={async () => {
          await navigator.clipboard.writeText(text).catch(() => undefined);
          setCopied(true);
          setTimeout(() => setCopied(false), 2000);
        }}
      >
        {label}
      </button>
      <span role="status" class="muted">
        {copied ? 'Copied' : ''}
      </span>
    </span>
  );
}

/**
 * A form opened by a button: the button gives way to the form, whose submit button has the opener's name
 * (CONTRACT §24), and focus moves to its first field; Cancel (or Escape) closes it and returns focus.
 */
export function OpenableForm(props: {
  label: string;
  submitLabel?: string;
  children: (close: () => void) => ComponentChildren;
  onSubmit: () => Promise<boolean | undefined>;
}) {
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const form = useRef<HTMLFormElement>(null);
  const opener = useRef<HTMLButtonElement>(null);
  const wasOpen = useRef(false);
  useEffect(() => {
    if (open) form.current?.querySelector<HTMLElement>('input, select, textarea')?.focus();
    else if (wasOpen.current) opener.current?.focus();
    wasOpen.current = open;
  }, [open]);
  const close = () => {
    setOpen(false);
    setError(undefined);
  };
  if (!open) {
    return (
      <button type="button" class="primary" ref={opener} onClick={() => setOpen(true)}>
        {props.label}
      </button>
    );
  }
  return (
    <form
      ref={form}
      class="card form"
      aria-label={props.label}
      onKeyDown={(event) => event.key === 'Escape' && close()}
      onSubmit={async (event) => {
        event.preventDefault();
        setBusy(true);
        setError(undefined);
        try {
          if ((await props.onSubmit()) !== false) close();
        } catch (failure) {
          setError(failure);
        } finally {
          setBusy(false);
        }
      }}
    >
      {props.children(close)}
      <ErrorNotice error={error} />
      <div class="form-actions">
        <button type="submit" class="primary" disabled={busy}>
          {props.submitLabel ?? props.label}
        </button>
        <button type="button" onClick={close}>
          Cancel
        </button>
      </div>
    </form>
  );
}

let fieldCount = 0;
/** A labelled control: the label names it for people and for tests. */
export function Field(props: {
  label: string;
  hint?: string;
  children: (id: string, describedBy: string | undefined) => ComponentChildren;
}) {
  const [id] = useState(() => `field-${++fieldCount}`);
  const hintId = props.hint ? `${id}-hint` : undefined;
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      {props.children(id, hintId)}
      {props.hint ? (
        <p class="hint" id={hintId}>
          {props.hint}
        </p>
      ) : null}
    </div>
  );
}

/** Text the service got from someone else, shown as text (never HTML), in a block. */
export function Code({ children }: { children: string }) {
  return <pre class="code">{children}</pre>;
}

export function Pager(props: {
  hasPrevious: boolean;
  nextCursor: string | null | undefined;
  onFirst: () => void;
  onNext: () => void;
}) {
  if (!props.hasPrevious && !props.nextCursor) return null;
  return (
    <nav class="pager" aria-label="Pages">
      <button type="button" disabled={!props.hasPrevious} onClick={props.onFirst}>
        First page
      </button>
      <button type="button" disabled={!props.nextCursor} onClick={props.onNext}>
        Next page
      </button>
    </nav>
  );
}
