// An arena's page: the countdown to its start and end on the server's clock, Join, the standings live
// from the arena's socket (the top ten, your own row, how many play and how many watch), the top three
// boards live (live_board.js on their watch sockets), and a participant's current game, played on the game
// page's board (play.js) on the game's own socket. The next game comes the moment one ends: the
// socket's `next`, or POST /next if it is slow. main() runs the page; nothing runs on import.

import { ApiError, getArena, joinArena, nextArenaGame } from "../api.js";
import { formatDuration } from "../clock.js";
import { showConnection } from "../dom.js";
import { gettext, interpolate, ngettext } from "../i18n.js";
import { LiveBoard } from "../live_board.js";
import { localDigits } from "../locale_format.js";
import { PlayController, ownBoardElements } from "../play.js";
import { LiveSocket } from "../socket.js";
import { ServerClock } from "./race/server_clock.js";
import { StandingsTable } from "./arena/standings.js";

const TICK_MS = 250;
const NEXT_WAIT_MS = 1500; // a game ended: the socket's `next` is due; after this long, POST /next
const LATE_MS = 1500; // the start passed this long ago on the server's clock and no game came: ask for it
const TOP_BOARDS = 3;
const TOP_AGAIN_MS = 2000; // a top board's game ended: read who plays what this long after

class ArenaPage {
  constructor(page) {
    this.page = page;
    this.code = page.dataset.code;
    const byTestId = (id) => page.querySelector(`[data-testid="${id}"]`);
    this.el = {
      state: byTestId("arena-state"),
      connection: byTestId("connection"),
      clock: byTestId("arena-clock"),
      players: byTestId("arena-players"),
      spectators: byTestId("arena-spectators"),
      join: byTestId("arena-join"),
      results: byTestId("arena-results"),
      message: byTestId("arena-message"),
      myGame: byTestId("my-arena-game"),
      myPoints: byTestId("my-points"),
      top: byTestId("arena-top"),
      topBoards: byTestId("top-boards"),
      board: ownBoardElements(page),
    };
    this.clock = new ServerClock();
    this.link = new LiveSocket({
      nextPath: () => page.dataset.wsPath,
      onMessage: (message) => this.onMessage(message),
      onState: (state) => this.setConnection(state),
      onRefused: (refusal) => this.say(refusal.error || gettext("This arena cannot be followed.")),
    });
    this.standings = new StandingsTable(byTestId("standings"), { watchUrl: page.dataset.watchUrl });
    this.top = [];
    this.arena = null;
    this.joined = false; // this player takes part
    this.board = null; // the participant's current game
    this.nextTimer = 0;
    this.queued = null; // a next game heard while the board's finish was on its way
    this.topTimer = 0;
    this.asking = false; // a join or next request is on its way
  }

  start() {
    this.el.join.addEventListener("click", () => this.join());
    this.link.start();
    setInterval(() => this.tick(), TICK_MS);
  }

  say(text) {
    this.el.message.textContent = text || "";
  }

  setConnection(state) {
    showConnection(this.el.connection, state);
  }

  // ---------------------------------------------------------------- messages

  onMessage(message) {
    const serverNow = message.arena?.server_now ?? message.server_now;
    if (serverNow) this.clock.sample(serverNow);
    switch (message.t) {
      case "arena":
        this.onArena(message);
        break;
      case "standings":
        this.showStandings(message);
        break;
      case "next":
        this.play(message.game);
        break;
      case "ended":
        this.onEnded(message);
        break;
      case "reject":
        this.say(message.error);
        break;
      default:
        break;
    }
  }

  /** The arena, its top ten and this reader's row (`me`): on connect. */
  onArena({ arena, standings, me, spectators }) {
    this.arena = { ...this.arena, ...arena };
    if (me) this.joined = true;
    this.showStandings({ standings, me, players: arena.players, spectators });
    this.render();
    if (this.joined && this.arena.state === "live" && !this.board) this.resume();
  }

