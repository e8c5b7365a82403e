// SPDX-License-Identifier: MIT
// arena_page.js — the page around arena_web.c: the join form and URL
// parameters, the 60 Hz tick schedule, the keyboard, the canvas and the
// netcode overlay. The game and tempo run in WebAssembly (arena.js); the
// WebSocket is a TempoSocket (tempo_ws.js).
//
// On the end of the match it prints the final line on the console and in
// #final ("final frame=F checksum=C", as tempo-arena does), then the cost
// line ("cost tempo_us_per_tick=<mean> median=<median tick> in_websocket=<mean
// inside WebSocket calls> median_without_websocket=... step_us_per_tick=...
// ticks=..."); with
// ?shot=1 also the canvas as "shot data:image/png;base64,...".
"use strict";

const FRAME_MS = 1000 / 60;
const TILE = 30, BX = 16, BY = 60, UNIT = 1024;
const VIEW_SHIPS = 16, VIEW_SHOTS = VIEW_SHIPS + 8 * 8, VIEW_TILES = VIEW_SHOTS + 48 * 5;
const COLOURS = ["#2470e2", "#fa8c1e", "#16a0c4", "#ec5634", "#6054d6", "#f8c430", "#1e8896", "#e26e78"];
const params = new URLSearchParams(location.search);
const keys = new Set();
let started = false, finished = false, next = 0, api = null, lastStatus = -1;

var Module = {
  onRuntimeInitialized() {
    api = {
      start: Module.cwrap("web_start", "number", ["number", "number", "number", "number", "number",
                                                  "number", "number", "number", "number", "number"]),
      tick: Module.cwrap("web_tick", "number", ["number"]),
      keys: Module.cwrap("web_keys", null, ["number", "number", "number"]),
      view: Module.cwrap("web_view", "number", []),
      final: Module.cwrap("web_final", "string", []),
      why: Module.cwrap("web_why", "string", []),
      cost: Module.cwrap("web_cost_us", "number", ["number"]),
    };
    const def = location.protocol.startsWith("http") ? "ws://" + location.host + "/" : "";
    const get = (k, d) => params.get(k) || d;
    document.getElementById("f-relay").value = get("relay", def);
    for (const k of ["match", "players", "player", "frames"])
      if (params.get(k)) document.getElementById("f-" + k).value = params.get(k);
    if (params.get("bot")) document.getElementById("f-bot").value = params.get("bot");
    document.getElementById("join").onsubmit = (e) => { e.preventDefault(); join(); };
    if (params.get("relay")) join();
    requestAnimationFrame(draw);
  },
};

function say(id, text) { document.getElementById(id).textContent = text; }

function join() {
  if (started) return;
  const val = (k) => document.getElementById("f-" + k).value.trim();
  const bot = val("bot");
  const seed = bot !== "" ? Number(bot) : Number(params.get("seed") || 1);
  // #token=HEX: the 800 bytes tempo-token wrote, for a sealed relay; in
  // the fragment, which the browser never sends to the server
  const hex = (new URLSearchParams(location.hash.slice(1)).get("token") || "")
    .replace(/[^0-9a-fA-F]/g, "");
  let token = 0, tokenSize = 0;
  if (hex.length) {
    tokenSize = hex.length >> 1;
    token = Module._malloc(tokenSize);
    for (let i = 0; i < tokenSize; i++) Module.HEAPU8[token + i] = parseInt(hex.substr(2 * i, 2), 16);
  }
  Module.tempoSocket = new TempoSocket(val("relay"));
  const rc = api.start(Number(val("players")), Number(val("player")), Number(val("match")),
                       Number(val("frames")), seed, bot !== "" ? 1 : 0,
                       Number(params.get("delay") || 0), Math.floor(Math.random() * 2 ** 52),
                       token, tokenSize);
  if (token) { Module.HEAPU8.fill(0, token, token + tokenSize); Module._free(token); }
  if (rc !== 0) { say("why", api.why()); return; }
  started = true;
  next = performance.now();
  setInterval(loop, 2);
}

// The fixed 60 Hz schedule of tempo-arena: tick when due, back to back
// when late (up to a quarter second; after a longer pause start afresh).
function loop() {
  const now = performance.now();
  if (now - next > 250) next = now;
  while (now >= next) {
    sampleKeys();
    const st = api.tick(now);
    next += FRAME_MS;
    if (st !== lastStatus) status(st);
  }
}

function status(st) {
  lastStatus = st;
  if (st === 2 && !finished) {
    finished = true;
    const line = api.final();
    say("final", line);
    console.log(line);
    console.log("cost tempo_us_per_tick=" + api.cost(0).toFixed(2) + " median=" +
                api.cost(2).toFixed(2) + " in_websocket=" + api.cost(3).toFixed(2) +
                " median_without_websocket=" + api.cost(4).toFixed(2) +
                " step_us_per_tick=" +
                api.cost(1).toFixed(2) + " ticks=" + view()[11] + " isolated=" + self.crossOriginIsolated);
    if (params.get("shot")) { drawNow(); console.log("shot " + document.getElementById("view").toDataURL()); }
    setTimeout(() => Module.tempoSocket.close(), 200);
  } else if (st === 3) {
    const why = api.why() || Module.tempoSocket.reason;
    say("why", why);
    console.log("failed: " + why);
  }
}

