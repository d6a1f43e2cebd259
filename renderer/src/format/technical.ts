/**
 * Technical tokens inside translated text: addresses, CIDRs, URLs, ports, host names and routing
 * rules ("192.168.1.0/24", "2001:db8::/32", "domain:example.com", "65536"). Inside right-to-left
 * text each must be isolated and kept left to right, or the bidi algorithm runs a token's digits
 * and colons into the words and separators around it ("203.0.113.7:2001، db8::/32").
 */
export interface TextRun {
  text: string;
  technical: boolean;
}

// A run of ASCII letters, digits and the punctuation of addresses and paths, ending in a letter,
// a digit, "/", "*" or "…" (so a sentence's own colon or full stop stays outside). A path's leading
// "/" and a Windows path's "\" are inside it, or right-to-left text moves them to the path's other
// end ("usr/bin/app/"); so is a range's dash without spaces ("172.16–31.x").
const TOKEN = /[A-Za-z0-9[/][A-Za-z0-9._:/\\\-–*…?=&%+@[\]]*[A-Za-z0-9/*…\]]|[0-9]/g;
// What makes a run technical rather than a word: a digit, or an address's punctuation inside it.
const TECHNICAL = /[0-9]|[A-Za-z][:.][A-Za-z0-9…*]|[:/]/;

export function technicalRuns(text: string): TextRun[] {
  const runs: TextRun[] = [];
  let last = 0;
  for (const match of text.matchAll(TOKEN)) {
    const token = match[0];
    if (!TECHNICAL.test(token)) continue;
    const at = match.index;
    if (at > last) runs.push({ text: text.slice(last, at), technical: false });
    runs.push({ text: token, technical: true });
    last = at + token.length;
  }
  if (last < text.length) runs.push({ text: text.slice(last), technical: false });
  return runs;
}
