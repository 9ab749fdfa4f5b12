// Seeded generator of a synthetic corpus in the content/ format, of any size, for benchmarks and load tests.
// Usage: CONTENT_DIR=bench/corpus/10k node scripts/gen-corpus.ts --videos 10000 [--seed 42]
// Proportions follow the sample knowledge base: per 60 videos, 10 essays, 15 digests, 40 concepts.
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { helpRequested } from './cli.ts';

export interface CorpusOptions {
  dir: string;
  videos: number;
  seed?: number;
}

/** mulberry32: small, fast, good enough for reproducible test data. */
function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const TAGS = [
  'agents', 'governance', 'eu-ai-act', 'change-management', 'evaluation', 'rag', 'copilots', 'operating-model',
  'skills', 'procurement', 'public-sector', 'roi', 'data-platform', 'security', 'customer-service',
  'software-engineering', 'healthcare', 'finance', 'manufacturing', 'smes', 'llmops', 'responsible-ai',
  'knowledge-management', 'leadership', 'productivity', 'open-source-models', 'workflow-automation', 'risk', 'hr', 'education',
];
const SUBJECTS = [
  'claims handling', 'procurement teams', 'a regional bank', 'hospital triage', 'the finance close', 'customer support',
  'contract review', 'field service', 'a city administration', 'software delivery', 'HR onboarding', 'supply planning',
  'a tax office', 'quality control', 'sales operations', 'internal audit', 'a logistics firm', 'a utility company',
];
const ACTIONS = [
  'rebuilt', 'scaled', 'measured', 'governed', 'automated', 'redesigned', 'evaluated', 'piloted', 'secured', 'retrained',
];
const THINGS = [
  'LLM agents', 'a retrieval assistant', 'copilots', 'an evaluation harness', 'an AI governance board', 'open-weight models',
  'workflow automation', 'a prompt library', 'human review queues', 'a model risk process', 'AI literacy training',
];
const SENTENCES = [
  'The team started from the work, not the model, and mapped where decisions were actually made.',
  'Adoption stalled until managers changed the targets that rewarded the old process.',
  'An evaluation set of a few hundred real cases caught most regressions before release.',
  'Costs per task fell by roughly a third once the retrieval layer was tuned.',
  'Legal and risk joined the design reviews early, which shortened approvals from months to weeks.',
  'The speaker argues that most pilots fail on data access rather than on model quality.',
  'Human reviewers kept the final say on high-risk cases, as the EU AI Act expects of deployers.',
  'Usage data showed a small group of power users driving most of the value.',
  'Training focused on judgement: when to trust the output and when to escalate.',
  'The rollout was staged by team, with a clear owner and a kill switch for each workflow.',
  'Vendor lock-in was reduced by keeping prompts, evaluations and data pipelines in house.',
  'Measured against a baseline, cycle time improved while error rates stayed flat.',
];
const SL_SENTENCES = [
  'Ekipa je začela pri delu, ne pri modelu, in popisala, kje se odločitve dejansko sprejemajo.',
  'Uvajanje je zastalo, dokler vodje niso spremenili ciljev, ki so nagrajevali stari proces.',
  'Nabor nekaj sto resničnih primerov je ujel večino regresij pred izdajo.',
  'Stroški na nalogo so padli za približno tretjino.',
  'Pravna služba se je zgodaj vključila v pregled zasnove.',
];

function pick<T>(r: () => number, xs: readonly T[]): T {
  return xs[Math.floor(r() * xs.length)];
}
function pickN<T>(r: () => number, xs: readonly T[], n: number): T[] {
  const out = new Set<T>();
  while (out.size < Math.min(n, xs.length)) out.add(pick(r, xs));
  return [...out];
}
const ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-';
function videoId(r: () => number): string {
  let s = '';
  for (let i = 0; i < 11; i++) s += ID_ALPHABET[Math.floor(r() * 64)];
  return s;
}
const yamlString = (s: string) => JSON.stringify(s);
function isoDay(base: Date, offsetDays: number): string {
  return new Date(base.getTime() - offsetDays * 86_400_000).toISOString().slice(0, 10);
}
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

type Rng = () => number;
type Write = (rel: string, text: string) => void;
interface Video {
  id: string;
  title: string;
  date: string;
  tags: string[];
  highlight: boolean;
}
/** The calendar the corpus spans: videos about four a day, newest on the anchor date. */
interface Calendar {
  anchor: Date;
  days: number;
}

/** Channels: one per 200 videos (at least six), every sixth one Slovenian. */
function writeChannels(r: Rng, write: Write, n: number): string[] {
  const channelCount = Math.max(6, Math.round(n / 200));
  const channels = Array.from({ length: channelCount }, (_, i) => `channel-${i + 1}`);
  for (const [i, id] of channels.entries()) {
    const lang = i % 6 === 5 ? 'sl' : 'en';
    write(
      `channels/${id}.md`,
      `---\nchannel_id: ${id}\nname: ${yamlString(`Synthetic Channel ${i + 1}`)}\ndescription: ${yamlString(`Talks on ${pick(r, SUBJECTS)} and ${pick(r, THINGS)}.`)}\n` +
        `language: ${lang}\nurl: https://www.youtube.com/@synthetic${i + 1}\nfeed_url: https://www.youtube.com/feeds/videos.xml?channel_id=UC${String(i).padStart(22, 'x')}\n---\n`,
    );
  }
  return channels;
}

