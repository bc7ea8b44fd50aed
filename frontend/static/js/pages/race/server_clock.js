// The race's countdown and time left run on the server's clock, whatever the device's clock says.

/**
 * The server's clock, from the `server_now` of its messages: the server time at a message plus the
 * time since it arrived, measured on the browser's monotonic clock, so a device whose clock is wrong
 * still starts on the server's instant. The sample with the least delay known so far is kept.
 */
export class ServerClock {
  constructor(now = () => performance.now()) {
    this.now = now;
    this.serverMs = null;
    this.localMs = 0;
  }

  /** A message with `server_now` just arrived. */
  sample(serverNowIso) {
    const serverMs = Date.parse(serverNowIso);
    if (Number.isNaN(serverMs)) return;
    const localMs = this.now();
    // A sample that implies an earlier server time than the current estimate came in late: keep the estimate.
    if (this.serverMs === null || serverMs >= this.estimate(localMs)) {
      this.serverMs = serverMs;
      this.localMs = localMs;
    }
  }

  estimate(localMs) {
    return this.serverMs + (localMs - this.localMs);
  }

  /** The server's time now, in milliseconds since the epoch (the device's clock until a sample came). */
  serverNow() {
    return this.serverMs === null ? Date.now() : this.estimate(this.now());
  }

  /** Milliseconds from now until the ISO time `iso` on the server's clock. */
  until(iso) {
    return Date.parse(iso) - this.serverNow();
  }
}
