// The race page: the room's lobby, countdown, live track and standings, and the racer's own board.
// The room socket brings everything (the room, the countdown, this racer's game at the start, every
// racer's progress, the standings); the racer plays on the normal player socket, on the same board as
// the game page (play.js: taps, drag, keyboard, undo, resume after a reload); every racer's progress
// shows on the track (pages/race/track.js). main() runs the page; nothing runs on import.

import { ApiError, joinRace } from "../api.js";
import { ask } from "../ask.js";
import { formatDuration } from "../clock.js";
import { element, showConnection } from "../dom.js";
import { gettext, interpolate, ngettext } from "../i18n.js";
import { localDigits } from "../locale_format.js";
import { gamePageUrl } from "../nav.js";
import { PlayController, ownBoardElements } from "../play.js";
import { LiveSocket } from "../socket.js";
import { ServerClock } from "./race/server_clock.js";
import { RaceTrack } from "./race/track.js";

const TICK_MS = 200;
const LATE_MS = 1500; // the start or the end is this late on the server's clock: ask for the room again
const SYNC_EVERY_MS = 1000; // at most one `sync` a second

/** "42", or "https://…/games/42", or "/games/42": the game's number, or null. */
function gameNumber(text) {
  const found = String(text).trim().match(/(?:^|\/games\/)(\d{1,18})\/?$/);
  return found ? Number(found[1]) : null;
}

/** "Ada, Bo and Cy" in the page's language. */
function listOf(names) {
  return new Intl.ListFormat(document.documentElement.lang || undefined, { type: "conjunction" }).format(names);
}

class RacePage {
  constructor(page) {
    this.page = page;
    this.code = page.dataset.code;
    const byTestId = (id) => page.querySelector(`[data-testid="${id}"]`);
    this.el = {
      state: byTestId("race-state"),
      connection: byTestId("connection"),
      invite: byTestId("invite-link"),
      inviteBox: page.querySelector('[data-role="invite"]'),
      copyInvite: byTestId("copy-invite"),
      limit: page.querySelector('[data-role="limit"]'),
      countdown: byTestId("countdown"),
      waiting: byTestId("waiting"),
      ready: byTestId("ready"),
      start: byTestId("start"),
      afterRace: byTestId("after-race"),
      rematch: byTestId("rematch"),
      rematchConfirm: byTestId("rematch-confirm"),
      rematchLine: byTestId("rematch-line"),
      leaveRoom: byTestId("leave-room"),
      leave: byTestId("leave"),
      takeSeat: byTestId("take-seat"),
      settingsForm: byTestId("settings-form"),
      timeLimit: byTestId("time-limit"),
      dealCode: byTestId("deal-code-input"),
      ghostForm: byTestId("ghost-form"),
      ghostInput: byTestId("ghost-input"),
      ghostClear: byTestId("ghost-clear"),
      message: byTestId("race-message"),
      racers: byTestId("racers"),
      myRace: byTestId("my-race"),
      standingsPanel: byTestId("standings-panel"),
      standingsTitle: byTestId("standings-title"),
      myPlace: byTestId("my-place"),
      standings: byTestId("standings"),
      board: ownBoardElements(page),
      timeLeft: byTestId("time-left"),
    };
    this.clock = new ServerClock();
    this.link = new LiveSocket({
      nextPath: () => page.dataset.wsPath,
      onMessage: (message) => this.onMessage(message),
      onState: (state) => this.setConnection(state),
      onRefused: (refusal) => this.say(refusal.error || gettext("This room cannot be followed.")),
    });
    this.me = null; // this socket's player id (null: a visitor, who watches)
    this.room = null;
    this.track = new RaceTrack(this.el.racers, {
      askAgain: () => this.askAgain(),
      kick: (player) => this.send({ t: "kick", player }),
    });
    this.board = null; // the racer's own board while racing
    this.standingsShown = null; // the round whose standings are on screen
    this.leaving = false; // this page asked to leave: losing the seat is no surprise
    this.leavingRoom = false; // Leave after the race: once the seat is given up, the page goes home
    this.lastSync = 0;
  }

