/**
 * Files `bun build --compile` embeds in the single binary (src/serve/binary.ts). Imported
 * `with { type: 'file' }`, each is the path of the embedded copy, read with Bun.file; a `.txt` imported
 * `with { type: 'text' }` is its text.
 */
declare module '*.wasm' {
  /** Path of the embedded file. */
  const path: string;
  export default path;
}
declare module '*.data' {
  /** Path of the embedded file. */
  const path: string;
  export default path;
}
declare module '*.tar.gz' {
  /** Path of the embedded file. */
  const path: string;
  export default path;
}
declare module '*.txt' {
  /** Path of the embedded file (`type: 'file'`), or its text (`type: 'text'`). */
  const pathOrText: string;
  export default pathOrText;
}
declare module '*.bin' {
  /** Path of the embedded file. */
  const path: string;
  export default path;
}
