// The few WebAssembly globals the engine uses: Node has them, but @types/node 20 leaves them to lib.dom.
declare namespace WebAssembly {
  class Module {
    private readonly brand: 'WebAssembly.Module';
  }
  class Memory {
    readonly buffer: ArrayBuffer;
    grow(pages: number): number;
  }
  class Instance {
    readonly exports: Record<string, unknown>;
  }
  class Global {
    value: unknown;
  }
  function compile(bytes: ArrayBufferView | ArrayBuffer): Promise<Module>;
}
