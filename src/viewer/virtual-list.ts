// A scrolling list that only builds the rows in view, so a run with tens of
// thousands of executions or log lines stays smooth. Rows may differ in
// height: each is measured once drawn, and positions are recomputed.

/** How a {@link VirtualList} draws its items. */
export interface RowRenderer<T> {
  /** A stable key per item. */
  key(item: T): string;
  /** Changes whenever the row must be drawn again. */
  version(item: T): string;
  render(item: T, index: number): HTMLElement;
}

const OVERSCAN = 300;
/** Rows drawn past the bottom of the view at the least. */
const MIN_PAST = 4;

interface Drawn {
  el: HTMLElement;
  version: string;
  index: number;
}

/** A virtualised list. Put `element` in the page; it scrolls by itself. */
export class VirtualList<T> {
  readonly element: HTMLElement;
  readonly #spacer: HTMLElement;
  #items: readonly T[] = [];
  #offsets: Float64Array = new Float64Array(1);
  /** Each item's height by index (measured, or the estimate): laying out is a sum over numbers, with no key built. */
  #sizes: Float64Array = new Float64Array(0);
  /** Measured heights by key: they follow an item when the list is replaced with more or fewer items. */
  readonly #heights = new Map<string, number>();
  #spacerHeight = -1;
  readonly #drawn = new Map<string, Drawn>();
  #scheduled = false;
  /** Keep the last row in view as rows arrive (a log you are tailing). */
  follow: boolean;

