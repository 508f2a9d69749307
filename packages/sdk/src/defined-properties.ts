/** The keys of `T` whose value may be `undefined`. */
type MaybeUndefinedKeys<T> = { [K in keyof T]-?: undefined extends T[K] ? K : never }[keyof T];

/**
 * `T` with every key whose value may be `undefined` made optional and `undefined` taken out of its
 * type, the shape an object has under `exactOptionalPropertyTypes` once such keys are left out.
 */
export type DefinedProperties<T> = Flatten<
  { [K in keyof T as K extends MaybeUndefinedKeys<T> ? never : K]: T[K] } & {
    [K in keyof T as K extends MaybeUndefinedKeys<T> ? K : never]?: Exclude<T[K], undefined>;
  }
>;

/** One object type instead of an intersection, so editors and errors show the plain shape. */
type Flatten<T> = { [K in keyof T]: T[K] };

/**
 * A copy of `values` without the keys whose value is `undefined` (`null`, `0`, `""` and `false` are
 * kept), so an optional property is absent rather than present-but-undefined when the object is
 * spread onward, serialised, or checked with `in`. Spread it where a key is optional:
 * `{ id, ...definedProperties({ cwd, signal }) }`.
 */
export function definedProperties<T extends object>(values: T): DefinedProperties<T> {
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(values)) {
    if (value !== undefined) result[key] = value;
  }
  return result as DefinedProperties<T>;
}