function sampleKeys() {
  let dx = 0, dy = 0, b = 0;
  if (keys.has("ArrowLeft") || keys.has("KeyA")) dx--;
  if (keys.has("ArrowRight") || keys.has("KeyD")) dx++;
  if (keys.has("ArrowUp") || keys.has("KeyW")) dy--;
  if (keys.has("ArrowDown") || keys.has("KeyS")) dy++;
  if (keys.has("KeyI")) b |= 1;
  if (keys.has("KeyK")) b |= 2;
  if (keys.has("KeyJ")) b |= 4;
  if (keys.has("KeyL")) b |= 8;
  if (keys.has("Space")) b |= 16;
  const angle = Math.round(Math.atan2(dy, dx) / (2 * Math.PI) * 256) & 255;
  api.keys(angle, dx || dy ? 255 : 0, b);
}
addEventListener("keydown", (e) => { if (e.target.tagName !== "INPUT") { keys.add(e.code); e.preventDefault(); } });
addEventListener("keyup", (e) => keys.delete(e.code));

function view() { return new Int32Array(Module.HEAP32.buffer, api.view(), VIEW_TILES + 32 * 18); }

function draw() { drawNow(); requestAnimationFrame(draw); }

function drawNow() {
  const c = document.getElementById("view").getContext("2d");
  c.fillStyle = "#101115";
  c.fillRect(0, 0, 1312, 652);
  if (!api) return;
  const v = view();
  c.strokeStyle = "#3e424e";
  c.strokeRect(BX - 2, BY - 2, 32 * TILE + 4, 18 * TILE + 4);
  for (let y = 0; y < 18; y++)
    for (let x = 0; x < 32; x++) {
      const t = v[VIEW_TILES + y * 32 + x];
      c.fillStyle = t === 0 ? "#e4e0d4" : t === 1 ? "#242730" : "#5c616e";
      c.fillRect(BX + x * TILE, BY + y * TILE, TILE - (t === 2 ? 0 : 1), TILE - (t === 2 ? 0 : 1));
    }
  const px = (u) => u * TILE / UNIT;
  for (let i = 0; i < 48; i++) {
    const o = VIEW_SHOTS + i * 5;
    if (!v[o]) continue;
    const charged = v[o + 3] >= 4, half = charged ? 7 : 4;
    c.fillStyle = COLOURS[v[o + 4] & 7];
    c.fillRect(BX + px(v[o + 1]) - half, BY + px(v[o + 2]) - half, 2 * half, 2 * half);
  }
  for (let p = 0; p < v[7]; p++) {
    const o = VIEW_SHIPS + p * 8;
    if (v[o] !== 1) continue;
    const x = BX + px(v[o + 2]), y = BY + px(v[o + 3]), h = px(400);
    c.fillStyle = COLOURS[p];
    c.fillRect(x - h, y - h, 2 * h, 2 * h);
    const a = v[o + 4] / 256 * 2 * Math.PI;
    c.strokeStyle = v[o + 6] > 0 ? "#ffffff" : "#101115";
    c.lineWidth = 2;
    c.beginPath(); c.moveTo(x, y); c.lineTo(x + Math.cos(a) * h, y + Math.sin(a) * h); c.stroke();
    if (p === v[8]) { c.strokeStyle = "#ffffff"; c.strokeRect(x - h - 3, y - h - 3, 2 * h + 6, 2 * h + 6); }
  }
  // scores across the top, the netcode overlay on the right
  c.font = "bold 20px monospace";
  let sx = BX;
  for (let p = 0; p < v[7]; p++) {
    c.fillStyle = COLOURS[p];
    c.fillText("P" + p + " " + v[VIEW_SHIPS + p * 8 + 5], sx, 36);
    sx += 110;
  }
  const X = BX + 32 * TILE + 16;
  c.fillStyle = "#1b1d23";
  c.fillRect(X, BY, 1312 - X - 16, 18 * TILE);
  c.font = "15px monospace";
  const names = ["connecting", "running", "done", "failed"];
  const waiting = [];
  for (let p = 0; p < 8; p++) if (v[6] >> p & 1) waiting.push("P" + p);
  const lines = [
    ["tempo over WebSocket", "#dedcd2"],
    ["", ""],
    ["state    " + (started ? names[v[0]] : "not joined"),
     v[0] === 3 ? "#f04646" : "#dedcd2"],
    ["frame    " + v[1], "#dedcd2"],
    ["confirm  " + v[2], "#dedcd2"],
    ["ping     " + (v[3] / 10).toFixed(1) + " ms", "#dedcd2"],
    ["rollback " + v[4] + " (max " + v[5] + ")", v[4] > 0 ? "#ff30c8" : "#dedcd2"],
    ["waiting  " + (waiting.length ? waiting.join(" ") : "-"), waiting.length ? "#f0be3c" : "#dedcd2"],
    ["subst.   " + v[9] + " (ours " + v[10] + ")", "#dedcd2"],
    ["stalls   " + v[12] + ", skipped " + v[13], "#dedcd2"],
    ["tempo    " + (api.cost(0)).toFixed(1) + " us/tick", "#828490"],
    ["socket   " + (Module.tempoSocket ? Module.tempoSocket.state : "-"), "#828490"],
  ];
  lines.forEach(([t, col], i) => { c.fillStyle = col; c.fillText(t, X + 12, BY + 26 + i * 22); });
}