/** Videos: about four a day, newest on the anchor date, in the language of their channel. */
function writeVideos(r: Rng, write: Write, n: number, channels: string[], { anchor, days }: Calendar): Video[] {
  const channelCount = channels.length;
  const videos: Video[] = [];
  const ids = new Set<string>();
  for (let i = 0; i < n; i++) {
    let id = videoId(r);
    while (ids.has(id)) id = videoId(r);
    ids.add(id);
    const channelIndex = Math.floor(r() * channelCount);
    const sl = channelIndex % 6 === 5;
    const date = isoDay(anchor, Math.floor((i / n) * days));
    const title = `How ${pick(r, SUBJECTS)} ${pick(r, ACTIONS)} ${pick(r, THINGS)} (${i + 1})`;
    const tags = pickN(r, TAGS, 2 + Math.floor(r() * 4));
    const pool = sl ? SL_SENTENCES : SENTENCES;
    const summary = pickN(r, pool, 3 + Math.floor(r() * 3)).join(' ');
    const highlight = r() < 0.15;
    videos.push({ id, title, date, tags, highlight });
    const transcript = r() < 0.3 ? pickN(r, pool, 5).join('\n\n') + '\n' : '';
    write(
      `videos/${id}.md`,
      `---\nvideo_id: ${yamlString(id)}\ntitle: ${yamlString(title)}\ndate: ${date}\nchannel: ${channels[channelIndex]}\nlanguage: ${sl ? 'sl' : 'en'}\n` +
        `tags: [${tags.join(', ')}]\nsummary: ${yamlString(summary)}\nthumbnail_url: https://i.ytimg.com/vi/${id}/hqdefault.jpg\n` +
        `url: https://www.youtube.com/watch?v=${id}\nhighlight: ${highlight}\n---\n${transcript}`,
    );
  }
  return videos;
}

/** Essays: one per six videos, a third with a Slovenian version. Returns their slugs. */
function writeEssays(r: Rng, write: Write, n: number, videos: Video[], { anchor, days }: Calendar): string[] {
  const essayCount = Math.max(1, Math.round(n / 6));
  const essaySlugs: string[] = [];
  for (let i = 0; i < essayCount; i++) {
    const slug = `essay-${i + 1}`;
    essaySlugs.push(slug);
    const date = isoDay(anchor, Math.floor((i / essayCount) * days));
    const v = videos[Math.floor(r() * videos.length)];
    const body = Array.from({ length: 6 }, (_, k) => `## Part ${k + 1}\n\n${pickN(r, SENTENCES, 4).join(' ')}`).join('\n\n');
    const front = (title: string, description: string) =>
      `---\ntitle: ${yamlString(title)}\ndate: ${date}\ndescription: ${yamlString(description)}\ntags: [${pickN(r, TAGS, 3).join(', ')}]\nvideo: ${yamlString(v.id)}\nfeatured: ${i % 50 === 0}\n---\n`;
    write(`essays/${slug}/en.md`, front(`On ${pick(r, THINGS)} in ${pick(r, SUBJECTS)} (${i + 1})`, pick(r, SENTENCES)) + body + `\n\nSee [the video](/videos/${v.id}).\n`);
    if (i % 3 === 0) {
      write(`essays/${slug}/sl.md`, front(`O umetni inteligenci v praksi (${i + 1})`, pick(r, SL_SENTENCES)) + pickN(r, SL_SENTENCES, 4).join('\n\n') + '\n');
    }
  }
  return essaySlugs;
}

/** Digests: one per day for the most recent days with at least five videos before them. */
function writeDigests(r: Rng, write: Write, n: number, videos: Video[], { anchor, days }: Calendar): void {
  const byDate = new Map<string, Video[]>();
  for (const v of videos) {
    const list = byDate.get(v.date);
    if (list) list.push(v);
    else byDate.set(v.date, [v]);
  }
  const digestCount = Math.max(1, Math.round(n / 4));
  const sortedDates = [...byDate.keys()].sort().reverse();
  let made = 0;
  for (let d = 0; d < days && made < digestCount; d++) {
    const date = isoDay(anchor, d - 1);
    // The five newest videos before the day (dates newest first); stops looking once it has them.
    const items: Video[] = [];
    for (const x of sortedDates) {
      if (x >= date) continue;
      for (const v of byDate.get(x)!) if (items.length < 5) items.push(v);
      if (items.length >= 5) break;
    }
    if (items.length < 5) break;
    const [y, m, day] = date.split('-').map(Number);
    const sections = items.map(
      (v, k) => `## ${k + 1}. ${v.title}\n\n${pickN(r, SENTENCES, 2).join(' ')}\n\nSources: [${v.title}](/videos/${v.id})`,
    );
    write(
      `digests/${date}.md`,
      `---\ndate: ${date}\n---\n# AI Transformation Daily — ${day} ${MONTHS[m - 1]} ${y}\n\nFive stories from the previous day.\n\n${sections.join('\n\n')}\n`,
    );
    made++;
  }
}

