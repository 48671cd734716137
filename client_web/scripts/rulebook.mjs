// The rulebook (docs/rules/<lang>/<chapter>.md) rendered to HTML at build time: one page per chapter at
// /rules/<lang>/<chapter>.html, every rule heading ("### N-START-1 — Contact") anchored by its ID, an
// ID → chapter index that the client imports as `virtual:rule-index` to link the rule IDs in errors and log
// lines, and /rules/<lang>/titles.json (ID → the heading's words), which the client fetches to say a refused
// order's rule by name where the server's reason is in another language. Without docs/rules the index is empty
// and rule IDs stay plain text.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { Marked } from "marked";

export const RULE_ID = /^([A-Z]+(?:-[A-Za-z0-9.]+)+)\s+—\s+/;
const LANGS = ["en", "ru"];
const VIRTUAL = "virtual:rule-index";

const escape = (s) => s.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
const slug = (s) => s.toLowerCase().replace(/<[^>]+>/g, "").replace(/[^\p{L}\p{N}]+/gu, "-").replace(/^-|-$/g, "");

/** Every chapter of every language: `{lang, chapter, html, title, ids, titles}` (`titles`: ID → heading words). */
export function renderRulebook(dir) {
  const chapters = [];
  for (const lang of LANGS) {
    const folder = join(dir, lang);
    if (!existsSync(folder)) continue;
    for (const file of readdirSync(folder).filter((f) => f.endsWith(".md")).sort()) {
      const chapter = basename(file, ".md");
      const ids = [];
      const titles = {};
      let title = chapter;
      const marked = new Marked({
        renderer: {
          heading({ tokens, depth, text }) {
            const inner = this.parser.parseInline(tokens);
            const m = RULE_ID.exec(text);
            const id = m ? m[1] : slug(text);
            if (m) {
              ids.push(m[1]);
              titles[m[1]] = text.slice(m[0].length).replace(/<[^>]+>|[*_`]/g, "").trim();
            }
            if (depth === 1) title = text;
            return `<h${depth} id="${escape(id)}"><a class="anchor" href="#${escape(id)}">§</a> ${inner}</h${depth}>\n`;
          },
          link({ href, tokens }) {
            // chapter links between the markdown files become links between the pages
            const target = href.replace(/^(\.\.\/(en|ru)\/)?([\w-]+)\.md(#.*)?$/, (_, _p, l, c, h) => `${l ? `../${l}/` : ""}${c}.html${h ?? ""}`);
            return `<a href="${escape(target)}">${this.parser.parseInline(tokens)}</a>`;
          },
        },
      });
      const body = marked.parse(readFileSync(join(folder, file), "utf8"));
      chapters.push({ lang, chapter, title, ids, titles, html: page(lang, title, body) });
    }
  }
  return chapters;
}

function page(lang, title, body) {
  return `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(title)}</title><style>
body{font:16px/1.5 system-ui,"Segoe UI",Roboto,sans-serif;color:#1d1b16;background:#f3efe4;margin:0}
main{max-width:46rem;margin:0 auto;padding:1rem 1.2rem 4rem;background:#fffdf7}
h1,h2,h3,h4{line-height:1.25;scroll-margin-top:1rem}h2{border-bottom:1px solid #d8cfb8}
:target{background:#fff3c4;outline:3px solid #f3d37a}a.anchor{color:#b9b3a3;text-decoration:none;font-weight:400}
table{border-collapse:collapse}td,th{border:1px solid #d8cfb8;padding:2px 6px}code{background:#f1ebdb;padding:0 3px}
</style></head><body><main>${body}</main></body></html>`;
}

/** The index the client links rule IDs by: `{en: {"N-START-1": "napoleonic", …}, ru: {…}}`. */
export function ruleIndex(chapters) {
  const index = Object.fromEntries(LANGS.map((l) => [l, {}]));
  for (const c of chapters) for (const id of c.ids) index[c.lang][id] ??= c.chapter;
  return index;
}

/** Each language's rule titles: `{en: {"N-START-1": "Contact", …}, ru: {…}}`. */
export function ruleTitles(chapters) {
  const titles = Object.fromEntries(LANGS.map((l) => [l, {}]));
  for (const c of chapters) for (const [id, words] of Object.entries(c.titles)) titles[c.lang][id] ??= words;
  return titles;
}

/** The Vite plugin: the index as a virtual module, the pages as assets of the build. */
export function rulebook(dir = process.env.KRIEGSSPIEL_RULES_DIR ?? resolve(import.meta.dirname, "../../docs/rules")) {
  let chapters = null;
  const load = () => (chapters ??= existsSync(dir) ? renderRulebook(dir) : []);
  return {
    name: "kriegsspiel-rulebook",
    resolveId: (id) => (id === VIRTUAL ? `\0${VIRTUAL}` : null),
    load(id) {
      if (id !== `\0${VIRTUAL}`) return null;
      return `export default ${JSON.stringify(ruleIndex(load()))};`;
    },
    generateBundle() {
      for (const c of load()) this.emitFile({ type: "asset", fileName: `rules/${c.lang}/${c.chapter}.html`, source: c.html });
      for (const [lang, titles] of Object.entries(ruleTitles(load()))) {
        if (Object.keys(titles).length) this.emitFile({ type: "asset", fileName: `rules/${lang}/titles.json`, source: JSON.stringify(titles) });
      }
    },
  };
}