  async start() {
    this.wire();
    this.el.invite.value = new URL(`/race/${this.code}`, window.location.origin).toString();
    try {
      await joinRace(this.code); // a seat while the lobby has one; a visitor becomes a guest first
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) {
        this.say(error.message);
        return;
      }
      this.say(error.message); // watching is still possible (a full room, a ghost the rule withholds)
    }
    this.link.start();
    setInterval(() => this.tick(), TICK_MS);
  }

  wire() {
    const el = this.el;
    el.ready.addEventListener("click", () => {
      this.send({ t: "ready", ready: el.ready.getAttribute("aria-pressed") !== "true" });
    });
    el.start.addEventListener("click", () => this.send({ t: "start" }));
    el.rematch.addEventListener("click", () => this.send({ t: "rematch" }));
    el.rematchConfirm.addEventListener("click", () => this.send({ t: "rematch", confirm: true }));
    el.leaveRoom.addEventListener("click", () => {
      this.leaving = this.leavingRoom = true;
      this.send({ t: "leave" });
    });
    el.leave.addEventListener("click", async () => {
      const racing = this.room?.state === "racing";
      const question = gettext("Leave the race? Your game ends as it stands.");
      if (racing && !(await ask({ question, yes: gettext("Leave"), no: gettext("Stay") }))) return;
      this.leaving = true;
      this.send({ t: "leave" });
    });
    el.timeLimit.addEventListener("change", () => this.send({ t: "settings", time_limit: Number(el.timeLimit.value) }));
    el.settingsForm.addEventListener("submit", (event) => {
      event.preventDefault();
      this.send({ t: "settings", code: el.dealCode.value.trim() });
    });
    el.ghostForm.addEventListener("submit", (event) => {
      event.preventDefault();
      const game = gameNumber(el.ghostInput.value);
      if (game === null) {
        this.say(gettext("Type a game's number, or paste its link."));
        el.ghostInput.focus();
        return;
      }
      this.send({ t: "ghost", game });
    });
    el.ghostClear.addEventListener("click", () => this.send({ t: "ghost", game: null }));
    el.takeSeat.addEventListener("click", () => this.takeSeat());
    el.copyInvite.addEventListener("click", () => this.copyInvite());
  }

  send(command) {
    this.say(""); // an earlier refusal is about an earlier command
    if (!this.link.send(command)) this.say(gettext("Not connected: trying again…"));
  }

  /** Back into the lobby's racers after watching a round or leaving it: a seat, then a socket that counts it. */
  async takeSeat() {
    this.el.takeSeat.disabled = true;
    try {
      const room = await joinRace(this.code);
      const seated = room.racers.some((entry) => !entry.ghost && entry.player === this.me && !entry.left);
      if (!seated) this.say(gettext("No seat for you this round: the room is full, or the host removed you."));
      this.link.reconnect();
    } catch (error) {
      this.say(error.message);
    } finally {
      this.el.takeSeat.disabled = false;
    }
  }

  say(text) {
    this.el.message.textContent = text || "";
  }

  setConnection(state) {
    showConnection(this.el.connection, state);
  }

  // ---------------------------------------------------------------- messages

  onMessage(message) {
    switch (message.t) {
      case "welcome":
        this.me = message.player;
        break;
      case "room":
        this.onRoom(message);
        break;
      case "countdown":
        this.clock.sample(message.server_now);
        break;
      case "start":
        this.onStart(message.game);
        break;
      case "progress":
        this.track.progress(message);
        break;
      case "standings":
        this.showStandings(message.standings, { final: message.final });
        break;
      case "reject":
        this.say(message.error);
        break;
      default:
        break;
    }
  }

  onRoom(room) {
    if (this.room && room.version < this.room.version) return; // an older room overtaken by a newer one
    this.clock.sample(room.server_now);
    const newRound = this.room && room.round !== this.room.round;
    const hadSeat = this.mine() !== null;
    this.room = room;
    if (hadSeat && !newRound && this.mine() === null && !this.leaving) {
      this.say(gettext("You are watching this round: the host removed you, or started without you."));
    }
    this.leaving = false;
    if (this.leavingRoom && this.mine() === null) {
      window.location.assign("/");
      return;
    }
    if (newRound || room.state === "lobby" || room.state === "countdown") this.stopBoard();
    this.renderRoom();
  }

  /** This racer's game: played on the game page's board, without hints; End game counts in the race. */
  onStart(game) {
    if (this.board?.gameId === game.id) return;
    this.stopBoard();
    this.el.myRace.hidden = false;
    const board = new PlayController({
      el: this.el.board,
      gameId: game.id,
      wsPath: game.ws,
      words: {
        finished: gettext("Your race is run: your place is in the standings."),
        stuck: gettext("No more moves: undo, or end your game."),
        endQuestion: gettext("End your game now? It counts in the race as it stands."),
      },
      page: {
        finished: () => this.renderRoom(), // the standings may already hold this racer's place
        refused: (refusal) => board.setStatus(refusal.error),
      },
    });
    this.board = board;
    board.start({ game });
    this.say("");
    this.renderControls();
  }

  stopBoard() {
    this.board?.stop();
    this.board = null;
    this.el.myRace.hidden = true;
  }

  /** Ask the server for the room again (at most once a second). */
  askAgain() {
    const now = performance.now();
    if (now - this.lastSync < SYNC_EVERY_MS) return;
    this.lastSync = now;
    this.link.send({ t: "sync" });
  }

  // ---------------------------------------------------------------- drawing

  mine() {
    return this.room?.racers.find((entry) => !entry.ghost && entry.player === this.me && !entry.left) ?? null;
  }

  renderRoom() {
    const room = this.room;
    const labels = {
      lobby: gettext("In the lobby"),
      countdown: gettext("Get ready…"),
      racing: gettext("Racing"),
      finished: gettext("Finished"),
    };
    this.el.state.textContent = labels[room.state] ?? room.state;
    this.el.state.dataset.state = room.state;
    this.el.inviteBox.hidden = room.state !== "lobby";
    if (room.state === "finished") this.el.myRace.hidden = true; // the standings and replays say it all
    let deal = gettext("a fresh deal");
    if (room.racers.some((entry) => entry.ghost)) deal = gettext("the ghost's deal");
    else if (room.deal_picked) deal = gettext("a deal the host picked");
    this.el.limit.textContent = interpolate(gettext("Time limit: %(limit)s · %(deal)s, dealt at the start"), {
      limit: formatDuration(room.time_limit),
      deal,
    });
    if (document.activeElement !== this.el.timeLimit) this.el.timeLimit.value = String(room.time_limit);
    // A rematch deals afresh: the code box must not keep showing the last round's code.
    if (!room.deal_picked && document.activeElement !== this.el.dealCode) this.el.dealCode.value = "";
    this.track.show(room, { me: this.me, seated: this.mine() !== null });
    this.renderControls();
    if (room.standings?.length) this.showStandings(room.standings, { final: room.state === "finished" });
    else {
      this.el.standingsPanel.hidden = true;
      this.standingsShown = null;
    }
    this.tick();
  }

  renderControls() {
    const room = this.room;
    if (!room) return;
    const el = this.el;
    const mine = this.mine();
    const host = mine !== null && room.host === this.me;
    const lobby = room.state === "lobby";
    const finished = room.state === "finished";
    el.ready.hidden = !(lobby && mine && !host); // the host is ready by hosting: they have Start now
    el.ready.setAttribute("aria-pressed", String(Boolean(mine?.ready)));
    el.ready.textContent = mine?.ready ? gettext("Ready ✓ (tap to wait)") : gettext("I'm ready");
    el.start.hidden = !(lobby && host);
    el.leave.hidden = !mine || finished;
    el.takeSeat.hidden = !(lobby && !mine && this.me !== null); // the server says whether a seat is free
    el.settingsForm.hidden = !(lobby && host);
    el.ghostForm.hidden = !(lobby && host);
    el.ghostClear.hidden = !room.racers.some((entry) => entry.ghost);
    this.renderWaiting(lobby ? mine : null, host);
    el.afterRace.hidden = !(finished && mine);
    el.rematch.disabled = Boolean(mine?.rematch);
    el.rematch.setAttribute("aria-pressed", String(Boolean(mine?.rematch)));
    this.renderRematch(finished ? mine : null, host);
    this.page.classList.toggle("is-watching", !mine);
    this.page.dataset.state = room.state;
    // A racer still at their board: on a phone the page closes up around the row (site.css).
    const playing = Boolean(mine) && room.state === "racing" && this.board !== null && !this.board.finished;
    this.page.dataset.playing = String(playing);
  }

  /** In the lobby, who the start waits for: the racers present who are not ready yet. */
  renderWaiting(mine, host) {
    const room = this.room;
    let text = "";
    if (mine) {
      const names = room.waiting.map((seat) => room.racers.find((entry) => entry.racer === seat)?.nickname);
      const others = room.racers.filter((entry) => !entry.ghost && !entry.left && entry.player !== room.host);
      if (names.length) text = interpolate(gettext("Waiting for %(names)s…"), { names: listOf(names) });
      else if (host && others.length === 0) text = gettext("Invite friends with the link, or start now.");
      else text = gettext("The race starts when everyone here is ready.");
    }
    this.el.waiting.textContent = text;
    this.el.waiting.hidden = !text;
  }

  /** After the race: who agreed to a rematch, whom it waits for, and the host's way to start it now. */
  renderRematch(mine, host) {
    const racers = this.room.racers.filter((entry) => !entry.ghost && !entry.left);
    const agreed = racers.filter((entry) => entry.rematch).map((entry) => entry.nickname);
    const others = racers.filter((entry) => !entry.rematch && entry.connected).map((entry) => entry.nickname);
    let text = "";
    if (mine && agreed.length) {
      text = others.length
        ? interpolate(gettext("Race again: %(agreed)s agreed; waiting for %(others)s."), {
            agreed: listOf(agreed),
            others: listOf(others),
          })
        : interpolate(gettext("Race again: %(agreed)s agreed."), { agreed: listOf(agreed) });
    }
    this.el.rematchLine.textContent = text;
    this.el.rematchLine.hidden = !text;
    this.el.rematchConfirm.hidden = !(host && agreed.length && others.length);
  }

  /** The standings: so far while the race goes on (a finisher's place at once), final once it is over. */
  showStandings(table, { final }) {
    if (!Array.isArray(table)) return;
    const key = `${this.room?.round}:${table.length}:${final}`;
    const rows = table.map((entry) => {
      const row = element("tr");
      row.dataset.testid = "standing";
      row.dataset.player = String(entry.player);
      row.dataset.place = String(entry.place);
      const name = element("td");
      name.append(element("bdi", { text: entry.nickname }));
      if (entry.ghost) name.append(` (${gettext("ghost")})`);
      let result;
      if (entry.won) {
        result = interpolate(gettext("won in %(time)s"), { time: formatDuration(entry.seconds) });
      } else {
        const format = ngettext("%(piles)s pile left", "%(piles)s piles left", entry.piles);
        result = interpolate(format, { piles: entry.piles });
      }
      if (entry.left) result += ` · ${gettext("left")}`;
      const replayCell = element("td");
      if (entry.game) {
        const link = element("a", { text: gettext("Replay") });
        link.href = gamePageUrl(entry.game);
        replayCell.append(link);
      }
      row.append(
        element("td", { text: localDigits(entry.place) }),
        name,
        element("td", { text: result }),
        element("td", { className: "num", text: localDigits(entry.piles) }),
        element("td", { className: "num", text: localDigits(entry.score) }),
        replayCell,
      );
      return row;
    });
    this.el.standings.replaceChildren(...rows);
    this.el.standingsPanel.hidden = false;
    this.el.standingsTitle.textContent = final ? gettext("Standings") : gettext("Standings so far");
    const own = table.find((entry) => !entry.ghost && entry.player === this.me);
    let words = final ? gettext("Your place: %(place)s of %(racers)s.") : gettext("Your place so far: %(place)s of %(racers)s.");
    // A win is the racer's moment: said first, with its time, in the gold line.
    if (own?.won) {
      words = final
        ? gettext("You won in %(time)s! Your place: %(place)s of %(racers)s.")
        : gettext("You won in %(time)s! Your place so far: %(place)s of %(racers)s.");
    }
    this.el.myPlace.textContent = own
      ? interpolate(words, {
          place: localDigits(own.place),
          racers: localDigits(this.room?.racers.length ?? table.length),
          time: own.won ? formatDuration(own.seconds) : "",
        })
      : "";
    this.el.myPlace.hidden = !own;
    this.el.myPlace.dataset.won = String(Boolean(own?.won));
    // The panel takes the focus for this racer's own finish and for the final standings, never while
    // they still play (another's finish must not pull them off their board).
    const playing = this.board !== null && !this.board.finished && !final;
    if (this.standingsShown !== key && (own || final) && !playing) {
      this.standingsShown = key;
      this.el.standingsPanel.focus({ preventScroll: true });
      this.el.standingsPanel.scrollIntoView({ block: "nearest" });
    }
  }

  // ---------------------------------------------------------------- the clock

  tick() {
    const room = this.room;
    if (!room) return;
    const countdown = this.el.countdown;
    if (room.state === "countdown" && room.starts_at) {
      const left = this.clock.until(room.starts_at);
      countdown.hidden = false;
      const text =
        left > 0
          ? interpolate(gettext("Starting in %(seconds)s…"), { seconds: Math.ceil(left / 1000) })
          : gettext("Go!");
      if (countdown.textContent !== text) countdown.textContent = text; // announced once a second, not per tick
      if (left < -LATE_MS) this.askAgain(); // the server acts at the start; a quiet socket asks
    } else {
      countdown.hidden = true;
    }
    if (room.state === "racing" && room.ends_at) {
      const left = this.clock.until(room.ends_at);
      this.el.timeLeft.textContent = formatDuration(Math.max(0, Math.ceil(left / 1000)));
      if (left < -LATE_MS) this.askAgain();
    } else if (room.state !== "racing") {
      this.el.timeLeft.textContent = "–";
    }
  }

  async copyInvite() {
    const url = this.el.invite.value;
    try {
      await navigator.clipboard.writeText(url);
      this.el.copyInvite.textContent = gettext("Link copied!");
      setTimeout(() => {
        this.el.copyInvite.textContent = gettext("Copy link");
      }, 2000);
    } catch {
      this.el.invite.select();
    }
  }
}

export function main() {
  new RacePage(document.getElementById("race-page")).start();
}

main();
