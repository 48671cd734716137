// After the build, every text asset of dist/ gets a gzip and a brotli twin (app.js.gz, app.js.br): the server
// (aiohttp's FileResponse) sends the twin a browser accepts, so nothing is compressed per request.
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";

const TEXT = /\.(js|css|html|svg|json|txt)$/;

export function compressDir(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...compressDir(path));
    else if (TEXT.test(name) && statSync(path).size > 512) {
      const body = readFileSync(path);
      writeFileSync(`${path}.gz`, gzipSync(body, { level: 9 }));
      writeFileSync(`${path}.br`, brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
      out.push(path);
    }
  }
  return out;
}

export function compress() {
  let outDir = "dist";
  return {
    name: "kriegsspiel-compress",
    apply: "build",
    configResolved(config) {
      outDir = config.build.outDir.startsWith("/") ? config.build.outDir : join(config.root, config.build.outDir);
    },
    closeBundle() {
      compressDir(outDir);
    },
  };
}
