/* Replay viewer: draws one step of a match from the page's replay data.
 * The data (#replay-data) holds step 0 whole and each later step as the keys
 * that changed; see referee/web/replay.py. No network request unless the page
 * watches a live match (data-poll), then only to its own server. */
(function () {
  "use strict";
  var SUITS = { S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663" };
  var POSITIONS = { 2: ["bottom", "top"], 3: ["bottom", "left", "right"], 4: ["bottom", "left", "top", "right"] };
  var root = document.getElementById("replay");
  if (!root) return;
  var data = JSON.parse(document.getElementById("replay-data").textContent);
  var states = [];
  var k = 0;

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
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

  function build(frames) {
    var out = [], cur = {};
    frames.forEach(function (f) {
      var next = {};
      Object.keys(cur).forEach(function (key) { next[key] = cur[key]; });
      Object.keys(f).forEach(function (key) {
        if (f[key] === null) delete next[key]; else next[key] = f[key];
      });
      out.push(next);
      cur = next;
    });
    return out;
  }

  function me() { return typeof data.view === "number" ? data.view : 0; }

  function drawSeat(s, st) {
    var seat = st["s" + s];
    var pos = POSITIONS[data.players][(s - me() + data.players) % data.players];
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
    box.classList.toggle("actor", st.caption && st.caption.seat === s);
    var head = el("div", "seat-head");
    head.appendChild(el("span", "seat-name", data.names[s]));
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
    box.appendChild(el("div", "count", seat.count + (seat.count === 1 ? " card" : " cards")));

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

  function drawTable(st) {
    for (var s = 0; s < data.players; s++) drawSeat(s, st);
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
    (st.faults || []).forEach(function (f) { faults.appendChild(el("li", "", f)); });
    faults.hidden = !(st.faults && st.faults.length);
    document.getElementById("no-faults").hidden = !faults.hidden;
  }

  function drawControls() {
    var n = states.length - 1;
    document.getElementById("stepno").textContent = "step " + k + " of " + n;
    var slider = document.getElementById("slider");
    slider.max = n;
    slider.value = k;
    var sel = document.getElementById("jump");
    if (sel.options.length !== data.rounds.length) {
      sel.innerHTML = "";
      data.rounds.forEach(function (r) {
        var o = el("option", "", r[0] || "start");
        o.value = r[1];
        sel.appendChild(o);
      });
    }
    var cur = 0;
    data.rounds.forEach(function (r, i) { if (r[1] <= k) cur = i; });
    sel.selectedIndex = cur;
    document.querySelectorAll("a.keep-step").forEach(function (a) {
      a.href = a.getAttribute("href").split("#")[0] + "#step=" + k;
    });
  }

  function show(i) {
    k = Math.max(0, Math.min(states.length - 1, i));
    var st = states[k];
    drawTable(st);
    drawSide(st);
    drawControls();
    root.setAttribute("data-step", k);
    if (history.replaceState) history.replaceState(null, "", "#step=" + k);
  }

  function roundStart(dir) {
    var starts = data.rounds.map(function (r) { return r[1]; });
    if (dir > 0) { for (var i = 0; i < starts.length; i++) if (starts[i] > k) return starts[i]; return states.length - 1; }
    for (var j = starts.length - 1; j >= 0; j--) if (starts[j] < k) return starts[j];
    return 0;
  }

  document.getElementById("first").onclick = function () { show(0); };
  document.getElementById("prev").onclick = function () { show(k - 1); };
  document.getElementById("next").onclick = function () { show(k + 1); };
  document.getElementById("last").onclick = function () { show(states.length - 1); };
  document.getElementById("slider").oninput = function (e) { show(parseInt(e.target.value, 10)); };
  document.getElementById("jump").onchange = function (e) { show(parseInt(e.target.value, 10)); };
  document.addEventListener("keydown", function (e) {
    // the slider and the round menu handle their own keys (and report through their own events)
    if (e.target && (e.target.tagName === "INPUT" || e.target.tagName === "SELECT")) return;
    var to = null;
    if (e.key === "ArrowRight") to = k + 1;
    else if (e.key === "ArrowLeft") to = k - 1;
    else if (e.key === "Home") to = 0;
    else if (e.key === "End") to = states.length - 1;
    else if (e.key === "PageDown") to = roundStart(1);
    else if (e.key === "PageUp") to = roundStart(-1);
    if (to !== null) { e.preventDefault(); show(to); }
  });

  states = build(data.frames);
  var m = /step=(\d+)/.exec(location.hash);
  show(m ? parseInt(m[1], 10) : (data.complete ? 0 : states.length - 1));  // a live match: follow its end

  var poll = root.getAttribute("data-poll");
  if (poll && !data.complete) {
    var timer = setInterval(function () {
      fetch(poll, { cache: "no-store" }).then(function (r) { return r.ok ? r.json() : null; }).then(function (d) {
        if (!d) return;
        var atEnd = k === states.length - 1;
        data = d;
        states = build(d.frames);
        show(atEnd ? states.length - 1 : k);
        if (d.complete) {
          clearInterval(timer);
          var done = document.getElementById("live-done");
          if (done) done.hidden = false;
        }
      }).catch(function () {});
    }, parseInt(root.getAttribute("data-poll-ms") || "1500", 10));
  }
})();
