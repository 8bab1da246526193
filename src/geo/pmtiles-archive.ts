/**
 * A PMTiles v3 archive on local disk (the operator's basemap, `--basemap FILE.pmtiles`), read with the maintained
 * `pmtiles` package over a file handle: its header (tile type, zooms, bounds), its metadata (attribution, the vector
 * layers) and its tiles, uncompressed. Each read opens the file, reads its bytes and closes it again, so no handle is
 * held between requests; the header and the directories read are kept by the reader, so a file replaced on disk is
 * served after a restart. A file shorter than its header says (a copy cut short) is refused when it is opened.
 */
import { open, stat } from 'node:fs/promises';
import * as zlib from 'node:zlib';
import { bytesToHeader, Compression, PMTiles, TileType, type Header, type Source } from 'pmtiles';
import { MVT_TYPE } from './vector-tiles.ts';

/** What an archive holds, from its header and metadata. */
export interface ArchiveInfo {
  /** `vector` (Mapbox Vector Tiles: the Protomaps basemap layers) or raster. */
  kind: 'vector' | 'raster';
  /** The tiles' suffix and media type: `mvt`, `png`, `jpg`, `webp`, `avif`. */
  suffix: 'mvt' | 'png' | 'jpg' | 'webp' | 'avif';
  contentType: string;
  minZoom: number;
  maxZoom: number;
  /** [west, south, east, north] and [lng, lat, zoom]. */
  bounds: [number, number, number, number];
  center: [number, number, number];
  /** The metadata's `attribution` (HTML in Protomaps builds) without its markup (entities such as `&copy;` kept), or ''. */
  attribution: string;
  /** The metadata's `name`, or the file's. */
  name: string;
  /** The metadata's vector layers (vector archives): each one's id and its fields (a field's name and type), `{}` when it lists none. */
  layers: VectorLayer[];
}

/** A vector layer as the archive's metadata `vector_layers` lists it. */
export interface VectorLayer {
  id: string;
  fields: Record<string, string>;
}

const TYPES: Partial<Record<TileType, Pick<ArchiveInfo, 'kind' | 'suffix' | 'contentType'>>> = {
  [TileType.Mvt]: { kind: 'vector', suffix: 'mvt', contentType: MVT_TYPE },
  [TileType.Png]: { kind: 'raster', suffix: 'png', contentType: 'image/png' },
  [TileType.Jpeg]: { kind: 'raster', suffix: 'jpg', contentType: 'image/jpeg' },
  [TileType.Webp]: { kind: 'raster', suffix: 'webp', contentType: 'image/webp' },
  [TileType.Avif]: { kind: 'raster', suffix: 'avif', contentType: 'image/avif' },
};

/** Reads byte ranges of a local file, each into an ArrayBuffer of its own (never a pooled Buffer's). */
class FileSource implements Source {
  private readonly path: string;
  constructor(path: string) {
    this.path = path;
  }

  getKey(): string {
    return this.path;
  }

  async getBytes(offset: number, length: number) {
    const handle = await open(this.path, 'r');
    try {
      const data = new ArrayBuffer(length);
      const { bytesRead } = await handle.read(new Uint8Array(data), 0, length, offset);
      return { data: bytesRead === length ? data : data.slice(0, bytesRead) };
    } finally {
      await handle.close();
    }
  }
}

/**
 * The compressions an archive's tiles and directories may use and how each is undone, by node:zlib (gzip about ten
 * times faster than the package's own): none, gzip and brotli everywhere, zstd where the runtime has it (Node from
 * 22.15, Bun, Deno). An archive using any other is refused at start (`info`), not tile by tile.
 */
const UNCOMPRESS: Partial<Record<Compression, (bytes: Uint8Array) => Uint8Array>> = {
  [Compression.Unknown]: (bytes) => bytes,
  [Compression.None]: (bytes) => bytes,
  [Compression.Gzip]: (bytes) => zlib.gunzipSync(bytes),
  [Compression.Brotli]: (bytes) => zlib.brotliDecompressSync(bytes),
  ...(typeof zlib.zstdDecompressSync === 'function' ? { [Compression.Zstd]: (bytes: Uint8Array) => zlib.zstdDecompressSync(bytes) } : {}),
};

/** The bytes of a PMTiles v3 header. */
const HEADER_BYTES = 127;

/**
 * Where the parts a header places in the file end (root directory, metadata, leaf directories, tile data): the least
 * size of an archive whole. A part of length 0 takes no room, wherever its offset points.
 */
function archiveEnd(header: Header): number {
  const parts: [number, number][] = [[header.rootDirectoryOffset, header.rootDirectoryLength], [header.jsonMetadataOffset, header.jsonMetadataLength],
    [header.leafDirectoryOffset, header.leafDirectoryLength ?? 0], [header.tileDataOffset, header.tileDataLength ?? 0]];
  return Math.max(HEADER_BYTES, ...parts.filter(([, length]) => length > 0).map(([offset, length]) => offset + length));
}

