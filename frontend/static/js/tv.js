// TV: the featured live game (GET /api/tv), watched live on a read-only board, with its player's name.
// When it ends the screen shows the result a moment, then asks for the next featured game; when no game
// is live it asks again now and then. The home page shows it small, /tv full screen.

import { getTv } from "./api.js";
import { gettext, interpolate, ngettext } from "./i18n.js";
import { LiveBoard } from "./live_board.js";
import { localDigits } from "./locale_format.js";

const RESULT_SHOWN_MS = 4000; // an ended game's result stays this long before the next game
const EMPTY_RETRY_MS = 5000; // nothing live: ask again this often
const ERROR_RETRY_MS = 10000; // the server did not answer

export class TvScreen {
  /**
   * @param {HTMLElement} root  holds the parts, found by data-testid: tv-board, tv-player, tv-piles,
   *        tv-timer, tv-status, tv-watch (a link whose href gets the game's watch page)
   * @param {object} [options]
   * @param {"full"|"small"} [options.size]
   */
  constructor(root, { size = "small" } = {}) {
    this.root = root;
    const part = (id) => root.querySelector(`[data-testid="${id}"]`);
    this.el = {
      felt: part("tv-board"),
      player: part("tv-player"),
      piles: part("tv-piles"),
      timer: part("tv-timer"),
      status: part("tv-status"),
      watch: part("tv-watch"),
    };
    this.watchUrl = root.dataset.watchUrl; // "/watch/0": 0 becomes the game's id
    this.board = new LiveBoard(this.el, {
      size,
      onGame: ({ player }) => this.onGame(player),
      onEnd: (result) => this.onEnd(result),
      onRefused: () => this.later(RESULT_SHOWN_MS / 2),
    });
    this.timer = 0;
    this.game = null; // the featured entry on screen
  }

  start() {
    this.ask();
  }

  async ask() {
    clearTimeout(this.timer);
    let answer;
    try {
      answer = await getTv();
    } catch {
      this.later(ERROR_RETRY_MS);
      return;
    }
    if (!answer.game) {
      this.showNothing();
      this.later(EMPTY_RETRY_MS);
      return;
    }
    this.show(answer.game);
  }

  later(delayMs) {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.ask(), delayMs);
  }

  show(game) {
    this.game = game;
    this.root.dataset.game = String(game.id);
    this.root.dataset.state = "live";
    this.el.player.textContent = game.player;
    this.el.piles.textContent = localDigits(game.piles);
    this.el.watch.hidden = false;
    this.el.watch.href = this.watchUrl.replace(/0$/, String(game.id));
    this.say(gettext("Live"));
    this.board.watch(game.id);
  }

  onGame(player) {
    if (player?.nickname) this.el.player.textContent = player.nickname;
  }

  onEnd(result) {
    this.root.dataset.state = "ended";
    const name = this.el.player.textContent;
    let text = gettext("Game over");
    if (result?.won) text = interpolate(gettext("%(name)s won!"), { name });
    else if (result) {
      const format = ngettext("%(name)s ended with %(count)s pile.", "%(name)s ended with %(count)s piles.", result.piles);
      text = interpolate(format, { name, count: result.piles });
    }
    this.say(text);
    this.later(RESULT_SHOWN_MS);
  }

  showNothing() {
    this.board.stop();
    this.game = null;
    delete this.root.dataset.game;
    this.root.dataset.state = "empty";
    this.el.player.textContent = "";
    this.el.piles.textContent = "";
    this.el.timer.textContent = "";
    this.el.watch.hidden = true;
    this.board.view.show([]);
    this.say(gettext("No game is being played right now. The next one will appear here."));
  }

  say(text) {
    if (this.el.status.textContent !== text) this.el.status.textContent = text;
  }
}
