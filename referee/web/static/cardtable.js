/* The card table: draws one table snapshot (see referee/web/table.py) into the
 * page's #table, #acts, #piles, #caption and side panels. Shared by the replay
 * viewer (viewer.js) and the human seat's page (play.js). No network request. */
(function () {
  "use strict";
  var SUITS = { S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663" };
  var POSITIONS = { 2: ["bottom", "top"], 3: ["bottom", "left", "right"], 4: ["bottom", "left", "top", "right"] };

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }

  /* "1 card", "2 cards": n and the noun in the singular or plural (nouns: the
   * plural when it is not noun + "s"). */
  function counted(n, noun, nouns) {
    return n + " " + (n === 1 ? noun : nouns || noun + "s");
  }

  function card(code) {
    var c = el("span", "card");
    c.setAttribute("data-card", code);
    c.title = code;
    if (code === "BJ" || code === "RJ") {
      c.className += " joker " + (code === "RJ" ? "red" : "black");
      c.appendChild(el("span", "r", "JK"));
      c.appendChild(el("span", "s", "\u2605"));
      return c;
    }
    var s = code.charAt(1);
    c.className += (s === "H" || s === "D") ? " red" : " black";
    if (code.charAt(0) === "T") c.className += " ten";
    c.appendChild(el("span", "r", code.charAt(0) === "T" ? "10" : code.charAt(0)));
    c.appendChild(el("span", "s", SUITS[s] || s));
    return c;
  }

  /* A card code in a line of text: its rank and suit symbol ("TH" -> "10♥"), red or black. */
  function cardText(code) {
    var s = code.charAt(1), joker = code === "BJ" || code === "RJ";
    var red = joker ? code === "RJ" : s === "H" || s === "D";
    return el("span", "card-text " + (red ? "red" : "black"),
              joker ? (code === "RJ" ? "red" : "black") + " joker" :
              (code.charAt(0) === "T" ? "10" : code.charAt(0)) + (SUITS[s] || s));
  }

  var CODE = /\b([2-9TJQKA][SHDC]|BJ|RJ)\b/g;

  /* A line of text (a referee's message) as nodes, its card codes written as cardText does. */
  function textWithCards(text) {
    var f = document.createDocumentFragment(), at = 0, m;
    CODE.lastIndex = 0;
    while ((m = CODE.exec(text)) !== null) {
      if (m.index > at) f.appendChild(document.createTextNode(text.slice(at, m.index)));
      f.appendChild(cardText(m[1]));
      at = m.index + m[0].length;
    }
    if (at < text.length) f.appendChild(document.createTextNode(text.slice(at)));
    return f;
  }

  function backs(n, max) {
    var f = document.createDocumentFragment();
    for (var i = 0; i < Math.min(n, max); i++) f.appendChild(el("span", "card back"));
    return f;
  }

  function cardRow(cards, cls) {
    var row = el("div", "cards " + (cls || ""));
    (cards || []).forEach(function (c) { row.appendChild(card(c)); });
    return row;
  }

  /* data: {players, names, view}; the view's seat (or seat 0) sits at the bottom. */
  function bottomSeat(data) { return typeof data.view === "number" ? data.view : 0; }

  function drawSeat(data, s, st) {
    var seat = st["s" + s];
    var pos = POSITIONS[data.players][(s - bottomSeat(data) + data.players) % data.players];
    var box = document.querySelector('.seat[data-seat="' + s + '"]');
    if (!box) {
      box = el("div", "seat pos-" + pos);
      box.setAttribute("data-seat", s);
      document.getElementById("table").appendChild(box);
      var slot = el("div", "act pos-" + pos);
      slot.setAttribute("data-seat", s);
      document.getElementById("acts").appendChild(slot);
    }
    box.innerHTML = "";
    box.classList.toggle("actor", !!(st.caption && st.caption.seat === s));
    var head = el("div", "seat-head");
    var name = el("span", "seat-name", data.names[s]);
    name.title = data.names[s];  // the whole name where the box is too narrow for it
    head.appendChild(name);
    head.appendChild(el("span", "seat-no", "seat " + s));
    (seat.tags || []).forEach(function (t) { head.appendChild(el("span", "tag tag-" + t.replace(/[^a-z]/g, ""), t)); });
    head.appendChild(el("span", "score", seat.score));
    box.appendChild(head);
    var hand = el("div", "cards hand");
    if (seat.hand) {
      seat.hand.forEach(function (c) { hand.appendChild(card(c)); });
    } else {
      hand.classList.add("hidden-hand");
      hand.appendChild(backs(seat.count, 30));
    }
    box.appendChild(hand);
    box.appendChild(el("div", "count", counted(seat.count, "card")));

    var slotEl = document.querySelector('.act[data-seat="' + s + '"]');
    slotEl.innerHTML = "";
    var act = seat.act;
    slotEl.classList.toggle("win", !!(act && act.win));
    if (act) {
      if (act.cards && act.cards.length) slotEl.appendChild(cardRow(act.cards, "played"));
      if (act.hidden) { var hb = el("div", "cards played"); hb.appendChild(backs(act.hidden, 12)); slotEl.appendChild(hb); }
      if (act.text) slotEl.appendChild(el("div", "act-text", act.text));
    }
  }

  function drawTable(data, st) {
    for (var s = 0; s < data.players; s++) drawSeat(data, s, st);
    var piles = document.getElementById("piles");
    piles.innerHTML = "";
    (st.piles || []).forEach(function (p) {
      var d = el("div", "pile");
      d.appendChild(el("div", "pile-label", p.label));
      var row = cardRow(p.cards);
      if (p.hidden) row.appendChild(backs(p.hidden, 12));
      d.appendChild(row);
      piles.appendChild(d);
    });
    var cap = document.getElementById("caption");
    cap.innerHTML = "";
    if (st.caption) {
      var who = st.caption.seat === null || st.caption.seat === undefined ? "" : data.names[st.caption.seat] + " ";
      cap.appendChild(el("span", "cap-text", who + st.caption.text));
      if (st.caption.cards && st.caption.cards.length) cap.appendChild(cardRow(st.caption.cards, "small"));
    }
  }

  function drawSide(st) {
    document.getElementById("round").textContent = st.round || "";
    document.getElementById("phase").textContent = st.phase || "";
    var info = document.getElementById("info");
    info.innerHTML = "";
    (st.info || []).forEach(function (r) {
      info.appendChild(el("dt", "", r[0]));
      info.appendChild(el("dd", "", r[1]));
    });
    document.getElementById("no-info").hidden = !!(st.info && st.info.length);
    var res = document.getElementById("results");
    res.innerHTML = "";
    if (st.results) {
      var thead = el("thead"), tr = el("tr");
      st.results.cols.forEach(function (c) { tr.appendChild(el("th", "", c)); });
      thead.appendChild(tr);
      res.appendChild(thead);
      var tb = el("tbody");
      st.results.rows.forEach(function (row) {
        var r = el("tr");
        row.forEach(function (c) { r.appendChild(el("td", "", c)); });
        tb.appendChild(r);
      });
      res.appendChild(tb);
    }
    document.getElementById("no-results").hidden = !!st.results;
    var over = document.getElementById("over");
    over.textContent = st.over || "";
    over.hidden = !st.over;
    var faults = document.getElementById("faults");
    faults.innerHTML = "";
    (st.faults || []).forEach(function (f) {  // {text, step, round}, in the order they happened
      var li = el("li");
      var when = [f.round, f.step === null || f.step === undefined ? "" : "step " + f.step].filter(Boolean).join(", ");
      if (when) {
        var at = el(f.step === null || f.step === undefined ? "span" : "a", "fault-at", when);
        if (at.tagName === "A") { at.href = "#step=" + f.step; at.setAttribute("data-step", f.step); }
        li.appendChild(at);
        li.appendChild(document.createTextNode(" "));
      }
      li.appendChild(document.createTextNode(f.text));
      faults.appendChild(li);
    });
    faults.hidden = !(st.faults && st.faults.length);
    document.getElementById("no-faults").hidden = !faults.hidden;
  }

  window.CardTable = { el: el, counted: counted, card: card, cardText: cardText, textWithCards: textWithCards, backs: backs,
                       cardRow: cardRow, drawTable: drawTable, drawSide: drawSide };
})();