  /** The end: the final standings, and the arena with its seed. */
  onEnded({ arena, standings, me }) {
    this.arena = { ...this.arena, ...arena, state: "finished" };
    clearTimeout(this.nextTimer);
    this.showStandings({ standings, me, players: arena.players });
    this.render();
    this.say(gettext("The arena is over: every game is in the results, ready to replay."));
  }

  // ---------------------------------------------------------------- taking part

  async join() {
    this.el.join.disabled = true;
    try {
      const answer = await joinArena(this.code);
      this.joined = true;
      this.arena = { ...this.arena, ...answer };
      this.render();
      if (answer.game) this.play(answer.game);
      else this.say(gettext("You are in: your first game comes the moment the arena starts."));
      this.link.reconnect(); // the socket counts this player now: their own row comes with the standings
    } catch (error) {
      this.say(error.message);
    } finally {
      this.el.join.disabled = false;
    }
  }

  /** A participant back on the page while the arena runs: their current game (or the next one). */
  async resume() {
    await this.fetchGame(() => joinArena(this.code));
  }

  /** Play the game `request` answers with; one request at a time, and a refusal is said on the page. */
  async fetchGame(request) {
    if (this.asking) return;
    this.asking = true;
    try {
      const answer = await request();
      if (answer.game) this.play(answer.game);
    } catch (error) {
      this.say(error.message);
    } finally {
      this.asking = false;
    }
  }

  /** The current game ended: the socket's `next` is due (or came already); if it is slow, ask for it. */
  awaitNext() {
    clearTimeout(this.nextTimer);
    const queued = this.queued;
    this.queued = null;
    if (queued) {
      this.play(queued);
      return;
    }
    if (this.arena?.state !== "live") return;
    this.say(gettext("Game over: the next deal is coming…"));
    this.nextTimer = setTimeout(() => this.askNext(), NEXT_WAIT_MS);
  }

  async askNext() {
    if (this.arena?.state !== "live") return;
    await this.fetchGame(() =>
      nextArenaGame(this.code).catch((error) => {
        // Handed out already, its push lost on the way: it is the participant's current game.
        if (error instanceof ApiError && error.code === "game_in_play") return joinArena(this.code);
        throw error;
      }),
    );
  }

  /** Play `game` on the page's board, unless it is the one already there. */
  play(game) {
    if (!game?.id || this.board?.gameId === game.id) return;
    // The board's own finish is on its way (End game): it is shown first, then this game.
    if (this.board?.ending) {
      this.queued = game;
      return;
    }
    clearTimeout(this.nextTimer);
    this.board?.stop();
    this.el.myGame.hidden = false;
    this.el.myGame.dataset.game = String(game.id);
    this.page.dataset.playing = "true";
    const board = new PlayController({
      el: this.el.board,
      gameId: game.id,
      wsPath: game.ws,
      words: {
        finished: gettext("Game over: the next deal is coming…"),
        stuck: gettext("No more moves: undo, or end this game and take the next deal."),
        endQuestion: gettext("End this game now? It counts as it stands, and the next deal comes at once."),
      },
      page: {
        finished: () => this.awaitNext(),
        refused: (refusal) => board.setStatus(refusal.error),
      },
    });
    this.board = board;
    board.start({ game });
    this.say("");
    for (const slot of this.top) slot.board.recheck(game.deal);
  }

  stopBoard() {
    this.board?.stop();
    this.board = null;
    this.el.myGame.hidden = true;
    this.page.dataset.playing = "false";
  }

  // ---------------------------------------------------------------- drawing

  showStandings({ standings, me, players, spectators }) {
    if (!Array.isArray(standings)) return;
    this.standings.show(standings, me ?? null, { live: this.arena?.state === "live" });
    if (me) {
      this.joined = true;
      this.el.myPoints.textContent = localDigits(me.points);
    }
    if (Number.isInteger(players)) {
      this.arena = { ...this.arena, players };
      this.el.players.textContent = interpolate(ngettext("%(count)s player", "%(count)s players", players), {
        count: localDigits(players),
      });
    }
    if (Number.isInteger(spectators)) {
      this.el.spectators.textContent = interpolate(ngettext("%(count)s watching", "%(count)s watching", spectators), {
        count: localDigits(spectators),
      });
    }
    this.showTop(standings.slice(0, TOP_BOARDS));
  }

