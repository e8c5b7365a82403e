// SPDX-License-Identifier: MIT
// tempo_ws.js — the browser transport's JavaScript half (tempo_ws.h): one
// WebSocket to tempo-relay, each binary message one tempo datagram.
//
//   Module.tempoSocket = new TempoSocket("ws://127.0.0.1:40001");
//
// send() drops (and counts) a datagram while the socket is not open or
// when more than 64 KiB wait unsent; received messages wait in a queue of
// at most 512, the oldest dropped beyond that. Counters: sent, received,
// droppedOut, droppedIn; state: "connecting", "open", "closed".
"use strict";

class TempoSocket {
  constructor(url) {
    this.url = url;
    this.queue = [];
    this.sent = 0;
    this.received = 0;
    this.droppedOut = 0;
    this.droppedIn = 0;
    this.state = "connecting";
    this.reason = "";
    this.ws = new WebSocket(url);
    this.ws.binaryType = "arraybuffer";
    this.ws.onopen = () => { this.state = "open"; };
    this.ws.onclose = (e) => {
      this.state = "closed";
      this.reason = "closed (" + e.code + (e.reason ? " " + e.reason : "") + ")";
    };
    this.ws.onerror = () => { this.reason = "cannot reach " + url; };
    this.ws.onmessage = (e) => {
      if (!(e.data instanceof ArrayBuffer)) return; // tempo speaks binary only
      if (this.queue.length >= 512) { this.queue.shift(); this.droppedIn++; }
      this.queue.push(new Uint8Array(e.data));
      this.received++;
    };
  }

  // bytes: a view of the module's memory, valid during this call only
  send(bytes) {
    if (this.state === "closed") return -1;
    if (this.state !== "open" || this.ws.bufferedAmount > 65536) {
      this.droppedOut++;
      return 0;
    }
    this.ws.send(bytes.slice());
    this.sent++;
    return 0;
  }

  // copy the oldest message into heap[at, at + capacity); its full size,
  // 0 when none waits, -1 once the socket has closed
  recv(heap, at, capacity) {
    if (this.queue.length === 0) return this.state === "closed" ? -1 : 0;
    const m = this.queue.shift();
    heap.set(m.length > capacity ? m.subarray(0, capacity) : m, at);
    return m.length;
  }

  close() { this.ws.close(1000); }
}
