import { defineConfig } from "vitest/config";
import { compress } from "./scripts/compress.mjs";
import { rulebook } from "./scripts/rulebook.mjs";

// The server serves dist/ at `/`; in development `vite` proxies the API and the websocket to a local server.
const server = process.env.KRIEGSSPIEL_SERVER ?? "http://127.0.0.1:8080";

export default defineConfig({
  base: "/",
  plugins: [rulebook(), compress()],
  build: { outDir: "dist", emptyOutDir: true, sourcemap: true, target: "es2022" },
  server: {
    proxy: {
      "/api": server,
      "/healthz": server,
      "/ws": { target: server.replace(/^http/, "ws"), ws: true },
    },
  },
  test: { include: ["src/**/*.test.ts", "test/**/*.test.ts"], environment: "node" },
});
