// Drives git-queen's MCP server with the MCP TypeScript SDK's own client,
// as an agent runtime built on it would, and prints a JSON report of what
// happened for cmd/git-queen/mcp_clients_e2e_test.go to judge.
//
//   node ts-client.cjs NODE_MODULES_PARENT REPO
//
// The SDK is looked up from NODE_MODULES_PARENT (.ci/mcp-clients, where
// .ci/run installs it). Both servers run with the test's environment; the
// first is started as a client without a working directory starts it
// (git -C REPO queen mcp, from the root directory).
"use strict";

const { execFileSync } = require("node:child_process");

const [, , modulesParent, repo] = process.argv;
const need = (m) => require(require.resolve(m, { paths: [modulesParent] }));
const { Client } = need("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = need("@modelcontextprotocol/sdk/client/stdio.js");
const { DEFAULT_REQUEST_TIMEOUT_MSEC } = need("@modelcontextprotocol/sdk/shared/protocol.js");

async function connect(command, args, cwd) {
  const client = new Client({ name: "git-queen-e2e", version: "1" });
  const transport = new StdioClientTransport({ command, args, cwd, env: process.env, stderr: "inherit" });
  await client.connect(transport);
  return client;
}

// settle turns a call's outcome into data: its result, or the error the
// client raised (a timeout is code -32001).
function settle(promise) {
  return promise.then(
    (result) => ({ result }),
    (e) => ({ error: { code: e.code, message: String(e.message) } }),
  );
}

async function main() {
  const report = { defaultTimeoutMs: DEFAULT_REQUEST_TIMEOUT_MSEC };

  const plain = await connect("git", ["-C", repo, "queen", "--droid", "ann", "mcp"], "/");
  report.tools = (await plain.listTools()).tools;
  // wait with every default, the SDK's default request timeout included:
  // its first progress notification says how long it will wait (total),
  // which must be less than the client waits; then a message ends it.
  const defaults = [];
  report.defaultWait = await settle(
    plain.callTool({ name: "wait", arguments: { from: "dave" } }, undefined, {
      onprogress: (p) => {
        defaults.push(p);
        if (defaults.length === 1) {
          execFileSync("git", ["queen", "--droid", "dave", "msg", "send", "--new", "--to", "ann", "--subject", "the default wait"], {
            cwd: repo,
            stdio: "ignore",
          });
        }
      },
    }),
  );
  report.defaultWait.progress = defaults;

  const fast = await connect("git-queen-mcp", ["--droid", "ann", "--progress-interval", "100ms"], repo);
  // A client whose timeout is shorter than the wait gives up on it...
  report.withoutReset = await settle(
    fast.callTool({ name: "wait", arguments: { from: "carol", timeout: "10m" } }, undefined, { timeout: 1000 }),
  );
  // ...unless it resets its timeout on progress: then it gets the message
  // that bob sends once the wait has lasted twice the client's timeout.
  const progress = [];
  let sent = false;
  report.withReset = await settle(
    fast.callTool({ name: "wait", arguments: { from: "bob", timeout: "10m" } }, undefined, {
      timeout: 4000,
      resetTimeoutOnProgress: true,
      onprogress: (p) => {
        progress.push(p);
        if (!sent && p.progress > 9) {
          sent = true;
          execFileSync("git", ["queen", "--droid", "bob", "msg", "send", "--new", "--to", "ann", "--subject", "after the client timeout"], {
            cwd: repo,
            stdio: "ignore",
          });
        }
      },
    }),
  );
  report.withReset.progress = progress;

  await fast.close();
  await plain.close();
  process.stdout.write(JSON.stringify(report) + "\n");
}

main().catch((e) => {
  process.stderr.write(`ts-client: ${e && e.stack ? e.stack : e}\n`);
  process.exit(1);
});
