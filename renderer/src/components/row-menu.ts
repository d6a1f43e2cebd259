/** The row menu's keyboard rule, kept pure: where the arrow keys move the focus. */
/**
 * The item the focus moves to for a key (ARIA menu pattern): down and up wrap around, Home and
 * End go to the ends; disabled items are focusable, as the pattern allows, so a person hears why.
 * Null for a key the menu does not handle.
 */
export function menuFocusAfter(key: string, index: number, count: number): number | null {
  if (count === 0) return null;
  switch (key) {
    case 'ArrowDown':
      return (index + 1) % count;
    case 'ArrowUp':
      return (index - 1 + count) % count;
    case 'Home':
      return 0;
    case 'End':
      return count - 1;
    default:
      return null;
  }
}
