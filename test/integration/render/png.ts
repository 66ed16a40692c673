import { inflateSync } from 'node:zlib';

/**
 * Just enough of a PNG decoder to look at a screenshot: 8-bit RGB or RGBA, not interlaced,
 * which is what Chromium writes. Chunks, one zlib stream, then the five scanline filters.
 */

export interface Image {
  width: number;
  height: number;
  /** Bytes per pixel: 3 (RGB) or 4 (RGBA). */
  channels: number;
  pixels: Buffer;
}

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

export function decodePng(file: Buffer): Image {
  if (!file.subarray(0, 8).equals(SIGNATURE)) throw new Error('not a PNG');
  let offset = 8;
  let header: Buffer | undefined;
  const data: Buffer[] = [];
  while (offset < file.length) {
    const length = file.readUInt32BE(offset);
    const type = file.toString('latin1', offset + 4, offset + 8);
    const body = file.subarray(offset + 8, offset + 8 + length);
    if (type === 'IHDR') header = body;
    if (type === 'IDAT') data.push(body);
    if (type === 'IEND') break;
    offset += 12 + length;
  }
  if (!header) throw new Error('PNG without IHDR');
  const width = header.readUInt32BE(0);
  const height = header.readUInt32BE(4);
  const [depth, colorType, , , interlace] = [header[8], header[9], header[10], header[11], header[12]];
  if (depth !== 8 || (colorType !== 2 && colorType !== 6) || interlace !== 0)
    throw new Error(`unsupported PNG: depth ${depth}, color type ${colorType}, interlace ${interlace}`);
  const channels = colorType === 6 ? 4 : 3;
  const raw = inflateSync(Buffer.concat(data));
  const stride = width * channels;
  const pixels = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let x = 0; x < stride; x++) {
      const left = x >= channels ? (pixels[y * stride + x - channels] ?? 0) : 0;
      const up = y > 0 ? (pixels[(y - 1) * stride + x] ?? 0) : 0;
      const corner = x >= channels && y > 0 ? (pixels[(y - 1) * stride + x - channels] ?? 0) : 0;
      const value = line[x] ?? 0;
      const predicted =
        filter === 0
          ? 0
          : filter === 1
            ? left
            : filter === 2
              ? up
              : filter === 3
                ? (left + up) >> 1
                : paeth(left, up, corner);
      pixels[y * stride + x] = (value + predicted) & 0xff;
    }
  }
  return { width, height, channels, pixels };
}

/** Pixels that are visibly not white (any channel below 245). */
export function countNonWhite(image: Image): number {
  let count = 0;
  for (let index = 0; index < image.pixels.length; index += image.channels) {
    const [r, g, b] = [
      image.pixels[index] ?? 255,
      image.pixels[index + 1] ?? 255,
      image.pixels[index + 2] ?? 255,
    ];
    if (r < 245 || g < 245 || b < 245) count++;
  }
  return count;
}

/** Pixels within `tolerance` of an exact colour such as "#0969da". */
export function countColor(image: Image, hex: string, tolerance = 12): number {
  const target = [1, 3, 5].map((start) => Number.parseInt(hex.slice(start, start + 2), 16));
  let count = 0;
  for (let index = 0; index < image.pixels.length; index += image.channels) {
    if (target.every((value, channel) => Math.abs((image.pixels[index + channel] ?? 0) - value) <= tolerance))
      count++;
  }
  return count;
}