/** The metadata's `vector_layers`: those with an id, each with the fields it names whose type is a string (none: `{}`). */
function vectorLayers(listed: unknown): VectorLayer[] {
  if (!Array.isArray(listed)) return [];
  return listed.filter((l): l is { id: string; fields?: unknown } => typeof (l as { id?: unknown } | null)?.id === 'string').map((l) => ({
    id: l.id,
    fields: l.fields && typeof l.fields === 'object' && !Array.isArray(l.fields)
      ? Object.fromEntries(Object.entries(l.fields).filter(([, type]) => typeof type === 'string')) as Record<string, string>
      : {},
  }));
}

/** Uncompresses a tile or directory of an archive (the `pmtiles` reader's DecompressFunc). */
export async function uncompress(buf: ArrayBuffer, compression: Compression): Promise<ArrayBuffer> {
  if (compression === Compression.None || compression === Compression.Unknown) return buf;
  const undo = UNCOMPRESS[compression];
  if (!undo) throw new Error(`the archive uses compression ${Compression[compression] ?? compression}, which this service does not read`);
  return new Uint8Array(undo(new Uint8Array(buf))).buffer;
}

/** A compression's name, as the PMTiles spec gives it. */
function compressionName(compression: Compression): string {
  return Compression[compression] ?? `number ${compression}`;
}

/** An archive opened from `path`. */
export class PmtilesArchive {
  readonly path: string;
  private readonly source: FileSource;
  private readonly reader: PMTiles;
  private infoRead: Promise<ArchiveInfo> | null = null;

  constructor(path: string) {
    this.path = path;
    this.source = new FileSource(path);
    this.reader = new PMTiles(this.source, undefined, uncompress);
  }

  /** What the archive holds; rejects with a sentence when the file is not a PMTiles v3 archive this service can serve. */
  info(): Promise<ArchiveInfo> {
    this.infoRead ??= this.readInfo();
    return this.infoRead;
  }

  /**
   * Why the file cannot hold what its header says, when it ends before the last part the header places in it does (an
   * interrupted copy), else null; null too when it is not there, cannot be read or does not begin with a PMTiles v3
   * header, which the reader then refuses with its own reason. Checked before anything else is read, so such a file is
   * refused at start, not tile by tile once served ("unexpected end of file" for each tile beyond the cut).
   */
  private async truncation(): Promise<string | null> {
    const size = await stat(this.path).then((s) => s.size, () => null);
    if (size === null) return null;
    const head = await this.source.getBytes(0, HEADER_BYTES).catch(() => null);
    if (!head || head.data.byteLength < HEADER_BYTES) return null;
    const bytes = new Uint8Array(head.data);
    if (new TextDecoder().decode(bytes.subarray(0, 7)) !== 'PMTiles' || bytes[7] !== 3) return null;
    const end = archiveEnd(bytesToHeader(head.data));
    if (end <= size) return null;
    return `${this.path} is shorter than its header says: ${size.toLocaleString('en')} bytes, where its header places its directories ` +
      `and tiles in ${end.toLocaleString('en')} bytes (was it cut short while it was copied? copy it again, whole)`;
  }

  private async readInfo(): Promise<ArchiveInfo> {
    const short = await this.truncation();
    if (short) throw new Error(short);
    let header;
    let metadata: Record<string, unknown>;
    try {
      header = await this.reader.getHeader();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new Error(`${this.path} does not exist`);
      throw new Error(`${this.path} is not a PMTiles v3 archive: ${err instanceof Error ? err.message : String(err)}`);
    }
    for (const [what, compression] of [['tiles', header.tileCompression], ['directories and metadata', header.internalCompression]] as const) {
      if (!UNCOMPRESS[compression]) {
        throw new Error(`${this.path} compresses its ${what} with ${compressionName(compression)}: this service reads gzip, brotli` +
          `${UNCOMPRESS[Compression.Zstd] ? ', zstd' : ''} or none (recompress it, for example with \`pmtiles convert\`)`);
      }
    }
    try {
      metadata = ((await this.reader.getMetadata()) ?? {}) as Record<string, unknown>;
    } catch (err) {
      throw new Error(`${this.path} is not a PMTiles v3 archive: ${err instanceof Error ? err.message : String(err)}`);
    }
    const type = TYPES[header.tileType];
    if (!type) throw new Error(`${this.path} holds tiles of type ${TileType[header.tileType] ?? header.tileType}: vector (MVT) or PNG, JPEG, WebP or AVIF are served`);
    return {
      ...type,
      minZoom: header.minZoom,
      maxZoom: header.maxZoom,
      bounds: [header.minLon, header.minLat, header.maxLon, header.maxLat],
      center: [header.centerLon, header.centerLat, header.centerZoom],
      // Links and markup dropped; what is left is shown as HTML by map SDKs, so a `<` left over cannot open a tag.
      attribution: typeof metadata.attribution === 'string' ? metadata.attribution.replace(/<[^>]*>/g, '').replace(/</g, '&lt;').replace(/>/g, '&gt;').trim() : '',
      name: typeof metadata.name === 'string' ? metadata.name : this.path.replace(/^.*[\\/]/, ''),
      layers: vectorLayers(metadata.vector_layers),
    };
  }

  /** Tile z/x/y, uncompressed, or null when the archive has none there. */
  async tile(z: number, x: number, y: number): Promise<Uint8Array<ArrayBuffer> | null> {
    const found = await this.reader.getZxy(z, x, y);
    return found ? new Uint8Array(found.data) : null;
  }
}
