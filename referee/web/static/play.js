/* Matches with human seats (referee/web/playapp.py).
 *
 * The new-match form (#new-match): shows the player counts, seats and variant
 * flags of the chosen game (the server checks everything again).
 *
 * A human seat's page (#play): draws its seat's state, which the server pushes
 * as server-sent events (the "state" event, then "end" once the match is over;
 * a reload opens a new stream whose first event is the current state). The
 * table is drawn by cardtable.js; the hand is clickable: cards are selected
 * and sent as one action (a play, a declaration, a burial, an exchange), and
 * actions without cards (pass, bids) are buttons. Any selection can be sent:
 * the referee judges it (an illegal one is answered with the rule it breaks,
 * and the fallback action is played, as for a bot). Requests go to this
 * page's own server only. */
(function () {
  "use strict";

  // ------------------------------------------------------------------ the form
  var form = document.getElementById("new-match");
  if (form) {
    var game = document.getElementById("game"), players = document.getElementById("players");
    var refresh = function () {
      var counts = game.options[game.selectedIndex].getAttribute("data-players").split(",");
      var firstOk = null;
      Array.prototype.forEach.call(players.options, function (o) {
        var ok = counts.indexOf(o.value) >= 0;
        o.hidden = o.disabled = !ok;
        if (ok && firstOk === null) firstOk = o.value;
      });
      if (counts.indexOf(players.value) < 0) players.value = firstOk;
      var n = parseInt(players.value, 10);
      form.querySelectorAll("tr[data-seat-row]").forEach(function (tr) {
        var on = parseInt(tr.getAttribute("data-seat-row"), 10) < n;
        tr.hidden = !on;
        tr.querySelectorAll("input, select").forEach(function (i) { i.disabled = !on; });
        var human = tr.querySelector("select").value === "human";
        tr.querySelector("input[name$=_name]").disabled = !on || !human;
      });
      form.querySelectorAll(".variants").forEach(function (d) {
        var on = d.getAttribute("data-game") === game.value;
        d.hidden = !on;
        d.querySelectorAll("input").forEach(function (i) { i.disabled = !on; });
      });
    };
    form.addEventListener("change", refresh);
    refresh();
  }

  // ------------------------------------------------------------------ a seat's page
  var root = document.getElementById("play");
  if (!root) return;
  var T = window.CardTable, el = T.el;
  var cfg = JSON.parse(document.getElementById("play-config").textContent);
  var data = { players: cfg.players, names: cfg.names, view: cfg.seat };
  var KIND_WORDS = { BID: "bid", PLAY: "play", DECLARE: "declare or pass", DISCARD: "bury the kitty",
                     EXCHANGE: "give cards back" };
  var SEND_WORDS = { PLAY: "Play", DECLARE: "Declare", DISCARD: "Bury", EXCHANGE: "Give" };
  var DONE_WORDS = { PLAY: "played", DECLARE: "declared", DISCARD: "buried", EXCHANGE: "gave" };  // the referee's fallback
  var st = null;          // the last state pushed
  var selected = [];      // indices into the hand of the selected cards
  var selectedFor = null; // the request they were selected for
  var hintAt = -1;
  var deadline = null;    // performance.now() at which the decision's time (and bank) runs out
  var title = document.title;

  function key(cards) { return cards.slice().sort().join(" "); }
  function hand() {
    if (!st) return [];
    if (st.request) return st.request.hand;
    var me = st.table && st.table["s" + cfg.seat];
    return (me && me.hand) || [];
  }
  function myTurn() { return !!(st && st.request && !st.request.sent && !st.ended); }
  function cardActions() { return st.request.legal.filter(function (a) { return a[1].length > 0; }); }
  function cardKind() {
    var acts = cardActions();
    if (acts.length) return acts[0][0];
    return { PLAY: "PLAY", DECLARE: "DECLARE", DISCARD: "DISCARD", EXCHANGE: "EXCHANGE" }[st.request.kind] || null;
  }
  var listedFor = null, listedCache = null;
  function listedKeys(acts) {  // the listed card actions as keys, once per request (a list can be long)
    if (listedFor !== st.request.id) {
      listedCache = {};
      acts.forEach(function (a) { listedCache[key(a[1])] = true; });
      listedFor = st.request.id;
    }
    return listedCache;
  }
  function selectedCards() { var h = hand(); return selected.map(function (i) { return h[i]; }); }

  function post(url, body) {
    return fetch(url, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
                        cache: "no-store" }).then(function (r) {
      return r.json().catch(function () { return { error: "the server answered " + r.status }; }).then(function (j) {
        if (!r.ok) throw new Error(j.error || ("the server answered " + r.status));
        return j;
      });
    });
  }

  function send(kind, cards, amount) {
    if (!myTurn()) return;
    var err = document.getElementById("send-error");
    err.hidden = true;
    post(cfg.act, { request_id: st.request.id, kind: kind, cards: cards, amount: amount || 0 })["catch"](function (e) {
      err.textContent = e.message;
      err.hidden = false;
    });
  }

  function selectCards(cards) {
    var h = hand(), want = cards.slice();
    selected = [];
    h.forEach(function (c, i) {
      var j = want.indexOf(c);
      if (j >= 0) { selected.push(i); want.splice(j, 1); }
    });
    draw();
  }

  // -- drawing
  function drawHand() {
    var box = document.querySelector('.seat[data-seat="' + cfg.seat + '"]');
    if (!box) return;
    var old = box.querySelector(".hand");
    var row = el("div", "cards hand my-hand");
    row.id = "my-hand";
    var pick = myTurn() && cardKind() !== null;
    hand().forEach(function (c, i) {
      var e = T.card(c);
      e.setAttribute("data-i", i);
      if (selected.indexOf(i) >= 0) e.classList.add("selected");
      if (pick) {
        e.classList.add("pick");
        e.addEventListener("click", function () {
          var at = selected.indexOf(i);
          if (at >= 0) selected.splice(at, 1); else selected.push(i);
          draw();
        });
      }
      row.appendChild(e);
    });
    if (old) box.replaceChild(row, old); else box.appendChild(row);
  }

  function button(text, cls, onclick) {
    var b = el("button", cls, text);
    b.type = "button";
    b.addEventListener("click", onclick);
    return b;
  }

  function drawActions() {
    var buttons = document.getElementById("buttons"), options = document.getElementById("options");
    var turn = document.getElementById("turn");
    buttons.innerHTML = "";
    options.innerHTML = "";
    if (!st || !st.table) { turn.textContent = "waiting for the match to start"; return; }
    if (st.ended) { turn.textContent = "the match is over: the result is beside the table"; return; }
    if (!st.request) { turn.textContent = "the others are playing"; return; }
    if (st.request.sent) { turn.textContent = "sent: waiting for the referee"; return; }
    turn.textContent = "Your turn: " + (KIND_WORDS[st.request.kind] || st.request.kind.toLowerCase());
    st.request.legal.forEach(function (a) {
      if (a[1].length) return;
      var text = a[0] === "PASS" ? "Pass" : a[0] === "BID" ? "Bid " + a[2] : a[0].toLowerCase();
      var b = button(text, "action", function () { send(a[0], [], a[2]); });
      b.setAttribute("data-action", a[0] + ":" + a[2]);
      buttons.appendChild(b);
    });
    var kind = cardKind();
    if (!kind) return;
    var acts = cardActions(), cards = selectedCards(), listed = listedKeys(acts);
    var inList = cards.length > 0 && listed[key(cards)] === true;
    var sizes = acts.map(function (a) { return a[1].length; });
    var size = sizes.length && sizes.every(function (n) { return n === sizes[0]; }) && kind !== "PLAY" ? sizes[0] : 0;
    var status = el("span", "selection");
    status.id = "selection-status";
    var label = SEND_WORDS[kind] || kind;
    if (!cards.length) {
      status.textContent = "select " + (size ? T.counted(size, "card") : "cards") + " in your hand";
    } else if (inList) {
      status.textContent = cards.length + " selected: a legal action";
      status.classList.add("ok");
    } else if (st.request.complete) {
      status.textContent = cards.length + " selected: not a legal action, the referee will refuse it";
      status.classList.add("bad");
      label = "Send anyway";
    } else {
      status.textContent = cards.length + " selected" + (size && cards.length !== size ? " (of " + size + ")" : "") +
        ": the referee judges it (the list of legal actions is not complete)";
    }
    var sendBtn = button(label + (cards.length ? " (" + cards.length + ")" : ""), inList ? "action primary" : "action",
                         function () { send(kind, selectedCards(), 0); });
    sendBtn.id = "send-cards";
    sendBtn.setAttribute("data-kind", kind);
    sendBtn.disabled = !cards.length;
    buttons.appendChild(sendBtn);
    if (acts.length) {
      var hint = button("Hint", "", function () { hintAt = (hintAt + 1) % acts.length; selectCards(acts[hintAt][1]); });
      hint.id = "hint";
      hint.title = "select the next of the listed legal actions";
      buttons.appendChild(hint);
    }
    var clear = button("Clear", "", function () { selected = []; draw(); });
    clear.id = "clear";
    buttons.appendChild(clear);
    buttons.appendChild(status);
    if (acts.length && acts.length <= 24) {
      options.appendChild(el("span", "muted", st.request.complete ? "legal:" : "for example:"));
      acts.forEach(function (a) {
        var o = el("button", "option");
        o.type = "button";
        o.setAttribute("data-cards", a[1].join(" "));
        o.title = "select these cards";
        o.appendChild(T.cardRow(a[1], "small"));
        o.addEventListener("click", function () { selectCards(a[1]); });
        options.appendChild(o);
      });
    } else if (acts.length) {
      options.appendChild(el("span", "muted", acts.length + " legal card actions" +
        (st.request.complete ? "" : " listed (others may be legal too)") + ": Hint selects them one by one"));
    }
  }

  function drawNotice() {
    var box = document.getElementById("notice"), n = st && st.notice;
    box.hidden = !n;
    box.innerHTML = "";
    if (!n) return;
    box.setAttribute("data-fault", n.fault);
    box.setAttribute("data-rule", n.rule || "");
    var head = n.fault === "illegal" ? "Illegal action" + (n.rule ? " (rule " + n.rule + ")" : "") :
               n.fault === "timeout" ? "Time ran out" : "Fault: " + n.fault;
    box.appendChild(el("b", "", head + ": "));
    var msg = n.message || "";
    box.appendChild(T.textWithCards(msg + (/[.!?]$/.test(msg) || !msg ? "" : ".")));
    if (n.applied) {
      var a = n.applied, did = a[0] === "PASS" ? "passed" : a[0] === "BID" ? "bid " + a[2] :
        (DONE_WORDS[a[0]] || a[0].toLowerCase());
      var said = el("span", "fallback", " The referee " + did + (a[1].length ? " " : " for you."));
      said.id = "fallback";
      a[1].forEach(function (c, i) {
        if (i) said.appendChild(document.createTextNode(" "));
        said.appendChild(T.cardText(c));
      });
      if (a[1].length) said.appendChild(document.createTextNode(" for you."));
      box.appendChild(said);
    }
  }

  function drawRecent() {
    var list = document.getElementById("recent");
    list.innerHTML = "";
    (st.recent || []).slice().reverse().forEach(function (r) {
      var li = el("li", r.seat === cfg.seat ? "me" : "");
      li.appendChild(el("span", "", (data.names[r.seat] || "seat " + r.seat) + " " + r.text));
      if (r.cards && r.cards.length) li.appendChild(T.cardRow(r.cards, "small"));
      list.appendChild(li);
    });
  }

  function drawEnded() {
    var box = document.getElementById("ended");
    box.hidden = !st.ended;
    if (!st.ended) return;
    var t = document.getElementById("final");
    t.innerHTML = "";
    var head = el("tr");
    ["seat", "", "score", "place"].forEach(function (h) { head.appendChild(el("th", "", h)); });
    t.appendChild(head);
    st.ended.results.forEach(function (r) {
      var tr = el("tr");
      if (r.seat === cfg.seat) tr.className = "me";
      [r.seat, data.names[r.seat] + (r.forfeited ? " (forfeited)" : ""), r.score, r.rank].forEach(function (v) {
        tr.appendChild(el("td", "", String(v)));
      });
      t.appendChild(tr);
    });
    var links = document.getElementById("replay-links");
    links.innerHTML = "";
    if (st.ended.status !== "complete") links.appendChild(el("span", "", "match " + st.ended.status + ". "));
    if (st.replay) {
      links.appendChild(document.createTextNode("Replay: "));
      var a = el("a", "", "all cards");
      a.href = st.replay.all;
      a.id = "replay-all";
      links.appendChild(a);
      links.appendChild(document.createTextNode(" · "));
      var b = el("a", "", "as your seat");
      b.href = st.replay.seat;
      links.appendChild(b);
    } else {
      links.appendChild(el("span", "muted", "the replay is being written…"));
    }
  }

  function draw() {
    if (!st) return;
    root.setAttribute("data-state", st.ended ? "ended" : !st.table ? "waiting" :
                      st.request ? (st.request.sent ? "sent" : "your-turn") : "others");
    root.setAttribute("data-request", st.request ? st.request.id : "");
    root.setAttribute("data-version", st.v);
    var note = document.getElementById("note");
    note.textContent = st.note || "";
    note.hidden = !st.note;
    if (st.table) {
      T.drawTable(data, st.table);
      T.drawSide(st.table);
      drawHand();
    }
    drawActions();
    drawNotice();
    drawRecent();
    drawEnded();
    document.getElementById("auto").checked = st.auto !== false;
    document.title = (myTurn() ? "\u25B6 your turn \u00B7 " : "") + title;
    tick();
  }

  function tick() {
    var c = document.getElementById("clock");
    if (deadline === null || !myTurn()) { c.textContent = ""; c.className = "clock"; return; }
    var left = Math.max(0, deadline - performance.now());
    var bank = st.request.bank_left_ms;
    var decision = Math.max(0, left - bank);
    c.textContent = (left / 1000).toFixed(1) + " s left" + (bank ? " (" + (decision / 1000).toFixed(1) +
      " s + bank " + (Math.min(left, bank) / 1000).toFixed(1) + " s)" : "");
    c.className = "clock" + (left < 10000 ? " low" : "");
  }
  setInterval(tick, 200);

  document.getElementById("auto").addEventListener("change", function (e) {
    post(cfg.auto, { on: e.target.checked })["catch"](function () {});
  });

  var conn = document.getElementById("connection");
  var es = new EventSource(cfg.events);
  es.addEventListener("state", function (e) {
    st = JSON.parse(e.data);
    if (st.names && st.names.length) data.names = st.names;  // the match's own (bots named by their Hello)
    var rid = st.request ? st.request.id : null;
    if (rid !== selectedFor) { selected = []; selectedFor = rid; hintAt = -1; }
    deadline = st.request && !st.request.sent ?
      performance.now() + st.request.time_left_ms + st.request.bank_left_ms - st.request.elapsed_ms : null;
    conn.textContent = "";
    draw();
  });
  es.addEventListener("end", function () { es.close(); });
  es.onerror = function () { if (es.readyState !== 2) conn.textContent = "· connection lost, reconnecting…"; };
})();
