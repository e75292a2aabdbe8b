/**
 * Control characters that act on a terminal: C0 (but tab and newline), DEL, C1 (U+0080–U+009F:
 * 8-bit CSI and OSC among them) and the bidirectional overrides that reorder what is shown. Server
 * text (pod names, images, GPU names, error and job messages) is never printed with them raw: an
 * ESC or OSC sequence in a pod's name could rewrite the user's terminal or its title, or hide text.
 */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
const CONTROL_OR_BREAK = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
/** What JSON.stringify leaves raw (it escapes C0 itself). */
const JSON_RAW_CONTROL = /[\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

const hex = (c: string, width: number) => c.charCodeAt(0).toString(16).padStart(width, '0');
const visible = (c: string) => (c.charCodeAt(0) < 0x100 ? `\\x${hex(c, 2)}` : `\\u${hex(c, 4)}`);

/** Text made safe for a terminal: each control character shown as `\xNN` (or `\uNNNN`). Newlines and tabs stay unless `oneLine`. */
export function safeText(text: string, oneLine = false): string {
  return text.replace(oneLine ? CONTROL_OR_BREAK : CONTROL, visible);
}

/** JSON for a terminal: the same value, with the control characters JSON leaves raw written as `\uNNNN` escapes. */
export function safeJson(value: unknown, indent?: number): string {
  return (JSON.stringify(value, null, indent) ?? 'undefined').replace(JSON_RAW_CONTROL, (c) => `\\u${hex(c, 4)}`);
}

/** Prints rows as a plain table with a header line; `(none)` when there are no rows. Cells are one line each, controls escaped. */
export function printTable(rows: Array<Record<string, string | number>>): void {
  if (rows.length === 0) {
    console.log('(none)');
    return;
  }
  const columns = Object.keys(rows[0]!);
  const cells = rows.map((r) => columns.map((c) => safeText(String(r[c]), true)));
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((r) => r[i]!.length)));
  console.log(columns.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd());
  for (const row of cells) console.log(row.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd());
}

/** One progress line: what is happening and how long it has taken. */
export function formatProgress(state: string, elapsedMs: number): string {
  return `${safeText(state, true)}… ${Math.round(elapsedMs / 1000)} s`;
}

/** JSON (with --json, or where there is no human form) or the human form; server text never reaches the terminal raw. */
export function print(options: { json?: boolean }, value: unknown, human?: () => void): void {
  if (options.json || !human) console.log(safeJson(value, 2));
  else human();
}

/** One line of human output that may hold server text (names, images, messages). */
export function say(text: string): void {
  console.log(safeText(text));
}

/** A progress line (see `progressLine`). */
export interface ProgressLine {
  state(text: string): void;
  done(): void;
}

/**
 * Progress on a terminal only: a line rewritten in place on stderr, showing the last state reported
 * and the time elapsed. It ticks every second, because a long-poll reports nothing until the wait
 * ends; `done()` erases it.
 */
export function progressLine(initialState: string): ProgressLine | undefined {
  if (process.stderr.isTTY !== true) return undefined;
  const startedAt = Date.now();
  let current = initialState;
  const render = () => process.stderr.write(`\r${formatProgress(current, Date.now() - startedAt)}\u001b[K`);
  render();
  const ticker = setInterval(render, 1_000);
  return {
    state(text) {
      current = text;
      render();
    },
    done() {
      clearInterval(ticker);
      // The progress line goes away: what follows (the result or the error) stands on its own.
      process.stderr.write('\r\u001b[K');
    },
  };
}

/** After a create on `--emulator`: what was made ends with the command. */
export const emulatorNote = (what: string) => `note: with --emulator the ${what} ends with this command; serve \`runpod-gql emulator\` to keep it (see --help).`;
