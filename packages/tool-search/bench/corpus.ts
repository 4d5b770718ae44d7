/**
 * A generated catalog of 10,000 deferred tools shaped like real SaaS plugin tools (20 domains x
 * 10 vendors x 5 resources x 10 actions), and labelled queries that paraphrase what a user wants
 * without the action or resource words of the target's name.
 */
import type { SearchDocument } from "../src/index.js";

interface Resource {
  readonly slug: string;
  readonly noun: string;
  /** Another word for it; descriptions mention it, queries use it instead of the noun. */
  readonly alias: string;
}
interface Domain {
  readonly label: string;
  readonly resources: readonly Resource[];
}

const r = (slug: string, noun: string, alias: string): Resource => ({ slug, noun, alias });

const DOMAINS: readonly Domain[] = [
  {
    label: "CRM",
    resources: [
      r("contact", "contact", "person"),
      r("deal", "deal", "opportunity"),
      r("company", "company", "organization"),
      r("pipeline", "pipeline", "funnel stage"),
      r("activity", "activity", "phone call"),
    ],
  },
  {
    label: "issue tracker",
    resources: [
      r("issue", "issue", "bug"),
      r("sprint", "sprint", "iteration"),
      r("board", "board", "kanban"),
      r("milestone", "milestone", "deadline"),
      r("label", "label", "tag"),
    ],
  },
  {
    label: "team chat",
    resources: [
      r("channel", "channel", "room"),
      r("message", "message", "post"),
      r("thread", "thread", "conversation"),
      r("reaction", "reaction", "emoji"),
      r("member", "member", "participant"),
    ],
  },
  {
    label: "email service",
    resources: [
      r("email", "email", "mail"),
      r("draft", "draft", "unsent"),
      r("mailbox", "mailbox", "inbox"),
      r("rule", "rule", "automation"),
      r("signature", "signature", "sign-off"),
    ],
  },
  {
    label: "calendar",
    resources: [
      r("event", "event", "meeting"),
      r("calendar", "calendar", "agenda"),
      r("attendee", "attendee", "guest"),
      r("reminder", "reminder", "alarm"),
      r("room", "room", "venue"),
    ],
  },
  {
    label: "file storage",
    resources: [
      r("file", "file", "document"),
      r("folder", "folder", "directory"),
      r("share_link", "share link", "public url"),
      r("bucket", "bucket", "container"),
      r("version", "version", "revision"),
    ],
  },
  {
    label: "billing",
    resources: [
      r("invoice", "invoice", "bill"),
      r("customer", "customer", "payer"),
      r("subscription", "subscription", "plan"),
      r("refund", "refund", "reimbursement"),
      r("coupon", "coupon", "promo code"),
    ],
  },
  {
    label: "monitoring",
    resources: [
      r("alert", "alert", "alarm"),
      r("dashboard", "dashboard", "overview"),
      r("metric", "metric", "measurement"),
      r("incident", "incident", "outage"),
      r("monitor", "monitor", "health check"),
    ],
  },
  {
    label: "CI service",
    resources: [
      r("workflow", "workflow", "automation"),
      r("build", "build", "compilation"),
      r("job", "job", "step"),
      r("artifact", "artifact", "output binary"),
      r("runner", "runner", "agent machine"),
    ],
  },
  {
    label: "database host",
    resources: [
      r("table", "table", "relation"),
      r("row", "row", "entry"),
      r("db_index", "index", "lookup structure"),
      r("snapshot", "snapshot", "backup"),
      r("db_user", "user", "login"),
    ],
  },
  {
    label: "DNS provider",
    resources: [
      r("dns_record", "record", "entry"),
      r("zone", "zone", "namespace"),
      r("domain", "domain", "hostname"),
      r("certificate", "certificate", "tls"),
      r("nameserver", "nameserver", "resolver"),
    ],
  },
  {
    label: "HR system",
    resources: [
      r("employee", "employee", "staff member"),
      r("leave", "leave request", "vacation"),
      r("payslip", "payslip", "salary statement"),
      r("team", "team", "department"),
      r("position", "position", "job opening"),
    ],
  },
  {
    label: "wiki",
    resources: [
      r("page", "page", "article"),
      r("space", "space", "section"),
      r("comment", "comment", "remark"),
      r("template", "template", "boilerplate"),
      r("attachment", "attachment", "upload"),
    ],
  },
  {
    label: "help desk",
    resources: [
      r("ticket", "ticket", "support request"),
      r("macro", "macro", "canned response"),
      r("agent", "agent", "support staff"),
      r("survey", "survey", "satisfaction rating"),
      r("queue", "queue", "inbox view"),
    ],
  },
  {
    label: "product analytics",
    resources: [
      r("report", "report", "chart"),
      r("segment", "segment", "user group"),
      r("funnel", "funnel", "conversion path"),
      r("tracked_event", "tracked event", "click"),
      r("cohort", "cohort", "retention group"),
    ],
  },
  {
    label: "online store",
    resources: [
      r("order", "order", "purchase"),
      r("product", "product", "item"),
      r("cart", "cart", "basket"),
      r("shipment", "shipment", "delivery"),
      r("discount", "discount", "sale"),
    ],
  },
  {
    label: "marketing suite",
    resources: [
      r("campaign", "campaign", "promotion"),
      r("audience", "audience", "recipient list"),
      r("newsletter", "newsletter", "mailing"),
      r("landing_page", "landing page", "microsite"),
      r("signup_form", "signup form", "lead capture"),
    ],
  },
  {
    label: "design tool",
    resources: [
      r("design", "design", "mockup"),
      r("component", "component", "widget"),
      r("prototype", "prototype", "clickable demo"),
      r("annotation", "annotation", "sticky note"),
      r("library", "library", "asset kit"),
    ],
  },
  {
    label: "accounting",
    resources: [
      r("journal_entry", "journal entry", "ledger line"),
      r("expense", "expense", "receipt"),
      r("budget", "budget", "spending limit"),
      r("tax_rate", "tax rate", "vat"),
      r("supplier", "supplier", "vendor"),
    ],
  },
  {
    label: "fleet logistics",
    resources: [
      r("vehicle", "vehicle", "truck"),
      r("warehouse", "warehouse", "depot"),
      r("route", "route", "itinerary"),
      r("driver", "driver", "courier"),
      r("parcel", "parcel", "package"),
    ],
  },
];

