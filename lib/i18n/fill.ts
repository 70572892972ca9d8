/** Fills `{name}` placeholders; kept apart from the dictionaries so client code can import it alone. */
export function fill(template: string, values: Record<string, string | number>): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole));
}
