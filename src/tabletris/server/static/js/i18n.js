// The page's language: the catalog from /api/i18n/<lang> (the same gettext .po files as every
// other front end: no dictionary lives here), gettext-style _() and ngettext(), and numbers in
// the locale's way. The server writes its choice (the player's cookie, else Accept-Language) on
// <html data-lang>, so the first paint is already in that language; a choice kept in this
// browser's localStorage wins over it. Loaded with top-level await: every module that imports
// it renders with the catalog in place.

const COOKIE = "tabletris_lang";
const STORE = "tabletris:lang";
const root = document.documentElement;

function stored() { try { return localStorage.getItem(STORE); } catch { return null; } }

async function load(code) {
  const res = await fetch(`/api/i18n/${encodeURIComponent(code)}`);
  if (!res.ok) throw new Error(`no catalog for ${code}`);
  return res.json();
}

let catalog;
try {
  catalog = await load(stored() || root.dataset.lang || "en");
} catch {
  catalog = await load(root.dataset.lang || "en").catch(() => ({ lang: "en", bcp47: "en", plural: { one: 0, other: 1 }, messages: {}, languages: { en: "English" } }));
}
if (catalog.lang !== root.dataset.lang) rememberLanguage(catalog.lang);  // the server reads the cookie next time
root.lang = catalog.bcp47;
root.dataset.lang = catalog.lang;

export const lang = catalog.lang;
export const bcp47 = catalog.bcp47;
export const languages = catalog.languages;
const messages = catalog.messages;
const plurals = new Intl.PluralRules(bcp47);
const numbers = new Intl.NumberFormat(bcp47);

// A number in the page's language (1 234,5 in Czech).
export function num(n) { return typeof n === "number" && Number.isFinite(n) ? numbers.format(n) : String(n); }

// Brace fields as Python's str.format has them in the catalogs: {name}, {name!r} (quoted).
function format(text, params) {
  if (!params) return text;
  return text.replace(/\{(\w+)(!r|!s)?(:[^{}]*)?\}/g, (whole, name, conv) => {
    if (!(name in params)) return whole;
    const v = params[name];
    if (conv === "!r") return typeof v === "string" ? `'${v}'` : String(v);
    return typeof v === "number" ? num(v) : String(v);
  });
}

// Marks a msgid for the catalog where it is defined; _() translates it where it is shown.
export const N_ = (msg) => msg;

// ``msg`` (an English msgid) in the page's language, its {fields} filled from ``params``.
export function _(msg, params) {
  const t = messages[msg];
  return format(typeof t === "string" && t ? t : msg, params);
}

// The plural form for ``n`` (Czech has three, Chinese one); ``n`` is a field too.
export function ngettext(singular, plural, n, params) {
  const forms = messages[singular];
  let text = n === 1 ? singular : plural;
  if (Array.isArray(forms) && forms.length) {
    const index = catalog.plural[plurals.select(n)] ?? catalog.plural.other ?? 0;
    text = forms[Math.min(index, forms.length - 1)] || text;
  }
  return format(text, { n, ...(params || {}) });
}

// Templates with fields, as patterns that find the parameters in an English sentence: a text
// the server sends already filled in (its HTTP error details) is translated from the template
// it was built from.
let patterns = null;
function templates() {
  if (patterns) return patterns;
  patterns = [];
  for (const [id, t] of Object.entries(messages)) {
    if (typeof t !== "string" || !id.includes("{")) continue;
    const names = [];
    const parts = id.split(/(\{\w+(?:![rs])?(?::[^{}]*)?\})/);
    // A template with little text of its own ("an {shape}") would match any sentence: those are
    // only translated where the client builds them, never recognised in a server's sentence.
    if (parts.filter((_p, i) => i % 2 === 0).join("").replace(/[^\p{L}]/gu, "").length < 6) continue;
    const source = parts.map((p, i) => {
      if (i % 2 === 0) return p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      const m = p.match(/^\{(\w+)(!r)?/);
      names.push([m[1], Boolean(m[2])]);
      return m[2] ? "'(.*?)'" : "(.+?)";
    }).join("");
    patterns.push({ re: new RegExp(`^${source}$`, "s"), names, id, literal: parts.filter((_p, i) => i % 2 === 0).join("").length });
  }
  // The most specific template first: "seat {seat} is taken by {name}" before "seat {n}".
  patterns.sort((a, b) => b.literal - a.literal);
  return patterns;
}

// An English text from the server or the engine (an option's help, an achievement, an error)
// in the page's language: looked up as it stands, else matched against the catalog's templates
// (each parameter translated in turn). Unknown text stays as it came.
export function tr(text) {
  if (typeof text !== "string" || !text || lang === "en") return text;
  const t = messages[text];
  if (typeof t === "string" && t) return t;
  for (const { re, names, id } of templates()) {
    const m = re.exec(text);
    if (!m) continue;
    const params = {};
    names.forEach(([name, quoted], i) => { params[name] = quoted ? m[i + 1] : tr(m[i + 1]); });
    const quotedNames = new Set(names.filter(([, q]) => q).map(([n]) => n));
    return messages[id].replace(/\{(\w+)(!r|!s)?(:[^{}]*)?\}/g, (whole, name) => {
      if (!(name in params)) return whole;
      return quotedNames.has(name) ? `'${params[name]}'` : params[name];
    });
  }
  return text;
}

// A preset name or an option's value ("free", "clear-rows") as a player reads it: the catalogs'
// "rules value" names (the engine's VALUE_LABELS, as /api/i18n sends them), else tr().
export function valueName(v) {
  const t = catalog.values && catalog.values[v];
  return typeof t === "string" && t ? t : tr(v);
}

// An engine Message sent as JSON ({template, params}): rebuilt from the translated template,
// each string parameter translated too (a reason inside a placement error).
export function trMessage(m) {
  if (!m || typeof m !== "object") return tr(m);
  const params = {};
  // Only nested messages are words; a plain value is data (a name, a shape, cells), never looked up.
  for (const [k, v] of Object.entries(m.params || {})) params[k] = v && typeof v === "object" && "template" in v ? trMessage(v) : v;
  return format(_(m.template), params);
}

// The words of an error answer (HTTP or websocket): the engine's template when it sent one,
// else its English sentence translated from the catalog.
export function errorText(data) {
  if (data && data.text && data.text.template) return trMessage(data.text);
  return tr(data && data.message);
}

export function rememberLanguage(code) {
  try { localStorage.setItem(STORE, code); } catch { /* private mode */ }
  document.cookie = `${COOKIE}=${encodeURIComponent(code)}; path=/; max-age=31536000; samesite=lax`;
}

// The language menu of every page: each language under its own name; a choice is remembered
// (cookie for the server, localStorage for this browser) and the page reloads in it.
export function languageMenu() {
  const sel = document.createElement("select");
  sel.id = "language";
  sel.setAttribute("aria-label", _("Language"));
  sel.title = _("Language");
  for (const [code, name] of Object.entries(languages)) {
    const o = document.createElement("option");
    o.value = code;
    o.textContent = name;
    o.lang = code.replace("_", "-");
    sel.append(o);
  }
  sel.value = lang;
  sel.addEventListener("change", () => { rememberLanguage(sel.value); location.reload(); });
  return sel;
}
