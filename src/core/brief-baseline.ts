/** Why a brief may keep no text of a changed file as the run started. */
export const OMITTED_REASONS = Object.freeze(['binary', 'too_large', 'brief_full', 'unreadable'] as const);

/** Why a brief keeps no text of a changed file as the run started. */
export type OmittedReason = (typeof OMITTED_REASONS)[number];

/** A changed file whose content before the run the brief leaves out, and its size then. */
export interface OmittedBaseline {
  readonly omitted: OmittedReason;
  readonly bytes: number;
}

/** A changed file as the run started: its text, `null` when it did not exist, or why its text is left out. */
export type BaselineFile = string | null | OmittedBaseline;

/** A file of the run's snapshot: its size, and its bytes read on demand (null: the snapshot has no file there). */
export type BaselineSource = (file: string) => { readonly size: number; readonly read: () => Uint8Array } | null;

/**
 * Bytes of one file before the run a brief keeps: a larger file is left out (`too_large`) and not read,
 * so a brief stays small and the reviewer's page can diff each file it keeps at once.
 */
export const BASELINE_FILE_BYTES = 256 * 1024;
/** Bytes of baseline one brief keeps in all; files past it are left out (`brief_full`), in path order. */
export const BASELINE_BYTES = 2 * 1024 * 1024;

/** Bytes looked at for a NUL, as git does, to call a file binary. */
const SNIFF_BYTES = 8000;

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function decoded(bytes: Uint8Array): string | undefined {
  if (bytes.subarray(0, SNIFF_BYTES).includes(0)) return undefined;
  try {
    return utf8.decode(bytes);
  } catch {
    return undefined;
  }
}

/**
 * What a brief keeps of each changed path as the run started, from the run's snapshot: the text of a
 * UTF-8 file up to {@link BASELINE_FILE_BYTES} (within {@link BASELINE_BYTES} for the whole brief),
 * `null` for a path the snapshot has no file at, and for any other file why it is left out.
 */
export function briefBaseline(paths: readonly string[], source: BaselineSource): Record<string, BaselineFile> {
  let kept = 0;
  const entryOf = (file: string): BaselineFile => {
    const found = source(file);
    if (found === null) return null;
    const { size, read } = found;
    if (size > BASELINE_FILE_BYTES) return { omitted: 'too_large', bytes: size };
    if (kept + size > BASELINE_BYTES) return { omitted: 'brief_full', bytes: size };
    let bytes: Uint8Array;
    try {
      bytes = read();
    } catch {
      // A damaged snapshot must not stop the run's seal: the brief says the file could not be read.
      return { omitted: 'unreadable', bytes: size };
    }
    const text = decoded(bytes);
    if (text === undefined) return { omitted: 'binary', bytes: bytes.length };
    kept += bytes.length;
    return text;
  };
  // Built from entries: a path named `__proto__` is a key like any other.
  return Object.fromEntries([...paths].sort().map((file) => [file, entryOf(file)]));
}
