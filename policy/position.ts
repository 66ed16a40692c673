/** Where a finding is in its file. Its own module, so declarations that name it name no YAML library. */
export interface Position {
  line: number;
  column: number;
  /** The YAML text of the node found, when it is a scalar. */
  source?: string;
}
