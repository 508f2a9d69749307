/**
 * An array that grows at the back and is trimmed at the front in amortised O(1): dropped slots
 * are skipped with a head offset and compacted away only once they outnumber the live ones
 * (`Array.prototype.shift` would cost O(n) per call).
 */
export class SlidingArray<T> {
  #items: T[] = [];
  #head = 0;

  /** Number of live items. */
  get length(): number {
    return this.#items.length - this.#head;
  }

  /** The live item at `index` (0 = oldest), or `undefined` when out of range. */
  at(index: number): T | undefined {
    if (index < 0 || index >= this.length) return undefined;
    return this.#items[this.#head + index];
  }

  /** Replaces the live item at `index`; throws `RangeError` when out of range. */
  set(index: number, value: T): void {
    if (index < 0 || index >= this.length) throw new RangeError(`index ${index} out of range [0, ${this.length})`);
    this.#items[this.#head + index] = value;
  }

  /** Appends an item. */
  push(value: T): void {
    this.#items.push(value);
  }

  /** Inserts an item before `index` (O(n); for the rare out-of-order insert). */
  insert(index: number, value: T): void {
    if (index < 0 || index > this.length) throw new RangeError(`index ${index} out of range [0, ${this.length}]`);
    this.#items.splice(this.#head + index, 0, value);
  }

  /** Removes the item at `index` (O(n); for the rare out-of-order removal). */
  remove(index: number): void {
    if (index < 0 || index >= this.length) throw new RangeError(`index ${index} out of range [0, ${this.length})`);
    this.#items.splice(this.#head + index, 1);
  }

  /** Removes the `count` oldest items, calling `onDrop` for each, oldest first. */
  dropFront(count: number, onDrop?: (value: T) => void): void {
    const n = Math.min(Math.max(0, count), this.length);
    for (let i = 0; i < n; i++) {
      const slot = this.#head + i;
      if (onDrop !== undefined) onDrop(this.#items[slot] as T);
      this.#items[slot] = undefined as T; // let the dropped item be collected
    }
    this.#head += n;
    if (this.#head === this.#items.length) {
      this.#items = [];
      this.#head = 0;
    } else if (this.#head >= 64 && this.#head * 2 >= this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
  }

  /** Keeps the `count` oldest items and removes the rest. */
  truncate(count: number): void {
    const keep = Math.min(Math.max(0, count), this.length);
    this.#items.length = this.#head + keep;
  }

  /** Removes every item. */
  clear(): void {
    this.#items = [];
    this.#head = 0;
  }

  /** A copy of the live items from `from` (default 0), oldest first. */
  toArray(from = 0): T[] {
    return this.#items.slice(this.#head + Math.max(0, from));
  }
}