interface Action {
  readonly slug: string;
  readonly summary: (n: string) => string;
  readonly description: (n: string, alias: string, where: string) => string;
  readonly params: readonly (readonly [string, string])[];
  readonly queries: readonly ((alias: string, vendor: string) => string)[];
}

const ACTIONS: readonly Action[] = [
  {
    slug: "list",
    summary: (n) => `List ${n}s`,
    description: (n, a, w) =>
      `Lists the ${n}s (each ${a}) in ${w}, newest first, one page at a time. Use it to browse everything that exists.`,
    params: [
      ["limit", "Most items per page."],
      ["cursor", "Paging cursor from the previous page."],
    ],
    queries: [
      (a, v) => `show me every ${a} we have in ${v}`,
      (a, v) => `browse all ${a}s in ${v}`,
      (a, v) => `enumerate the ${a}s stored in ${v}`,
    ],
  },
  {
    slug: "get",
    summary: (n) => `Get one ${n}`,
    description: (n, a, w) =>
      `Fetches a single ${n} (${a}) from ${w} by its ID and returns all of its details.`,
    params: [["id", "Identifier of the item."]],
    queries: [
      (a, v) => `look up the details of one ${a} in ${v}`,
      (a, v) => `view a single ${a} in ${v} by identifier`,
      (a, v) => `retrieve a specific ${a} from ${v}`,
    ],
  },
  {
    slug: "create",
    summary: (n) => `Create a ${n}`,
    description: (n, a, w) => `Creates a new ${n} (${a}) in ${w} from the given fields and returns its ID.`,
    params: [["fields", "Field values of the new item."]],
    queries: [
      (a, v) => `add a new ${a} to ${v}`,
      (a, v) => `make a fresh ${a} in ${v}`,
      (a, v) => `register another ${a} in ${v}`,
    ],
  },
  {
    slug: "update",
    summary: (n) => `Update a ${n}`,
    description: (n, a, w) =>
      `Changes fields of an existing ${n} (${a}) in ${w}; fields you leave out keep their values.`,
    params: [
      ["id", "Identifier of the item."],
      ["fields", "Fields to change."],
    ],
    queries: [
      (a, v) => `edit an existing ${a} in ${v}`,
      (a, v) => `modify fields of a ${a} in ${v}`,
      (a, v) => `adjust a ${a} in ${v}`,
    ],
  },
  {
    slug: "delete",
    summary: (n) => `Delete a ${n}`,
    description: (n, a, w) => `Permanently removes a ${n} (${a}) from ${w}. This cannot be undone.`,
    params: [["id", "Identifier of the item."]],
    queries: [
      (a, v) => `remove a ${a} from ${v} for good`,
      (a, v) => `permanently erase a ${a} in ${v}`,
      (a, v) => `destroy a ${a} in ${v}`,
    ],
  },
  {
    slug: "search",
    summary: (n) => `Search ${n}s`,
    description: (n, a, w) =>
      `Finds ${n}s (${a}s) in ${w} whose text matches a keyword query, ranked by relevance.`,
    params: [["query", "Keywords to match."]],
    queries: [
      (a, v) => `find ${a}s in ${v} matching some text`,
      (a, v) => `look for ${a}s in ${v} by keyword`,
      (a, v) => `query ${v} for ${a}s that mention a word`,
    ],
  },
  {
    slug: "archive",
    summary: (n) => `Archive a ${n}`,
    description: (n, a, w) =>
      `Archives a ${n} (${a}) in ${w}: it is hidden from default views but kept, and can be restored later.`,
    params: [["id", "Identifier of the item."]],
    queries: [
      (a, v) => `hide a ${a} in ${v} from default views but keep it`,
      (a, v) => `shelve an old ${a} in ${v} so it is hidden`,
      (a, v) => `close out a ${a} in ${v} without removing it`,
    ],
  },
  {
    slug: "restore",
    summary: (n) => `Restore a ${n}`,
    description: (n, a, w) =>
      `Restores an archived ${n} (${a}) in ${w}, bringing it back to the active views.`,
    params: [["id", "Identifier of the item."]],
    queries: [
      (a, v) => `bring back a hidden ${a} in ${v}`,
      (a, v) => `unarchive a ${a} in ${v}`,
      (a, v) => `recover a shelved ${a} in ${v} into active views`,
    ],
  },
  {
    slug: "export",
    summary: (n) => `Export ${n}s`,
    description: (n, a, w) => `Exports ${n}s (${a}s) from ${w} as a CSV or JSON file for download.`,
    params: [["format", "csv or json."]],
    queries: [
      (a, v) => `download ${v} ${a}s as a CSV file`,
      (a, v) => `dump the ${a}s from ${v} to JSON`,
      (a, v) => `back up ${a}s out of ${v} into a file`,
    ],
  },
  {
    slug: "import",
    summary: (n) => `Import ${n}s`,
    description: (n, a, w) => `Imports ${n}s (${a}s) into ${w} from an uploaded CSV or JSON file.`,
    params: [["file", "The uploaded CSV or JSON file."]],
    queries: [
      (a, v) => `upload a CSV of ${a}s into ${v}`,
      (a, v) => `load ${a}s into ${v} from a JSON file`,
      (a, v) => `ingest a spreadsheet of ${a}s into ${v}`,
    ],
  },
];

