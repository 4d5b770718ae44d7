/**
 * A construct the literal parser refuses to reason about, and where it starts. In a file of its
 * own so the parser and the character check can both name it without importing each other.
 */
export interface UnprovenConstruct {
  readonly construct: string;
  readonly offset: number;
}
