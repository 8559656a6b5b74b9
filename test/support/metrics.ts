/** The metric families a Prometheus text has a `# TYPE` line for, each as often as it has one. */
export function typedFamilies(text: string): string[] {
  return text
    .split('\n')
    .filter((l) => l.startsWith('# TYPE '))
    .map((l) => l.split(' ')[2]!);
}

/** The families typed more than once: Prometheus rejects such a scrape whole. */
export function typedTwice(text: string): string[] {
  const typed = typedFamilies(text);
  return typed.filter((name, i) => typed.indexOf(name) !== i);
}
