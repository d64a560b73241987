/**
 * A live table polled again and again: the 16 latest orders, four new ones
 * in at the top of each poll and the four oldest out, long enough (85
 * bigrams) for the long-text bar. Each reading shares three quarters of its
 * rows with the one before (J ≈ 0.6, near), half with the one two polls back
 * (J ≈ 0.35, within drift) and a quarter with the one three polls back
 * (J ≈ 0.15, drifted away): the state moves a little at a time. `seconds`
 * is noise on an unchanged table, in its header.
 */
export function ordersTable(poll: number, seconds = 0): string {
  const cities = ['Lyon', 'Porto', 'Gdansk', 'Leeds', 'Ghent', 'Bergen', 'Turin', 'Malmo', 'Brno', 'Cork', 'Graz', 'Split', 'Tartu'];
  const goods = ['kettle', 'lamp', 'stool', 'rug', 'mirror', 'clock', 'vase', 'shelf', 'desk', 'blender', 'toaster'];
  const row = (n: number) => `#${4100 + n} ${cities[n % 13]} ${goods[n % 11]} ${((n * 37) % 90) + 10} EUR`;
  const rows = Array.from({ length: 16 }, (_, k) => row(poll * 4 + k));
  return [`Latest orders, updated ${seconds} seconds ago`, ...rows].join('\n');
}
