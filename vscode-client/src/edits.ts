// Size of a WorkspaceEdit (LSP JSON shape), for the confirmation of large edits.

interface TextDocumentIdentifierLike {
  uri?: unknown;
}

interface DocumentChangeLike {
  kind?: unknown;
  textDocument?: TextDocumentIdentifierLike;
  uri?: unknown;
  oldUri?: unknown;
  newUri?: unknown;
  edits?: unknown;
}

export interface EditSize {
  files: number;
  textEdits: number;
  resourceOperations: number;
}

/** Distinct files touched, text edits and create/rename/delete operations of an edit. */
export function editSize(edit: unknown): EditSize {
  const files = new Set<string>();
  let textEdits = 0;
  let resourceOperations = 0;
  if (typeof edit !== "object" || edit === null) {
    return { files: 0, textEdits: 0, resourceOperations: 0 };
  }
  const record = edit as { changes?: unknown; documentChanges?: unknown };
  if (typeof record.changes === "object" && record.changes !== null) {
    for (const [uri, edits] of Object.entries(record.changes as Record<string, unknown>)) {
      files.add(uri);
      textEdits += Array.isArray(edits) ? edits.length : 0;
    }
  }
  if (Array.isArray(record.documentChanges)) {
    for (const change of record.documentChanges as DocumentChangeLike[]) {
      if (typeof change.kind === "string") {
        resourceOperations += 1;
        for (const uri of [change.uri, change.oldUri, change.newUri]) {
          if (typeof uri === "string") {
            files.add(uri);
          }
        }
      } else if (change.textDocument && typeof change.textDocument.uri === "string") {
        files.add(change.textDocument.uri);
        textEdits += Array.isArray(change.edits) ? change.edits.length : 0;
      }
    }
  }
  return { files: files.size, textEdits, resourceOperations };
}

/** Ask before applying when the edit touches more files than the threshold (0: never ask). */
export function needsConfirmation(size: EditSize, thresholdFiles: number): boolean {
  return thresholdFiles > 0 && size.files > thresholdFiles;
}

export function confirmationMessage(what: string, size: EditSize): string {
  const ops = size.resourceOperations
    ? ` and ${size.resourceOperations} file operation${size.resourceOperations === 1 ? "" : "s"}`
    : "";
  return `${what} changes ${size.files} files (${size.textEdits} edits${ops}). Apply it?`;
}
