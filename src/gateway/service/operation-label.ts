// The name logs and metrics give a request's operation: its own name once the document is known
// (callers choose it, so the distinct names are bounded), `(anonymous)` for an unnamed one, and
// `(none)` before a document was read (a probe, a refusal).
const MAX_NAMES = 200;

export function operationLabels() {
  const seen = new Set<string>();
  return (name: string | undefined, known: boolean): string => {
    if (!known) return '(none)';
    if (name === undefined) return '(anonymous)';
    if (seen.has(name)) return name;
    if (seen.size >= MAX_NAMES) return '(other)';
    seen.add(name);
    return name;
  };
}
