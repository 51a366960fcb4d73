/**
 * The dashboard's first round of polls, which its first frame waits for: the session and the
 * visible screen's resources (or only its first one), then the frame drawn from them.
 */
export class FirstRound {
  #started = false;
  #roundDone: () => void = () => undefined;
  readonly #round = new Promise<void>((resolve) => {
    this.#roundDone = resolve;
  });
  #answerDone: () => void = () => undefined;
  readonly #answer = new Promise<void>((resolve) => {
    this.#answerDone = resolve;
  });
  #frameDrawn: () => void = () => undefined;
  /** resolves once the first frame is on screen */
  readonly frame = new Promise<void>((resolve) => {
    this.#frameDrawn = resolve;
  });

  get started() {
    return this.#started;
  }

  /** The first round is sent: `all` settles when every answer has, `primary` when the session's and the first resource's have. */
  begin(all: Promise<unknown>, primary: Promise<unknown>) {
    this.#started = true;
    void all.then(this.#roundDone);
    void primary.then(this.#answerDone);
  }

  frameDrawn() {
    this.#frameDrawn();
  }

  /** Resolves when the round (or, `primaryOnly`, its first answers) has answered or failed, or after `ms`. */
  wait(ms: number, primaryOnly: boolean): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      void (primaryOnly ? this.#answer : this.#round).then(done);
    });
  }
}