const HEADS = [
  "nor",
  "zen",
  "quan",
  "lum",
  "vel",
  "cor",
  "tal",
  "bri",
  "mar",
  "ost",
  "kel",
  "dra",
  "fen",
  "hal",
  "iro",
  "jun",
  "pax",
  "ryn",
  "sol",
  "ulm",
];
const TAILS = ["tra", "ify", "dex", "ora", "vio", "lux", "mo", "nex", "ster", "wick"];

export interface LabelledQuery {
  readonly query: string;
  readonly expected: string;
}

/** The 10,000 generated tools, deterministic. */
export function generateTools(): SearchDocument[] {
  const docs: SearchDocument[] = [];
  DOMAINS.forEach((domain, d) => {
    for (let v = 0; v < 10; v++) {
      const vendor = vendorName(d, v);
      const where = `${capitalize(vendor)} ${domain.label}`;
      for (const resource of domain.resources) {
        for (const action of ACTIONS) {
          const name = `plugin_${vendor}_${resource.slug}_${action.slug}`;
          docs.push({
            providerName: name,
            name: `plugin.${vendor}.${resource.slug}_${action.slug}`,
            summary: `${action.summary(resource.noun)} in ${where}`,
            description: action.description(resource.noun, resource.alias, where),
            parameters: action.params.map(([n, description]) => ({ name: n, description })),
          });
        }
      }
    }
  });
  return docs;
}

/** `count` labelled queries over random tools, worded without the action or resource of the target's name. */
export function generateQueries(count: number, seed = 7): LabelledQuery[] {
  const random = mulberry32(seed);
  const out: LabelledQuery[] = [];
  while (out.length < count) {
    const d = Math.floor(random() * DOMAINS.length);
    const v = Math.floor(random() * 10);
    const domain = DOMAINS[d] as Domain;
    const resource = domain.resources[Math.floor(random() * domain.resources.length)] as Resource;
    const action = ACTIONS[Math.floor(random() * ACTIONS.length)] as Action;
    const template = action.queries[
      Math.floor(random() * action.queries.length)
    ] as Action["queries"][number];
    const vendor = vendorName(d, v);
    const query = template(resource.alias, capitalize(vendor));
    const nameWords = new Set([...resource.slug.split("_"), action.slug]);
    const words = query.toLowerCase().split(/[^a-z]+/);
    if (words.some((w) => nameWords.has(w))) continue;
    out.push({ query, expected: `plugin_${vendor}_${resource.slug}_${action.slug}` });
  }
  return out;
}

function vendorName(domain: number, vendor: number): string {
  return `${HEADS[domain]}${TAILS[vendor]}`;
}

function capitalize(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
