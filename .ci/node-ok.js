// Exit 0 when this Node.js is one Vite supports (^20.19.0 || >=22.12.0), else 1 (.ci/run, .ci/test).
const [major, minor] = process.versions.node.split(".").map(Number);
process.exit(major > 22 || (major === 22 && minor >= 12) || (major === 20 && minor >= 19) ? 0 : 1);