  constructor(
    private readonly renderer: RowRenderer<T>,
    private readonly estimate: number,
    className: string,
    follow = false,
  ) {
    this.follow = follow;
    this.element = document.createElement('div');
    this.element.className = `vlist ${className}`;
    this.#spacer = document.createElement('div');
    this.#spacer.className = 'vlist-spacer';
    this.element.appendChild(this.#spacer);
    this.element.addEventListener('scroll', () => this.#schedule(), { passive: true });
    // An opened or closed <details> changes a row's height.
    this.element.addEventListener('toggle', () => this.#schedule(), true);
    new ResizeObserver(() => this.#schedule()).observe(this.element);
  }

  get length(): number {
    return this.#items.length;
  }

  /**
   * Replace the items (cheap to call with the same array grown). `fresh`:
   * a different list altogether (another run or node), whose keys may repeat
   * the old ones' — forget every drawn row and measured height.
   */
  setItems(items: readonly T[], fresh = false): void {
    if (fresh) {
      for (const drawn of this.#drawn.values()) drawn.el.remove();
      this.#drawn.clear();
      this.#heights.clear();
      this.element.scrollTop = 0;
    }
    const stick = this.follow && this.#atBottom();
    this.#items = items;
    this.#measureAll();
    this.#layout(0);
    if (stick) this.element.scrollTop = this.element.scrollHeight;
    this.draw();
    // New rows were laid out at the estimated height; measured, they may be
    // taller (a wrapped log line), which moves the end further down. Follow
    // it, or the next batch would find the list no longer at the bottom.
    for (let pass = 0; stick && pass < 3 && !this.#atBottom(); pass++) {
      this.element.scrollTop = this.element.scrollHeight;
      this.draw();
    }
  }

  /** Draw rows whose version changed. */
  refresh(): void {
    this.draw();
  }

  /**
   * Scroll so the item at `index` is at the top of the view (`margin`
   * pixels below it, to show what came before). Its row and those around
   * it are measured as they are drawn, which moves it: it is placed again
   * until it stays.
   */
  scrollToIndex(index: number, margin = 0): void {
    const at = Math.max(0, Math.min(index, this.#items.length));
    for (let pass = 0; pass < 4; pass++) {
      const want = Math.max(0, (this.#offsets[at] ?? 0) - margin);
      if (pass > 0 && Math.abs(this.element.scrollTop - want) < 1) break;
      this.element.scrollTop = want;
      this.draw();
    }
  }

  /** The index of the first item whose row is in view (0 when there is none). */
  firstVisible(): number {
    return Math.min(this.#indexAt(this.element.scrollTop), Math.max(0, this.#items.length - 1));
  }

  /** The indexes of the first and last items in view, `[first, last]` (last < first when there are none). */
  visibleRange(): [number, number] {
    const top = this.element.scrollTop;
    const first = this.#indexAt(top);
    const last = Math.min(this.#items.length - 1, this.#indexAt(top + (this.element.clientHeight || 600)));
    return [first, last];
  }

  /** Is the row of the item at `index` wholly in view? */
  inView(index: number): boolean {
    const top = this.#offsets[index];
    const bottom = this.#offsets[index + 1];
    if (top === undefined || bottom === undefined || index >= this.#items.length) return false;
    return top >= this.element.scrollTop && bottom <= this.element.scrollTop + this.element.clientHeight;
  }

  scrollToBottom(): void {
    this.element.scrollTop = this.element.scrollHeight;
    this.draw();
  }

  #atBottom(): boolean {
    const e = this.element;
    return e.scrollTop + e.clientHeight >= e.scrollHeight - 8;
  }

  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    requestAnimationFrame(() => {
      this.#scheduled = false;
      this.draw();
    });
  }

  #height(item: T): number {
    return this.#heights.get(this.renderer.key(item)) ?? this.estimate;
  }

  /** Take each item's height from what was measured of its key (once per new list of items). */
  #measureAll(): void {
    const n = this.#items.length;
    if (this.#sizes.length !== n) this.#sizes = new Float64Array(n);
    for (let i = 0; i < n; i++) this.#sizes[i] = this.#height(this.#items[i] as T);
  }

  /** The offsets from item `from` on (those before it did not move), and the spacer's height if it changed. */
  #layout(from: number): void {
    const n = this.#items.length;
    if (this.#offsets.length !== n + 1) {
      this.#offsets = new Float64Array(n + 1);
      from = 0;
    }
    let y = this.#offsets[from] as number;
    for (let i = from; i < n; i++) {
      this.#offsets[i] = y;
      y += this.#sizes[i] as number;
    }
    this.#offsets[n] = y;
    if (y !== this.#spacerHeight) {
      this.#spacerHeight = y;
      this.#spacer.style.height = `${y}px`;
    }
  }

  /** The first index whose row ends below `y`. */
  #indexAt(y: number): number {
    let lo = 0;
    let hi = this.#items.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((this.#offsets[mid + 1] as number) <= y) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Draw the rows in view (and a margin around it), measure them, and lay out again if a height changed. */
  draw(): void {
    for (let pass = 0; pass < 3; pass++) {
      const changed = this.#drawPass();
      if (changed === -1) break;
      this.#layout(changed);
    }
    this.#position();
  }

  /** One pass; the lowest index whose height changed, or -1. */
  #drawPass(): number {
    const top = this.element.scrollTop;
    const bottom = top + (this.element.clientHeight || 600);
    const first = this.#indexAt(Math.max(0, top - OVERSCAN));
    const keep = new Set<string>();
    const shown: Drawn[] = [];
    // The rows within OVERSCAN of the view, and at least a few past it whatever their height
    // (after a tall row, an opened call, the next ones are still in the page to be reached).
    let past = 0;
    for (let i = first; i < this.#items.length && ((this.#offsets[i] as number) < bottom + OVERSCAN || past < MIN_PAST); i++) {
      if ((this.#offsets[i] as number) >= bottom) past++;
      const item = this.#items[i] as T;
      const key = this.renderer.key(item);
      keep.add(key);
      const version = this.renderer.version(item);
      let drawn = this.#drawn.get(key);
      if (drawn === undefined || drawn.version !== version) {
        const row = this.renderer.render(item, i);
        row.classList.add('vrow');
        if (drawn !== undefined) drawn.el.replaceWith(row);
        else this.#spacer.appendChild(row);
        drawn = { el: row, version, index: i };
        this.#drawn.set(key, drawn);
      }
      drawn.index = i;
      drawn.el.style.transform = `translateY(${this.#offsets[i] as number}px)`;
      shown.push(drawn);
    }
    for (const [key, drawn] of this.#drawn) {
      if (!keep.has(key)) {
        drawn.el.remove();
        this.#drawn.delete(key);
      }
    }
    // All writes first, then all reads: one layout for the lot.
    let changed = -1;
    for (const drawn of shown) {
      const measured = drawn.el.offsetHeight;
      if (measured > 0 && measured !== this.#sizes[drawn.index]) {
        this.#sizes[drawn.index] = measured;
        this.#heights.set(this.renderer.key(this.#items[drawn.index] as T), measured);
        if (changed === -1 || drawn.index < changed) changed = drawn.index;
      }
    }
    return changed;
  }

  #position(): void {
    for (const drawn of this.#drawn.values()) {
      drawn.el.style.transform = `translateY(${this.#offsets[drawn.index] ?? 0}px)`;
    }
  }
}
