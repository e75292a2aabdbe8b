import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createRunpodClient, VERSION } from '../../src/index.js';

// One version in three places: package.json, the User-Agent every request sends, and the
// CHANGELOG's newest release. The CHANGELOG is Keep a Changelog's: an Unreleased section with its
// four headings, then releases newest first, each dated, each with only the kinds of change it has.
const root = new URL('../../', import.meta.url);
const changelog = readFileSync(new URL('CHANGELOG.md', root), 'utf8');
const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { version: string };
const KINDS = ['Added', 'Changed', 'Deprecated', 'Removed', 'Fixed', 'Security'];

interface Section {
  readonly heading: string;
  readonly version: string;
  readonly date: string | undefined;
  readonly line: number;
  readonly kinds: Array<{ kind: string; entries: string[] }>;
}

/** The `## [x] - date` sections and their `### Kind` lists, in file order. */
function sectionsOf(text: string): Section[] {
  const sections: Section[] = [];
  text.split('\n').forEach((line, index) => {
    const release = /^## \[([^\]]+)\](?: - (\S+))?$/.exec(line);
    if (release) sections.push({ heading: line, version: release[1]!, date: release[2], line: index + 1, kinds: [] });
    else if (line.startsWith('### ')) sections.at(-1)?.kinds.push({ kind: line.slice(4), entries: [] });
    else if (line.startsWith('- ')) sections.at(-1)?.kinds.at(-1)?.entries.push(line);
  });
  return sections;
}

const semver = (v: string) => v.split('.').map(Number) as [number, number, number];
const newer = (a: string, b: string) => {
  const [x, y] = [semver(a), semver(b)];
  return x[0] !== y[0] ? x[0] > y[0] : x[1] !== y[1] ? x[1] > y[1] : x[2] > y[2];
};

describe('the version and the CHANGELOG', () => {
  const sections = sectionsOf(changelog);
  const [unreleased, ...releases] = sections;

  it('package.json, VERSION, the User-Agent and the newest release agree', async () => {
    expect(releases[0]?.version).toBe(pkg.version);
    expect(VERSION).toBe(pkg.version);
    let sent: string | null = null;
    const rp = createRunpodClient({ apiKey: 'rpa_release_version_test_key', maxRetries: 0, fetch: async (_url, init) => ((sent = new Headers(init?.headers).get('user-agent')), Response.json({ data: { myself: { pods: [] } } })) });
    await rp.pods.list();
    expect(sent).toMatch(new RegExp(`^runpod-gql/${pkg.version.replaceAll('.', '\\.')} \\(`));
  });

  it('opens with Unreleased and its four headings, in order', () => {
    expect(unreleased?.heading).toBe('## [Unreleased]');
    expect(unreleased?.kinds.map((k) => k.kind)).toEqual(['Added', 'Changed', 'Removed', 'Fixed']);
  });

  it('lists releases newest first, each dated, with non-empty sections of the kinds Keep a Changelog names, each once', () => {
    expect(releases.length).toBeGreaterThan(1);
    releases.forEach((release, i) => {
      expect(release.version, release.heading).toMatch(/^\d+\.\d+\.\d+$/);
      expect(release.date, release.heading).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      const next = releases[i + 1];
      if (next) {
        expect(newer(release.version, next.version), `${release.heading} after ${next.heading}`).toBe(true);
        expect(release.date! >= next.date!, `${release.heading} dated after ${next.heading}`).toBe(true);
      }
      const kinds = release.kinds.map((k) => k.kind);
      expect(kinds.every((k) => KINDS.includes(k)), `${release.heading}: ${kinds.join(', ')}`).toBe(true);
      expect(kinds, release.heading).toEqual(KINDS.filter((k) => kinds.includes(k)));
      for (const { kind, entries } of release.kinds) expect(entries.length, `${release.heading} ### ${kind}`).toBeGreaterThan(0);
    });
  });

  it('has no entry twice', () => {
    const entries = sections.flatMap((s) => s.kinds.flatMap((k) => k.entries));
    expect(entries.filter((e, i) => entries.indexOf(e) !== i)).toEqual([]);
  });

  // In a clone with its history: what Unreleased holds was written after the newest release's day,
  // so a release cut leaves nothing of its own behind in Unreleased.
  it.skipIf(!existsSync(new URL('.git', root)))('Unreleased holds only what was written after the newest release', () => {
    const first = unreleased!.line;
    const last = releases[0]!.line - 1;
    let blame: string;
    try {
      blame = execFileSync('git', ['blame', '--line-porcelain', '-L', `${first},${last}`, '--', 'CHANGELOG.md'], { cwd: root, encoding: 'utf8' });
    } catch {
      return; // a shallow or exported tree: nothing to read
    }
    const newest = Date.parse(`${releases[0]!.date}T23:59:59Z`) / 1000;
    const stale: string[] = [];
    let time = 0;
    for (const line of blame.split('\n')) {
      if (line.startsWith('committer-time ')) time = Number(line.slice('committer-time '.length));
      else if (line.startsWith('\t- ') && time <= newest) stale.push(line.slice(1, 80));
    }
    expect(stale).toEqual([]);
  });
});
