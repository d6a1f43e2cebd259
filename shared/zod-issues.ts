/**
 * How a value that failed its schema is told to a person: each issue as `where: what`. Where is
 * the issue's path in the caller's words (dotted by default: `monitor.intervalMs`), or the
 * caller's word for the whole value when the issue is at its top (`request`, `(the file)`).
 * Without such a word an issue at the top is its message alone. zod's own text (a JSON array)
 * says nothing a user can act on, so every schema failure the app shows is worded here.
 */
import type { z } from 'zod';

export type SchemaIssue = z.ZodError['issues'][number];

export interface IssueWording {
  /** The name of the whole value, for an issue at its top. */
  whole?: string;
  /** Where an issue is, in the user's words (empty: at the top). */
  place?: (path: readonly PropertyKey[]) => string;
}

/** `monitor.intervalMs`; empty at the top. */
export function dottedPath(path: readonly PropertyKey[]): string {
  return path.map(String).join('.');
}

/** Where the issue is: its place, or the whole's name at the top (empty when there is none). */
export function issuePlace(issue: SchemaIssue, wording: IssueWording = {}): string {
  return (wording.place ?? dottedPath)(issue.path) || (wording.whole ?? '');
}

/** `where: what`, or `what` alone at the top of a value the caller gave no name. */
export function issueLine(issue: SchemaIssue, wording: IssueWording = {}): string {
  const place = issuePlace(issue, wording);
  return place ? `${place}: ${issue.message}` : issue.message;
}

/** Every issue, one line each. */
export function issueLines(error: z.ZodError, wording: IssueWording = {}): string[] {
  return error.issues.map((issue) => issueLine(issue, wording));
}

/** Where the first issue is, for a refusal that names only the place. */
export function firstIssuePlace(error: z.ZodError, wording: IssueWording = {}): string {
  const issue = error.issues[0];
  return issue ? issuePlace(issue, wording) : (wording.whole ?? '');
}

/** The first issue's line: what a one-line refusal names. */
export function firstIssueLine(error: z.ZodError, wording: IssueWording = {}): string {
  const issue = error.issues[0];
  return issue ? issueLine(issue, wording) : `${wording.whole ?? 'the value'}: rejected`;
}

/** The first issue's message alone, for a value that is a single field. */
export function firstIssueMessage(error: z.ZodError): string | undefined {
  return error.issues[0]?.message;
}

/** Place → the first message about it, for a form that shows each field's problem beside it. */
export function issuesByPlace(error: z.ZodError, wording: IssueWording = {}): Record<string, string> {
  const byPlace: Record<string, string> = {};
  for (const issue of error.issues) byPlace[issuePlace(issue, wording)] ??= issue.message;
  return byPlace;
}
