/**
 * Box checks for a part of the window (a settings page, a dialog): what a person would see as
 * broken, measured from element boxes rather than pixels. Runs in the page (`page.evaluate`), so
 * it may use nothing from outside its own body.
 *
 * - no two visible atoms overlap (an atom inside another is not an overlap);
 * - no atom is drawn with zero width;
 * - no atom sticks out sideways of the box that holds it (the part's scroll box or a clipping
 *   ancestor), unless a tooltip (`title`) says what it held: a page scrolls up and down, never
 *   sideways, so only the sides count;
 * - no element's text is cut (scrollWidth > clientWidth) where it hides its overflow, without a tooltip;
 * - the window never scrolls sideways.
 */
export interface BoxProblem {
  kind: 'overlap' | 'zero-width' | 'cut' | 'clipped-without-title' | 'horizontal-scroll';
  what: string;
}

export function measureBoxes({ root, atoms }: { root: string; atoms: string[] }): { problems: BoxProblem[]; shown: number } {
  const part = document.querySelector(root);
  if (!(part instanceof HTMLElement)) return { problems: [{ kind: 'zero-width', what: `${root} is not on the page` }], shown: 0 };
  const problems: BoxProblem[] = [];
  const label = (element: Element) => `${element.tagName.toLowerCase()}${element.className && typeof element.className === 'string' ? `.${element.className.split(' ').join('.')}` : ''} "${(element.textContent ?? '').trim().slice(0, 40)}"`;
  const visible = (element: Element) => {
    for (let node: Element | null = element; node && node !== part.parentElement; node = node.parentElement) {
      const style = getComputedStyle(node);
      if (style.display === 'none' || style.visibility === 'hidden' || node.hasAttribute('hidden') || style.clipPath === 'inset(50%)') return false;
    }
    return true;
  };
  const elements = [...new Set(atoms.flatMap((selector) => Array.from(part.querySelectorAll(selector))))].filter(visible);
  const boxes: { element: Element; box: DOMRect }[] = [];
  for (const element of elements) {
    const box = element.getBoundingClientRect();
    if (box.width < 1 || box.height < 1) {
      problems.push({ kind: 'zero-width', what: label(element) });
      continue;
    }
    for (let node = element.parentElement; node && node !== part.parentElement; node = node.parentElement) {
      const style = getComputedStyle(node);
      if (style.overflowX === 'visible' && style.overflowY === 'visible' && node !== part) continue;
      const outer = node.getBoundingClientRect();
      if ((box.left < outer.left - 0.5 || box.right > outer.right + 0.5) && !element.closest('[title]')) problems.push({ kind: 'cut', what: `${label(element)} by ${label(node)}` });
    }
    boxes.push({ element, box });
  }
  for (let i = 0; i < boxes.length; i++) {
    for (let j = i + 1; j < boxes.length; j++) {
      const a = boxes[i]!;
      const b = boxes[j]!;
      if (a.element.contains(b.element) || b.element.contains(a.element)) continue;
      const overlapX = Math.min(a.box.right, b.box.right) - Math.max(a.box.left, b.box.left);
      const overlapY = Math.min(a.box.bottom, b.box.bottom) - Math.max(a.box.top, b.box.top);
      if (overlapX > 0.5 && overlapY > 0.5) problems.push({ kind: 'overlap', what: `${label(a.element)} × ${label(b.element)}` });
    }
  }
  for (const element of Array.from(part.querySelectorAll('*'))) {
    if (!(element instanceof HTMLElement) || !visible(element)) continue;
    // A select draws its chosen option itself; its width is the field's, not its text's.
    if (element instanceof HTMLSelectElement || element instanceof HTMLInputElement || element instanceof HTMLTextAreaElement) continue;
    if (element.scrollWidth > element.clientWidth + 1 && getComputedStyle(element).overflowX !== 'visible' && !element.closest('[title]')) problems.push({ kind: 'clipped-without-title', what: label(element) });
  }
  if (document.documentElement.scrollWidth > window.innerWidth) problems.push({ kind: 'horizontal-scroll', what: `${document.documentElement.scrollWidth} > ${window.innerWidth}` });
  return { problems, shown: boxes.length };
}

/**
 * Whether `token` (an address, a path) reads left to right where it is shown inside `selector`:
 * each of its characters drawn to the right of the one before, on the same line. Right-to-left
 * text that does not isolate a token lets the bidi algorithm move its slashes and separators to
 * the other end ("usr/bin/app/" for "/usr/bin/app"). Runs in the page.
 */
export function readsLeftToRight({ selector, token }: { selector: string; token: string }): { found: boolean; inOrder: boolean; lefts: number[] } {
  const root = document.querySelector(selector);
  if (!root) return { found: false, inOrder: false, lefts: [] };
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const nodes: { node: Node; start: number }[] = [];
  let text = '';
  while (walker.nextNode()) {
    nodes.push({ node: walker.currentNode, start: text.length });
    text += walker.currentNode.textContent ?? '';
  }
  const at = text.indexOf(token);
  if (at < 0) return { found: false, inOrder: false, lefts: [] };
  const boxes: DOMRect[] = [];
  for (let i = at; i < at + token.length; i++) {
    const holder = [...nodes].reverse().find((n) => n.start <= i)!;
    const range = document.createRange();
    range.setStart(holder.node, i - holder.start);
    range.setEnd(holder.node, i - holder.start + 1);
    boxes.push(range.getBoundingClientRect());
  }
  const inOrder = boxes.every((box, i) => i === 0 || (box.left >= boxes[i - 1]!.left && Math.abs(box.top - boxes[i - 1]!.top) < 2));
  return { found: true, inOrder, lefts: boxes.map((box) => Math.round(box.left)) };
}