  /** The top three's boards, live: a board follows its row's current game. */
  showTop(rows) {
    const list = this.el.topBoards;
    while (this.top.length < rows.length) {
      const item = document.createElement("li");
      item.className = "arena-top-board";
      item.dataset.testid = "top-board";
      const name = document.createElement("p");
      name.className = "racer-name";
      const felt = document.createElement("div");
      felt.className = "felt racer-mini";
      const note = document.createElement("p");
      note.className = "racer-state";
      item.append(name, felt, note);
      list.append(item);
      const slot = { item, name, note, board: null, game: null };
      slot.board = new LiveBoard(
        { felt },
        {
          onGame: () => {
            slot.note.textContent = "";
          },
          onEnd: () => this.readTopSoon(),
          onRefused: (refusal) => {
            slot.note.textContent = refusal.error;
            this.readTopSoon();
          },
        },
      );
      this.top.push(slot);
    }
    this.top.forEach((slot, index) => {
      const row = rows[index];
      slot.item.hidden = !row;
      if (!row) return;
      slot.item.dataset.rank = String(row.rank);
      slot.name.textContent = `${localDigits(row.rank)}. ${row.nickname}`;
      if (row.game && row.game !== slot.game && this.arena?.state === "live") {
        slot.game = row.game;
        slot.item.dataset.game = String(row.game);
        slot.board.watch(row.game);
      }
    });
  }

  /** A top board's game ended: its player's next game is named by the next standings, or by a read. */
  readTopSoon() {
    if (this.topTimer || this.arena?.state !== "live") return;
    this.topTimer = setTimeout(async () => {
      this.topTimer = 0;
      try {
        const arena = await getArena(this.code);
        if (arena.state === "live") this.showTop(arena.standings.slice(0, TOP_BOARDS));
      } catch {
        /* the socket's next standings will say */
      }
    }, TOP_AGAIN_MS);
  }

  render() {
    const arena = this.arena;
    if (!arena) return;
    const labels = { upcoming: gettext("Starts soon"), live: gettext("Live"), finished: gettext("Finished") };
    this.el.state.textContent = labels[arena.state] ?? arena.state;
    this.el.state.dataset.state = arena.state;
    this.page.dataset.state = arena.state;
    this.el.join.hidden = this.joined || arena.state === "finished";
    this.el.results.hidden = arena.state !== "finished";
    this.el.top.hidden = arena.state !== "live";
    if (arena.state === "finished") {
      this.stopBoard();
      for (const slot of this.top) slot.board.stop();
    }
    this.tick();
  }

  tick() {
    const arena = this.arena;
    if (!arena) return;
    if (arena.state === "upcoming" && arena.starts_at && this.clock.until(arena.starts_at) <= 0) {
      this.started();
      return;
    }
    let text = gettext("Finished");
    if (arena.state === "upcoming" && arena.starts_at) {
      const left = this.clock.until(arena.starts_at);
      text = interpolate(gettext("Starts in %(time)s"), { time: formatDuration(Math.ceil(left / 1000)) });
    } else if (arena.state === "live" && arena.ends_at) {
      const left = this.clock.until(arena.ends_at);
      text = interpolate(gettext("Ends in %(time)s"), { time: formatDuration(Math.max(0, Math.ceil(left / 1000))) });
    }
    if (this.el.clock.textContent !== text) this.el.clock.textContent = text;
  }

  /** The server's clock reached the start: the arena runs. A participant's first game comes on the
   * socket (`next`); if it has not come a moment later, the page asks for it. */
  started() {
    this.arena = { ...this.arena, state: "live" };
    this.render();
    if (!this.joined) return;
    clearTimeout(this.nextTimer);
    this.nextTimer = setTimeout(() => {
      if (!this.board) this.resume();
    }, LATE_MS);
  }
}

export function main() {
  new ArenaPage(document.getElementById("arena-page")).start();
}

main();
