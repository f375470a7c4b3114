/**
 * Python's `csv.reader` with the default dialect (doublequote, no skipinitialspace, not strict):
 * rows split on "\n", "\r" or "\r\n"; a blank line is an empty row; a quote opens a quoted field
 * only at the start of a field; text after a closing quote is kept in the field.
 */
export function parseCsv(text: string, delimiter = ','): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let state: 'start' | 'unquoted' | 'quoted' | 'quote_in_quoted' | 'after_row' = 'after_row';
  let fieldStarted = false;
  const endField = (): void => {
    row.push(field);
    field = '';
    fieldStarted = false;
  };
  const endRow = (): void => {
    if (fieldStarted || row.length > 0 || state !== 'after_row') endField();
    rows.push(row);
    row = [];
    state = 'after_row';
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (state === 'quoted') {
      if (c === '"') state = 'quote_in_quoted';
      else field += c;
      continue;
    }
    if (state === 'quote_in_quoted') {
      if (c === '"') {
        field += '"';
        state = 'quoted';
        continue;
      }
      state = 'unquoted';
    }
    if (c === '\n' || c === '\r') {
      if (state === 'after_row') rows.push([]);
      else endRow();
      if (c === '\r' && text[i + 1] === '\n') i++;
      continue;
    }
    if (c === delimiter) {
      endField();
      state = 'start';
      continue;
    }
    if (c === '"' && (state === 'start' || state === 'after_row')) {
      state = 'quoted';
      fieldStarted = true;
      continue;
    }
    field += c;
    fieldStarted = true;
    state = 'unquoted';
  }
  // An unclosed quoted field at the end is kept as it is (Python raises only in strict mode).
  if (state !== 'after_row') endRow();
  return rows;
}
