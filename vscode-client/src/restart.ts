// When a crashed server is started again: at most `limit` restarts within `windowMs`, so a
// server that dies at start-up does not loop forever.

export class RestartPolicy {
  private readonly crashes: number[] = [];

  constructor(
    readonly limit = 5,
    readonly windowMs = 3 * 60 * 1000,
  ) {}

  /** Record a crash at `now` and tell whether to start the server again. */
  onCrash(now: number): boolean {
    this.crashes.push(now);
    while (this.crashes.length > 0 && now - this.crashes[0] > this.windowMs) {
      this.crashes.shift();
    }
    return this.crashes.length <= this.limit;
  }

  /** A deliberate restart (interpreter changed, user command) forgets earlier crashes. */
  reset(): void {
    this.crashes.length = 0;
  }
}