/** Concepts: two per three videos, one in ten a draft, each citing videos and an essay. */
function writeConcepts(r: Rng, write: Write, n: number, videos: Video[], essaySlugs: string[]): void {
  const conceptCount = Math.max(1, Math.round((n * 2) / 3));
  for (let i = 0; i < conceptCount; i++) {
    const slug = `concept-${i + 1}`;
    const sources = pickN(r, videos, 3);
    // Among the first 200 other concepts (only those are listed, so the loop stays linear in the corpus).
    const related = pickN(r, Array.from({ length: Math.min(conceptCount, 201) }, (_, k) => `concept-${k + 1}`).filter((s) => s !== slug).slice(0, 200), Math.min(3, conceptCount - 1));
    const essay = essaySlugs[Math.floor(r() * essaySlugs.length)];
    write(
      `knowledge/${slug}.md`,
      `---\ntitle: ${yamlString(`${pick(r, THINGS)} for ${pick(r, SUBJECTS)} ${i + 1}`)}\nsummary: ${yamlString(pick(r, SENTENCES))}\n` +
        `tags: [${pickN(r, TAGS, 2).join(', ')}]\ndraft: ${i % 10 === 9}\nsources:\n` +
        sources.map((v) => `  - type: video\n    id: ${yamlString(v.id)}\n`).join('') +
        `  - type: essay\n    id: ${essay}\nrelated: [${related.join(', ')}]\n---\n` +
        `${pickN(r, SENTENCES, 3).join(' ')}\n\n## Why it matters\n\n${pickN(r, SENTENCES, 2).join(' ')} See [${sources[0].title}](/videos/${sources[0].id}).\n`,
    );
  }
}

/** Personas and skills: a fixed small set, as in the sample. */
function writePersonasAndSkills(write: Write): void {
  for (const id of ['analyst', 'coach']) {
    write(`personas/${id}/persona.md`, `---\nname: ${yamlString(`Synthetic ${id}`)}\ndescription: A synthetic persona.\nlanguages: [en, sl]\nmodes: [chat, brief]\n---\nA persona for load tests.\n`);
    for (const mode of ['chat', 'brief']) {
      for (const lang of ['en', 'sl']) {
        write(`personas/${id}/modelfiles/${mode}.${lang}.modelfile`, `FROM llama3.1:8b\nPARAMETER temperature 0.4\nSYSTEM """\nYou are the ${id} (${mode}, ${lang}). Answer from the passages and cite them as [n].\n"""\n`);
      }
    }
  }
  write('skills/kb-search.md', `---\nname: kb-search\ndescription: Search the knowledge base.\n---\nUse GET /api/search?q=<query>&agent=true.\n`);
}

/** Writes the corpus into opts.dir (replacing it), one kind of content after another from one seeded stream. */
export function generateCorpus(opts: CorpusOptions): { files: number } {
  const r = rng(opts.seed ?? 42);
  const n = opts.videos;
  const out = opts.dir;
  fs.rmSync(out, { recursive: true, force: true });
  let files = 0;
  const write: Write = (rel, text) => {
    const full = path.join(out, rel);
    fs.mkdirSync(path.dirname(full), { recursive: true });
    fs.writeFileSync(full, text);
    files++;
  };
  // The order of the steps is the order of the random stream: changing it changes every corpus.
  const channels = writeChannels(r, write, n);
  const calendar: Calendar = { anchor: new Date('2026-11-20T00:00:00Z'), days: Math.max(30, Math.ceil(n / 4)) };
  const videos = writeVideos(r, write, n, channels, calendar);
  const essaySlugs = writeEssays(r, write, n, videos, calendar);
  writeDigests(r, write, n, videos, calendar);
  writeConcepts(r, write, n, videos, essaySlugs);
  writePersonasAndSkills(write);
  return { files };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  helpRequested(`usage: CONTENT_DIR=<folder> npm run gen-corpus -- --videos <n> [--seed <s>]

Writes a seeded synthetic corpus of n videos (and essays, digests, concepts in the sample's proportions)
in the content/ format into CONTENT_DIR, replacing the folder. Defaults: --videos 1000 --seed 42.`);
  const { values } = parseArgs({ options: { videos: { type: 'string', default: '1000' }, seed: { type: 'string', default: '42' } } });
  const dir = process.env.CONTENT_DIR;
  if (!dir) {
    console.error('gen-corpus: set CONTENT_DIR to the folder to write (it is replaced)');
    process.exit(2);
  }
  const videos = Number(values.videos);
  if (!Number.isInteger(videos) || videos < 10) {
    console.error('gen-corpus: --videos must be a whole number >= 10');
    process.exit(2);
  }
  const t = performance.now();
  const { files } = generateCorpus({ dir: path.resolve(dir), videos, seed: Number(values.seed) });
  console.log(`gen-corpus: ${files} files for ${videos} videos in ${dir} (${Math.round(performance.now() - t)} ms)`);
}
