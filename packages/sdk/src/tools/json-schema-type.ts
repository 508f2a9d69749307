/**
 * Type-level reading of a JSON Schema declared `as const`: the TypeScript type of the values it
 * describes, for the keywords tool schemas use — `type` (one name or a list), `properties`,
 * `required`, `items`, `enum`, `const` and Gemini's `nullable`. Anything else reads as `unknown`.
 * A schema written inline (not `as const`) has widened `string` types and is not read (see
 * {@link IsLiteralJsonSchema}).
 * @module
 */

/** The type of the values `Schema` (a JSON Schema declared `as const`) accepts. */
export type JsonSchemaType<Schema> = Schema extends { readonly const: infer C }
  ? C
  : Schema extends { readonly enum: readonly (infer E)[] }
    ? E
    : Schema extends { readonly type: infer T }
      ? WithNullable<Schema, T extends readonly unknown[] ? TypeOfName<Schema, T[number]> : TypeOfName<Schema, T>>
      : unknown;

/**
 * Whether `Schema` is a JSON Schema whose top-level `type` is a literal (declared `as const`),
 * so that {@link JsonSchemaType} can read it. An inline schema's `type` is widened to `string`.
 */
export type IsLiteralJsonSchema<Schema> = Schema extends { readonly type: infer T }
  ? T extends string
    ? string extends T
      ? false
      : true
    : T extends readonly (infer Name)[]
      ? string extends Name
        ? false
        : true
      : false
  : false;

type WithNullable<Schema, T> = Schema extends { readonly nullable: true } ? T | null : T;

type TypeOfName<Schema, Name> = Name extends "string"
  ? string
  : Name extends "number" | "integer"
    ? number
    : Name extends "boolean"
      ? boolean
      : Name extends "null"
        ? null
        : Name extends "array"
          ? Schema extends { readonly items: infer Items }
            ? JsonSchemaType<Items>[]
            : unknown[]
          : Name extends "object"
            ? ObjectType<Schema>
            : unknown;

type RequiredKeys<Schema> = Schema extends { readonly required: readonly (infer K)[] } ? K : never;

type ObjectType<Schema> = Schema extends { readonly properties: infer Properties }
  ? Flatten<
      {
        -readonly [K in keyof Properties as K extends RequiredKeys<Schema> ? K : never]: JsonSchemaType<Properties[K]>;
      } & {
        -readonly [K in keyof Properties as K extends RequiredKeys<Schema> ? never : K]?: JsonSchemaType<Properties[K]>;
      }
    >
  : { [key: string]: unknown };

type Flatten<T> = { [K in keyof T]: T[K] } & {};
