// The few WebAssembly globals the engine (and its tests) use: Node has them, but @types/node 20 leaves them to lib.dom.
declare namespace WebAssembly {
  class Module {
    private readonly brand: 'WebAssembly.Module';
    static imports(module: Module): Array<{ module: string; name: string; kind: string }>;
    static exports(module: Module): Array<{ name: string; kind: string }>;
  }
  class Memory {
    constructor(descriptor: { initial: number; maximum?: number });
    readonly buffer: ArrayBuffer;
    grow(pages: number): number;
  }
  class Instance {
    readonly exports: Record<string, unknown>;
  }
  class Global {
    value: unknown;
  }
  class LinkError extends Error {}
  function compile(bytes: ArrayBufferView | ArrayBuffer): Promise<Module>;
  function instantiate(module: Module, imports: Record<string, Record<string, unknown>>): Promise<Instance>;
}
