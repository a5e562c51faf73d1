// Draws the PNG app icons the web manifest names (browsers that install a PWA want bitmap icons)
// from favicon.svg at build time, with no image library: the favicon is a few rounded <rect>s,
// so each pixel's colour is the coverage of those rects (4×4 samples per pixel), written as an
// 8-bit RGBA PNG with node:zlib. An SVG with any other element is refused, not guessed at.
import zlib from 'node:zlib';

/** @param {string} svg @returns {{vb: number[], rects: {x: number, y: number, w: number, h: number, r: number, rgb: number[]}[]}} */
function parse(svg) {
  const vb = (/viewBox="([^"]+)"/.exec(svg)?.[1] || '').split(/\s+/).map(Number);
  if (vb.length !== 4 || vb.some((n) => !Number.isFinite(n))) throw new Error('icon: favicon.svg has no viewBox');
  const body = svg.replace(/^\s*<svg[^>]*>/, '').replace(/<\/svg>\s*$/, '');
  const rects = [];
  for (const m of body.matchAll(/<(\w+)([^>]*)\/>/g)) {
    if (m[1] !== 'rect') throw new Error(`icon: favicon.svg has a <${m[1]}>, which this drawer does not know`);
    const a = (/** @type {string} */ k, /** @type {string | number} */ d = 0) => { const v = new RegExp(`\\b${k}="([^"]+)"`).exec(m[2]); return v ? v[1] : d; };
    const hex = String(a('fill', '#000')).replace('#', '');
    const full = hex.length === 3 ? hex.split('').map((c) => c + c).join('') : hex;
    if (!/^[0-9a-f]{6}$/i.test(full)) throw new Error(`icon: fill ${a('fill')} is not #rrggbb`);
    rects.push({ x: Number(a('x')), y: Number(a('y')), w: Number(a('width')), h: Number(a('height')), r: Number(a('rx')),
      rgb: [0, 2, 4].map((i) => parseInt(full.slice(i, i + 2), 16)) });
  }
  return { vb, rects };
}

/** @param {{x: number, y: number, w: number, h: number, r: number}} R @param {number} px @param {number} py */
function inside(R, px, py) {
  if (px < R.x || py < R.y || px > R.x + R.w || py > R.y + R.h) return false;
  const r = Math.min(R.r, R.w / 2, R.h / 2);
  const cx = Math.min(Math.max(px, R.x + r), R.x + R.w - r);
  const cy = Math.min(Math.max(py, R.y + r), R.y + R.h - r);
  return (px - cx) ** 2 + (py - cy) ** 2 <= r * r;
}

const CRC = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
/** @param {Buffer} buf */
function crc32(buf) {
  let c = 0xffffffff;
  for (const b of buf) c = CRC[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
/** @param {string} type @param {Buffer} data */
function chunk(type, data) {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const td = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(td));
  return Buffer.concat([len, td, crc]);
}

/** The favicon drawn as a size×size PNG. @param {string} svg @param {number} size @returns {Buffer} */
export function pngIcon(svg, size) {
  const { vb, rects } = parse(svg);
  const S = 4;
  const raw = Buffer.alloc(size * (size * 4 + 1));
  for (let y = 0; y < size; y++) {
    const row = y * (size * 4 + 1);
    for (let x = 0; x < size; x++) {
      let r = 0, g = 0, b = 0, a = 0;
      for (let sy = 0; sy < S; sy++) for (let sx = 0; sx < S; sx++) {
        const px = vb[0] + ((x + (sx + 0.5) / S) / size) * vb[2];
        const py = vb[1] + ((y + (sy + 0.5) / S) / size) * vb[3];
        // Later rects paint over earlier ones, as in SVG.
        for (let i = rects.length - 1; i >= 0; i--) {
          if (!inside(rects[i], px, py)) continue;
          r += rects[i].rgb[0]; g += rects[i].rgb[1]; b += rects[i].rgb[2]; a += 1;
          break;
        }
      }
      const o = row + 1 + x * 4;
      // Straight (not premultiplied) colour: the average over covered samples.
      raw[o] = a ? Math.round(r / a) : 0; raw[o + 1] = a ? Math.round(g / a) : 0; raw[o + 2] = a ? Math.round(b / a) : 0;
      raw[o + 3] = Math.round((255 * a) / (S * S));
    }
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr[8] = 8; ihdr[9] = 6; ihdr[10] = 0; ihdr[11] = 0; ihdr[12] = 0;
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', ihdr),
    chunk('IDAT', zlib.deflateSync(raw, { level: 9 })), chunk('IEND', Buffer.alloc(0))]);
}
