// Shuts git-queen's MCP server down with the MCP TypeScript SDK's client
// while a call is in flight, and prints how the server process ended, for
// cmd/git-queen/mcp_clients_e2e_test.go: the client closes the server's
// input, then sends SIGTERM, then SIGKILL, 2 s apart.
//
//   node ts-shutdown.cjs NODE_MODULES_PARENT REPO
//
// The test holds the repository's lock, so the reserve called here waits
// for it (QUEEN_LOCK_TIMEOUT=10m) until the server ends.
"use strict";

const [, , modulesParent, repo] = process.argv;
const need = (m) => require(require.resolve(m, { paths: [modulesParent] }));
const { Client } = need("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = need("@modelcontextprotocol/sdk/client/stdio.js");

async function main() {
  const client = new Client({ name: "git-queen-e2e", version: "1" });
  const transport = new StdioClientTransport({
    command: "git-queen-mcp",
    args: ["--droid", "ann", "--progress-interval", "100ms"],
    cwd: repo,
    env: { ...process.env, QUEEN_LOCK_TIMEOUT: "10m" },
    stderr: "inherit",
  });
  await client.connect(transport);
  const ended = new Promise((resolve) => transport._process.once("exit", (code, signal) => resolve({ code, signal })));
  // The first progress report says the call is running in the server.
  await new Promise((running) => {
    client.callTool({ name: "reserve", arguments: { patterns: ["a.go"] } }, undefined, { onprogress: running }).catch(() => {});
  });
  await client.close();
  process.stdout.write(JSON.stringify(await ended) + "\n");
}

main().catch((e) => {
  process.stderr.write(`ts-shutdown: ${e && e.stack ? e.stack : e}\n`);
  process.exit(1);
});
