// pms for OpenClaw: written by `pms init --agent openclaw`, rewritten by
// `pms verify --fix`, removed by `pms uninstall`. Edits here are lost.
//
// Each hook below runs `pms hook <event> --agent openclaw` with the event as
// JSON on stdin and hands OpenClaw back what pms prints. All the logic is in
// pms; this file only carries events across.
import { spawn } from "node:child_process";

const PMS = "__PMS_BINARY__";
const WORKSPACE = "__PMS_WORKSPACE__";
const DETACHED = 0;

// OpenClaw hook -> [pms hook event, how long pms may take (ms), the tools a
// tool hook is for (empty: not a tool hook)], written
// by pms from the same table as Claude Code's hooks (src/platform/agents/openclaw/mod.rs).
// session_end is DETACHED: shutdown gives every session_end handler
// together 2 s, and a busy machine can take longer to write a summary, so
// pms runs in its own process group, not waited for, and the gateway's exit
// does not cut it short. pms answers nothing to that event, so nothing is
// lost by not waiting.
const HOOKS = "__PMS_HOOKS__";

// The context fields pms reads (the rest can hold the whole config).
const CTX_KEYS = ["agentId", "sessionId", "sessionKey", "runId", "workspaceDir", "trigger"];

function pick(ctx) {
  const out = {};
  for (const k of CTX_KEYS) if (ctx && typeof ctx[k] === "string") out[k] = ctx[k];
  return out;
}

function body(payload) {
  try {
    // an event with a cycle or an odd value must not leave pms waiting
    return JSON.stringify(payload, (_k, v) => (typeof v === "bigint" ? String(v) : v));
  } catch {
    return "{}";
  }
}

function runPmsDetached(event, payload) {
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn(PMS, ["hook", event, "--workspace", WORKSPACE, "--agent", "openclaw"], {
        stdio: ["pipe", "ignore", "ignore"],
        detached: true,
      });
    } catch {
      resolve(undefined);
      return;
    }
    child.on("error", () => resolve(undefined));
    child.stdin.on("error", () => resolve(undefined));
    child.unref();
    child.stdin.end(body(payload), () => resolve(undefined));
  });
}

function runPms(event, payload, timeoutMs) {
  if (timeoutMs === DETACHED) return runPmsDetached(event, payload);
  return new Promise((resolve) => {
    let out = "";
    let child;
    try {
      child = spawn(PMS, ["hook", event, "--workspace", WORKSPACE, "--agent", "openclaw"], {
        stdio: ["pipe", "pipe", "ignore"],
      });
    } catch {
      resolve(undefined);
      return;
    }
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.stdout.on("data", (d) => (out += d));
    child.on("error", () => {
      clearTimeout(timer);
      resolve(undefined);
    });
    child.on("close", () => {
      clearTimeout(timer);
      try {
        resolve(out.trim() ? JSON.parse(out) : undefined);
      } catch {
        resolve(undefined);
      }
    });
    child.stdin.on("error", () => {});
    child.stdin.end(body(payload));
  });
}

export default {
  id: "pms",
  name: "pms",
  description: "Personal memory: who you are, lessons, learnings, session summaries and search, from pms.",
  register(api) {
    for (const [hook, [event, timeoutMs, tools]] of Object.entries(HOOKS)) {
      const handler = (ev, ctx) => runPms(event, { hook, event: ev, ctx: pick(ctx) }, timeoutMs);
      // a tool hook runs pms only for the tools that run a command or write
      // a file; before_tool_call must never throw (OpenClaw would block the
      // call): runPms resolves undefined on any failure or after timeoutMs
      if (tools && tools.length) api.on(hook, handler, { matcher: tools });
      else api.on(hook, handler);
    }
  },
};
