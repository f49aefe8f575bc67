// Sucrase by its CommonJS paths, which its package gives no declarations for: the child's bundle
// then holds one copy of its parser, shared by the transform and the tokens the stripper reads to
// see which statements are types only (engine/type-statements.ts). A CommonJS module's exports
// are its default export, in the bundle as in Node.
declare module 'sucrase/dist/index.js' {
  const sucrase: {
    transform: (code: string, options: object) => { code: string; sourceMap?: { mappings: string } };
  };
  export default sucrase;
}

declare module 'sucrase/dist/parser/index.js' {
  interface Token {
    readonly start: number;
    readonly end: number;
    /** Part of a type, which stripping removes. */
    readonly isType: boolean;
  }
  const parser: {
    parse: (input: string, jsx: boolean, typeScript: boolean, flow: boolean) => { readonly tokens: readonly Token[] };
  };
  export default parser;
}
