/**
 * Re-listing after a `list_changed`, one at a time: notifications that land while a listing runs
 * cause exactly one more listing after it, so the last one always sees the latest list.
 */
export class Relist {
  private running: Promise<void> | undefined;
  private again = false;

  constructor(private readonly list: () => Promise<void>) {}

  request(): void {
    if (this.running !== undefined) {
      this.again = true;
      return;
    }
    this.running = (async () => {
      do {
        this.again = false;
        await this.list();
      } while (this.again);
    })().finally(() => (this.running = undefined));
  }
}
